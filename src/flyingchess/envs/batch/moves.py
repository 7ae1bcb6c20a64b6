"""The moves of a roll in every game of a batch, as word arithmetic over the rule arrays:
which planes may move, what each move would do, where it takes them, whom it sends home.

Each function works on the movers' words (one uint32 per game, `words`) and the
tables of `rules`; `BatchGame` owns the state they read and write.
"""

from __future__ import annotations

import numpy as np

from ...engine.board import HANGAR, PLANES_PER_COLOUR
from ...engine.compiled import STACK_FIRST, STACK_LAST
from .rules import RuleArrays
from .words import (
    ACTION_BITS,
    ACTION_MASKS,
    ACTION_SHIFTS,
    ALL_CENTRE,
    BYTE_MASKS,
    ONES,
    PATHS,
    ROLL_SLOTS,
    Bools,
    Indices,
    Int8s,
    UInt8s,
    Words,
    bool_bits,
    equal_bytes,
    has_equal_byte,
    plane_bits,
)


def movable(arrays: RuleArrays, words: Words, rolls: Indices) -> Bools:
    """[B, 4]: the planes that may move with the roll (every plane of a stack),
    ignoring the three-sixes rule and the end of the game."""
    planes = words.view(np.int8).reshape(-1, PLANES_PER_COLOUR)
    low = arrays.low_words[rolls].view(np.int8).reshape(-1, PLANES_PER_COLOUR)
    high = arrays.high_words[rolls].view(np.int8).reshape(-1, PLANES_PER_COLOUR)
    launch = arrays.launch_words[rolls].view(np.bool_).reshape(-1, PLANES_PER_COLOUR)
    allowed: Bools = ((planes >= low) & (planes <= high)) | ((planes == HANGAR) & launch)
    return allowed


def move_bits(arrays: RuleArrays, words: Words, rolls: Indices, blocked: Bools) -> UInt8s:
    """The engine's legal moves as plane bits: movable planes, a stack named by its
    lowest plane; none where `blocked` (a third six, or the game is over)."""
    allowed = movable(arrays, words, rolls)
    if arrays.together:
        planes = words.view(np.int8).reshape(-1, PLANES_PER_COLOUR)
        stacked = (planes >= STACK_FIRST) & (planes <= STACK_LAST)
        for plane in range(1, PLANES_PER_COLOUR):
            for lower in range(plane):
                allowed[:, plane] &= ~(stacked[:, plane] & (planes[:, lower] == planes[:, plane]))
    return bool_bits(allowed) * ~blocked


def move_effects(arrays: RuleArrays, words: Words, planes: Int8s, turn: Int8s, rolls: Indices) -> tuple[Bools, Bools]:
    """Whether moving each plane (`planes`, the mover's [B, 4]) with the roll would
    capture, and whether it would jump or fly ([B, 4] each); `words` are every player's
    [B, players] and `turn` the mover's index."""
    turn_offset = turn.astype(np.intp) * PATHS
    captures = np.zeros(planes.shape, np.bool_)
    special = np.zeros(planes.shape, np.bool_)
    for plane in range(PLANES_PER_COLOUR):
        paths = planes[:, plane].view(np.uint8).astype(np.intp) * ROLL_SLOTS + rolls
        for slot in arrays.targets:
            captures[:, plane] |= has_equal_byte(words, np.take(slot, paths + turn_offset, axis=0)).any(axis=1)
        special[:, plane] = arrays.special[paths]
    return captures, special


def carry(
    arrays: RuleArrays, before: Words, rolls: Indices, actions: Indices, moved: Bools
) -> tuple[Words, Indices, UInt8s]:
    """The movers' words after the named planes take their paths, each game's path (0
    where nothing moves) and the plane bits carried: the named plane, or its whole stack."""
    # the named plane's progress byte, and the path it takes with the roll (0: none)
    start = (before >> ACTION_SHIFTS[actions]) & np.uint32(0xFF)
    paths = (start.astype(np.intp) * ROLL_SLOTS + rolls) * moved
    # the planes that move: the named one, or every plane of its stack
    if arrays.together:
        progress = start.astype(np.int8)
        stacked = moved & (progress >= STACK_FIRST) & (progress <= STACK_LAST)
        carried = np.where(stacked, equal_bytes(before, start * ONES), ACTION_MASKS[actions])
        carried_bits = plane_bits(carried)
    else:
        carried, carried_bits = ACTION_MASKS[actions], ACTION_BITS[actions]
    # the carried planes' bytes take the path's end, the others stay
    after = before ^ ((before ^ arrays.end_words[paths]) & carried)
    return after, paths, carried_bits


def punish(
    arrays: RuleArrays, before: Words, after: Words, games: Indices, last_moved: UInt8s, six_moved: UInt8s
) -> None:
    """A third six sends home the planes the compiled three-sixes rule names (from the
    planes moved last and by the sixes), sparing those already in the centre: written
    into `after` at `games`."""
    named = arrays.punished[last_moved[games].astype(np.intp) | six_moved[games] << 4]
    words = before[games]
    in_centre = equal_bytes(words, ALL_CENTRE)
    after[games] = words | (BYTE_MASKS[named] & ~in_centre)  # a 0xFF byte is the hangar


def capture(arrays: RuleArrays, flat_words: Words, paths: Indices) -> None:
    """Send home every opponent plane the compiled game's captures name for the moves
    made (`paths` offset by the mover, `turn * PATHS`), in the flat word array of every
    game's players. A cheap any-byte-equal test finds the few (game, player) words hit;
    only those are fixed."""
    for slot in arrays.targets:
        targets = slot.take(paths, axis=0).reshape(-1)
        hit = np.flatnonzero(has_equal_byte(flat_words, targets))
        if len(hit):
            flat_words[hit] |= equal_bytes(flat_words[hit], targets[hit])  # 0xFF: the hangar
