"""``python -m adecore_lsp.mcp [options]``: the same as ``adecore-lsp mcp [options]``."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ..cli.mcp_command import run_mcp
from ..cli.parser import build_mcp_parser
from ..cli.status import FAILURE


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the MCP server's options and serve until the client goes away."""
    parser = build_mcp_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit:
        return exit.code if isinstance(exit.code, int) else FAILURE
    return run_mcp(args)


if __name__ == "__main__":
    sys.exit(main())
