"""What a learning agent sees: one flat vector from the acting player's point of view.

Seats are listed clockwise starting with the observer, and ring positions are measured
from the observer's start, so one policy can play every seat. Every entry is in 0..1.
The table of entries is in docs/environments.md; `OBSERVATION_SIZE` counts them. The
vector is Markov: with whose turn it is and which planes this turn's moves and sixes
carried (the three-sixes rule's memory), the position, the die and the rules determine
everything that can happen next. `envs.vector.batch_observe` computes the same vector
for a whole batch of games (tested equal, entry by entry).
"""

from __future__ import annotations

from typing import Final

import numpy as np

from ..engine.board import CENTRE, COLOURS, HANGAR, LANE_FIRST, RING_INDEX, RING_SIZE, SEAT, TAKEOFF
from ..engine.game import State, carried_planes, legal_moves
from ..engine.moves import move_infos
from ..engine.rules import RULE_FEATURES, Rules, rule_flags
from .batch import ACTIONS, PASS_ACTION

PLANE_FEATURES: Final = 7  # hangar, takeoff, ring, lane, centre, progress, relative ring cell
SEAT_FEATURES: Final = 2 + 4 * PLANE_FEATURES


DIE_AT: Final = 4 * SEAT_FEATURES
"""Entries DIE_AT..+5: the die, one-hot."""
SIXES_AT: Final = DIE_AT + 6
TURN_AT: Final = SIXES_AT + 1
"""Entries TURN_AT..+3: the player to move, one-hot by seats clockwise from the observer."""
SIX_MOVED_AT: Final = TURN_AT + 4
"""Entries SIX_MOVED_AT..+3: the mover's planes carried by the sixes of this run."""
LAST_MOVED_AT: Final = SIX_MOVED_AT + 4
"""Entries LAST_MOVED_AT..+3: the mover's planes carried by its latest move this turn."""
MOVES_AT: Final = LAST_MOVED_AT + 4
"""Entries MOVES_AT + 4 i .. +3: what moving plane i with the die would do, when the
observer is to move and may move it (else zeros): the progress it lands on / 56,
whether it captures, whether it jumps or flies, whether it reaches the centre. The
engine's own preview of each move (the page shows the same), so a learner need not
rediscover the board's geometry."""
MOVE_FEATURES: Final = 4
RULES_AT: Final = MOVES_AT + 4 * MOVE_FEATURES
OBSERVATION_SIZE: Final = RULES_AT + RULE_FEATURES


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
    if state.roll is not None:
        vector[DIE_AT + state.roll - 1] = 1
    vector[SIXES_AT] = min(state.sixes, 3) / 3
    if not state.over:
        vector[TURN_AT + (SEAT[state.players[state.turn]] - me) % 4] = 1
        for plane in state.six_moved:
            vector[SIX_MOVED_AT + plane] = 1
        for plane in state.last_moved:
            vector[LAST_MOVED_AT + plane] = 1
        if state.roll is not None and state.colour == colour:
            _move_previews(state, vector)
    vector[RULES_AT:] = rule_features(state.rules)
    return vector


def _move_previews(state: State, vector: np.ndarray) -> None:
    """The MOVES_AT entries: each legal move as the engine plays it (moves.py), under
    every plane it carries (the planes the action mask allows)."""
    for move in move_infos(state):
        for plane in move.planes:
            at = MOVES_AT + plane * MOVE_FEATURES
            vector[at] = max(move.end, 0) / CENTRE
            vector[at + 1] = move.captures
            vector[at + 2] = move.special
            vector[at + 3] = move.finish


def action_mask(state: State, colour: str | None = None) -> np.ndarray:
    """Which actions `colour` (default: the player to move) may take. Never all zero, so
    masked sampling always has an action: where the observer has nothing to decide (the
    game is over, the die is not rolled, or another player is to move) only PASS_ACTION is
    allowed, and a step with it is ignored or refused by the environments."""
    mask = np.zeros(ACTIONS, dtype=np.int8)
    if state.phase != "move" or (colour is not None and state.colour != colour):
        mask[PASS_ACTION] = 1
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
