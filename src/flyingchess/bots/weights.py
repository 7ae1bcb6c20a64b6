"""The evaluation weights the strong bots use, as tuned by benchmarks/tune_evaluation.py.

Units: one unit is one roll of the die (a plane's progress is valued by the expected number
of rolls a lone plane still needs). benchmarks/tune_evaluation.py records how these were found.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

TUNED_WEIGHTS: Final[Mapping[str, float]] = {
    "rolls": 1.0,
    "linear": 0.05,
    "takeoff": 1.0,
    "lane": 1.0,
    "centre": 0.0,
    "danger": 1.0,
    "late_danger": 0.3,
    "opponents": 1.0,
    "leader": 0.5,
    "one_active": 1.0,
    "two_active": 2.0,
    "stacked": 0.5,
    "three_sixes": 1.5,
}
