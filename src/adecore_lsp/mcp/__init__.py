"""The MCP server of ``adecore-lsp mcp``: the workspace layer served to coding agents.

Built on the official Model Context Protocol SDK (PyPI ``mcp``, an optional extra:
``pip install "adecore-lsp[mcp]"``). Nothing here is imported by ``import adecore_lsp`` or by
any other command: the command line reaches :mod:`.server` only when ``mcp`` runs.

- :mod:`.shapes`: the JSON of every tool's result, as typed dictionaries whose JSON schemas
  the tools declare as their ``outputSchema``, and the conversions from the workspace's values;
- :mod:`.render`: the short text of each result, for hosts that show text only;
- :mod:`.state`: what lives for the server's life (its options and its one ``Workspace``),
  and the wrapper every tool call goes through (errors, bounds, progress);
- :mod:`.tools`: the tools, each a thin call of the workspace;
- :mod:`.server`: the server itself, on stdio or streamable HTTP.
"""

from __future__ import annotations

# Internal to the library: the command line is the public face of this package.
__all__: list[str] = []
