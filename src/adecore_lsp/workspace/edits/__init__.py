"""Edits as plans: made by servers, previewed, applied through the one write path, and what
they broke. The top floor under :mod:`..workspace`."""
