"""The compiled game: everything one rule set and one player list imply, worked out once.

A `State` (game.py) says where the planes are; a `CompiledGame` says what every move
from every place does. It is the one place a rule fact is derived: the engine's `apply`,
the bots' evaluation, the learned bot's features, the heuristic and the batch simulator
all read it, and nothing else works a rule out again. (OpenSpiel separates a game, its
parameters and what follows from them, from its states in the same way.)

Per rule set (`MoveTable`): every move's path (plain steps, bounce, jumps, flights and
where captures are checked, in order), which places may move with each face, the
expected rolls a lone plane needs to finish. Per player list (`CompiledGame`): who each
capture check and each flight sends home (victim, its progress, cause), who rolls next
once players have finished, and what a third six sends home.
"""

from __future__ import annotations

from typing import Final, Literal, NamedTuple

from . import board
from .board import CENTRE, COLOURS, HANGAR, PLANES_PER_COLOUR, SAME_CELL, SEAT
from .rules import DIE_FACES, Rules

EffectKind = Literal["check", "jump", "fly"]
CaptureCause = Literal["landing", "flight"]

FACES: Final = tuple(sorted(DIE_FACES))
CHANCE_OUTCOMES: Final = tuple((face, 1 / len(FACES)) for face in FACES)
"""The die as a chance node (as OpenSpiel's `chance_outcomes()`): six equally likely faces."""

STACK_FIRST: Final = board.RING_FIRST
STACK_LAST: Final = board.LANE_LAST
"""Own planes on one cell from STACK_FIRST to STACK_LAST form a stack (stacking: together)."""


# --------------------------------------------------------------------------- per rule set


class Path(NamedTuple):
    """Where a plane at some progress goes with some roll, and what happens on the way.

    `steps` are the cells the plain move passes, in order (after a bounce they count
    back down). `effects` is what follows, in order: ("check", p, 0) a ring capture check
    at progress p, ("jump", from, to), ("fly", from, to); `flies`, `jumps` and
    `has_checks` let the fast path skip them when nothing can happen."""

    end: int
    steps: tuple[int, ...]
    bounced: bool
    effects: tuple[tuple[EffectKind, int, int], ...]
    flies: bool
    jumps: bool
    has_checks: bool

    @property
    def special(self) -> bool:
        """The move makes a jump or a flight."""
        return self.jumps or self.flies


def compute_path(rules: Rules, progress: int, roll: int) -> Path | None:
    """The path of a plane at `progress` moved by `roll`, or None when it may not move."""
    if progress == HANGAR:
        if roll in rules.launch:
            return Path(board.TAKEOFF, (), False, (), False, False, False)
        return None
    if progress >= CENTRE:
        return None
    target = progress + roll
    if target > CENTRE:
        if rules.finish == "exact":
            return None
        end = 2 * CENTRE - target
        steps = tuple(range(progress + 1, CENTRE + 1)) + tuple(range(CENTRE - 1, end - 1, -1))
        return Path(end, steps, True, (), False, False, False)
    effects: list[tuple[EffectKind, int, int]] = []
    every_stop = rules.capture == "every-stop"
    if every_stop and board.is_on_ring(target):
        effects.append(("check", target, 0))
    position, jumped, flew = target, False, False
    while True:
        if position == board.LAUNCH_PAD and not flew and _may_fly(rules.chain, jumped):
            effects.append(("fly", position, board.FLIGHT_TARGET))
            position, flew = board.FLIGHT_TARGET, True
        elif position in board.JUMP_FROM and not jumped and _may_jump(rules.chain, flew):
            effects.append(("jump", position, position + board.JUMP_DISTANCE))
            position, jumped = position + board.JUMP_DISTANCE, True
        else:
            break
        if every_stop:
            effects.append(("check", position, 0))
    if not every_stop and board.is_on_ring(position):
        effects.append(("check", position, 0))
    has_checks = any(kind == "check" for kind, _, _ in effects)
    return Path(position, tuple(range(progress + 1, target + 1)), False, tuple(effects), flew, jumped, has_checks)


def _may_fly(chain: str, jumped: bool) -> bool:
    # A flight may be the move's only special move, or (chained rules) follow its jump.
    return not jumped or chain != "none"


def _may_jump(chain: str, flew: bool) -> bool:
    # A jump may be the only special move, or follow a direct flight under jump-fly-jump.
    return not flew or chain == "jump-fly-jump"


