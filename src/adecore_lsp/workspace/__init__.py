"""The workspace layer: language servers for one folder of code, spoken about in people's
units (paths relative to the root, 1-based lines and code-point columns).

:class:`Workspace` starts the servers a file needs, knows when they are ready and when
diagnostics are final, takes targets by name, and turns edits into previews and atomic
writes. :class:`Registry` and :class:`ServerSpec` say which servers exist and how they
behave. Every public name is re-exported by :mod:`adecore_lsp`.
"""
