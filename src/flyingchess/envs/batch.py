"""Vectorised batch simulator: thousands of games stepped at once with NumPy arrays.

Every rule fact comes from the compiled game (`flyingchess.compiled`): each move's end
and whether it jumps or flies, whom each move sends home, which planes may move, who
rolls next, what a third six sends home. Those become small lookup tables
(`RuleArrays`); the batch code only does array work with them (who moves, sixes,
last-moved and moved-by-sixes bitmasks, stacks, captures, finishing, ranking), so no
rule is written twice. Game i of a batch is exactly the
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
on small tables indexed by a plane's progress byte (the hangar, -1, is byte 255).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from ..board import CENTRE, HANGAR, PLANES_PER_COLOUR
from ..compiled import FACES, STACK_FIRST, STACK_LAST, CompiledGame, MoveTable, compile_game
from ..game import DEFAULT_PLAYERS, State, validate_players
from ..rules import Rules

PASS_ACTION: Final = PLANES_PER_COLOUR
"""Actions 0..3 move that plane (any plane of a stack names the stack); action 4 passes
(legal only when no plane may move). Every environment and the simulator number them so."""
ACTIONS: Final = PLANES_PER_COLOUR + 1

Int8s = npt.NDArray[np.int8]
UInt8s = npt.NDArray[np.uint8]
Words = npt.NDArray[np.uint32]
Bools = npt.NDArray[np.bool_]
Indices = npt.NDArray[np.intp]

_FACES: Final = 7
"""Roll values 0..6 (0 unused): the inner index of a path."""
_PATHS: Final = 256 * _FACES
"""Paths of one player, indexed (progress byte) * 7 + roll; the hangar's byte is 255."""
_NO_TARGET: Final = 0x7F
"""A progress no plane ever has: a capture target that hits nothing."""
_ONES: Final = np.uint32(0x01010101)
"""Multiplying a byte by this repeats it in all four bytes of a word."""
_LOW_7: Final = np.uint32(0x7F7F7F7F)
_HIGH_1: Final = np.uint32(0x80808080)
_BYTE_WEIGHTS: Final = np.uint32(0x01020408)
"""(a word of 0/1 bytes) * this >> 24 = b0 + 2 b1 + 4 b2 + 8 b3: the word's plane bits."""
_ALL_CENTRE: Final = np.uint32(CENTRE * 0x01010101)
"""Four planes in the centre."""
_PLANE_IDS: Final = np.arange(PLANES_PER_COLOUR, dtype=np.uint8)
_CHOICES: Final = 12
"""A uniform pick in 0..11 chooses uniformly among 1, 2, 3 or 4 legal moves."""
_DRAWS: Final = 6 * _CHOICES
"""The fast random step draws one number 0..71 per game: die = draw // 12 + 1 and
pick = draw % 12 are independent and uniform."""


def _byte_masks() -> Words:
    """_BYTE_MASKS[bits]: the word with byte i all ones for each plane bit i (0..15)."""
    return np.array([sum(0xFF << (8 * i) for i in range(4) if bits >> i & 1) for bits in range(16)], np.uint32)


