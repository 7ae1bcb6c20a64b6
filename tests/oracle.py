"""Independent, deliberately simple reference implementation of docs/rules.md (a test oracle).

Used only for differential testing against the real engine; it shares no code with it.
Clarity beats speed: every rule is spelled out in the most literal way, step by step.
Places where docs/rules.md / docs/records.md are silent are marked with `# INTERPRETATION:`.
"""

from __future__ import annotations

from typing import Any

# ---------------------------------------------------------------------------
# Board geometry (docs/rules.md §1)
# ---------------------------------------------------------------------------

COLOURS = ["red", "yellow", "blue", "green"]  # clockwise; seat index k = position here

HANGAR = -1
TAKEOFF = 0
RING_FIRST = 1
RING_LAST = 50  # also the turn cell
LANE_FIRST = 51
LANE_LAST = 55
CENTRE = 56

LAUNCH_PAD = 18
FLIGHT_TARGET = 30
CROSSING_CELL = 53  # the opposite colour's lane cell the flight line crosses

# Own-colour cells p = 2 (mod 4): 2, 6, ..., 50. Those that jump: 2..46 except 18.
JUMP_CELLS = [p for p in range(2, 47, 4) if p != LAUNCH_PAD]


def seat_of(colour: str) -> int:
    return COLOURS.index(colour)


def ring_index(colour: str, p: int) -> int:
    """Ring cell index of progress p (1 <= p <= 50) for a colour."""
    assert RING_FIRST <= p <= RING_LAST
    return (13 * seat_of(colour) + p - 1) % 52


def on_ring(p: int) -> bool:
    return RING_FIRST <= p <= RING_LAST


# ---------------------------------------------------------------------------
# Rule options and presets (docs/rules.md §8)
# ---------------------------------------------------------------------------

OPTION_NAMES = [
    "launch",
    "extra_roll",
    "three_sixes",
    "finish",
    "chain",
    "capture",
    "flight_capture",
    "stacking",
    "end",
]

CHOICE_VALUES = {
    "three_sixes": ["none", "last-moved", "moved-by-sixes", "all"],
    "finish": ["exact", "bounce"],
    "chain": ["none", "jump-fly", "jump-fly-jump"],
    "capture": ["final", "every-stop"],
    "stacking": ["none", "together"],
    "end": ["first", "ranking"],
}

PRESETS: dict[str, dict[str, Any]] = {
    "classic": {
        "launch": {6},
        "extra_roll": {6},
        "three_sixes": "last-moved",
        "finish": "exact",
        "chain": "none",
        "capture": "final",
        "flight_capture": False,
        "stacking": "none",
        "end": "first",
    },
    "traditional": {
        "launch": {6},
        "extra_roll": {6},
        "three_sixes": "none",
        "finish": "bounce",
        "chain": "jump-fly-jump",
        "capture": "every-stop",
        "flight_capture": True,
        "stacking": "none",
        "end": "ranking",
    },
    "house": {
        "launch": {5, 6},
        "extra_roll": {6},
        "three_sixes": "moved-by-sixes",
        "finish": "exact",
        "chain": "jump-fly",
        "capture": "every-stop",
        "flight_capture": True,
        "stacking": "together",
        "end": "ranking",
    },
    "even": {
        "launch": {2, 4, 6},
        "extra_roll": {6},
        "three_sixes": "moved-by-sixes",
        "finish": "exact",
        "chain": "jump-fly",
        "capture": "every-stop",
        "flight_capture": True,
        "stacking": "together",
        "end": "ranking",
    },
}


class OracleError(Exception):
    """A malformed record header (bad format, unknown preset/option/value, bad players...)."""


def is_int(value: Any) -> bool:
    """A JSON integer: bool and float are not integers."""
    return type(value) is int


