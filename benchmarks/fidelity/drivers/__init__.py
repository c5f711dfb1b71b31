"""Scripts that run inside a peer's own venv (not this project's) and talk JSON lines with the
peer's adapter in ``subjects/``: they import only the peer and the standard library."""
