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

from collections.abc import Callable, Mapping, Sequence
from random import Random
from typing import Final, Literal, NamedTuple

from .board import CENTRE, COLOURS, HANGAR, PLANES_PER_COLOUR, SEAT
from .compiled import (
    CompiledGame,
    Effect,
    MoveTable,
    Path,
    compile_game,
    compute_path,
    move_table,
)
from .events import (
    Bounced,
    Captured,
    Event,
    ExtraRoll,
    Flew,
    GameOver,
    Jumped,
    Launched,
    Passed,
    PlaneFinished,
    PlayerFinished,
    Rolled,
    Stepped,
    ThreeSixes,
    TurnPassed,
)
from .rules import CLASSIC, DIE_FACES, Rules

__all__ = ["CompiledGame", "MoveTable", "Path", "compile_game", "compute_path", "move_table"]  # re-exported
_PLANE_INDICES: Final = tuple(range(PLANES_PER_COLOUR))
_ALL_FINISHED: Final = (CENTRE,) * PLANES_PER_COLOUR


class IllegalMoveError(ValueError):
    """A roll or move the rules do not allow; the message names it and the position."""


class GameSetupError(ValueError):
    """A player list the rules do not allow (docs/rules.md §7)."""


# --------------------------------------------------------------------------- state


Phase = Literal["roll", "move", "over"]


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
    def phase(self) -> Phase:
        """ "roll" (waiting for the die), "move" (waiting for a plane) or "over"."""
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
        raise GameSetupError(f"players {list(players)}: turn order must be clockwise (red, yellow, blue, green)")
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
            isinstance(p, bool) or not isinstance(p, int) or not HANGAR <= p <= CENTRE for p in row
        ):
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
    return State(
        rules,
        players,
        tuple(rows),
        players.index(turn),
        roll,
        sixes,
        tuple(last_moved),
        tuple(six_moved),
        tuple(ranking),
        False,
    )


# --------------------------------------------------------------------------- moves


def three_sixes_fires(state: State) -> bool:
    """Whether the rolled die is a third six in a row that forbids a move (docs/rules.md)."""
    return state.roll is not None and _third_six(state, state.roll, move_table(state.rules))


def third_six_if(state: State, roll: int) -> bool:
    """Whether `roll`, were the die (about to be rolled in `state`) to show it, would be a
    third six in a row that forbids a move: what a search anticipates."""
    return _third_six(state, roll, move_table(state.rules))


def _third_six(state: State, roll: int, table: MoveTable) -> bool:
    return roll == 6 and state.sixes >= 2 and table.three_sixes


def _compiled(state: State) -> CompiledGame:
    return compile_game(state.rules, state.players)


def legal_moves(state: State) -> tuple[int, ...]:
    """The moves for the rolled die, each named by a plane index (a stack by its lowest).

    Empty when the only option is to pass. Raises IllegalMoveError outside the move phase."""
    if state.roll is None or state.over:
        raise IllegalMoveError(f"no die has been rolled: {state.describe()}")
    return _legal_moves(state, state.roll, move_table(state.rules))


def _legal_moves(state: State, roll: int, table: MoveTable) -> tuple[int, ...]:
    if _third_six(state, roll, table):
        return ()
    mine = state.planes[state.turn]
    movable = table.movable[roll]
    if not table.together:
        return tuple([index for index in _PLANE_INDICES if mine[index] in movable])
    return tuple(
        [
            index
            for index in _PLANE_INDICES
            if mine[index] in movable
            # a stack is named by its lowest plane
            and not (table.stacks[mine[index] + 1] and mine[index] in mine[:index])
        ]
    )


def carried_planes(state: State, plane: int) -> tuple[int, ...]:
    """The planes that move when `plane` is chosen: its stack under stacking: together."""
    mine = state.planes[state.turn]
    start = mine[plane]
    return _stack(mine, start) if move_table(state.rules).stacks[start + 1] else (plane,)


def _stack(mine: tuple[int, ...], start: int) -> tuple[int, ...]:
    return tuple(i for i, p in enumerate(mine) if p == start)


def is_chance(state: State) -> bool:
    """Whether the game waits for the die: a chance node, whose action is the face shown."""
    return state.roll is None and not state.over


def step(state: State, action: int | None) -> tuple[State, list[Event]]:
    """One action, the way OpenSpiel takes them: at a chance node (`is_chance`) the die
    shows `action`; else the player to move moves plane `action` (None: a pass). Checked,
    with its events; `roll` and `apply` are its two halves. Every checked play goes
    through it: `play` (a record's action), `play_out(checked=True)`, the PettingZoo
    environment and the server's rooms."""
    if is_chance(state):
        if action is None:
            raise IllegalMoveError(f"the die must show a face 1..6: {state.describe()}")
        return roll(state, action)
    return apply(state, action)


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
    game = _compiled(state)
    moves = _legal_moves(state, state.roll, game.table)
    if plane is None:
        if moves:
            names = ", ".join(map(str, moves))
            raise IllegalMoveError(f"cannot pass: plane {names} can move; {state.describe()}")
    else:
        if isinstance(plane, bool) or not isinstance(plane, int) or not 0 <= plane < PLANES_PER_COLOUR:
            raise IllegalMoveError(f"plane {plane!r} is not a plane index 0..3")
        if three_sixes_fires(state):
            raise IllegalMoveError(f"plane {plane} cannot move: a third six forbids any move; {state.describe()}")
        if not any(plane in carried_planes(state, move) for move in moves):
            raise IllegalMoveError(f"plane {plane} cannot move: {_why_not(state, plane)}; {state.describe()}")
    events: list[Event] = []
    return _apply(state, state.roll, plane, game, events), events


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
    return _apply(state, state.roll, plane, _compiled(state), None)


