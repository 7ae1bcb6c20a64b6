"""Vectorised batch simulator: thousands of games stepped at once with NumPy arrays.

Every rule fact comes from the compiled game (`flyingchess.engine.compiled`): each move's end
and whether it jumps or flies, whom each move sends home, which planes may move, who
rolls next, what a third six sends home. Those become small lookup tables
(`RuleArrays`, envs/batch/rules.py); the batch code only does array work with them (who
moves, sixes, last-moved and moved-by-sixes bitmasks, stacks, captures, finishing,
ranking), so no rule is written twice. Game i of a batch is exactly the
engine's game after the same dice and choices: `BatchGame.to_state(i)` builds the
engine's `State` (tests/test_batch.py compares every state after every roll).

    rng = np.random.default_rng(1)
    game = BatchGame(Rules.preset("classic"), ("red", "yellow", "blue", "green"), 4096)
    while not game.over.all():
        rolls = game.roll(rng)
        game.step(rolls, random_actions(game.move_mask(rolls), rng))

Actions are plane indices 0..3 (any plane of a stack names the stack) or `PASS_ACTION` (4),
legal only when no plane can move. Finished games stay frozen: `step` ignores their
rolls and actions.

Speed: the four planes of one player are four bytes of one uint32 "word", so the hot
path works on one word per game (byte-wise comparisons with the usual bit tricks) and
on small tables indexed by a plane's progress byte (the hangar, -1, is byte 255). The
game keeps the state and its parts live beside it: `words` (the bit tricks),
`moves` (legal moves, their facts, where they go, captures), `turns` (the
end of a move: next player, sixes, finishing), `checks` (what `step` checks) and
`states` (to and from `State`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from ...engine.board import HANGAR, PLANES_PER_COLOUR
from ...engine.game import DEFAULT_PLAYERS, State, validate_players
from ...engine.rules import Rules
from .checks import checked_step
from .moves import capture, carry, movable, move_bits, move_effects, punish
from .rules import RuleArrays, rule_arrays
from .states import engine_state, load_states
from .turns import end_of_move
from .words import (
    ACTIONS,
    ALL_CENTRE,
    CHOICE_TABLE,
    CHOICES,
    DIE_OF_DRAW,
    DRAWS,
    PASS_ACTION,
    PATHS,
    Int8s,
    UInt8s,
    Words,
    as_indices,
    bits_to_bools,
    bool_bits,
)
from .words import Bools as Bools  # re-exported: the environments' array types
from .words import Indices as Indices

# --------------------------------------------------------------------------- the batch


class BatchGame:
    """`batch` games of `players` (colours in turn order, or a count) under `rules`.

    State arrays (read them; change them only through the methods):
    - `positions` int8 [B, players, 4]: each plane's progress, players in turn order
      (the layout of `State.planes`);
    - `turn` int8 [B]: index of the player to roll (0 once the game is over);
    - `sixes` int8 [B]: sixes in a row in this turn;
    - `last_moved`, `six_moved` uint8 [B]: bitmasks of the planes carried by the latest
      move of this turn and by the sixes of the current run (the three-sixes rule);
    - `finished` uint8 [B]: bitmask of the players whose four planes are home;
    - `ranking` int8 [B, players] and `ranked` int8 [B]: the engine's ranking as player
      indices (-1 beyond `ranked`);
    - `over` bool [B]; `winner` int8 [B] (-1 while playing); `rolls` int32 [B]: rolls taken.
    """

    _FIELDS: Final = (
        "positions",
        "turn",
        "sixes",
        "last_moved",
        "six_moved",
        "finished",
        "ranking",
        "ranked",
        "over",
        "winner",
        "rolls",
    )

    def __init__(self, rules: Rules, players: Sequence[str] | int, batch: int) -> None:
        if isinstance(players, int):
            if players not in DEFAULT_PLAYERS:
                raise ValueError(f"{players} players: 2, 3 or 4 colours play")
            players = DEFAULT_PLAYERS[players]
        self.rules = rules
        self.players: tuple[str, ...] = validate_players(players)
        self.arrays = rule_arrays(rules, self.players)
        self._allocate(batch)

    def _allocate(self, batch: int) -> None:
        count = len(self.players)
        self.positions: Int8s = np.full((batch, count, PLANES_PER_COLOUR), HANGAR, np.int8)
        self.turn: Int8s = np.zeros(batch, np.int8)
        self.sixes: Int8s = np.zeros(batch, np.int8)
        self.last_moved: UInt8s = np.zeros(batch, np.uint8)
        self.six_moved: UInt8s = np.zeros(batch, np.uint8)
        self.finished: UInt8s = np.zeros(batch, np.uint8)
        self.ranking: Int8s = np.full((batch, count), -1, np.int8)
        self.ranked: Int8s = np.zeros(batch, np.int8)
        self.over: Bools = np.zeros(batch, np.bool_)
        self.winner: Int8s = np.full(batch, -1, np.int8)
        self.rolls: npt.NDArray[np.int32] = np.zeros(batch, np.int32)
        self._refresh()

    def _refresh(self) -> None:
        """Views and indices that follow the arrays' size."""
        self._words: Words = self.positions.view(np.uint32).reshape(self.batch, len(self.players))
        self._flat_words: Words = self._words.reshape(-1)
        self._first_words = np.arange(self.batch, dtype=np.intp) * len(self.players)

    @property
    def batch(self) -> int:
        return int(self.turn.shape[0])

    def reset(self) -> None:
        """Every game back to the start (the same for all games: no randomness)."""
        self._allocate(self.batch)

    def reset_games(self, games: Indices) -> None:
        """The games at these indices back to the start; the others keep their state."""
        self.positions[games] = HANGAR
        for name in ("turn", "sixes", "last_moved", "six_moved", "finished", "ranked", "rolls"):
            getattr(self, name)[games] = 0
        self.ranking[games] = -1
        self.over[games] = False
        self.winner[games] = -1

    def take(self, games: Indices) -> BatchGame:
        """A new batch of copies of the games at these indices (same rules and players)."""
        taken = BatchGame.__new__(BatchGame)
        taken.rules, taken.players, taken.arrays = self.rules, self.players, self.arrays
        for name in self._FIELDS:
            setattr(taken, name, np.ascontiguousarray(getattr(self, name)[games]))
        taken._refresh()
        return taken

    def put(self, games: Indices, other: BatchGame) -> None:
        """Write `other`'s games (a `take` of these indices, played on) back in place."""
        for name in self._FIELDS:
            getattr(self, name)[games] = getattr(other, name)

    def keep(self, games: Indices) -> None:
        """Keep only the games at these indices, in this order (compaction)."""
        for name in self._FIELDS:
            setattr(self, name, np.ascontiguousarray(getattr(self, name)[games]))
        self._refresh()

    # ----------------------------------------------------------------- chance and masks

    def roll(self, rng: np.random.Generator) -> Int8s:
        """One die per game (1..6, int8), drawn from `rng`."""
        return rng.integers(1, 7, size=self.batch, dtype=np.int8)

    def _mover_rows(self) -> Indices:
        """Where in the flat word array each game's player to move keeps its planes."""
        return self._first_words + self.turn

    def _penalty(self, rolls: Indices) -> Bools:
        """Games whose roll is a third six in a row: no move, and planes go home."""
        if not self.arrays.third_six:
            return np.zeros(self.batch, np.bool_)
        penalty: Bools = (rolls == 6) & (self.sixes >= 2) & ~self.over
        return penalty

    def move_mask(self, rolls: npt.ArrayLike) -> Bools:
        """bool [B, 4]: the engine's `legal_moves` (a stack named by its lowest plane).
        A uniform choice among these is uniform over moves, not planes."""
        indices = as_indices(rolls)
        words = self._flat_words[self._mover_rows()]
        return bits_to_bools(move_bits(self.arrays, words, indices, self._penalty(indices) | self.over))

    def action_mask(self, rolls: npt.ArrayLike) -> Bools:
        """bool [B, 5]: the planes 0..3 that may be named (any plane of a movable stack),
        and column 4, pass, true exactly where no plane may move (or the game is over)."""
        indices = as_indices(rolls)
        allowed = movable(self.arrays, self._flat_words[self._mover_rows()], indices)
        allowed &= ~(self._penalty(indices) | self.over)[:, None]
        mask = np.empty((self.batch, ACTIONS), np.bool_)
        mask[:, :PLANES_PER_COLOUR] = allowed
        mask[:, PASS_ACTION] = ~allowed.any(axis=1)
        return mask

    def mover_planes(self) -> Int8s:
        """int8 [B, 4]: the progress of each plane of the player to move (a copy)."""
        planes: Int8s = self.positions[np.arange(self.batch), self.turn].copy()
        return planes

    def move_facts(self, rolls: npt.ArrayLike) -> tuple[Int8s, Bools, Bools]:
        """What moving each plane of the player to move with the roll would do, from the
        compiled tables: (its progress [B, 4], whether the move captures [B, 4], whether it
        jumps or flies [B, 4]). Meaningful only for planes `move_mask` allows."""
        planes = self.mover_planes()
        captures, special = move_effects(self.arrays, self._words, planes, self.turn, as_indices(rolls))
        return planes, captures, special

    # ----------------------------------------------------------------- stepping

    def step(self, rolls: npt.ArrayLike, actions: npt.ArrayLike, idle: Bools | None = None) -> None:
        """Play one roll in every game: `rolls` 1..6, `actions` a plane 0..3 or PASS_ACTION.

        Raises ValueError naming the first game with a bad roll or an illegal action, and
        then changes nothing. Games already over ignore their roll and action, and so do
        the games where `idle` is true (they wait, exactly as they were)."""
        rolls_in, actions_in = checked_step(self, rolls, actions, idle)
        self.step_unchecked(rolls_in, actions_in, idle)

    def step_unchecked(self, rolls: npt.ArrayLike, actions: npt.ArrayLike, idle: Bools | None = None) -> None:
        """`step` without checks: rolls 1..6 for every game (over or not) and actions
        taken from `action_mask` or `move_mask` (so PASS_ACTION in games over or under a third
        six, and in the `idle` games, which wait unchanged). Anything else leaves the
        games in states the rules never reach."""
        rows = self._mover_rows()
        indices = as_indices(rolls)
        actions_in, penalty = as_indices(actions), self._penalty(indices)
        if idle is not None:
            actions_in = np.where(idle, PASS_ACTION, actions_in)
            penalty &= ~idle
        self._advance(rows, self._flat_words[rows], indices, actions_in, penalty, idle)

    def step_random(self, rng: np.random.Generator) -> tuple[Indices, Indices]:
        """Roll and play a uniformly random legal move in every game: the fast path of
        `roll`, `move_mask`, `random_actions` and `step_unchecked` (one draw per game).
        Returns the rolls and actions played."""
        rows = self._mover_rows()
        before = self._flat_words[rows]
        draws = rng.integers(0, DRAWS, size=self.batch, dtype=np.int16).astype(np.intp)
        rolls = DIE_OF_DRAW[draws]
        penalty = self._penalty(rolls)
        bits = move_bits(self.arrays, before, rolls, penalty | self.over)
        actions = CHOICE_TABLE[bits.astype(np.intp) * DRAWS + draws]
        self._advance(rows, before, rolls, actions, penalty)
        return rolls, actions

    def _advance(
        self, rows: Indices, before: Words, rolls: Indices, actions: Indices, penalty: Bools, idle: Bools | None = None
    ) -> None:
        """The move (or pass, or three-sixes penalty) and its consequences in every game
        not `idle`; `before` holds the mover's planes, at `rows` of the flat word array."""
        moved = actions != PASS_ACTION
        after, paths, carried = carry(self.arrays, before, rolls, actions, moved)
        if self.arrays.third_six and penalty.any():
            punish(self.arrays, before, after, np.flatnonzero(penalty), self.last_moved, self.six_moved)
        capture(self.arrays, self._flat_words, paths + self.turn.astype(np.intp) * PATHS)
        self._flat_words[rows] = after
        finished_now = moved & (after == ALL_CENTRE)  # the mover's last plane came home
        end_of_move(self, rolls, moved, penalty, carried, finished_now, idle)

    # ----------------------------------------------------------------- engine view

    @classmethod
    def from_states(cls, states: Sequence[State]) -> BatchGame:
        """A batch of the engine's states of one game (same rules and players), each
        waiting for the die: the inverse of `to_state`, so that search can play on from
        a position on the batch simulator."""
        if not states:
            raise ValueError("no states to make a batch of")
        game = cls(states[0].rules, states[0].players, len(states))
        load_states(game, states)
        return game

    def to_state(self, game: int) -> State:
        """The engine's `State` of game `game`, waiting for the die (or over); `last_moved`
        and `six_moved` as sorted plane indices (only the sets matter to the rules)."""
        return engine_state(self, game)


