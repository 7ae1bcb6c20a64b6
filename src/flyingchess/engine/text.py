"""Words for the command line and its error lines: counts with the noun in the right number."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`1 game`, `2 games`, `0 games` (`plural` when the noun does not just take an s)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
