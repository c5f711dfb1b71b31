"""A language server that writes one valid LSP message (a ``window/logMessage``) and exits
before any handshake: at once (``python one_frame_server.py``), or after lingering a while
with its stdin unread (``--linger SECONDS``)."""

from __future__ import annotations

import sys
import time

BODY = b'{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"hello"}}'

if __name__ == "__main__":
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n%s" % (len(BODY), BODY))
    sys.stdout.buffer.flush()
    if sys.argv[1:2] == ["--linger"]:
        time.sleep(float(sys.argv[2]))
