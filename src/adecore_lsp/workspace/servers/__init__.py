"""The language servers: which exist, which take a file, where each runs, what each is told,
trusted or not, and the handle of each started one. Above :mod:`..disk`."""
