"""Hypothesis strategies shared by the property tests: rule sets, player lists, whole games."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

from flyingchess import Rules
from flyingchess.board import COLOURS
from flyingchess.rules import CHOICES

die_sets = st.frozensets(st.integers(1, 6), max_size=6)

rules_strategy = st.builds(
    Rules,
    launch=die_sets.filter(bool),
    extra_roll=die_sets,
    three_sixes=st.sampled_from(CHOICES["three_sixes"]),
    finish=st.sampled_from(CHOICES["finish"]),
    chain=st.sampled_from(CHOICES["chain"]),
    capture=st.sampled_from(CHOICES["capture"]),
    flight_capture=st.booleans(),
    stacking=st.sampled_from(CHOICES["stacking"]),
    end=st.sampled_from(CHOICES["end"]),
)
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
