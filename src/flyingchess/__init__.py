"""flyingchess: Aeroplane Chess (Flying Chess, 飞行棋) with exact rules and every common house rule.

The engine is pure: `new_game` builds a state, `roll` is the chance step, `legal_moves`
and `apply` the decision step, and `step` takes either, as OpenSpiel does (`is_chance`
says which the state waits for). Records (docs/records.md) live in `flyingchess.records.record`.
"""

from .engine.board import COLOURS
from .engine.events import Event
from .engine.game import (
    GameSetupError,
    IllegalMoveError,
    State,
    apply,
    apply_unchecked,
    is_chance,
    legal_moves,
    new_game,
    play,
    roll,
    setup_position,
    step,
)
from .engine.rules import PRESETS, Rules, RulesError
from .records.record import Record, RecordError, canonical_state, loads_record

__version__ = "0.1.0"

__all__ = [
    "COLOURS",
    "PRESETS",
    "Event",
    "GameSetupError",
    "IllegalMoveError",
    "Record",
    "RecordError",
    "Rules",
    "RulesError",
    "State",
    "apply",
    "apply_unchecked",
    "canonical_state",
    "is_chance",
    "legal_moves",
    "loads_record",
    "new_game",
    "play",
    "roll",
    "setup_position",
    "step",
]
