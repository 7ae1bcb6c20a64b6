"""A position's value for each player: race progress, capture danger, readiness, stacks.

Everything rule-dependent comes from the compiled game (the paths every plane may take
with every die face, and whom each sends home), so the evaluation follows every rule
option without knowing any.

Per player the *equity* is, in units of die rolls:
- progress: for each plane, how many fewer rolls a lone plane needs from its progress than
  from the hangar (a fixed point over the move table: jumps, flights, launch faces, exact
  or bounce finish all count), plus small tuned bonuses for the takeoff point, the lane and
  the centre, and an optional linear term;
- danger: minus, for each plane on a ring cell (or on its crossing cell when flights
  capture), the probability that it is hit before its owner moves again times what it
  would lose. For each other player the faces that hit the cell are collected from that
  player's real paths (every capture check a jump or flight makes, and the flight line);
  the probability of a hit is those faces over the faces that end the roll (a face that
  gives an extra roll without hitting rolls again). Players who move after the owner
  count with the `late_danger` factor, since the owner can run first;
- readiness: bonuses for having one and two planes out of the hangar and not finished;
- stacks: a bonus (or, if tuned negative, a penalty) per own plane sharing a cell;
- three sixes: for the player about to roll a possible third six, what the engine's
  penalty would send home, times 1/6.

A player's value is its equity minus `opponents` times a mix (`leader`) of the mean and
the best of the unfinished opponents' equities; finished places dominate everything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, NamedTuple

from ..engine.board import CENTRE, HANGAR, LANE_FIRST, LANE_LAST, TAKEOFF
from ..engine.compiled import FACES, compile_game, move_table
from ..engine.game import State, play_unchecked, third_six_if
from ..engine.rules import Rules
from .weights import TUNED_WEIGHTS

WEIGHT_NAMES: Final = tuple(TUNED_WEIGHTS)

WIN: Final = 1_000_000.0
"""The value of finishing first; later places are worth less by PLACE_STEP each."""
PLACE_STEP: Final = 100_000.0


class RuleTables(NamedTuple):
    """What the evaluation needs from one rule set, computed once."""

    values: tuple[float, ...]
    """values[p + 1]: a plane's progress value."""
    losses: tuple[float, ...]
    """losses[p + 1]: what a plane at p loses when it is sent to the hangar."""
    hit_chance: tuple[float, ...]
    """hit_chance[mask]: the chance that a roll (with its extra rolls) shows a face in mask."""
    three_sixes: bool


def rule_tables(rules: Rules, weights: Mapping[str, float]) -> RuleTables:
    table = move_table(rules)
    rolls = table.expected_rolls
    values = []
    for progress in range(HANGAR, CENTRE + 1):
        value = weights["rolls"] * (rolls[0] - rolls[progress + 1]) + weights["linear"] * (progress + 1)
        if progress == TAKEOFF:
            value += weights["takeoff"]
        elif LANE_FIRST <= progress <= LANE_LAST:
            value += weights["lane"]
        elif progress == CENTRE:
            value += weights["centre"]
        values.append(value)
    losses = tuple(value - values[0] for value in values)
    extra = sum(1 << face for face in FACES if table.extra_roll[face])
    hit_chance = []
    for mask in range(128):
        hitting = bin(mask).count("1")
        rolling_again = bin(extra & ~mask & 0b1111110).count("1")
        hit_chance.append(min(1.0, hitting / (6 - rolling_again)) if rolling_again < 6 else 1.0)
    return RuleTables(tuple(values), losses, tuple(hit_chance), table.three_sixes)