# --------------------------------------------------------------------------- policies


def random_actions(mask: Bools, rng: np.random.Generator) -> Indices:
    """A uniformly random true plane column of each row of `mask` ([B, 4] or [B, 5]); PASS_ACTION
    where no plane column is true. Give `move_mask` for a uniform choice among moves."""
    picks = rng.integers(0, CHOICES, size=mask.shape[0], dtype=np.int16)
    actions: Indices = CHOICE_TABLE[bool_bits(mask[:, :PLANES_PER_COLOUR]).astype(np.intp) * DRAWS + picks]
    return actions


def heuristic_actions(game: BatchGame, rolls: npt.ArrayLike, mask: Bools | None = None) -> Indices:
    """The heuristic bot's choice in every game (docs/rules.md §9): a
    capture, else a jump or flight, else a launch, else the furthest plane; ties go to
    the largest progress, then the lowest index. `mask` ([B, 4] or [B, 5]) defaults to
    `game.move_mask(rolls)`. What each move does comes from `BatchGame.move_facts`."""
    indices = as_indices(rolls)
    legal = game.move_mask(indices) if mask is None else mask[:, :PLANES_PER_COLOUR]
    start, captures, special = game.move_facts(indices)
    category = np.select([captures, special, start == HANGAR], [3, 2, 1], 0)
    keys = np.where(legal, category * 64 + start.astype(np.int16) + 1, -1)
    actions: Indices = np.where(keys.max(axis=1) >= 0, np.argmax(keys, axis=1), PASS_ACTION)
    return actions


