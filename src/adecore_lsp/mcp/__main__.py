"""``python -m adecore_lsp.mcp [options]``: the MCP server, as ``adecore-lsp mcp`` runs it."""

from ..cli.mcp_command import main

raise SystemExit(main())
