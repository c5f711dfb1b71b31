"""The root on disk: its files, its git revisions, the programs on ``PATH``, people's units.

The lowest floor of the workspace layer: it imports nothing of the floors above.
"""