def parse_option(name: str, value: Any) -> Any:
    """Validate one option value and return it in internal form."""
    if name in ("launch", "extra_roll"):
        # INTERPRETATION: set-valued options must be JSON lists (not strings, numbers or
        # objects). Duplicates in the list are accepted and collapse (set semantics),
        # since the option is "a set of die values" and a repeated value changes nothing.
        if not isinstance(value, list):
            raise OracleError(f"option {name}: expected a list of die values, got {value!r}")
        for die in value:
            if not is_int(die) or not 1 <= die <= 6:
                raise OracleError(f"option {name}: bad die value {die!r}")
        if name == "launch" and len(value) == 0:
            raise OracleError("option launch: must not be empty")
        return set(value)
    if name == "flight_capture":
        # INTERPRETATION: only JSON true/false (Python bool) are accepted; the strings
        # "true"/"false" and 0/1 are unknown values.
        if type(value) is not bool:
            raise OracleError(f"option flight_capture: expected true or false, got {value!r}")
        return value
    if name in CHOICE_VALUES:
        if not isinstance(value, str) or value not in CHOICE_VALUES[name]:
            raise OracleError(f"option {name}: unknown value {value!r}")
        return value
    raise OracleError(f"unknown option {name!r}")


def parse_rules(record: dict[str, Any]) -> dict[str, Any]:
    if "rules" not in record:
        return dict(PRESETS["classic"])
    rules = record["rules"]
    # INTERPRETATION: "rules": null is not "left out"; it is neither a preset name nor an
    # object, so it is a malformed header.
    if isinstance(rules, str):
        if rules not in PRESETS:
            raise OracleError(f"unknown preset {rules!r}")
        return dict(PRESETS[rules])
    if isinstance(rules, dict):
        for key in rules:
            if key != "preset" and key not in OPTION_NAMES:
                raise OracleError(f"unknown option {key!r}")
        if "preset" in rules:
            preset = rules["preset"]
            if not isinstance(preset, str) or preset not in PRESETS:
                raise OracleError(f"unknown preset {preset!r}")
            result = dict(PRESETS[preset])
        else:
            missing = [name for name in OPTION_NAMES if name not in rules]
            if missing:
                raise OracleError(f"rules without preset: missing option(s) {missing}")
            result = {}
        for name in OPTION_NAMES:
            if name in rules:
                result[name] = parse_option(name, rules[name])
        return result
    raise OracleError(f"rules must be a preset name or an object, got {rules!r}")


def parse_players(record: dict[str, Any]) -> list[str]:
    if "players" not in record:
        raise OracleError("missing players")
    players = record["players"]
    if not isinstance(players, list):
        raise OracleError("players must be a list")
    if not 2 <= len(players) <= 4:
        raise OracleError("2, 3 or 4 players must play")
    for colour in players:
        if not isinstance(colour, str) or colour not in COLOURS:
            raise OracleError(f"unknown colour {colour!r}")
    if len(set(players)) != len(players):
        raise OracleError("a colour is listed twice")
    # Clockwise order: some rotation of red, yellow, blue, green with absent colours
    # left out. Measured clockwise from the first player, the seats must strictly increase.
    first = seat_of(players[0])
    offsets = [(seat_of(colour) - first) % 4 for colour in players]
    if offsets != sorted(offsets):
        raise OracleError("players are not in clockwise order")
    return list(players)


def parse_header(record: Any) -> tuple[dict[str, Any], list[str], list[Any]]:
    if not isinstance(record, dict):
        raise OracleError("a record must be a JSON object")
    if "format" not in record or record["format"] != "flyingchess/1":
        raise OracleError("format must be exactly 'flyingchess/1'")
    rules = parse_rules(record)
    players = parse_players(record)
    if "actions" not in record:
        raise OracleError("missing actions")
    actions = record["actions"]
    if not isinstance(actions, list):
        raise OracleError("actions must be a list")
    return rules, players, actions


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------


