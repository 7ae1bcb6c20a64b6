"""The games of a batch as the engine's `State`s and back, so that a position moves between
the engine and the batch simulator (search plays on from it, tests compare the two).

The round trip keeps every array (tests/test_response.py); `last_moved` and `six_moved`
come out as sorted plane indices (the engine keeps them in move order, maybe repeated;
only the sets matter to the rules).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...engine.board import CENTRE, PLANES_PER_COLOUR
from ...engine.game import State

if TYPE_CHECKING:
    from . import BatchGame


def load_states(simulator: BatchGame, states: Sequence[State]) -> None:
    """Write `states` into the games of `simulator` (made for the first state's rules and
    players, one game each), checking each shares them and waits for the die."""
    first = states[0]
    for row, state in enumerate(states):
        if state.rules != first.rules or state.players != first.players:
            raise ValueError("the states of one batch share their rules and players")
        if state.roll is not None:
            raise ValueError(f"a state waiting for a move cannot join a batch: {state.describe()}")
        simulator.positions[row] = state.planes
        simulator.turn[row] = state.turn
        simulator.sixes[row] = state.sixes
        simulator.last_moved[row] = sum(1 << plane for plane in set(state.last_moved))
        simulator.six_moved[row] = sum(1 << plane for plane in set(state.six_moved))
        simulator.finished[row] = sum(
            1 << seat for seat, planes in enumerate(state.planes) if all(p == CENTRE for p in planes)
        )
        ranked = [first.players.index(colour) for colour in state.ranking]
        simulator.ranking[row, : len(ranked)] = ranked
        simulator.ranked[row] = len(ranked)
        simulator.over[row] = state.over
        simulator.winner[row] = ranked[0] if state.over and ranked else -1


def engine_state(simulator: BatchGame, game: int) -> State:
    """The engine's `State` of game `game` of `simulator`, waiting for the die (or over)."""

    def planes_in(bits: int) -> tuple[int, ...]:
        return tuple(i for i in range(PLANES_PER_COLOUR) if bits >> i & 1)

    planes = tuple(tuple(int(p) for p in row) for row in simulator.positions[game])
    ranking = tuple(simulator.players[int(i)] for i in simulator.ranking[game, : int(simulator.ranked[game])])
    return State(
        simulator.rules,
        simulator.players,
        planes,
        int(simulator.turn[game]),
        None,
        int(simulator.sixes[game]),
        planes_in(int(simulator.last_moved[game])),
        planes_in(int(simulator.six_moved[game])),
        ranking,
        bool(simulator.over[game]),
    )
