"""The end of a move in every game of a batch (docs/rules.md, a turn and three sixes):
another roll or the next player, the three-sixes memory, finishing and the ranking.

The engine's twin is `game._end_of_move`; tests/test_batch.py compares the two after
every roll.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .words import Bools, Indices, UInt8s

if TYPE_CHECKING:
    from . import BatchGame


def end_of_move(
    game: BatchGame,
    rolls: Indices,
    moved: Bools,
    penalty: Bools,
    carried: UInt8s,
    finished_now: Bools,
    idle: Bools | None = None,
) -> None:
    """After the move: another roll or the next player, the count of sixes and the planes
    they moved, the plane moved last, and the ranking when a player has just finished.
    `idle` games keep all of it."""
    if idle is not None:
        kept = (game.sixes.copy(), game.six_moved.copy(), game.last_moved.copy(), game.turn.copy())
    # (Selections are arithmetic, the fastest NumPy form here: `x * flag` keeps x where
    # flag is true and gives 0 elsewhere; `b ^ ((a ^ b) * flag)` is a where flag, else b.)
    arrays = game.arrays
    was_over = game.over.copy()  # games over before this roll stay as they are
    # a face in extra_roll rolls again, unless it was a third six or the last plane home
    rolls_again = arrays.extra[rolls] & ~(penalty | finished_now | was_over)
    # sixes in a row and the planes they moved; any other outcome starts them again
    another_six = rolls_again & (rolls == 6)
    game.sixes = (game.sixes + 1) * another_six
    game.six_moved = (game.six_moved | carried) * another_six
    # the planes moved most recently in this turn (a pass keeps the earlier ones),
    # forgotten when the turn passes
    latest = game.last_moved ^ ((game.last_moved ^ carried) * moved)
    game.last_moved = latest * rolls_again
    ended = finish(game, np.flatnonzero(finished_now)) if finished_now.any() else None
    # who rolls next: the same player (another roll; a game over), or the next still playing
    next_player = arrays.next_turn[game.turn.astype(np.intp) * 16 + game.finished]
    game.turn = next_player ^ ((game.turn ^ next_player) * (rolls_again | was_over))
    if ended is not None:
        game.turn[ended] = 0  # as in the engine, a game over shows player 0 to move
    if idle is not None:
        for name, value in zip(("sixes", "six_moved", "last_moved", "turn"), kept):
            getattr(game, name)[idle] = value[idle]
        game.rolls += ~(was_over | idle)
    else:
        game.rolls += ~was_over


def finish(game: BatchGame, games: Indices) -> Indices:
    """The players who have just brought their last plane home take the next place;
    returns the games that end (the first to finish under `end: first`, else the
    second-to-last, the last player taking the last place)."""
    turn = game.turn[games]
    game.ranking[games, game.ranked[games]] = turn
    game.ranked[games] += 1
    game.finished[games] |= np.left_shift(1, turn).astype(np.uint8)
    if game.arrays.end_first:
        ended = games
    else:
        ended = games[game.ranked[games] >= len(game.players) - 1]
        game.ranking[ended, game.ranked[ended]] = game.arrays.last_player[game.finished[ended]]
        game.ranked[ended] += 1
    game.over[ended] = True
    game.winner[ended] = game.ranking[ended, 0]
    return ended