def best_afterstates(
    game: BatchGame,
    rolls: npt.ArrayLike,
    legal: Bools,
    value: Callable[[BatchGame, Indices], npt.NDArray[np.float64]],
) -> Indices:
    """A 1-ply choice in every game: the legal move (`legal`, [B, 4]) whose resulting
    position `value(after, movers)` rates best for the mover, ties to the lowest plane;
    PASS_ACTION where nothing is legal. Only games with two or more legal moves are
    looked into, each move made on fresh copies of them (`game` is untouched)."""
    rolls = np.asarray(rolls, np.intp)
    actions: Indices = np.where(legal.any(axis=1), np.argmax(legal, axis=1), PASS_ACTION)
    choose = np.flatnonzero(legal.sum(axis=1) >= 2)
    if not len(choose):
        return actions
    sub = game.take(choose)
    movers = sub.turn.astype(np.intp)
    found = np.full((len(choose), PLANES_PER_COLOUR), -np.inf)
    for plane in range(PLANES_PER_COLOUR):
        movable = legal[choose, plane]
        if not movable.any():
            continue
        after = sub.take(np.arange(len(choose)))
        after.step_unchecked(rolls[choose], np.where(movable, plane, PASS_ACTION))
        found[:, plane] = np.where(movable, value(after, movers), -np.inf)
    actions[choose] = np.argmax(found, axis=1)
    return actions


