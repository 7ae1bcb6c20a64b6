"""The learned bot's weights, one per feature of bots/learned.py (FEATURE_NAMES order).

Written by benchmarks/train_learned.py, whose docstring records the settings and the result.
"""

from __future__ import annotations

from typing import Final

LEARNED_WEIGHTS: Final[tuple[float, ...]] = (
    0.6623,  # two_players
    0.1419,  # three_players
    -0.2499,  # four_players
    3.7216,  # my_progress
    -1.8505,  # best_opponent_progress
    -3.3247,  # mean_opponent_progress
    -0.5309,  # my_hangar
    -0.3283,  # mean_opponent_hangar
    1.2887,  # my_finished
    0.3310,  # best_opponent_finished
    -1.2913,  # my_danger
    0.3937,  # my_threat
    0.1060,  # extra_roll
    0.2028,  # extra_roll_threat
    0.4268,  # extra_roll_danger
    -0.4890,  # one_active
    0.1362,  # two_active
)