class OracleGame:
    def __init__(self, rules: dict[str, Any], players: list[str]) -> None:
        self.rules = rules
        self.players = players
        self.planes: dict[str, list[int]] = {c: [HANGAR] * 4 for c in players}
        self.turn_index = 0  # index into self.players
        self.sixes = 0
        self.ranking: list[str] = []
        self.winner: str | None = None
        self.over = False
        # Internal state beyond the canonical state (reset whenever the turn passes):
        self.latest_move_planes: list[int] = []  # planes carried by the latest move of this turn
        self.sixes_run_planes: set[int] = set()  # planes moved by the sixes of the current run

    # -- canonical state --------------------------------------------------

    def canonical(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "turn": None if self.over else self.players[self.turn_index],
            "sixes": 0 if self.over else self.sixes,
            "planes": {c: list(self.planes[c]) for c in self.players},
            "ranking": list(self.ranking),
            "winner": self.winner,
            "over": self.over,
        }

    def current_colour(self) -> str:
        return self.players[self.turn_index]

    # -- move generation --------------------------------------------------

    def carried_planes(self, colour: str, plane: int) -> list[int]:
        """The planes a move named by `plane` carries: its whole stack under stacking."""
        # INTERPRETATION: stacks are purely positional (docs/rules.md §5: own planes standing on
        # the same cell 1..55 form a stack), so a plane that lands on own planes joins
        # their stack for later moves, and a captured stack is no longer a stack because
        # its planes are in the hangar.
        p = self.planes[colour][plane]
        if self.rules["stacking"] == "together" and RING_FIRST <= p <= LANE_LAST:
            return [i for i in range(4) if self.planes[colour][i] == p]
        return [plane]

    def plane_can_move(self, colour: str, plane: int, roll: int) -> bool:
        p = self.planes[colour][plane]
        if p == HANGAR:
            return roll in self.rules["launch"]
        if TAKEOFF <= p <= LANE_LAST:
            if self.rules["finish"] == "exact" and p + roll > CENTRE:
                return False
            return True
        return False  # in the centre

    def third_six_fires(self, roll: int) -> bool:
        # Fires when a six is rolled while the two rolls just before it in this turn were
        # sixes. self.sixes counts the sixes in a row in this turn (reset by any non-six
        # and when the turn passes), so "two rolls just before were sixes" is sixes >= 2;
        # with any option other than none it never exceeds 2.
        return self.rules["three_sixes"] != "none" and roll == 6 and self.sixes >= 2

    def legal_planes(self, roll: int) -> list[int]:
        """Plane indices naming a legal move for the player to move; [] means pass."""
        if self.third_six_fires(roll):
            return []
        colour = self.current_colour()
        return [i for i in range(4) if self.plane_can_move(colour, i, roll)]

    def simulate(self, colour: str, plane: int, roll: int) -> dict[str, Any]:
        """Work out what moving `plane` with `roll` does, without changing the state.

        Returns a dict: carried (plane indices), start (p before), end (p after),
        launch (bool), special (bool: made a jump or a flight), captured (list of
        (colour, index) sent back to the hangar).
        """
        rules = self.rules
        start = self.planes[colour][plane]
        carried = self.carried_planes(colour, plane)
        result: dict[str, Any] = {
            "carried": carried,
            "start": start,
            "end": start,
            "launch": False,
            "special": False,
            "captured": [],
        }
        if start == HANGAR:
            # A launch never captures and never jumps.
            result["launch"] = True
            result["end"] = TAKEOFF
            return result

        # Plain move.
        target = start + roll
        bounced = False
        if target > CENTRE:
            assert rules["finish"] == "bounce"
            target = 112 - start - roll
            bounced = True

        # Special moves: a list of (kind, landing p), in order.
        specials: list[tuple[str, int]] = []
        if not bounced:  # a bounce ends in the lane: no special move, no capture
            if target == LAUNCH_PAD:
                specials.append(("flight", FLIGHT_TARGET))
                if rules["chain"] == "jump-fly-jump":
                    # Flies, then jumps from 30 to 34 (30 is an own-colour cell).
                    specials.append(("jump", FLIGHT_TARGET + 4))
            elif target in JUMP_CELLS:
                specials.append(("jump", target + 4))
                if target + 4 == LAUNCH_PAD and rules["chain"] in ("jump-fly", "jump-fly-jump"):
                    specials.append(("flight", FLIGHT_TARGET))
        result["special"] = len(specials) > 0
        final = specials[-1][1] if specials else target
        result["end"] = final

        # Cells whose opponents are captured.
        if rules["capture"] == "every-stop":
            stops = [target] + [landing for _, landing in specials]
        else:
            stops = [final]
        captured: list[tuple[str, int]] = []
        for stop in stops:
            if not on_ring(stop):
                continue
            cell = ring_index(colour, stop)
            for other in self.players:
                if other == colour:
                    continue  # own planes are never captured
                for j in range(4):
                    q = self.planes[other][j]
                    if on_ring(q) and ring_index(other, q) == cell:
                        if (other, j) not in captured:
                            captured.append((other, j))
        # Flight capture: whatever `capture` says, each flight sends back the opposite
        # colour's planes standing on their crossing cell (only if that colour plays).
        if rules["flight_capture"] and any(kind == "flight" for kind, _ in specials):
            opposite = COLOURS[(seat_of(colour) + 2) % 4]
            if opposite in self.players:
                for j in range(4):
                    if self.planes[opposite][j] == CROSSING_CELL:
                        if (opposite, j) not in captured:
                            captured.append((opposite, j))
        result["captured"] = captured
        return result

    # -- applying actions --------------------------------------------------

    def pass_turn(self) -> None:
        """The turn passes to the next colour clockwise that is still playing."""
        n = len(self.players)
        for step in range(1, n + 1):
            candidate = (self.turn_index + step) % n
            if self.players[candidate] not in self.ranking:
                self.turn_index = candidate
                break
        self.sixes = 0
        self.latest_move_planes = []
        self.sixes_run_planes = set()

    def apply(self, action: Any) -> str | None:
        """Apply one action; return None if legal, else the reason (state untouched)."""
        if self.over:
            return "the game is over"
        # INTERPRETATION: an action that is not a JSON object, or lacks "roll", is an
        # illegal action (index reported), not a malformed header.
        if not isinstance(action, dict):
            return "an action must be an object"
        if "roll" not in action:
            return "missing roll"
        roll = action["roll"]
        if not is_int(roll) or not 1 <= roll <= 6:
            return f"bad roll {roll!r}"
        # INTERPRETATION: a missing "plane" key is illegal (the format requires the key;
        # a pass is written as an explicit null).
        if "plane" not in action:
            return "missing plane"
        plane = action["plane"]
        if plane is not None and (not is_int(plane) or not 0 <= plane <= 3):
            return f"bad plane {plane!r}"

        colour = self.current_colour()
        rules = self.rules

        # Three-sixes rule.
        if self.third_six_fires(roll):
            if plane is not None:
                return "the third six forbids a move"
            mine = self.planes[colour]
            if rules["three_sixes"] == "last-moved":
                victims = list(self.latest_move_planes)
            elif rules["three_sixes"] == "moved-by-sixes":
                victims = sorted(self.sixes_run_planes)
            else:  # all
                victims = [0, 1, 2, 3]
            for i in victims:
                if mine[i] != CENTRE:  # a plane in the centre is never sent back
                    mine[i] = HANGAR
            self.pass_turn()  # the turn ends
            return None

        legal = self.legal_planes(roll)
        if plane is None:
            if legal:
                return "a legal move exists; a pass is not allowed"
            # Pass: moves nothing, changes nothing (latest move unchanged).
        else:
            if plane not in legal:
                return f"plane {plane} has no legal move with roll {roll}"
            outcome = self.simulate(colour, plane, roll)
            for other, j in outcome["captured"]:
                self.planes[other][j] = HANGAR
            for i in outcome["carried"]:
                self.planes[colour][i] = outcome["end"]
            self.latest_move_planes = list(outcome["carried"])
            if roll == 6:
                self.sixes_run_planes.update(outcome["carried"])

        # Count sixes in a row (only sixes count; any other roll ends the row).
        if roll == 6:
            self.sixes += 1
        else:
            self.sixes = 0
            self.sixes_run_planes = set()

        # Did the player just finish?
        if plane is not None and all(p == CENTRE for p in self.planes[colour]):
            self.ranking.append(colour)
            if self.winner is None:
                self.winner = colour
            if rules["end"] == "first":
                self.over = True
                self.sixes = 0
                return None
            remaining = [c for c in self.players if c not in self.ranking]
            if len(remaining) <= 1:
                self.ranking.extend(remaining)
                self.over = True
                self.sixes = 0
                return None
            self.pass_turn()  # no extra roll for a player who has just finished
            return None

        if roll in rules["extra_roll"]:
            return None  # the same player rolls again; the six count is kept
        self.pass_turn()
        return None

    def heuristic(self, roll: int) -> int | None:
        """docs/rules.md §9: capture > jump/flight > launch > furthest-along plane."""
        colour = self.current_colour()
        legal = self.legal_planes(roll)
        if not legal:
            return None
        # One candidate per distinct move; a stack is named by its lowest index.
        candidates: list[int] = []
        for i in legal:
            if min(self.carried_planes(colour, i)) == i:
                candidates.append(i)
        outcomes = {i: self.simulate(colour, i, roll) for i in candidates}

        def best(group: list[int]) -> int:
            # Largest p before the move, then the lowest plane index.
            return sorted(group, key=lambda i: (-outcomes[i]["start"], i))[0]

        capturing = [i for i in candidates if outcomes[i]["captured"]]
        if capturing:
            return best(capturing)
        special = [i for i in candidates if outcomes[i]["special"]]
        if special:
            return best(special)
        launches = [i for i in candidates if outcomes[i]["launch"]]
        if launches:
            return best(launches)
        return best(candidates)