# --------------------------------------------------------------------------- playing


class GameSummary(NamedTuple):
    """Results of `play_random_games`, one row per game (in order of finishing)."""

    winner: Int8s
    """Index of the winner in the player list."""
    ranking: Int8s
    """[n, players]: player indices in finishing order (-1 beyond the ranked ones)."""
    rolls: npt.NDArray[np.int32]
    """Rolls the game took."""


def play_random_games(
    rules: Rules, players: Sequence[str] | int, games: int, rng: np.random.Generator, batch: int = 4096, chunk: int = 8
) -> GameSummary:
    """Play `games` complete games with random dice and uniformly random legal moves.

    Runs `batch` games at a time; every `chunk` steps finished games are collected and
    their slots restarted with new games, and once no game is left to start the batch is
    compacted to the games still running."""
    game = BatchGame(rules, players, min(batch, games))
    count = len(game.players)
    winner = np.full(games, -1, np.int8)
    ranking = np.full((games, count), -1, np.int8)
    rolls = np.zeros(games, np.int32)
    live = np.ones(game.batch, np.bool_)
    started, done = game.batch, 0
    while done < games:
        for _ in range(chunk):
            game.step_random(rng)
        ended = np.flatnonzero(live & game.over)
        if len(ended):
            stop = done + len(ended)
            winner[done:stop] = game.winner[ended]
            ranking[done:stop] = game.ranking[ended]
            rolls[done:stop] = game.rolls[ended]
            done = stop
            live[ended] = False
            restart = ended[: games - started]
            if len(restart):
                game.reset_games(restart)
                live[restart] = True
                started += len(restart)
        if started == games and 0 < live.sum() <= game.batch // 2:
            kept = np.flatnonzero(live)
            game.keep(kept)
            live = np.ones(len(kept), np.bool_)
    return GameSummary(winner, ranking, rolls)


__all__ = [
    "ACTIONS",
    "PASS_ACTION",
    "BatchGame",
    "GameSummary",
    "RuleArrays",
    "heuristic_actions",
    "play_random_games",
    "random_actions",
    "rule_arrays",
]
