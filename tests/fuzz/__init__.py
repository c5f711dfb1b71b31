"""Bounded fuzz tests: random traffic through the decoder and the session."""

from __future__ import annotations
