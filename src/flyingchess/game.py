"""The rules engine: an immutable game state, the die as a chance step, legal moves, apply.

A turn is two steps. `roll(state, n)` is the chance step (the caller owns the die, so
search bots can enumerate the six outcomes); `apply(state, plane)` is the decision step
and returns the new state with the events the move caused, in order. `apply` checks
everything and raises `IllegalMoveError`; `apply_unchecked` is the fast path for
simulation and skips checks and events. Every move's path (plain steps, bounce, jump,
flight, capture checks) is worked out once per rule set into a table (`MoveTable`), so
the hot path is table look-ups. docs/rules.md states every interpretation made here.
"""

from __future__ import annotations

from random import Random
from typing import Final, Mapping, NamedTuple, Sequence

from . import board
from .board import CENTRE, COLOURS, HANGAR, PLANES_PER_COLOUR, SAME_CELL, SEAT
from .events import (
    Bounced, Captured, Event, ExtraRoll, Flew, GameOver, Jumped, Launched, Passed,
    PlaneFinished, PlayerFinished, Rolled, Stepped, ThreeSixes, TurnPassed,
)
from .rules import CLASSIC, DIE_FACES, Rules

STACK_FIRST: Final = board.RING_FIRST
STACK_LAST: Final = board.LANE_LAST
_PLANE_INDICES: Final = tuple(range(PLANES_PER_COLOUR))
_ALL_FINISHED: Final = (CENTRE,) * PLANES_PER_COLOUR


class IllegalMoveError(ValueError):
    """A roll or move the rules do not allow; the message names it and the position."""


class GameSetupError(ValueError):
    """A player list the rules do not allow (RULES.md section 7)."""


# --------------------------------------------------------------------------- paths


class Path(NamedTuple):
    """Where a plane at some progress goes with some roll, and what happens on the way.

    `steps` are the cells the plain move passes, in order (after a bounce they count
    back down). `effects` is what follows, in order: ("check", p, 0) a ring capture check
    at progress p, ("jump", from, to), ("fly", from, to); `flies` and `has_captures` let the
    fast path skip them when nothing can be captured."""

    end: int
    steps: tuple[int, ...]
    bounced: bool
    effects: tuple[tuple[str, int, int], ...]
    flies: bool
    jumps: bool
    has_checks: bool


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
    effects: list[tuple[str, int, int]] = []
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
    has_checks = any(op == "check" for op, _, _ in effects)
    return Path(position, tuple(range(progress + 1, target + 1)), False, tuple(effects),
                flew, jumped, has_checks)


def _may_fly(chain: str, jumped: bool) -> bool:
    # A flight may be the move's only special move, or (chained rules) follow its jump.
    return not jumped or chain != "none"


def _may_jump(chain: str, flew: bool) -> bool:
    # A jump may be the only special move, or follow a direct flight under jump-fly-jump.
    return not flew or chain == "jump-fly-jump"


class MoveTable:
    """Every `Path` for one rule set: `paths[progress + 1][roll]` (None where illegal)."""

    __slots__ = ("rules", "paths", "movable", "together", "three_sixes")

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.paths: tuple[tuple[Path | None, ...], ...] = tuple(
            (None,) + tuple(compute_path(rules, progress, roll) for roll in range(1, 7))
            for progress in range(HANGAR, CENTRE + 1)
        )
        self.movable: tuple[frozenset[int], ...] = tuple(
            frozenset(p for p in range(HANGAR, CENTRE + 1) if self.paths[p + 1][roll] is not None)
            for roll in range(7)
        )
        """movable[roll]: the progress values from which a plane may move with `roll`."""
        self.together = rules.stacking == "together"
        self.three_sixes = rules.three_sixes != "none"


_TABLES: dict[Rules, MoveTable] = {}
_last_table: MoveTable | None = None