# ---------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------


def new_game(record: dict[str, Any]) -> tuple[OracleGame, list[Any]]:
    rules, players, actions = parse_header(record)
    return OracleGame(rules, players), actions


def oracle_initial_state(record: dict[str, Any]) -> dict[str, Any]:
    """The canonical state before any action."""
    game, _ = new_game(record)
    return game.canonical()


def oracle_replay(record: dict[str, Any]) -> tuple[list[dict[str, Any]], tuple[int, str] | None]:
    """Replay a parsed record. Return (states after each legal action, first error or None).

    Raises OracleError for a malformed header.
    """
    game, actions = new_game(record)
    states: list[dict[str, Any]] = []
    for index, action in enumerate(actions):
        reason = game.apply(action)
        if reason is not None:
            return states, (index, reason)
        states.append(game.canonical())
    return states, None


def replayed_game(record: dict[str, Any], roll: int) -> OracleGame:
    # INTERPRETATION (oracle API): a record that does not replay, or a roll outside
    # 1..6, raises ValueError (a malformed header still raises OracleError).
    if not is_int(roll) or not 1 <= roll <= 6:
        raise ValueError(f"bad roll {roll!r}")
    game, actions = new_game(record)
    for index, action in enumerate(actions):
        reason = game.apply(action)
        if reason is not None:
            raise ValueError(f"record does not replay: action {index}: {reason}")
    return game


def oracle_legal_planes(record: dict[str, Any], roll: int) -> list[int] | None:
    """Plane indices naming a legal move with `roll` after replaying the record.

    Every plane of a stack is listed under stacking: together. [] = pass only
    (no legal move, or the third six forbids a move). None = the game is over.
    """
    game = replayed_game(record, roll)
    if game.over:
        return None
    return game.legal_planes(roll)


def oracle_heuristic(record: dict[str, Any], roll: int) -> int | None:
    """The plane docs/rules.md §9's heuristic bot picks; None = pass."""
    game = replayed_game(record, roll)
    if game.over:
        # INTERPRETATION (oracle API): like `flyingchess choose`, a game that is over is
        # an error (ValueError), so that None always means "pass".
        raise ValueError("the game is over")
    return game.heuristic(roll)
