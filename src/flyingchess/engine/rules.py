"""The frozen `Rules` value: every rule option (docs/rules.md), typed and validated, and the presets.

A game's rules are data, never code paths chosen by name: presets live in a registry and
overrides are checked option by option, so a bad name or value fails at construction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Final, Literal, get_args

DIE_FACES: Final = frozenset(range(1, 7))


class RulesError(ValueError):
    """An unknown preset, option or value; the message names it."""


ThreeSixes = Literal["none", "last-moved", "moved-by-sixes", "all"]
Finish = Literal["exact", "bounce"]
Chain = Literal["none", "jump-fly", "jump-fly-jump"]
CaptureRule = Literal["final", "every-stop"]
Stacking = Literal["none", "together"]
End = Literal["first", "ranking"]
OptionKind = Literal["set", "choice", "bool"]


@dataclass(frozen=True)
class OptionSpec:
    """One rule option: `kind` is `set` (some die faces), `choice` (one of a few names) or
    `bool`; `values` lists what it may hold (the faces, the names, or true and false)."""

    name: str
    kind: OptionKind
    values: tuple[Any, ...]
    help: str


OPTIONS: Final[tuple[OptionSpec, ...]] = (
    OptionSpec("launch", "set", tuple(range(1, 7)), "die faces that launch a plane from its hangar (at least one)"),
    OptionSpec("extra_roll", "set", tuple(range(1, 7)), "die faces that give another roll"),
    OptionSpec("three_sixes", "choice", get_args(ThreeSixes), "what a third six in a row sends home"),
    OptionSpec("finish", "choice", get_args(Finish), "a roll past the centre: not allowed, or bounce back"),
    OptionSpec("chain", "choice", get_args(Chain), "how many special moves (jump, flight) one move makes"),
    OptionSpec("capture", "choice", get_args(CaptureRule), "where a move captures: where it ends, or every landing"),
    OptionSpec("flight_capture", "bool", (True, False), "a flight sends home the opposite colour on its crossing cell"),
    OptionSpec("stacking", "choice", get_args(Stacking), "whether own planes on one cell move together"),
    OptionSpec("end", "choice", get_args(End), "the game ends at the first player home, or plays on for places"),
)
"""Every rule option (docs/rules.md), in order: the one list that validation, the server's
option list, the learning environments' rule features, the property tests' strategy and
the page's labels are all generated from."""

CHOICES: Final[dict[str, tuple[str, ...]]] = {spec.name: spec.values for spec in OPTIONS if spec.kind == "choice"}
"""The options whose value is one of a few names, with their allowed values."""


def _rule_feature_names() -> tuple[tuple[str, str, Any], ...]:
    """(name, option, value) of each rule feature, generated from the option schema: a set
    option gives one feature per face, a choice of two one feature (its second value), a
    longer choice one per value, a flag one."""
    names: list[tuple[str, str, Any]] = []
    for spec in OPTIONS:
        if spec.kind == "set":
            names += [(f"{spec.name}={face}", spec.name, face) for face in spec.values]
        elif spec.kind == "choice" and len(spec.values) == 2:
            names.append((f"{spec.name}={spec.values[1]}", spec.name, spec.values[1]))
        elif spec.kind == "choice":
            names += [(f"{spec.name}={value}", spec.name, value) for value in spec.values]
        else:
            names.append((spec.name, spec.name, True))
    return tuple(names)


RULE_FEATURE_NAMES: Final = _rule_feature_names()
"""The rules as numbers for learning (the environments' observation, the value network)."""
RULE_FEATURES: Final = len(RULE_FEATURE_NAMES)


SET_OPTIONS: Final = tuple(spec.name for spec in OPTIONS if spec.kind == "set")
BOOL_OPTIONS: Final = tuple(spec.name for spec in OPTIONS if spec.kind == "bool")


