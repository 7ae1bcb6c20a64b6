"""The compiled game against the independent oracle (tests/oracle.py): whom every move of
every player sends home, and who rolls next once players have finished. Every consumer
of the compiled tables (engine, evaluation, learned features, heuristic, batch
simulator) reads these, so they are checked at the source."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from flyingchess import Rules
from flyingchess.engine.board import CENTRE, HANGAR
from flyingchess.engine.compiled import FACES, compile_game
from flyingchess.engine.rules import PRESETS

from oracle import OracleGame
from strategies import players_strategy, rules_strategy

PLACES = list(range(HANGAR, CENTRE + 1))


def oracle_rules(rules: Rules) -> dict[str, object]:
    options = rules.to_json()
    options["launch"], options["extra_roll"] = set(options["launch"]), set(options["extra_roll"])
    return options


def oracle_captures(
    rules: Rules, players: tuple[str, ...], turn: int, start: int, face: int
) -> set[tuple[int, int]] | None:
    """(victim, victim's progress) for every place a plane of each opponent could stand
    and be sent home by the move; None when the oracle says the plane cannot move."""
    found: set[tuple[int, int]] = set()
    colour = players[turn]
    for first in range(0, len(PLACES), 4):
        game = OracleGame(oracle_rules(rules), list(players))
        game.turn_index = turn
        places = (PLACES[first : first + 4] + [HANGAR] * 4)[:4]
        for other in players:
            game.planes[other] = list(places)
        game.planes[colour] = [start, HANGAR, HANGAR, HANGAR]
        if not game.plane_can_move(colour, 0, face):
            return None
        for victim, plane in game.simulate(colour, 0, face)["captured"]:
            found.add((players.index(victim), game.planes[victim][plane]))
    return found


def check_captures(rules: Rules, players: tuple[str, ...]) -> None:
    compiled = compile_game(rules, players)
    for turn in range(len(players)):
        for start in range(HANGAR, CENTRE):
            for face in FACES:
                expected = oracle_captures(rules, players, turn, start, face)
                captures = compiled.captures[turn][start + 1][face]
                if expected is None:
                    assert compiled.table.paths[start + 1][face] is None and not captures
                    continue
                found = {(victim, progress) for victim, progress, _ in captures}
                assert found == expected, (rules.describe(), players, turn, start, face)


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("players", [("red", "blue"), ("yellow", "blue", "green"), ("red", "yellow", "blue", "green")])
def test_captures_of_every_move_agree_with_the_oracle(preset: str, players: tuple[str, ...]) -> None:
    check_captures(Rules.preset(preset), players)


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(rules=rules_strategy, players=players_strategy())
def test_captures_agree_with_the_oracle_under_any_options(rules: Rules, players: tuple[str, ...]) -> None:
    check_captures(rules, players)


@pytest.mark.parametrize("players", [("red", "blue"), ("red", "yellow", "blue"), ("red", "yellow", "blue", "green")])
def test_who_rolls_next_agrees_with_the_oracle(players: tuple[str, ...]) -> None:
    compiled = compile_game(Rules.preset("classic"), players)
    for finished in range(1 << len(players)):
        for turn in range(len(players)):
            game = OracleGame(oracle_rules(Rules.preset("classic")), list(players))
            game.turn_index = turn
            game.ranking = [c for i, c in enumerate(players) if finished >> i & 1]
            game.pass_turn()
            if len(game.ranking) < len(players):
                assert compiled.next_player[turn][finished] == game.turn_index


def test_the_die_is_six_equally_likely_faces() -> None:
    outcomes = compile_game(Rules.preset("classic"), ("red", "blue")).chance_outcomes
    assert [face for face, _ in outcomes] == [1, 2, 3, 4, 5, 6]
    assert sum(chance for _, chance in outcomes) == pytest.approx(1.0)
