"""Diagnostics known final, what an edit broke (the affected set, the delta, the answers kept),
and the findings new since a revision. Above :mod:`..files`."""
