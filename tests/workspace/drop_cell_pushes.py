"""A stdio proxy in front of a real language server that drops the diagnostics it pushes for
one notebook cell once the notebook has changed: that cell is then silent, and its report
can only come from a pull.

    python drop_cell_pushes.py SUFFIX SERVER [ARGS...]

Everything passes through unchanged but ``textDocument/publishDiagnostics`` for a URI that
ends with ``SUFFIX`` sent after the first ``notebookDocument/didChange``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.workspace.hide_notebook_sync import read_frame, write_frame
else:  # run as a script beside it
    from hide_notebook_sync import read_frame, write_frame


def main() -> None:
    suffix = sys.argv[1]
    server = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    stdin, stdout = server.stdin, server.stdout
    assert stdin is not None
    assert stdout is not None
    changed = threading.Event()

    def up() -> None:
        while (frame := read_frame(sys.stdin.buffer)) is not None:
            if json.loads(frame).get("method") == "notebookDocument/didChange":
                changed.set()
            write_frame(stdin, frame)
        stdin.close()

    threading.Thread(target=up, daemon=True).start()
    while (frame := read_frame(stdout)) is not None:
        message = json.loads(frame)
        params = message.get("params") or {}
        if (
            changed.is_set()
            and message.get("method") == "textDocument/publishDiagnostics"
            and str(params.get("uri", "")).endswith(suffix)
        ):
            continue
        write_frame(sys.stdout.buffer, frame)
    sys.exit(server.wait())


if __name__ == "__main__":
    main()
