"""What many games say: win rates with their 95% intervals, mean places, Bradley-Terry ratings.

The simulator (`games.py`) plays; this counts, for `flyingchess simulate` and `tournament`
and the benchmarks that measure strength.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .games import GameResult


def wilson_interval(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate (sound for rates near 0 or 1)."""
    if games == 0:
        return (0.0, 1.0)
    rate = wins / games
    denominator = 1 + z * z / games
    centre = (rate + z * z / (2 * games)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class BotStats:
    games: int = 0
    wins: int = 0
    place_total: float = 0.0
    rolls_total: int = 0

    def to_json(self) -> dict[str, Any]:
        low, high = wilson_interval(self.wins, self.games)
        return {
            "games": self.games,
            "wins": self.wins,
            "win_rate": round(self.wins / self.games, 4) if self.games else 0.0,
            "ci95": [round(low, 4), round(high, 4)],
            "mean_place": round(self.place_total / self.games, 3) if self.games else None,
            "mean_rolls": round(self.rolls_total / self.games, 1) if self.games else None,
        }


@dataclass
class Summary:
    """Per-bot statistics over a run (a bot in several seats counts once per seat)."""

    games: int = 0
    bots: dict[str, BotStats] = field(default_factory=dict)

    def add(self, result: GameResult) -> None:
        self.games += 1
        for name, place in zip(result.lineup, result.places):
            stats = self.bots.setdefault(name, BotStats())
            stats.games += 1
            stats.wins += place == 1.0
            stats.place_total += place
            stats.rolls_total += result.rolls

    def to_json(self) -> dict[str, Any]:
        return {"games": self.games, "bots": {name: stats.to_json() for name, stats in self.bots.items()}}


def summarise(results: Iterable[GameResult], on_result: Callable[[GameResult], None] | None = None) -> Summary:
    summary = Summary()
    for result in results:
        summary.add(result)
        if on_result is not None:
            on_result(result)
    return summary


def bradley_terry(wins: dict[tuple[str, str], int], names: Sequence[str], iterations: int = 500) -> dict[str, float]:
    """Bradley-Terry strengths by the MM algorithm, as Elo-scale ratings averaging 0.

    `wins[(a, b)]` is how often a beat b. A pseudo-game of half a win each way between
    every pair keeps ratings finite when one bot never loses."""
    strength = {name: 1.0 for name in names}
    for _ in range(iterations):
        updated = {}
        for a in names:
            won = sum(wins.get((a, b), 0) + 0.5 for b in names if b != a)
            denominator = sum(
                (wins.get((a, b), 0) + wins.get((b, a), 0) + 1) / (strength[a] + strength[b]) for b in names if b != a
            )
            updated[a] = won / denominator
        scale = math.exp(sum(math.log(v) for v in updated.values()) / len(updated))
        strength = {name: value / scale for name, value in updated.items()}
    return {name: 400 * math.log10(value) for name, value in strength.items()}
