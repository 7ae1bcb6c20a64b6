"""What a learning agent sees: one flat vector from the acting player's point of view.

Seats are listed clockwise starting with the observer, and ring positions are measured
from the observer's start, so one policy can play every seat. Every entry is in 0..1.
The table of entries is in docs/environments.md; `OBSERVATION_SIZE` counts them.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from ..board import CENTRE, COLOURS, HANGAR, LANE_FIRST, RING_INDEX, RING_SIZE, SEAT, TAKEOFF
from ..game import State, carried_planes, legal_moves
from ..rules import RULE_FEATURES, Rules, rule_flags

PASS_ACTION: Final = 4
"""Actions 0..3 move that plane (any plane of a stack); action 4 passes."""
ACTIONS: Final = 5

PLANE_FEATURES: Final = 7  # hangar, takeoff, ring, lane, centre, progress, relative ring cell
SEAT_FEATURES: Final = 2 + 4 * PLANE_FEATURES


OBSERVATION_SIZE: Final = 4 * SEAT_FEATURES + 6 + 1 + RULE_FEATURES


def rule_features(rules: Rules) -> np.ndarray:
    """1 for each rule feature the rules have (a face in a set, the value of a choice)."""
    return np.array(rule_flags(rules), dtype=np.float32)


def observe(state: State, colour: str) -> np.ndarray:
    """The observation vector of `colour` (who need not be the player to move)."""
    me = SEAT[colour]
    vector = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    for offset in range(4):
        seat_colour = COLOURS[(me + offset) % 4]
        if seat_colour not in state.players:
            continue
        base = offset * SEAT_FEATURES
        planes = state.planes_of(seat_colour)
        vector[base] = 1
        vector[base + 1] = seat_colour in state.ranking
        for index, progress in enumerate(planes):
            at = base + 2 + index * PLANE_FEATURES
            if progress == HANGAR:
                vector[at] = 1
            elif progress == TAKEOFF:
                vector[at + 1] = 1
            elif progress < LANE_FIRST:
                vector[at + 2] = 1
                cell = RING_INDEX[SEAT[seat_colour]][progress]
                vector[at + 6] = ((cell - RING_INDEX[me][1]) % RING_SIZE + 1) / RING_SIZE
            elif progress < CENTRE:
                vector[at + 3] = 1
            else:
                vector[at + 4] = 1
            vector[at + 5] = max(progress, 0) / CENTRE
    at = 4 * SEAT_FEATURES
    if state.roll is not None:
        vector[at + state.roll - 1] = 1
    vector[at + 6] = min(state.sixes, 3) / 3
    vector[at + 7 :] = rule_features(state.rules)
    return vector


def action_mask(state: State) -> np.ndarray:
    """Which actions are legal for the player to move (all zero outside the move phase)."""
    mask = np.zeros(ACTIONS, dtype=np.int8)
    if state.phase != "move":
        return mask
    moves = legal_moves(state)
    if not moves:
        mask[PASS_ACTION] = 1
    for move in moves:
        for plane in carried_planes(state, move):
            mask[plane] = 1
    return mask


def to_plane(action: int) -> int | None:
    return None if action == PASS_ACTION else int(action)