def move_table(rules: Rules) -> MoveTable:
    """The tables for `rules`, built on first use (the last one is checked by identity,
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


# --------------------------------------------------------------------------- state


class State(NamedTuple):
    """An immutable game position (hashable, cheap to copy).

    `planes[i]` holds the four progress values of `players[i]`; `turn` indexes `players`.
    `roll` is None while the state waits for the die (chance phase) and the rolled value
    while it waits for a move. `last_moved` (planes carried by the latest move of this
    turn) and `six_moved` (planes carried by the sixes of the current run) exist only for
    the three-sixes rule. Build one with `new_game`; never edit fields by hand."""

    rules: Rules
    players: tuple[str, ...]
    planes: tuple[tuple[int, ...], ...]
    turn: int
    roll: int | None
    sixes: int
    last_moved: tuple[int, ...]
    six_moved: tuple[int, ...]
    ranking: tuple[str, ...]
    over: bool

    @property
    def phase(self) -> str:
        """"roll" (waiting for the die), "move" (waiting for a plane) or "over"."""
        if self.over:
            return "over"
        return "roll" if self.roll is None else "move"

    @property
    def colour(self) -> str | None:
        """The colour to play, or None once the game is over."""
        return None if self.over else self.players[self.turn]

    @property
    def winner(self) -> str | None:
        return self.ranking[0] if self.ranking else None

    def planes_of(self, colour: str) -> tuple[int, ...]:
        return self.planes[self.players.index(colour)]

    def describe(self) -> str:
        """A one-line summary used in error messages."""
        planes = "; ".join(f"{c} {list(p)}" for c, p in zip(self.players, self.planes))
        if self.over:
            return f"game over ({planes})"
        roll = "" if self.roll is None else f" with roll {self.roll}"
        return f"{self.players[self.turn]} to play{roll} ({planes})"


_new_state = tuple.__new__
"""Builds a State from a tuple of its fields without the NamedTuple constructor's extra call
(the hot path builds one per roll)."""


def validate_players(players: Sequence[str]) -> tuple[str, ...]:
    """The player list as a tuple, or GameSetupError: 2-4 distinct colours, clockwise."""
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise GameSetupError("players must be a list of colours")
    players = tuple(players)
    for colour in players:
        if not isinstance(colour, str) or colour not in SEAT:
            raise GameSetupError(f"unknown colour {colour!r} (expected {', '.join(COLOURS)})")
    if len(set(players)) != len(players):
        raise GameSetupError(f"players {list(players)}: a colour appears twice")
    if not 2 <= len(players) <= 4:
        raise GameSetupError(f"players {list(players)}: 2, 3 or 4 colours play")
    seats = [SEAT[colour] for colour in players]
    first = seats[0]
    if [(seat - first) % 4 for seat in seats] != sorted((seat - first) % 4 for seat in seats):
        raise GameSetupError(
            f"players {list(players)}: turn order must be clockwise (red, yellow, blue, green)"
        )
    return players


DEFAULT_PLAYERS: Final = {2: ("red", "blue"), 3: ("red", "yellow", "blue"), 4: COLOURS}


def new_game(players: Sequence[str] | int = 2, rules: Rules = CLASSIC) -> State:
    """The starting position: every plane in its hangar, the first colour to roll.

    `players` is a colour list in turn order, or a count (2: red and blue, 3: red,
    yellow and blue, 4: all)."""
    if isinstance(players, int):
        if isinstance(players, bool) or players not in DEFAULT_PLAYERS:
            raise GameSetupError(f"{players} players: 2, 3 or 4 colours play")
        colours = DEFAULT_PLAYERS[players]
    else:
        colours = validate_players(players)
    if not isinstance(rules, Rules):
        raise TypeError("rules must be a Rules value (see Rules.preset)")
    planes = tuple((HANGAR,) * PLANES_PER_COLOUR for _ in colours)
    return State(rules, colours, planes, 0, None, 0, (), (), (), False)


def setup_position(
    planes: Mapping[str, Sequence[int]],
    rules: Rules = CLASSIC,
    *,
    turn: str | None = None,
    roll: int | None = None,
    sixes: int = 0,
    last_moved: Sequence[int] = (),
    six_moved: Sequence[int] = (),
    ranking: Sequence[str] = (),
) -> State:
    """A position set up by hand (for tests, puzzles and analysis), checked for sense.

    `planes` maps each playing colour, in turn order, to its four progress values; `turn`
    defaults to the first colour; `roll` set means the die already shows it. `sixes`,
    `last_moved` and `six_moved` describe the current turn for the three-sixes rule."""
    players = validate_players(list(planes))
    rows = []
    for colour in players:
        row = tuple(planes[colour])
        if len(row) != PLANES_PER_COLOUR or any(
                isinstance(p, bool) or not isinstance(p, int) or not HANGAR <= p <= CENTRE for p in row):
            raise GameSetupError(f"{colour}: four progress values -1..56 expected, got {list(row)}")
        rows.append(row)
    if turn is None:
        turn = players[0]
    if turn not in players:
        raise GameSetupError(f"turn {turn!r} is not a playing colour")
    for colour in ranking:
        if colour not in players or rows[players.index(colour)] != _ALL_FINISHED:
            raise GameSetupError(f"ranking: {colour!r} has not finished")
    for colour, row in zip(players, rows):
        if row == _ALL_FINISHED and colour not in ranking:
            raise GameSetupError(f"{colour} has finished, so it must appear in the ranking")
    if turn in ranking:
        raise GameSetupError(f"turn: {turn} has already finished")
    if roll is not None and roll not in DIE_FACES:
        raise GameSetupError(f"roll {roll!r} is not a die value 1..6")
    for name, planes_moved in (("last_moved", last_moved), ("six_moved", six_moved)):
        if any(plane not in _PLANE_INDICES for plane in planes_moved):
            raise GameSetupError(f"{name}: plane indices 0..3 expected, got {list(planes_moved)}")
    if sixes < 0:
        raise GameSetupError("sixes cannot be negative")
    return State(rules, players, tuple(rows), players.index(turn), roll, sixes, tuple(last_moved),
                 tuple(six_moved), tuple(ranking), False)


# --------------------------------------------------------------------------- moves


def three_sixes_fires(state: State) -> bool:
    """Whether the rolled die is a third six in a row that forbids a move (RULES.md 4)."""
    return state.roll == 6 and state.sixes >= 2 and state.rules.three_sixes != "none"


def legal_moves(state: State) -> tuple[int, ...]:
    """The moves for the rolled die, each named by a plane index (a stack by its lowest).

    Empty when the only option is to pass. Raises IllegalMoveError outside the move phase."""
    if state.roll is None or state.over:
        raise IllegalMoveError(f"no die has been rolled: {state.describe()}")
    return _legal_moves(state, state.roll, move_table(state.rules))


def _legal_moves(state: State, roll: int, table: MoveTable) -> tuple[int, ...]:
    if roll == 6 and state.sixes >= 2 and table.three_sixes:
        return ()
    mine = state.planes[state.turn]
    movable = table.movable[roll]
    if not table.together:
        return tuple([index for index in _PLANE_INDICES if mine[index] in movable])
    return tuple([
        index for index in _PLANE_INDICES
        if mine[index] in movable
        # a stack is named by its lowest plane
        and not (STACK_FIRST <= mine[index] <= STACK_LAST and mine[index] in mine[:index])
    ])


def carried_planes(state: State, plane: int) -> tuple[int, ...]:
    """The planes that move when `plane` is chosen: its stack under stacking: together."""
    mine = state.planes[state.turn]
    progress = mine[plane]
    if state.rules.stacking == "together" and STACK_FIRST <= progress <= STACK_LAST:
        return tuple(i for i, p in enumerate(mine) if p == progress)
    return (plane,)


def roll(state: State, value: int) -> tuple[State, list[Event]]:
    """The chance step: the die shows `value`. Returns the state waiting for a move."""
    if state.over:
        raise IllegalMoveError(f"the game is over: {state.describe()}")
    if state.roll is not None:
        raise IllegalMoveError(f"the die is already rolled ({state.roll}): {state.describe()}")
    if isinstance(value, bool) or not isinstance(value, int) or value not in DIE_FACES:
        raise IllegalMoveError(f"roll {value!r} is not a die value 1..6")
    return state._replace(roll=value), [Rolled(state.players[state.turn], value)]


def apply(state: State, plane: int | None) -> tuple[State, list[Event]]:
    """The decision step: move `plane` (any plane of a stack names it) or pass (None).

    Raises IllegalMoveError, naming the move and the position, and changes nothing, when
    the move is not legal: a pass is legal only when no move is."""
    if state.over:
        raise IllegalMoveError(f"the game is over: {state.describe()}")
    if state.roll is None:
        raise IllegalMoveError(f"roll the die before moving: {state.describe()}")
    table = move_table(state.rules)
    moves = _legal_moves(state, state.roll, table)
    if plane is None:
        if moves:
            names = ", ".join(map(str, moves))
            raise IllegalMoveError(f"cannot pass: plane {names} can move; {state.describe()}")
    else:
        if isinstance(plane, bool) or not isinstance(plane, int) or not 0 <= plane < PLANES_PER_COLOUR:
            raise IllegalMoveError(f"plane {plane!r} is not a plane index 0..3")
        if three_sixes_fires(state):
            raise IllegalMoveError(
                f"plane {plane} cannot move: a third six forbids any move; {state.describe()}")
        if not any(plane in carried_planes(state, move) for move in moves):
            raise IllegalMoveError(
                f"plane {plane} cannot move: {_why_not(state, plane)}; {state.describe()}")
    events: list[Event] = []
    return _apply(state, state.roll, plane, table, events), events


def _why_not(state: State, plane: int) -> str:
    progress = state.planes[state.turn][plane]
    if progress == HANGAR:
        return f"it is in the hangar and {state.roll} does not launch"
    if progress == CENTRE:
        return "it has already reached the centre"
    return f"{progress} + {state.roll} overshoots the centre (exact finish)"


def apply_unchecked(state: State, plane: int | None) -> State:
    """The fast path: `apply` without checks or events, for simulation and search."""
    assert state.roll is not None
    return _apply(state, state.roll, plane, move_table(state.rules), None)


def moves_unchecked(state: State, roll_value: int) -> tuple[int, ...]:
    """The fast path's `legal_moves` for a state waiting for the die, had it shown `roll_value`."""
    return _legal_moves(state, roll_value, move_table(state.rules))