def apply_narrated(state: State, plane: int | None) -> tuple[State, list[Event]]:
    """`apply` without its checks, for a move `legal_moves` gave: the fast path with the
    events (what a bot or a preview weighing every candidate wants)."""
    assert state.roll is not None
    events: list[Event] = []
    return _apply(state, state.roll, plane, _compiled(state), events), events


def moves_unchecked(state: State, roll_value: int) -> tuple[int, ...]:
    """The fast path's `legal_moves` for a state waiting for the die, had it shown `roll_value`."""
    return _legal_moves(state, roll_value, move_table(state.rules))


def play_unchecked(state: State, roll_value: int, plane: int | None) -> State:
    """The fast path's `play`: roll and move in one step, without checks or events.

    `state` waits for the die; `plane` must come from `moves_unchecked(state, roll_value)`."""
    return _apply(state, roll_value, plane, _compiled(state), None)


Chooser = Callable[[State, int, tuple[int, ...]], "int | None"]
"""choose(state, roll, moves) -> a plane from `moves`: the legal moves for `roll` in
`state`, which still waits for the die (`state._replace(roll=roll)` is the rolled state)."""
MAX_ROLLS: Final = 100_000
"""More rolls than this in one game is a bug (a random 4-player game takes a few hundred)."""


class Turn(NamedTuple):
    """One action of a game as `play_out` played it."""

    roll: int
    plane: int | None
    before: State
    """The state the die was rolled in (waiting for the die)."""
    after: State
    events: list[Event]
    """What it caused (the engine's events; empty unless play_out was asked for them)."""


def play_out(
    state: State,
    choose: Chooser,
    dice: Callable[[], int],
    *,
    until: Callable[[State, int], bool] | None = None,
    watch: Callable[[Turn], None] | None = None,
    checked: bool = False,
    ask_forced: bool = True,
    actions: int | None = None,
    max_rolls: int = MAX_ROLLS,
) -> tuple[State, int]:
    """The play loop: roll with `dice()`, ask `choose` for a move, make it; again until the
    game ends. Every place that plays games (the CLI, the simulator, the environments,
    the server's bots) plays them here.

    Returns (the state reached, rolls played). `until(state, roll)`, asked after each roll
    and before the choice, stops the loop early: the state returned is then the rolled
    state, waiting for a move. `watch(turn)` sees each action. `checked` plays through
    `roll` and `apply` (a bad choice raises IllegalMoveError; events are reported), else
    through the fast path. With no legal move the player passes without being asked;
    with one, it is asked only when `ask_forced`. `actions` plays at most that many."""
    if state.roll is not None:
        raise IllegalMoveError(f"play_out starts from a state waiting for the die: {state.describe()}")
    game = _compiled(state)
    table = game.table
    rolls = 0
    while not state.over:
        value = dice()
        if until is not None and until(state, value):
            return roll(state, value)[0], rolls
        moves = _legal_moves(state, value, table)
        if len(moves) > 1 or (moves and ask_forced):
            plane = choose(state, value, moves)
        else:
            plane = moves[0] if moves else None
        if checked:
            after, events = play(state, value, plane)
        else:
            after, events = _apply(state, value, plane, game, None), []
        if watch is not None:
            watch(Turn(value, plane, state, after, events))
        state = after
        rolls += 1
        if rolls == actions:
            break
        if rolls > max_rolls:
            raise RuntimeError(f"a game did not end in {max_rolls} rolls")
    return state, rolls


def random_playout(state: State, rng: Random) -> tuple[State, int]:
    """Play on with uniformly random dice and moves until the game ends (fast path).

    Returns the final state and the number of rolls (the simulator's inner loop)."""
    uniform = rng.random
    return play_out(state, lambda _, __, moves: moves[int(uniform() * len(moves))], lambda: int(uniform() * 6) + 1)


def play(state: State, value: int, plane: int | None) -> tuple[State, list[Event]]:
    """One record action, two steps: the die shows `value` (the chance step, `roll`, which
    says why a state not waiting for the die cannot roll), then `plane` moves (None to
    pass)."""
    rolled, events = roll(state, value)
    after, more = step(rolled, plane)
    return after, events + more


