"""The frozen `Rules` value: every rule option of RULES.md section 8, validated, and the presets.

A game's rules are data, never code paths chosen by name: presets live in a registry and
overrides are checked option by option, so a bad name or value fails at construction.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Final, Mapping

DIE_FACES: Final = frozenset(range(1, 7))


class RulesError(ValueError):
    """An unknown preset, option or value; the message names it."""


CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "three_sixes": ("none", "last-moved", "moved-by-sixes", "all"),
    "finish": ("exact", "bounce"),
    "chain": ("none", "jump-fly", "jump-fly-jump"),
    "capture": ("final", "every-stop"),
    "stacking": ("none", "together"),
    "end": ("first", "ranking"),
}
"""The options whose value is one of a few names, with their allowed values."""

SET_OPTIONS: Final = ("launch", "extra_roll")
BOOL_OPTIONS: Final = ("flight_capture",)


@dataclass(frozen=True)
class Rules:
    """One complete set of rule options. Construct with `Rules.preset(name, **overrides)`."""

    launch: frozenset[int]
    extra_roll: frozenset[int]
    three_sixes: str
    finish: str
    chain: str
    capture: str
    flight_capture: bool
    stacking: str
    end: str
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in SET_OPTIONS:
            value = getattr(self, name)
            object.__setattr__(self, name, _die_set(name, value))
        for name, allowed in CHOICES.items():
            value = getattr(self, name)
            if not isinstance(value, str) or value not in allowed:
                raise RulesError(
                    f"option {name!r}: unknown value {value!r} (expected one of {', '.join(allowed)})"
                )
        if not isinstance(self.flight_capture, bool):
            raise RulesError(
                f"option 'flight_capture': unknown value {self.flight_capture!r} (expected true or false)"
            )
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
        or an object giving every option (RECORD.md)."""
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
            raise RulesError(
                f"rules without a preset must give every option; missing {', '.join(missing)}"
            )
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


OPTION_NAMES: Final = tuple(option.name for option in fields(Rules) if option.init)

PRESETS: Final[dict[str, Rules]] = {
    "classic": Rules(
        launch=frozenset({6}), extra_roll=frozenset({6}), three_sixes="last-moved",
        finish="exact", chain="none", capture="final", flight_capture=False,
        stacking="none", end="first",
    ),
    "traditional": Rules(
        launch=frozenset({6}), extra_roll=frozenset({6}), three_sixes="none",
        finish="bounce", chain="jump-fly-jump", capture="every-stop", flight_capture=True,
        stacking="none", end="ranking",
    ),
    "house": Rules(
        launch=frozenset({5, 6}), extra_roll=frozenset({6}), three_sixes="moved-by-sixes",
        finish="exact", chain="jump-fly", capture="every-stop", flight_capture=True,
        stacking="together", end="ranking",
    ),
    "even": Rules(
        launch=frozenset({2, 4, 6}), extra_roll=frozenset({6}), three_sixes="moved-by-sixes",
        finish="exact", chain="jump-fly", capture="every-stop", flight_capture=True,
        stacking="together", end="ranking",
    ),
}
"""The named rule sets of RULES.md section 8, by name; `classic` is the default."""

CLASSIC: Final = PRESETS["classic"]