def _choice_table() -> Indices:
    """_CHOICE_TABLE[bits * 72 + draw]: the plane that pick draw % 12 chooses among the
    planes in `bits` (PASS_ACTION when there are none)."""
    table = np.full(16 * _DRAWS, PASS_ACTION, np.intp)
    for bits in range(1, 16):
        planes = [plane for plane in range(PLANES_PER_COLOUR) if bits >> plane & 1]
        for draw in range(_DRAWS):
            table[bits * _DRAWS + draw] = planes[draw % _CHOICES * len(planes) // _CHOICES]
    return table


_BYTE_MASKS: Final = _byte_masks()
_ACTION_MASKS: Final = np.append(_BYTE_MASKS[[1, 2, 4, 8]], np.uint32(0))
"""_ACTION_MASKS[action]: the byte of the named plane (none for a pass)."""
_ACTION_BITS: Final = np.array([1, 2, 4, 8, 0], np.uint8)
_ACTION_SHIFTS: Final = np.array([0, 8, 16, 24, 0], np.uint32)
"""_ACTION_SHIFTS[action]: where the named plane's byte is in the word."""
_CHOICE_TABLE: Final = _choice_table()
_DIE_OF_DRAW: Final = np.arange(_DRAWS, dtype=np.intp) // _CHOICES + 1


def _as_indices(values: npt.ArrayLike) -> Indices:
    """Rolls or actions as index integers (table look-ups with them are the fastest)."""
    return np.asarray(values).astype(np.intp)


def _equal_bytes(words: Words, other: Words | np.uint32) -> Words:
    """0xFF in each byte where the two words hold the same byte, else 0 (exact, no carries)."""
    x = words ^ other
    clear = ~(((x & _LOW_7) + _LOW_7) | x) & _HIGH_1
    return (clear >> np.uint32(7)) * np.uint32(0xFF)


def _plane_bits(byte_masks: Words) -> UInt8s:
    """The plane bits (0..15) of words whose bytes are 0x00 or 0xFF (or 0 and 1)."""
    return (((byte_masks & _ONES) * _BYTE_WEIGHTS) >> np.uint32(24)).astype(np.uint8)


def _bool_bits(planes: Bools) -> UInt8s:
    """The plane bits of each row of a bool [B, 4] array."""
    return _plane_bits(np.ascontiguousarray(planes).view(np.uint32).reshape(-1))


def _bits_to_bools(bits: UInt8s) -> Bools:
    return ((bits[:, None] >> _PLANE_IDS) & 1).astype(np.bool_)


# --------------------------------------------------------------------------- rule arrays


@dataclass(frozen=True, eq=False)
class RuleArrays:
    """The compiled game (`flyingchess.compiled`) as arrays, for one rule set and player
    list: nothing here is worked out from the rules, only laid out for NumPy.

    A path is indexed `(progress & 0xFF) * 7 + roll`; tables that depend on the player
    who moves add `turn * 1792`."""

    end_words: Words
    """Where the move ends, repeated in four bytes (the start where the move is illegal)."""
    special: Bools
    """Whether the move makes a jump or a flight."""
    targets: Words
    """[slot, turn * 1792 + path, j]: the progress at which planes of player j are sent
    home by capture `slot` of that move, repeated in four bytes (0x7F: none). The slots
    are the move's capture checks in order, then the flight line; roll 0 (used for games
    that do not move) captures nothing."""
    low_words: Words
    high_words: Words
    launch_words: Words
    """By roll, four equal bytes: planes at progress low..high may move; planes in the
    hangar may launch where the launch byte is 1."""
    extra: Bools
    """By roll: whether it gives another roll."""
    together: bool
    third_six: bool
    """Whether a third six can ever fire (the option is on and a 6 rolls again)."""
    punished: UInt8s
    """[last_moved | six_moved << 4]: the plane bits a third six sends home."""
    end_first: bool
    next_turn: Int8s
    """[turn * 16 + finished bits]: the next player still playing."""
    last_player: Int8s
    """[finished bits]: the lowest player not finished (the last place, under ranking)."""


def _path_arrays(table: MoveTable) -> tuple[Words, Bools]:
    end = np.zeros(_PATHS, np.uint32)
    special = np.zeros(_PATHS, np.bool_)
    for progress in range(HANGAR, CENTRE + 1):
        for roll_value in FACES:
            index = (progress & 0xFF) * _FACES + roll_value
            path = table.paths[progress + 1][roll_value]
            end[index] = ((progress if path is None else path.end) & 0xFF) * 0x01010101
            special[index] = path is not None and path.special
    return end, special


def _capture_targets(game: CompiledGame) -> Words:
    """The compiled game's captures of every move of every player, by slot (see
    RuleArrays.targets)."""
    count = len(game.players)
    moves = [
        (turn, progress, roll_value, game.effects[turn][progress + 1][roll_value])
        for turn in range(count)
        for progress in range(HANGAR, CENTRE + 1)
        for roll_value in FACES
    ]
    check_slots = max(sum(effect.kind == "check" for effect in move[3]) for move in moves)
    flight_slot = any(effect.kind == "fly" and effect.captures for move in moves for effect in move[3])
    slots = check_slots + int(flight_slot)
    targets = np.full((slots, count, _PATHS, count), _NO_TARGET, np.uint32)
    for turn, progress, roll_value, effects in moves:
        index = (progress & 0xFF) * _FACES + roll_value
        checks = [effect for effect in effects if effect.kind == "check"]
        for slot, effect in enumerate(checks):
            for victim, target, _ in effect.captures:
                targets[slot, turn, index, victim] = target
        for effect in effects:
            if effect.kind == "fly":
                for victim, target, _ in effect.captures:
                    targets[slots - 1, turn, index, victim] = target
    return targets.reshape(slots, count * _PATHS, count) * _ONES


def _movable_words(table: MoveTable) -> tuple[Words, Words, Words]:
    """The table's `movable` sets by roll as (low, high, launch) words: each set is the
    hangar (when the roll launches) plus one run of progress values (checked here)."""
    low = np.full(_FACES, 0x01010101, np.uint32)
    high = np.zeros(_FACES, np.uint32)
    launch = np.zeros(_FACES, np.uint32)
    for roll_value in FACES:
        movable = set(table.movable[roll_value])
        if HANGAR in movable:
            launch[roll_value] = 0x01010101
            movable.remove(HANGAR)
        if movable:
            first, last = min(movable), max(movable)
            if movable != set(range(first, last + 1)):
                raise AssertionError(f"movable planes for roll {roll_value} are not one run")
            low[roll_value], high[roll_value] = first * 0x01010101, last * 0x01010101
    return low, high, launch


@lru_cache(maxsize=64)
def rule_arrays(rules: Rules, players: tuple[str, ...]) -> RuleArrays:
    """The arrays for `rules` and `players` (cached)."""
    game = compile_game(rules, players)
    table = game.table
    end_words, special = _path_arrays(table)
    low, high, launch = _movable_words(table)
    next_turn = np.zeros(len(players) * 16, np.int8)
    for turn, row in enumerate(game.next_player):
        next_turn[turn * 16 : turn * 16 + len(row)] = row
    last_player = np.zeros(16, np.int8)
    last_player[: len(game.last_player)] = game.last_player
    return RuleArrays(
        end_words=end_words,
        special=special,
        targets=_capture_targets(game),
        low_words=low,
        high_words=high,
        launch_words=launch,
        extra=np.array(table.extra_roll),
        together=table.together,
        third_six=table.third_six_can_fire,
        punished=np.array(game.punished, np.uint8),
        end_first=table.end_first,
        next_turn=next_turn,
        last_player=last_player,
    )


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

    def _movable(self, words: Words, rolls: Indices) -> Bools:
        """[B, 4]: the planes that may move with the roll (every plane of a stack),
        ignoring the three-sixes rule and the end of the game."""
        arrays = self.arrays
        planes = words.view(np.int8).reshape(-1, PLANES_PER_COLOUR)
        low = arrays.low_words[rolls].view(np.int8).reshape(-1, PLANES_PER_COLOUR)
        high = arrays.high_words[rolls].view(np.int8).reshape(-1, PLANES_PER_COLOUR)
        launch = arrays.launch_words[rolls].view(np.bool_).reshape(-1, PLANES_PER_COLOUR)
        movable: Bools = ((planes >= low) & (planes <= high)) | ((planes == HANGAR) & launch)
        return movable

    def _move_bits(self, words: Words, rolls: Indices, blocked: Bools) -> UInt8s:
        """The engine's legal moves as plane bits: movable planes, a stack named by its
        lowest plane; none where `blocked` (a third six, or the game is over)."""
        movable = self._movable(words, rolls)
        if self.arrays.together:
            planes = words.view(np.int8).reshape(-1, PLANES_PER_COLOUR)
            stacked = (planes >= STACK_FIRST) & (planes <= STACK_LAST)
            for plane in range(1, PLANES_PER_COLOUR):
                for lower in range(plane):
                    movable[:, plane] &= ~(stacked[:, plane] & (planes[:, lower] == planes[:, plane]))
        return _bool_bits(movable) * ~blocked

    def move_mask(self, rolls: npt.ArrayLike) -> Bools:
        """bool [B, 4]: the engine's `legal_moves` (a stack named by its lowest plane).
        A uniform choice among these is uniform over moves, not planes."""
        indices = _as_indices(rolls)
        words = self._flat_words[self._mover_rows()]
        return _bits_to_bools(self._move_bits(words, indices, self._penalty(indices) | self.over))

    def action_mask(self, rolls: npt.ArrayLike) -> Bools:
        """bool [B, 5]: the planes 0..3 that may be named (any plane of a movable stack),
        and column 4, pass, true exactly where no plane may move (or the game is over)."""
        indices = _as_indices(rolls)
        movable = self._movable(self._flat_words[self._mover_rows()], indices)
        movable &= ~(self._penalty(indices) | self.over)[:, None]
        mask = np.empty((self.batch, ACTIONS), np.bool_)
        mask[:, :PLANES_PER_COLOUR] = movable
        mask[:, PASS_ACTION] = ~movable.any(axis=1)
        return mask

    def mover_planes(self) -> Int8s:
        """int8 [B, 4]: the progress of each plane of the player to move (a copy)."""
        planes: Int8s = self.positions[np.arange(self.batch), self.turn].copy()
        return planes

    def move_facts(self, rolls: npt.ArrayLike) -> tuple[Int8s, Bools, Bools]:
        """What moving each plane of the player to move with the roll would do, from the
        compiled tables: (its progress [B, 4], whether the move captures [B, 4], whether it
        jumps or flies [B, 4]). Meaningful only for planes `move_mask` allows."""
        indices = _as_indices(rolls)
        planes = self.mover_planes()
        turn_offset = self.turn.astype(np.intp) * _PATHS
        captures = np.zeros((self.batch, PLANES_PER_COLOUR), np.bool_)
        special = np.zeros((self.batch, PLANES_PER_COLOUR), np.bool_)
        for plane in range(PLANES_PER_COLOUR):
            paths = planes[:, plane].view(np.uint8).astype(np.intp) * _FACES + indices
            for slot in self.arrays.targets:
                x = self._words ^ np.take(slot, paths + turn_offset, axis=0)
                captures[:, plane] |= (((x - _ONES) & ~x & _HIGH_1) != 0).any(axis=1)
            special[:, plane] = self.arrays.special[paths]
        return planes, captures, special

    # ----------------------------------------------------------------- stepping

    def step(self, rolls: npt.ArrayLike, actions: npt.ArrayLike, idle: Bools | None = None) -> None:
        """Play one roll in every game: `rolls` 1..6, `actions` a plane 0..3 or PASS_ACTION.

        Raises ValueError naming the first game with a bad roll or an illegal action, and
        then changes nothing. Games already over ignore their roll and action, and so do
        the games where `idle` is true (they wait, exactly as they were)."""
        rolls_in, actions_in = _as_indices(rolls), _as_indices(actions)
        if rolls_in.shape != (self.batch,) or actions_in.shape != (self.batch,):
            raise ValueError(f"rolls and actions must both have shape ({self.batch},)")
        waiting = self.over if idle is None else self.over | idle
        rolls_in = np.where(waiting, 1, rolls_in)
        actions_in = np.where(waiting, PASS_ACTION, actions_in)
        bad_roll = (rolls_in < 1) | (rolls_in > 6)
        if bad_roll.any():
            game = int(np.argmax(bad_roll))
            raise ValueError(f"game {game}: roll {int(rolls_in[game])} is not a die value 1..6")
        mask = self.action_mask(rolls_in)
        mask[waiting] = False
        mask[waiting, PASS_ACTION] = True
        named = np.clip(actions_in, 0, PASS_ACTION)
        bad = ~mask[np.arange(self.batch), named] | (actions_in != named)
        if bad.any():
            game = int(np.argmax(bad))
            legal = [int(a) for a in np.flatnonzero(mask[game])]
            raise ValueError(
                f"game {game}: action {int(actions_in[game])} is illegal with roll "
                f"{int(rolls_in[game])} (legal: {legal}); {self.to_state(game).describe()}"
            )
        self.step_unchecked(rolls_in, actions_in, idle)

    def step_unchecked(self, rolls: npt.ArrayLike, actions: npt.ArrayLike, idle: Bools | None = None) -> None:
        """`step` without checks: rolls 1..6 for every game (over or not) and actions
        taken from `action_mask` or `move_mask` (so PASS_ACTION in games over or under a third
        six, and in the `idle` games, which wait unchanged). Anything else leaves the
        games in states the rules never reach."""
        rows = self._mover_rows()
        indices = _as_indices(rolls)
        actions_in, penalty = _as_indices(actions), self._penalty(indices)
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
        draws = rng.integers(0, _DRAWS, size=self.batch, dtype=np.int16).astype(np.intp)
        rolls = _DIE_OF_DRAW[draws]
        penalty = self._penalty(rolls)
        bits = self._move_bits(before, rolls, penalty | self.over)
        actions = _CHOICE_TABLE[bits.astype(np.intp) * _DRAWS + draws]
        self._advance(rows, before, rolls, actions, penalty)
        return rolls, actions

    def _advance(
        self, rows: Indices, before: Words, rolls: Indices, actions: Indices, penalty: Bools, idle: Bools | None = None
    ) -> None:
        """The move (or pass, or three-sixes penalty) and its consequences in every game
        not `idle`; `before` holds the mover's planes, at `rows` of the flat word array."""
        arrays = self.arrays
        moved = actions != PASS_ACTION
        # the named plane's progress byte, and the path it takes with the roll (0: none)
        start = (before >> _ACTION_SHIFTS[actions]) & np.uint32(0xFF)
        paths = (start.astype(np.intp) * _FACES + rolls) * moved
        # the planes that move: the named one, or every plane of its stack
        if arrays.together:
            progress = start.astype(np.int8)
            stacked = moved & (progress >= STACK_FIRST) & (progress <= STACK_LAST)
            carried = np.where(stacked, _equal_bytes(before, start * _ONES), _ACTION_MASKS[actions])
            carried_bits = _plane_bits(carried)
        else:
            carried, carried_bits = _ACTION_MASKS[actions], _ACTION_BITS[actions]
        # the carried planes' bytes take the path's end, the others stay
        after = before ^ ((before ^ arrays.end_words[paths]) & carried)
        if arrays.third_six and penalty.any():
            self._punish(before, after, np.flatnonzero(penalty))
        self._capture(paths + self.turn.astype(np.intp) * _PATHS)
        self._flat_words[rows] = after
        finished_now = moved & (after == _ALL_CENTRE)  # the mover's last plane came home
        self._end_of_move(rolls, moved, penalty, carried_bits, finished_now, idle)

    def _punish(self, before: Words, after: Words, games: Indices) -> None:
        """A third six sends home the planes the compiled three-sixes rule names (from the
        planes moved last and by the sixes), sparing those already in the centre."""
        named = self.arrays.punished[self.last_moved[games].astype(np.intp) | self.six_moved[games] << 4]
        words = before[games]
        in_centre = _equal_bytes(words, _ALL_CENTRE)
        after[games] = words | (_BYTE_MASKS[named] & ~in_centre)  # a 0xFF byte is the hangar

    def _capture(self, paths: Indices) -> None:
        """Send home every opponent plane the compiled game's captures name for the moves
        made. A cheap any-byte-equal test finds the few (game, player) words hit; only
        those are fixed."""
        flat = self._flat_words
        for slot in self.arrays.targets:
            targets = slot.take(paths, axis=0).reshape(-1)
            x = flat ^ targets
            hit = np.flatnonzero(((x - _ONES) & ~x & _HIGH_1) != 0)
            if len(hit):
                flat[hit] |= _equal_bytes(flat[hit], targets[hit])  # 0xFF: the hangar

    def _end_of_move(
        self,
        rolls: Indices,
        moved: Bools,
        penalty: Bools,
        carried: UInt8s,
        finished_now: Bools,
        idle: Bools | None = None,
    ) -> None:
        """After the move (docs/rules.md, a turn and three sixes): another roll or the next
        player, the count of sixes and the planes they moved, the plane moved last, and
        the ranking when a player has just finished. `idle` games keep all of it."""
        if idle is not None:
            kept = (self.sixes.copy(), self.six_moved.copy(), self.last_moved.copy(), self.turn.copy())
        # (Selections are arithmetic, the fastest NumPy form here: `x * flag` keeps x where
        # flag is true and gives 0 elsewhere; `b ^ ((a ^ b) * flag)` is a where flag, else b.)
        arrays = self.arrays
        was_over = self.over.copy()  # games over before this roll stay as they are
        # a face in extra_roll rolls again, unless it was a third six or the last plane home
        rolls_again = arrays.extra[rolls] & ~(penalty | finished_now | was_over)
        # sixes in a row and the planes they moved; any other outcome starts them again
        another_six = rolls_again & (rolls == 6)
        self.sixes = (self.sixes + 1) * another_six
        self.six_moved = (self.six_moved | carried) * another_six
        # the planes moved most recently in this turn (a pass keeps the earlier ones),
        # forgotten when the turn passes
        latest = self.last_moved ^ ((self.last_moved ^ carried) * moved)
        self.last_moved = latest * rolls_again
        ended = self._finish(np.flatnonzero(finished_now)) if finished_now.any() else None
        # who rolls next: the same player (another roll; a game over), or the next still playing
        next_player = arrays.next_turn[self.turn.astype(np.intp) * 16 + self.finished]
        self.turn = next_player ^ ((self.turn ^ next_player) * (rolls_again | was_over))
        if ended is not None:
            self.turn[ended] = 0  # as in the engine, a game over shows player 0 to move
        if idle is not None:
            for name, value in zip(("sixes", "six_moved", "last_moved", "turn"), kept):
                getattr(self, name)[idle] = value[idle]
            self.rolls += ~(was_over | idle)
        else:
            self.rolls += ~was_over

    def _finish(self, games: Indices) -> Indices:
        """The players who have just brought their last plane home take the next place;
        returns the games that end (the first to finish under `end: first`, else the
        second-to-last, the last player taking the last place)."""
        turn = self.turn[games]
        self.ranking[games, self.ranked[games]] = turn
        self.ranked[games] += 1
        self.finished[games] |= np.left_shift(1, turn).astype(np.uint8)
        if self.arrays.end_first:
            ended = games
        else:
            ended = games[self.ranked[games] >= len(self.players) - 1]
            self.ranking[ended, self.ranked[ended]] = self.arrays.last_player[self.finished[ended]]
            self.ranked[ended] += 1
        self.over[ended] = True
        self.winner[ended] = self.ranking[ended, 0]
        return ended

    # ----------------------------------------------------------------- engine view

    @classmethod
    def from_states(cls, states: Sequence[State]) -> BatchGame:
        """A batch of the engine's states of one game (same rules and players), each
        waiting for the die: the inverse of `to_state`, so that search can play on from
        a position on the batch simulator."""
        if not states:
            raise ValueError("no states to make a batch of")
        first = states[0]
        game = cls(first.rules, first.players, len(states))
        for row, state in enumerate(states):
            if state.rules != first.rules or state.players != first.players:
                raise ValueError("the states of one batch share their rules and players")
            if state.roll is not None:
                raise ValueError(f"a state waiting for a move cannot join a batch: {state.describe()}")
            game.positions[row] = state.planes
            game.turn[row] = state.turn
            game.sixes[row] = state.sixes
            game.last_moved[row] = sum(1 << plane for plane in set(state.last_moved))
            game.six_moved[row] = sum(1 << plane for plane in set(state.six_moved))
            game.finished[row] = sum(
                1 << seat for seat, planes in enumerate(state.planes) if all(p == CENTRE for p in planes)
            )
            ranked = [first.players.index(colour) for colour in state.ranking]
            game.ranking[row, : len(ranked)] = ranked
            game.ranked[row] = len(ranked)
            game.over[row] = state.over
            game.winner[row] = ranked[0] if state.over and ranked else -1
        return game

    def to_state(self, game: int) -> State:
        """The engine's `State` of game `game`, waiting for the die (or over).

        `last_moved` and `six_moved` come out as sorted plane indices (the engine keeps
        them in move order, maybe repeated; only the sets matter to the rules)."""

        def planes_in(bits: int) -> tuple[int, ...]:
            return tuple(i for i in range(PLANES_PER_COLOUR) if bits >> i & 1)

        planes = tuple(tuple(int(p) for p in row) for row in self.positions[game])
        ranking = tuple(self.players[int(i)] for i in self.ranking[game, : int(self.ranked[game])])
        return State(
            self.rules,
            self.players,
            planes,
            int(self.turn[game]),
            None,
            int(self.sixes[game]),
            planes_in(int(self.last_moved[game])),
            planes_in(int(self.six_moved[game])),
            ranking,
            bool(self.over[game]),
        )


# --------------------------------------------------------------------------- policies


def random_actions(mask: Bools, rng: np.random.Generator) -> Indices:
    """A uniformly random true plane column of each row of `mask` ([B, 4] or [B, 5]); PASS_ACTION
    where no plane column is true. Give `move_mask` for a uniform choice among moves."""
    picks = rng.integers(0, _CHOICES, size=mask.shape[0], dtype=np.int16)
    actions: Indices = _CHOICE_TABLE[_bool_bits(mask[:, :PLANES_PER_COLOUR]).astype(np.intp) * _DRAWS + picks]
    return actions


def heuristic_actions(game: BatchGame, rolls: npt.ArrayLike, mask: Bools | None = None) -> Indices:
    """The heuristic bot's choice in every game (docs/rules.md §9): a
    capture, else a jump or flight, else a launch, else the furthest plane; ties go to
    the largest progress, then the lowest index. `mask` ([B, 4] or [B, 5]) defaults to
    `game.move_mask(rolls)`. What each move does comes from `BatchGame.move_facts`."""
    indices = _as_indices(rolls)
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