def play_unchecked(state: State, roll_value: int, plane: int | None) -> State:
    """The fast path's `play`: roll and move in one step, without checks or events.

    `state` waits for the die; `plane` must come from `moves_unchecked(state, roll_value)`."""
    return _apply(state, roll_value, plane, move_table(state.rules), None)


def random_playout(state: State, rng: Random) -> tuple[State, int]:
    """Play on with uniformly random dice and moves until the game ends (fast path).

    Returns the final state and the number of rolls. This is the simulator's inner loop:
    it calls the same `_legal_moves` and `_apply` as every other path, with the move
    table looked up once."""
    if state.roll is not None:
        raise IllegalMoveError(f"random_playout starts from a state waiting for the die: {state.describe()}")
    table = move_table(state.rules)
    uniform = rng.random
    rolls = 0
    while not state.over:
        value = int(uniform() * 6) + 1
        moves = _legal_moves(state, value, table)
        plane = moves[int(uniform() * len(moves))] if moves else None
        state = _apply(state, value, plane, table, None)
        rolls += 1
    return state, rolls


def play(state: State, value: int, plane: int | None) -> tuple[State, list[Event]]:
    """One record action: roll `value`, then move `plane` (None to pass)."""
    rolled, events = roll(state, value)
    after, more = apply(rolled, plane)
    return after, events + more