def _apply(state: State, roll_value: int, plane: int | None, game: CompiledGame, events: list[Event] | None) -> State:
    table = game.table
    turn = state.turn
    colour = state.players[turn]
    planes = state.planes
    carried: tuple[int, ...] = ()
    penalty = _third_six(state, roll_value, table)
    if penalty:
        planes = _three_sixes(state, game, events)
    elif plane is None:
        if events is not None:
            events.append(Passed(colour))
    else:
        mine = planes[turn]
        start = mine[plane]
        path = table.paths[start + 1][roll_value]
        assert path is not None
        end = path.end
        if table.stacks[start + 1] and mine.count(start) > 1:
            carried = _stack(mine, start)
            mine = tuple(end if p == start else p for p in mine)
        else:
            carried = (plane,)
            mine = mine[:plane] + (end,) + mine[plane + 1 :]
        planes = planes[:turn] + (mine,) + planes[turn + 1 :]
        if events is not None:
            _narrate_plain_move(events, colour, carried, start, path)
        if path.effects:
            planes = _resolve_effects(state, planes, game.effects[turn][start + 1][roll_value], carried, events)
        if end == CENTRE and events is not None:
            events.extend(PlaneFinished(colour, i) for i in carried)
    return _end_of_move(state, roll_value, planes, carried, penalty, game, events)


def _narrate_plain_move(events: list[Event], colour: str, carried: tuple[int, ...], start: int, path: Path) -> None:
    if start == HANGAR:
        events.append(Launched(colour, carried[0]))
        return
    for progress in path.steps:
        events.append(Stepped(colour, carried, progress))
        if path.bounced and progress == CENTRE:
            events.append(Bounced(colour, carried))


def _resolve_effects(
    state: State,
    planes: tuple[tuple[int, ...], ...],
    effects: tuple[Effect, ...],
    carried: tuple[int, ...],
    events: list[Event] | None,
) -> tuple[tuple[int, ...], ...]:
    """Jumps, flights and captures in the order they happen, with the victims the
    compiled game lists for each (docs/rules.md: moves and captures)."""
    colour = state.players[state.turn]
    for kind, first, second, captures in effects:
        if kind != "check" and events is not None:
            events.append((Jumped if kind == "jump" else Flew)(colour, carried, first, second))
        for victim, progress, cause in captures:
            if progress in planes[victim]:
                row = _send_home(planes[victim], progress, state.players[victim], colour, cause, events)
                planes = planes[:victim] + (row,) + planes[victim + 1 :]
    return planes


def _send_home(
    row: tuple[int, ...], progress: int, victim: str, by: str, cause: str, events: list[Event] | None
) -> tuple[int, ...]:
    if events is not None:
        hit = tuple(i for i, p in enumerate(row) if p == progress)
        events.append(Captured(victim, hit, progress, by, cause))
    return tuple(HANGAR if p == progress else p for p in row)


def _three_sixes(state: State, game: CompiledGame, events: list[Event] | None) -> tuple[tuple[int, ...], ...]:
    """The third six in a row: the planes the compiled three-sixes rule names go home."""
    mine = state.planes[state.turn]
    sent = game.punished_planes(mine, state.last_moved, state.six_moved)
    if events is not None:
        events.append(ThreeSixes(state.players[state.turn], sent))
    mine = tuple(HANGAR if i in sent else p for i, p in enumerate(mine))
    return state.planes[: state.turn] + (mine,) + state.planes[state.turn + 1 :]


def _end_of_move(
    state: State,
    roll_value: int,
    planes: tuple[tuple[int, ...], ...],
    carried: tuple[int, ...],
    penalty: bool,
    game: CompiledGame,
    events: list[Event] | None,
) -> State:
    """Who rolls next: extra roll, next colour, or the end of the game (docs/rules.md)."""
    rules = state.rules
    table = game.table
    turn = state.turn
    players = state.players
    ranking = state.ranking
    if carried and planes[turn] == _ALL_FINISHED:  # a finished player never moves: just now
        colour = players[turn]
        ranking = ranking + (colour,)
        if events is not None:
            events.append(PlayerFinished(colour, len(ranking)))
        finished = _finished_bits(players, ranking)
        if table.end_first or len(ranking) >= len(players) - 1:
            if not table.end_first:  # the last player left takes the last place
                ranking = ranking + (players[game.last_player[finished]],)
            if events is not None:
                events.append(GameOver(ranking[0], ranking))
            return _new_state(State, (rules, players, planes, 0, None, 0, (), (), ranking, True))
    elif not penalty and table.extra_roll[roll_value]:
        if roll_value == 6:
            sixes = state.sixes + 1
            six_moved = state.six_moved + carried
        else:
            sixes, six_moved = 0, ()
        last_moved = carried if carried else state.last_moved
        if events is not None:
            events.append(ExtraRoll(players[turn]))
        return _new_state(State, (rules, players, planes, turn, None, sixes, last_moved, six_moved, ranking, False))
    following = game.next_player[turn][_finished_bits(players, ranking) if ranking else 0]
    if events is not None:
        events.append(TurnPassed(players[following]))
    return _new_state(State, (rules, players, planes, following, None, 0, (), (), ranking, False))


def _finished_bits(players: tuple[str, ...], ranking: tuple[str, ...]) -> int:
    bits = 0
    for colour in ranking:
        bits |= 1 << players.index(colour)
    return bits
