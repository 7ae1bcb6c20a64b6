"""The compiled game as the batch simulator's lookup tables: `RuleArrays` for one rule set
and player list, built once and cached (`rule_arrays`).

Every rule fact comes from `flyingchess.engine.compiled`: each move's end and whether it jumps
or flies, whom each move sends home, which planes may move, who rolls next, what a third
six sends home; the batch code only does array work with these tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...engine.board import CENTRE, HANGAR
from ...engine.compiled import FACES, CompiledGame, MoveTable, compile_game
from ...engine.rules import Rules
from .words import NO_TARGET, ONES, PATHS, ROLL_SLOTS, Bools, Int8s, UInt8s, Words


@dataclass(frozen=True, eq=False)
class RuleArrays:
    """The compiled game (`flyingchess.engine.compiled`) as arrays, for one rule set and player
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
    end = np.zeros(PATHS, np.uint32)
    special = np.zeros(PATHS, np.bool_)
    for progress in range(HANGAR, CENTRE + 1):
        for roll_value in FACES:
            index = (progress & 0xFF) * ROLL_SLOTS + roll_value
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
    targets = np.full((slots, count, PATHS, count), NO_TARGET, np.uint32)
    for turn, progress, roll_value, effects in moves:
        index = (progress & 0xFF) * ROLL_SLOTS + roll_value
        checks = [effect for effect in effects if effect.kind == "check"]
        for slot, effect in enumerate(checks):
            for victim, target, _ in effect.captures:
                targets[slot, turn, index, victim] = target
        for effect in effects:
            if effect.kind == "fly":
                for victim, target, _ in effect.captures:
                    targets[slots - 1, turn, index, victim] = target
    return targets.reshape(slots, count * PATHS, count) * ONES


def _movable_words(table: MoveTable) -> tuple[Words, Words, Words]:
    """The table's `movable` sets by roll as (low, high, launch) words: each set is the
    hangar (when the roll launches) plus one run of progress values (checked here)."""
    low = np.full(ROLL_SLOTS, 0x01010101, np.uint32)
    high = np.zeros(ROLL_SLOTS, np.uint32)
    launch = np.zeros(ROLL_SLOTS, np.uint32)
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
