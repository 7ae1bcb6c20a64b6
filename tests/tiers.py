"""The fast tier's share of a family of cases (`pytest -m "not slow"`, docs in CONTRIBUTING.md).

A family is one check over many inputs (every malformed record, every preset). The fast
tier runs its first case, enough to catch a change that breaks the check itself; the whole
suite (CI) runs every case."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest


def first_fast(cases: Sequence[Any], ids: Sequence[str] | None = None) -> list[Any]:
    """The cases for `pytest.mark.parametrize`, all but the first marked slow."""
    marked = []
    for index, case in enumerate(cases):
        values = case if isinstance(case, tuple) else (case,)
        marks = () if index == 0 else (pytest.mark.slow,)
        marked.append(pytest.param(*values, marks=marks, id=None if ids is None else ids[index]))
    return marked
