"""A small module for the examples to open: one unused import, one undefined name."""

import os


def greet(name: str) -> str:
    message = f"Hello, {name} 😀!"
    return mesage
