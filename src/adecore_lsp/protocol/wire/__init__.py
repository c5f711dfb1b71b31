"""The wire: Content-Length framing, JSON-RPC bookkeeping, the session's state table,
the handshake's params and checks, and the built-in answers to server requests."""
