"""Game records and the canonical state (docs/records.md): JSON in, JSON out, and replay.

A record is the one exchange format between the web app, bots, tests and the CLI; a
malformed header raises `RecordError`, an illegal action `ActionError` carrying its index.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..engine.board import COLOURS, PLANES_PER_COLOUR
from ..engine.events import Event
from ..engine.game import GameSetupError, IllegalMoveError, State, new_game, play, validate_players
from ..engine.rules import CLASSIC, DIE_FACES, Rules, RulesError

FORMAT = "flyingchess/1"


class RecordError(ValueError):
    """A record whose header (format, rules, players, actions list) is malformed."""


class ActionError(ValueError):
    """Action number `index` (0-based) of a record is illegal."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(f"action {index}: {reason}")
        self.index = index
        self.reason = reason


class Step(NamedTuple):
    """One action of a record: the state waiting for its roll, the state after it, and
    the events between (the roll's and the move's)."""

    number: int
    """The action's index in the record (0-based)."""
    roll: int
    plane: int | None
    before: State
    after: State
    events: tuple[Event, ...]


@dataclass
class Record:
    """A parsed record. `extra` keeps top-level keys this version does not know."""

    rules: Rules
    players: tuple[str, ...]
    actions: list[Any] = field(default_factory=list)
    rules_json: Any = "classic"
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def for_game(cls, rules: Rules, players: tuple[str, ...], **extra: Any) -> Record:
        """An empty record for a new game, naming the rules by preset where possible."""
        return cls(rules, players, [], rules_to_json(rules), dict(extra))

    def add(self, roll: int, plane: int | None) -> None:
        self.actions.append({"roll": roll, "plane": plane})

    def to_json(self) -> dict[str, Any]:
        out = dict(self.extra)
        out.update(
            {"format": FORMAT, "rules": self.rules_json, "players": list(self.players), "actions": list(self.actions)}
        )
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)

    def start(self) -> State:
        return new_game(self.players, self.rules)

    def replay(self) -> Iterator[State]:
        """The state after each action, in order; raises ActionError at the first bad one."""
        for step in self.steps():
            yield step.after

    def steps(self) -> Iterator[Step]:
        """Each action with the states around it and what happened (the engine's events);
        raises ActionError at the first bad one, as `replay` does."""
        state = self.start()
        for index, action in enumerate(self.actions):
            roll_value, plane = parse_action(index, action)
            after, events = _replay_step(state, index, roll_value, plane)
            yield Step(index, roll_value, plane, state, after, tuple(events))
            state = after

    def final_state(self) -> State:
        state = self.start()
        for after in self.replay():
            state = after
        return state


def replay_actions(players: tuple[str, ...], rules: Rules, actions: Iterable[tuple[int, int | None]]) -> State:
    """The state after (roll, plane) actions from a new game; ActionError names the first
    illegal one. The one way a stored or imported game is rebuilt."""
    state = new_game(players, rules)
    for index, (roll_value, plane) in enumerate(actions):
        state, _ = _replay_step(state, index, roll_value, plane)
    return state


def _replay_step(state: State, index: int, roll_value: int, plane: int | None) -> tuple[State, list[Event]]:
    """Action `index` played on `state`: the state after it and its events, or ActionError."""
    if state.over:
        raise ActionError(index, "the game is already over")
    try:
        return play(state, roll_value, plane)
    except IllegalMoveError as error:
        raise ActionError(index, str(error)) from None


def rules_to_json(rules: Rules) -> Any:
    """A preset's name when the rules are exactly a preset, else every option."""
    return rules.preset_name() or rules.to_json()


def parse_action(index: int, action: Any) -> tuple[int, int | None]:
    """The (roll, plane) of one action, or ActionError for a malformed one."""
    if not isinstance(action, Mapping):
        raise ActionError(index, "an action must be an object with 'roll' and 'plane'")
    if "roll" not in action:
        raise ActionError(index, "missing 'roll'")
    roll_value = action["roll"]
    if isinstance(roll_value, bool) or not isinstance(roll_value, int) or roll_value not in DIE_FACES:
        raise ActionError(index, f"roll {json.dumps(roll_value)} is not an integer 1..6")
    if "plane" not in action:
        raise ActionError(index, "missing 'plane' (null for a pass)")
    plane = action["plane"]
    if plane is not None and (
        isinstance(plane, bool) or not isinstance(plane, int) or not 0 <= plane < PLANES_PER_COLOUR
    ):
        raise ActionError(index, f"plane {json.dumps(plane)} is neither null nor an integer 0..3")
    return roll_value, plane


