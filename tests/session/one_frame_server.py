"""A language server that writes one valid LSP message (a ``window/logMessage``) and exits
at once, before any handshake: run as ``python one_frame_server.py``."""

from __future__ import annotations

import sys

BODY = b'{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"hello"}}'

if __name__ == "__main__":
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n%s" % (len(BODY), BODY))
    sys.stdout.buffer.flush()
