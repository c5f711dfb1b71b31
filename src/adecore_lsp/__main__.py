"""``python -m adecore_lsp``: the command line, as the ``adecore-lsp`` script runs it."""

from .cli.main import entry

entry()