def parse_record(data: Any) -> Record:
    """A Record from parsed JSON; RecordError names what is wrong with the header."""
    if not isinstance(data, Mapping):
        raise RecordError("a record must be a JSON object")
    if "format" not in data:
        raise RecordError(f"missing 'format' (expected {FORMAT!r})")
    if data["format"] != FORMAT:
        raise RecordError(f"unknown format {json.dumps(data['format'])} (expected {FORMAT!r})")
    rules_json = data.get("rules", "classic")
    try:
        rules = Rules.from_json(rules_json) if "rules" in data else CLASSIC
    except RulesError as error:
        raise RecordError(f"rules: {error}") from None
    if "players" not in data:
        raise RecordError("missing 'players'")
    players = data["players"]
    if not isinstance(players, list):
        raise RecordError("players must be a list of colours")
    try:
        colours = validate_players(players)
    except GameSetupError as error:
        raise RecordError(str(error)) from None
    if "actions" not in data:
        raise RecordError("missing 'actions'")
    actions = data["actions"]
    if not isinstance(actions, list):
        raise RecordError("actions must be a list")
    extra = {k: v for k, v in data.items() if k not in ("format", "rules", "players", "actions")}
    return Record(rules, colours, list(actions), rules_json, extra)


def loads_record(text: str | bytes) -> Record:
    """A Record from JSON text; RecordError for text that is not JSON or a bad header."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise RecordError(f"not valid JSON: {error}") from None
    return parse_record(data)


def canonical_state(state: State) -> dict[str, Any]:
    """The canonical state of docs/records.md: what every replay and conformance check compares."""
    return {
        "players": list(state.players),
        "turn": state.colour,
        "sixes": 0 if state.over else state.sixes,
        "planes": {colour: list(planes) for colour, planes in zip(state.players, state.planes)},
        "ranking": list(state.ranking),
        "winner": state.winner,
        "over": state.over,
    }


def state_to_json(state: State) -> dict[str, Any]:
    """Every field of a state (more than the canonical state: enough to continue from it)."""
    out = canonical_state(state)
    out.update(
        {
            "rules": state.rules.to_json(),
            "roll": state.roll,
            "last_moved": list(state.last_moved),
            "six_moved": list(state.six_moved),
        }
    )
    return out


def state_from_json(data: Mapping[str, Any]) -> State:
    """The inverse of `state_to_json`; RecordError when it does not describe a state."""
    try:
        rules = Rules.from_json(data["rules"])
        players = validate_players(data["players"])
        planes = tuple(tuple(int(p) for p in data["planes"][colour]) for colour in players)
        over = bool(data["over"])
        turn = players.index(data["turn"]) if not over else 0
        state = State(
            rules,
            players,
            planes,
            turn,
            data["roll"],
            int(data["sixes"]),
            tuple(data["last_moved"]),
            tuple(data["six_moved"]),
            tuple(data["ranking"]),
            over,
        )
    except (KeyError, TypeError, ValueError) as error:
        raise RecordError(f"not a game state: {error}") from None
    if any(len(row) != PLANES_PER_COLOUR or any(not -1 <= p <= 56 for p in row) for row in planes):
        raise RecordError("not a game state: each colour has four progress values -1..56")
    if any(colour not in COLOURS for colour in state.ranking):
        raise RecordError("not a game state: unknown colour in ranking")
    return state


__all__ = [
    "FORMAT",
    "ActionError",
    "Record",
    "RecordError",
    "canonical_state",
    "loads_record",
    "parse_action",
    "parse_record",
    "rules_to_json",
    "state_from_json",
    "state_to_json",
]