class Evaluator:
    """Values positions with one set of weights; tables are built per rule set on first use."""

    def __init__(self, weights: Mapping[str, float] = TUNED_WEIGHTS) -> None:
        unknown = set(weights) - set(WEIGHT_NAMES)
        if unknown:
            raise ValueError(f"unknown weights {sorted(unknown)} (expected {', '.join(WEIGHT_NAMES)})")
        self.weights = {**TUNED_WEIGHTS, **weights}
        self._tables: dict[Rules, RuleTables] = {}

    def tables(self, rules: Rules) -> RuleTables:
        found = self._tables.get(rules)
        if found is None:
            found = self._tables[rules] = rule_tables(rules, self.weights)
        return found

    def hit_maps(self, state: State) -> list[dict[tuple[int, int], int]]:
        """For each player: (victim, victim's progress) -> the faces (bits 1..6) with which
        one of its planes, as they stand, sends a plane there home (the compiled game's
        captures: landing checks and the flight line)."""
        hit_faces = compile_game(state.rules, state.players).hit_faces
        maps: list[dict[tuple[int, int], int]] = []
        for attacker, row in enumerate(state.planes):
            hits = hit_faces[attacker]
            hit_map: dict[tuple[int, int], int] = {}
            for progress in set(row):
                for key, mask in hits[progress + 1]:
                    hit_map[key] = hit_map.get(key, 0) | mask
            maps.append(hit_map)
        return maps

    def threats(
        self, state: State, hit_maps: Sequence[dict[tuple[int, int], int]], player: int, progress: int
    ) -> list[tuple[int, float]]:
        """(other player, chance that its next roll, extra rolls included, hits a plane of
        `player` standing at `progress`) for every other player that can hit it at all."""
        hit_chance = self.tables(state.rules).hit_chance
        key = (player, progress)
        found = []
        for other, hit_map in enumerate(hit_maps):
            mask = hit_map.get(key, 0) if other != player else 0
            if mask:
                found.append((other, hit_chance[mask]))
        return found

    def capture_chances(self, state: State) -> list[list[float]]:
        """For each player and plane: the chance it is captured, where it stands, before
        its owner rolls again, were every other player to roll first (as after the owner's move)."""
        hit_maps = self.hit_maps(state)
        chances = []
        for player, row in enumerate(state.planes):
            per_plane = []
            for progress in row:
                survive = 1.0
                for _, chance in self.threats(state, hit_maps, player, progress):
                    survive *= 1.0 - chance
                per_plane.append(1.0 - survive)
            chances.append(per_plane)
        return chances

    def equities(self, state: State) -> list[float]:
        """Each player's equity (see the module docstring), in the order of `state.players`."""
        tables = self.tables(state.rules)
        weights = self.weights
        values, losses = tables.values, tables.losses
        count = len(state.players)
        hit_maps = self.hit_maps(state)
        turn = state.turn
        order = [(index - turn) % count for index in range(count)]
        danger, late = weights["danger"], weights["late_danger"]
        one_active, two_active, stacked = weights["one_active"], weights["two_active"], weights["stacked"]
        equities = []
        for index, row in enumerate(state.planes):
            equity = 0.0
            active = 0
            for progress in row:
                equity += values[progress + 1]
                if 0 <= progress < CENTRE:
                    active += 1
                    survive = 1.0
                    for other, chance in self.threats(state, hit_maps, index, progress):
                        # a player who rolls after the owner may find the plane gone
                        survive *= 1.0 - (chance if order[other] < order[index] else late * chance)
                    equity -= danger * (1.0 - survive) * losses[progress + 1]
            if active >= 1:
                equity += one_active
                if active >= 2:
                    equity += two_active
            if stacked:
                shared = sum(1 for progress in row if 1 <= progress <= LANE_LAST and row.count(progress) > 1)
                equity += stacked * shared
            equities.append(equity)
        if tables.three_sixes and state.roll is None and not state.over and third_six_if(state, 6):
            penalised = play_unchecked(state, 6, None).planes[turn]
            lost = sum(losses[p + 1] for p, q in zip(state.planes[turn], penalised) if p != q)
            equities[turn] -= weights["three_sixes"] * lost / 6
        return equities

    def value(self, state: State, player: int, equities: Sequence[float] | None = None) -> float:
        """The value of `state` for `players[player]` (higher is better)."""
        colour = state.players[player]
        ranking = state.ranking
        if colour in ranking:
            return WIN - PLACE_STEP * ranking.index(colour)
        if state.over:
            return -WIN
        if equities is None:
            equities = self.equities(state)
        others = [equities[i] for i, c in enumerate(state.players) if i != player and c not in ranking]
        if not others:
            return equities[player]
        leader = self.weights["leader"]
        rival = (1.0 - leader) * sum(others) / len(others) + leader * max(others)
        return equities[player] - self.weights["opponents"] * rival - PLACE_STEP * len(ranking)


_DEFAULT: Evaluator | None = None


def default_evaluator() -> Evaluator:
    """The shared evaluator with the tuned weights (its tables are built once per rule set)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Evaluator()
    return _DEFAULT