@dataclass(frozen=True)
class Rules:
    """One complete set of rule options. Construct with `Rules.preset(name, **overrides)`."""

    launch: frozenset[int]
    extra_roll: frozenset[int]
    three_sixes: ThreeSixes
    finish: Finish
    chain: Chain
    capture: CaptureRule
    flight_capture: bool
    stacking: Stacking
    end: End
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for spec in OPTIONS:
            value = getattr(self, spec.name)
            if spec.kind == "set":
                object.__setattr__(self, spec.name, _die_set(spec.name, value))
            elif spec.kind == "choice" and (not isinstance(value, str) or value not in spec.values):
                raise RulesError(
                    f"option {spec.name!r}: unknown value {value!r} (expected one of {', '.join(spec.values)})"
                )
            elif spec.kind == "bool" and not isinstance(value, bool):
                raise RulesError(f"option {spec.name!r}: unknown value {value!r} (expected true or false)")
        if not self.launch:
            raise RulesError("option 'launch': must name at least one die value")
        object.__setattr__(self, "_hash", hash(tuple(getattr(self, name) for name in OPTION_NAMES)))

    def __hash__(self) -> int:
        # Cached: the engine looks its move tables up by rules on every move.
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuild through __init__ so another process (other string hashes) recomputes _hash.
        return (Rules, tuple(getattr(self, name) for name in OPTION_NAMES))

    @classmethod
    def preset(cls, name: str = "classic", **overrides: Any) -> Rules:
        """A preset (`classic`, `traditional`, `house`, `even`) with options overridden."""
        if not isinstance(name, str) or name not in PRESETS:
            raise RulesError(f"unknown preset {name!r} (expected one of {', '.join(PRESETS)})")
        return PRESETS[name].with_options(**overrides)

    def with_options(self, **overrides: Any) -> Rules:
        """A copy with some options changed; an unknown option name is an error."""
        for name in overrides:
            if name not in OPTION_NAMES:
                raise RulesError(f"unknown option {name!r} (expected one of {', '.join(OPTION_NAMES)})")
        return replace(self, **overrides)

    @classmethod
    def from_json(cls, value: Any) -> Rules:
        """Rules from a record's `rules` value: a preset name, `{"preset": ..., overrides}`,
        or an object giving every option (docs/records.md)."""
        if isinstance(value, str):
            return cls.preset(value)
        if not isinstance(value, Mapping):
            raise RulesError(f"rules must be a preset name or an object, not {_json_kind(value)}")
        options = dict(value)
        if "preset" in options:
            return cls.preset(options.pop("preset"), **options)
        for name in options:
            if name not in OPTION_NAMES:
                raise RulesError(f"unknown option {name!r} (expected one of {', '.join(OPTION_NAMES)})")
        missing = [name for name in OPTION_NAMES if name not in options]
        if missing:
            raise RulesError(f"rules without a preset must give every option; missing {', '.join(missing)}")
        return cls(**options)

    def to_json(self) -> dict[str, Any]:
        """Every option, set-valued ones as sorted lists (readable back by `from_json`)."""
        out: dict[str, Any] = {}
        for name in OPTION_NAMES:
            value = getattr(self, name)
            out[name] = sorted(value) if name in SET_OPTIONS else value
        return out

    def preset_name(self) -> str | None:
        """The name of the preset these rules equal, if any."""
        return next((name for name, rules in PRESETS.items() if rules == self), None)

    def describe(self) -> str:
        """A one-line summary such as `classic` or `house + finish=bounce`."""
        name = self.preset_name()
        if name is not None:
            return name
        base_name, base = min(PRESETS.items(), key=lambda item: len(_differences(item[1], self)))
        changes = ", ".join(f"{key}={value}" for key, value in _differences(base, self).items())
        return f"{base_name} + {changes}"


def rule_flags(rules: Rules) -> tuple[float, ...]:
    """1.0 for each rule feature (RULE_FEATURE_NAMES) the rules have, else 0.0."""
    flags = []
    for _, option, value in RULE_FEATURE_NAMES:
        held = getattr(rules, option)
        flags.append(float(value in held if isinstance(held, frozenset) else held == value))
    return tuple(flags)


def _differences(base: Rules, other: Rules) -> dict[str, Any]:
    a, b = base.to_json(), other.to_json()
    return {name: b[name] for name in OPTION_NAMES if a[name] != b[name]}


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _die_set(name: str, value: Any) -> frozenset[int]:
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise RulesError(f"option {name!r}: expected a list of die values 1..6, not {value!r}")
    faces = list(value)
    for face in faces:
        if isinstance(face, bool) or not isinstance(face, int) or face not in DIE_FACES:
            raise RulesError(f"option {name!r}: {face!r} is not a die value 1..6")
    return frozenset(faces)


OPTION_NAMES: Final = tuple(spec.name for spec in OPTIONS)
if tuple(option.name for option in fields(Rules) if option.init) != OPTION_NAMES:
    raise AssertionError("Rules' fields and OPTIONS name the same options in the same order")

PRESETS: Final[dict[str, Rules]] = {
    "classic": Rules(
        launch=frozenset({6}),
        extra_roll=frozenset({6}),
        three_sixes="last-moved",
        finish="exact",
        chain="none",
        capture="final",
        flight_capture=False,
        stacking="none",
        end="first",
    ),
    "traditional": Rules(
        launch=frozenset({6}),
        extra_roll=frozenset({6}),
        three_sixes="none",
        finish="bounce",
        chain="jump-fly-jump",
        capture="every-stop",
        flight_capture=True,
        stacking="none",
        end="ranking",
    ),
    "house": Rules(
        launch=frozenset({5, 6}),
        extra_roll=frozenset({6}),
        three_sixes="moved-by-sixes",
        finish="exact",
        chain="jump-fly",
        capture="every-stop",
        flight_capture=True,
        stacking="together",
        end="ranking",
    ),
    "even": Rules(
        launch=frozenset({2, 4, 6}),
        extra_roll=frozenset({6}),
        three_sixes="moved-by-sixes",
        finish="exact",
        chain="jump-fly",
        capture="every-stop",
        flight_capture=True,
        stacking="together",
        end="ranking",
    ),
}
"""The named rule sets of docs/rules.md §8, by name; `classic` is the default."""

CLASSIC: Final = PRESETS["classic"]