def expected_rolls(paths: tuple[tuple[Path | None, ...], ...]) -> tuple[float, ...]:
    """rolls[p + 1]: the expected number of rolls a lone plane at progress p needs to reach
    the centre, moving whenever its path allows (a fixed point over the paths)."""
    rolls = [0.0] * (CENTRE + 2)
    for _ in range(2000):
        change = 0.0
        for progress in range(CENTRE - 1, HANGAR - 1, -1):
            total = 1.0
            for face in FACES:
                path = paths[progress + 1][face]
                following = progress if path is None else path.end
                total += rolls[following + 1] / 6
            change = max(change, abs(total - rolls[progress + 1]))
            rolls[progress + 1] = total
        if change < 1e-9:
            break
    return tuple(rolls)


class MoveTable:
    """What one rule set implies about moves, whoever plays: `paths[progress + 1][roll]`
    (None where the move is illegal), `movable[roll]` (the progress values that may move
    with it), and the options the hot path asks about."""

    __slots__ = (
        "_expected_rolls",
        "end_first",
        "extra_roll",
        "movable",
        "paths",
        "rules",
        "stacks",
        "third_six_can_fire",
        "three_sixes",
        "together",
    )

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.paths: tuple[tuple[Path | None, ...], ...] = tuple(
            (None,) + tuple(compute_path(rules, progress, roll) for roll in FACES)
            for progress in range(HANGAR, CENTRE + 1)
        )
        self.movable: tuple[frozenset[int], ...] = tuple(
            frozenset(p for p in range(HANGAR, CENTRE + 1) if self.paths[p + 1][roll] is not None) for roll in range(7)
        )
        self.together = rules.stacking == "together"
        """Own planes on one cell move as one stack."""
        self.stacks: tuple[bool, ...] = tuple(
            self.together and STACK_FIRST <= progress <= STACK_LAST for progress in range(HANGAR, CENTRE + 1)
        )
        """stacks[p + 1]: own planes together at progress p are a stack (they move as one,
        named by the lowest plane)."""
        self.three_sixes = rules.three_sixes != "none"
        """A third six in a row forbids a move (and sends planes home)."""
        self.extra_roll: tuple[bool, ...] = tuple(face in rules.extra_roll for face in range(7))
        """extra_roll[face]: the face gives another roll."""
        self.third_six_can_fire = self.three_sixes and self.extra_roll[6]
        """Without an extra roll on a 6, sixes never follow each other within a turn."""
        self.end_first = rules.end == "first"
        """The game ends when the first player finishes (else: until one is left)."""
        self._expected_rolls: tuple[float, ...] | None = None

    @property
    def expected_rolls(self) -> tuple[float, ...]:
        """expected_rolls[p + 1]: rolls a lone plane at p needs to finish (computed once)."""
        if self._expected_rolls is None:
            self._expected_rolls = expected_rolls(self.paths)
        return self._expected_rolls


_TABLES: dict[Rules, MoveTable] = {}
_last_table: MoveTable | None = None


def move_table(rules: Rules) -> MoveTable:
    """The table for `rules`, built on first use (the last one is checked by identity,
    since a game asks for the same rules object on every move)."""
    global _last_table
    table = _last_table
    if table is not None and table.rules is rules:
        return table
    table = _TABLES.get(rules)
    if table is None:
        table = _TABLES[rules] = MoveTable(rules)
    _last_table = table
    return table


# --------------------------------------------------------------------------- per player list


class Capture(NamedTuple):
    """One capture a move may make: planes of player `victim` standing at `progress` go
    home; `cause` is `landing` (a ring capture check) or `flight` (the flight line)."""

    victim: int
    progress: int
    cause: CaptureCause


class Effect(NamedTuple):
    """One thing that happens after a move's plain steps, in order, with the captures it
    may make: a capture check (`start` is the checked progress), a jump or a flight."""

    kind: EffectKind
    start: int
    end: int
    captures: tuple[Capture, ...]


NO_EFFECTS: Final[tuple[Effect, ...]] = ()


