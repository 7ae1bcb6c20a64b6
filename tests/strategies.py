"""Hypothesis strategies shared by the property tests: rule sets, player lists, whole games."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

from flyingchess import Rules
from flyingchess.engine.board import COLOURS
from flyingchess.engine.rules import OPTIONS, OptionSpec


def option_strategy(spec: OptionSpec) -> st.SearchStrategy[Any]:
    """Any value of one option, from the option schema (a new option is fuzzed at once)."""
    if spec.kind == "set":
        faces = st.frozensets(st.sampled_from(spec.values), max_size=len(spec.values))
        return faces.filter(bool) if spec.name == "launch" else faces  # a game needs a launch face
    return st.sampled_from(spec.values)


rules_strategy = st.builds(Rules, **{spec.name: option_strategy(spec) for spec in OPTIONS})
"""Any combination of every option (the presets are among them)."""


@st.composite
def players_strategy(draw: Any) -> tuple[str, ...]:
    """2-4 colours in clockwise turn order, starting anywhere."""
    count = draw(st.integers(2, 4))
    chosen = sorted(draw(st.sets(st.sampled_from(range(4)), min_size=count, max_size=count)))
    rotation = draw(st.integers(0, count - 1))
    seats = chosen[rotation:] + chosen[:rotation]
    return tuple(COLOURS[seat] for seat in seats)


def seeded_rng(seed: int) -> random.Random:
    return random.Random(seed)
