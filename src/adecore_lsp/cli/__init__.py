"""The ``adecore-lsp`` command line: a thin shell over the workspace layer."""