def _apply(state: State, roll_value: int, plane: int | None, table: MoveTable,
           events: list[Event] | None) -> State:
    turn = state.turn
    colour = state.players[turn]
    planes = state.planes
    carried: tuple[int, ...] = ()
    penalty = roll_value == 6 and state.sixes >= 2 and table.three_sixes
    if penalty:
        planes = _three_sixes(state, events)
    elif plane is None:
        if events is not None:
            events.append(Passed(colour))
    else:
        mine = planes[turn]
        start = mine[plane]
        path = table.paths[start + 1][roll_value]
        assert path is not None
        end = path.end
        if table.together and STACK_FIRST <= start <= STACK_LAST and mine.count(start) > 1:
            carried = tuple(i for i, p in enumerate(mine) if p == start)
            mine = tuple(end if p == start else p for p in mine)
        else:
            carried = (plane,)
            mine = mine[:plane] + (end,) + mine[plane + 1:]
        planes = planes[:turn] + (mine,) + planes[turn + 1:]
        if events is not None:
            _narrate_plain_move(events, colour, carried, start, path)
        if path.effects:
            planes = _resolve_effects(state, planes, path, carried, events)
        if end == CENTRE and events is not None:
            events.extend(PlaneFinished(colour, i) for i in carried)
    return _end_of_move(state, roll_value, planes, carried, penalty, events)


def _narrate_plain_move(events: list[Event], colour: str, carried: tuple[int, ...],
                        start: int, path: Path) -> None:
    if start == HANGAR:
        events.append(Launched(colour, carried[0]))
        return
    for progress in path.steps:
        events.append(Stepped(colour, carried, progress))
        if path.bounced and progress == CENTRE:
            events.append(Bounced(colour, carried))


