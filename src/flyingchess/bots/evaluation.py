"""A position's value for each player: race progress, capture danger, readiness, stacks.

Everything rule-dependent comes from the engine's move table (the paths every plane may
take with every die face), so the evaluation follows every rule option without knowing any.

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

from typing import Final, Mapping, NamedTuple, Sequence

from ..board import CENTRE, CROSSING, HANGAR, LANE_FIRST, LANE_LAST, RING_INDEX, SEAT, TAKEOFF, opposite_seat
from ..game import MoveTable, State, move_table, play_unchecked
from ..rules import Rules
from .weights import TUNED_WEIGHTS

WEIGHT_NAMES: Final = tuple(TUNED_WEIGHTS)

FLIGHT_KEY: Final = 52
"""The hit-map key of the flight line (ring cells are 0..51): the opposite colour's crossing cell."""

WIN: Final = 1_000_000.0
"""The value of finishing first; later places are worth less by PLACE_STEP each."""
PLACE_STEP: Final = 100_000.0


def expected_rolls(table: MoveTable) -> tuple[float, ...]:
    """rolls[p + 1]: the expected number of rolls a lone plane at progress p needs to reach
    the centre, moving whenever its path allows (the only plane moves when it can)."""
    rolls = [0.0] * (CENTRE + 2)
    for _ in range(2000):
        change = 0.0
        for progress in range(CENTRE - 1, HANGAR - 1, -1):
            total = 1.0
            for face in range(1, 7):
                path = table.paths[progress + 1][face]
                following = progress if path is None else path.end
                total += rolls[following + 1] / 6
            change = max(change, abs(total - rolls[progress + 1]))
            rolls[progress + 1] = total
        if change < 1e-9:
            break
    return tuple(rolls)


class RuleTables(NamedTuple):
    """What the evaluation needs from one rule set, computed once."""

    values: tuple[float, ...]
    """values[p + 1]: a plane's progress value."""
    losses: tuple[float, ...]
    """losses[p + 1]: what a plane at p loses when it is sent to the hangar."""
    hits: tuple[tuple[tuple[tuple[int, int], ...], ...], ...]
    """hits[seat][p + 1]: (ring cell or FLIGHT_KEY, bit mask of faces 1..6) a plane reaches."""
    hit_chance: tuple[float, ...]
    """hit_chance[mask]: the chance that a roll (with its extra rolls) shows a face in mask."""
    flight_capture: bool
    three_sixes: bool


def rule_tables(rules: Rules, weights: Mapping[str, float]) -> RuleTables:
    table = move_table(rules)
    rolls = expected_rolls(table)
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
    hits = []
    for seat in range(4):
        ring = RING_INDEX[seat]
        rows = []
        for progress in range(HANGAR, CENTRE + 1):
            masks: dict[int, int] = {}
            for face in range(1, 7):
                path = table.paths[progress + 1][face]
                if path is None:
                    continue
                for op, where, _ in path.effects:
                    if op == "check":
                        masks[ring[where]] = masks.get(ring[where], 0) | 1 << face
                if path.flies and rules.flight_capture:
                    masks[FLIGHT_KEY] = masks.get(FLIGHT_KEY, 0) | 1 << face
            rows.append(tuple(sorted(masks.items())))
        hits.append(tuple(rows))
    extra = sum(1 << face for face in rules.extra_roll)
    hit_chance = []
    for mask in range(128):
        hitting = bin(mask).count("1")
        rolling_again = bin(extra & ~mask & 0b1111110).count("1")
        hit_chance.append(min(1.0, hitting / (6 - rolling_again)) if rolling_again < 6 else 1.0)
    return RuleTables(tuple(values), losses, tuple(hits), tuple(hit_chance), rules.flight_capture,
                      rules.three_sixes != "none")


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

    def hit_maps(self, state: State) -> list[dict[int, int]]:
        """For each player: ring cell (or FLIGHT_KEY) -> mask of the faces with which one of
        its planes, as they stand, makes a capture check there (or flies over the crossing)."""
        tables = self.tables(state.rules)
        maps: list[dict[int, int]] = []
        for colour, row in zip(state.players, state.planes):
            hits = tables.hits[SEAT[colour]]
            hit_map: dict[int, int] = {}
            for progress in set(row):
                for cell, mask in hits[progress + 1]:
                    hit_map[cell] = hit_map.get(cell, 0) | mask
            maps.append(hit_map)
        return maps

    def threats(self, state: State, hit_maps: Sequence[dict[int, int]], player: int, progress: int
                ) -> list[tuple[int, float]]:
        """(other player, chance that its next roll, extra rolls included, hits a plane of
        `player` standing at `progress`) for every other player that can hit it at all."""
        tables = self.tables(state.rules)
        seat = SEAT[state.players[player]]
        if 1 <= progress <= 50:
            cell = RING_INDEX[seat][progress]
            candidates: Sequence[int] = range(len(state.players))
        elif progress == CROSSING and tables.flight_capture:
            cell = FLIGHT_KEY
            opposite = opposite_seat(seat)
            candidates = [i for i, colour in enumerate(state.players) if SEAT[colour] == opposite]
        else:
            return []
        found = []
        for other in candidates:
            mask = hit_maps[other].get(cell, 0) if other != player else 0
            if mask:
                found.append((other, tables.hit_chance[mask]))
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
        if tables.three_sixes and state.roll is None and state.sixes >= 2 and not state.over:
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
