"""The daemon: language servers kept warm between commands of the command line.

``adecore-lsp daemon start`` runs it in the background (``daemon run`` in the foreground);
a command then runs in it with the caller's folder, arguments and environment, its output
streamed back as it is written (:mod:`.client`, standard library only, on the caller's side;
:mod:`.server` and :mod:`.pool` in the daemon; :mod:`.wire` between them; :mod:`.paths`
where the socket lives). ``daemon.md`` is the contract.
"""