class CompiledGame:
    """A rule set and a player list (colours in turn order), compiled.

    - `table`: the rule set's `MoveTable` (paths, movable places, expected rolls);
    - `effects[turn][progress + 1][face]`: the effects of that move by player `turn`,
      in order, each with the captures it may make (its victims and their progress);
    - `captures[turn][progress + 1][face]`: the same captures flattened, in order;
    - `hit_faces[turn][progress + 1]`: ((victim, victim's progress), faces) for every
      plane a plane of `turn` standing there may send home, the faces as bits 1..6;
    - `next_player[turn][finished]`: who rolls after `turn` when the players in bit set
      `finished` are home (`turn` itself when nobody else plays on);
    - `last_player[finished]`: the lowest player not home (the last place under ranking);
    - `punished[last_moved | six_moved << 4]`: the plane bits a third six sends home,
      before planes in the hangar or the centre are spared (0 when the rule is off)."""

    __slots__ = (
        "captures",
        "effects",
        "hit_faces",
        "last_player",
        "next_player",
        "players",
        "punished",
        "rules",
        "table",
    )

    chance_outcomes: Final = CHANCE_OUTCOMES
    """The die's faces and their probabilities."""

    def __init__(self, rules: Rules, players: tuple[str, ...]) -> None:
        self.rules = rules
        self.players = players
        self.table = move_table(rules)
        count = len(players)
        seats = [SEAT[colour] for colour in players]
        effects = []
        for turn, seat in enumerate(seats):
            landing = [
                tuple(
                    Capture(other, SAME_CELL[seat][seats[other]][p], "landing")
                    for other in range(count)
                    if other != turn and SAME_CELL[seat][seats[other]][p] != -1
                )
                for p in range(CENTRE + 1)
            ]
            opposite = COLOURS[board.opposite_seat(seat)]
            flight: tuple[Capture, ...] = ()
            if rules.flight_capture and opposite in players:
                flight = (Capture(players.index(opposite), board.CROSSING, "flight"),)
            rows = []
            for progress in range(HANGAR, CENTRE + 1):
                row: list[tuple[Effect, ...]] = [NO_EFFECTS]
                for face in FACES:
                    path = self.table.paths[progress + 1][face]
                    row.append(
                        NO_EFFECTS
                        if path is None
                        else tuple(
                            Effect(
                                kind,
                                first,
                                second,
                                landing[first] if kind == "check" else flight if kind == "fly" else (),
                            )
                            for kind, first, second in path.effects
                        )
                    )
                rows.append(tuple(row))
            effects.append(tuple(rows))
        self.effects: tuple[tuple[tuple[tuple[Effect, ...], ...], ...], ...] = tuple(effects)
        self.captures: tuple[tuple[tuple[tuple[Capture, ...], ...], ...], ...] = tuple(
            tuple(tuple(tuple(c for effect in move for c in effect.captures) for move in row) for row in rows)
            for rows in self.effects
        )
        hit_faces = []
        for by_start in self.captures:
            per_start = []
            for by_face in by_start:
                masks: dict[tuple[int, int], int] = {}
                for face in FACES:
                    for victim, progress, _ in by_face[face]:
                        masks[victim, progress] = masks.get((victim, progress), 0) | 1 << face
                per_start.append(tuple(sorted(masks.items())))
            hit_faces.append(tuple(per_start))
        self.hit_faces: tuple[tuple[tuple[tuple[tuple[int, int], int], ...], ...], ...] = tuple(hit_faces)
        self.next_player: tuple[tuple[int, ...], ...] = tuple(
            tuple(
                next(
                    (
                        other
                        for other in ((turn + step) % count for step in range(1, count + 1))
                        if not finished >> other & 1
                    ),
                    turn,
                )
                for finished in range(1 << count)
            )
            for turn in range(count)
        )
        self.last_player: tuple[int, ...] = tuple(
            next((player for player in range(count) if not finished >> player & 1), 0) for finished in range(1 << count)
        )
        self.punished: tuple[int, ...] = tuple(
            _punished(rules.three_sixes, bits & 0xF, bits >> 4) for bits in range(256)
        )

    def punished_planes(
        self, planes: tuple[int, ...], last_moved: tuple[int, ...], six_moved: tuple[int, ...]
    ) -> tuple[int, ...]:
        """The planes (indices, sorted) a third six sends home: those the rule names that
        are neither in the hangar nor in the centre."""
        bits = self.punished[_bits(last_moved) | _bits(six_moved) << 4]
        return tuple(
            i for i in range(PLANES_PER_COLOUR) if bits >> i & 1 and planes[i] != CENTRE and planes[i] != HANGAR
        )


def _bits(planes: tuple[int, ...]) -> int:
    bits = 0
    for plane in planes:
        bits |= 1 << plane
    return bits


def _punished(rule: str, last_moved: int, six_moved: int) -> int:
    """The plane bits the three-sixes rule names (rules.md, three sixes)."""
    if rule == "all":
        return 0xF
    if rule == "last-moved":
        return last_moved
    if rule == "moved-by-sixes":
        return six_moved
    return 0


_COMPILED: dict[tuple[Rules, tuple[str, ...]], CompiledGame] = {}
_last_compiled: CompiledGame | None = None


def compile_game(rules: Rules, players: tuple[str, ...]) -> CompiledGame:
    """The compiled game for `rules` and `players` (a checked, clockwise colour list), built
    on first use; the last one is checked by identity, as a game asks on every move."""
    global _last_compiled
    found = _last_compiled
    if found is not None and found.rules is rules and found.players is players:
        return found
    key = (rules, players)
    found = _COMPILED.get(key)
    if found is None:
        found = _COMPILED[key] = CompiledGame(rules, players)
    _last_compiled = found
    return found