def _resolve_effects(state: State, planes: tuple[tuple[int, ...], ...], path: Path,
                     carried: tuple[int, ...], events: list[Event] | None
                     ) -> tuple[tuple[int, ...], ...]:
    """Jumps, flights and captures in the order they happen (RULES.md sections 2 and 3)."""
    turn = state.turn
    colour = state.players[turn]
    opponents, opposite = _opponents(state.players, turn)
    rows: list[tuple[int, ...]] | None = None
    for op, first, second in path.effects:
        if op == "check":
            for other, victim, cells in opponents:
                target = cells[first]
                if target != -1 and target in planes[other]:
                    rows = rows or list(planes)
                    rows[other] = _send_home(rows[other], target, victim, colour, "landing", events)
                    planes = tuple(rows)
            continue
        if events is not None:
            events.append((Jumped if op == "jump" else Flew)(colour, carried, first, second))
        if op == "fly" and opposite is not None and state.rules.flight_capture:
            other, victim = opposite
            if board.CROSSING in planes[other]:
                rows = rows or list(planes)
                rows[other] = _send_home(rows[other], board.CROSSING, victim, colour, "flight", events)
                planes = tuple(rows)
    return planes


_Opponents = tuple[tuple[tuple[int, str, tuple[int, ...]], ...], tuple[int, str] | None]
_OPPONENTS: dict[tuple[tuple[str, ...], int], _Opponents] = {}


def _opponents(players: tuple[str, ...], turn: int) -> _Opponents:
    """For the player at `turn`: each opponent's (index, colour, SAME_CELL row), and the
    (index, colour) of the opposite colour when it plays (the flight line's victim)."""
    key = (players, turn)
    found = _OPPONENTS.get(key)
    if found is None:
        seat = SEAT[players[turn]]
        others = tuple((i, c, SAME_CELL[seat][SEAT[c]]) for i, c in enumerate(players) if i != turn)
        victim = COLOURS[board.opposite_seat(seat)]
        opposite = (players.index(victim), victim) if victim in players else None
        found = _OPPONENTS[key] = (others, opposite)
    return found


def _send_home(row: tuple[int, ...], progress: int, victim: str, by: str, cause: str,
               events: list[Event] | None) -> tuple[int, ...]:
    if events is not None:
        hit = tuple(i for i, p in enumerate(row) if p == progress)
        events.append(Captured(victim, hit, progress, by, cause))
    return tuple(HANGAR if p == progress else p for p in row)


def _three_sixes(state: State, events: list[Event] | None) -> tuple[tuple[int, ...], ...]:
    """The third six in a row: which planes go back, by the `three_sixes` option."""
    rule = state.rules.three_sixes
    mine = state.planes[state.turn]
    if rule == "all":
        punished: tuple[int, ...] = tuple(range(PLANES_PER_COLOUR))
    elif rule == "last-moved":
        punished = state.last_moved
    else:  # moved-by-sixes
        punished = state.six_moved
    sent = tuple(i for i in sorted(set(punished)) if mine[i] != CENTRE and mine[i] != HANGAR)
    if events is not None:
        events.append(ThreeSixes(state.players[state.turn], sent))
    mine = tuple(HANGAR if i in sent else p for i, p in enumerate(mine))
    return state.planes[:state.turn] + (mine,) + state.planes[state.turn + 1:]


def _end_of_move(state: State, roll_value: int, planes: tuple[tuple[int, ...], ...],
                 carried: tuple[int, ...], penalty: bool, events: list[Event] | None) -> State:
    """Who rolls next: extra roll, next colour, or the end of the game (RULES.md 2, 4, 6)."""
    rules = state.rules
    turn = state.turn
    players = state.players
    ranking = state.ranking
    if carried and planes[turn] == _ALL_FINISHED:  # a finished player never moves: just now
        colour = players[turn]
        ranking = ranking + (colour,)
        if events is not None:
            events.append(PlayerFinished(colour, len(ranking)))
        still_playing = [c for c in players if c not in ranking]
        if rules.end == "first" or len(still_playing) <= 1:
            if rules.end == "ranking":
                ranking = ranking + tuple(still_playing)
            if events is not None:
                events.append(GameOver(ranking[0], ranking))
            return _new_state(State, (rules, players, planes, 0, None, 0, (), (), ranking, True))
    elif not penalty and roll_value in rules.extra_roll:
        if roll_value == 6:
            sixes = state.sixes + 1
            six_moved = state.six_moved + carried
        else:
            sixes, six_moved = 0, ()
        last_moved = carried if carried else state.last_moved
        if events is not None:
            events.append(ExtraRoll(players[turn]))
        return _new_state(
            State, (rules, players, planes, turn, None, sixes, last_moved, six_moved, ranking, False))
    following = (turn + 1) % len(players)
    while ranking and players[following] in ranking:
        following = (following + 1) % len(players)
    if events is not None:
        events.append(TurnPassed(players[following]))
    return _new_state(State, (rules, players, planes, following, None, 0, (), (), ranking, False))
