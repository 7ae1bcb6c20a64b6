"""The value network, the ace bot and the analysis built on them (docs/bots.md)."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

np = pytest.importorskip("numpy")

from flyingchess import PRESETS, Rules, legal_moves, new_game
from flyingchess.bots import make_bot
from flyingchess.bots.ace import AceBot
from flyingchess.bots.analysis import MISTAKE, analyse, chances, hint, reasons
from flyingchess.bots.learned import feature_tables, hit_chances
from flyingchess.bots.value import CELLS, INPUTS, SLOT_INPUTS, SLOTS, ValueNet, encode, value_tables, win_chances
from flyingchess.engine.board import CENTRE, HANGAR
from flyingchess.engine.game import apply_unchecked
from flyingchess.envs.batch import BatchGame
from flyingchess.envs.training import mover_chances
from flyingchess.records.record import Record

from tiers import first_fast


def played_states(players: int, preset: str | Rules, seed: int, count: int = 60) -> list:
    """States waiting for the die along a random game."""
    rng = random.Random(seed)
    state = new_game(players, Rules.preset(preset) if isinstance(preset, str) else preset)
    states = []
    while not state.over and len(states) < count:
        states.append(state)
        rolled = state._replace(roll=rng.randint(1, 6))
        moves = legal_moves(rolled)
        state = apply_unchecked(rolled, rng.choice(moves) if moves else None)
    return states


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_encoding_sees_every_position_from_the_player_about_to_roll(players: int) -> None:
    states = played_states(players, "classic", seed=players)
    tables = value_tables(states[0].rules, states[0].players)
    positions = np.array([s.planes for s in states], np.int8)
    turn = np.array([s.turn for s in states])
    inputs = encode(tables, positions, turn, np.array([s.sixes for s in states]))
    assert inputs.shape == (len(states), INPUTS)
    slots = inputs[:, : SLOTS * SLOT_INPUTS].reshape(len(states), SLOTS, SLOT_INPUTS)
    value, chance = hit_chances(feature_tables(states[0].rules, states[0].players), positions)
    for row, state in enumerate(states):
        for slot in range(SLOTS):
            if slot >= players:
                assert not slots[row, slot].any()  # no such player: an empty slot
                continue
            player = (state.turn + slot) % players
            planes = state.planes[player]
            counts = slots[row, slot, :CELLS] / 0.5
            assert counts.sum() == 4 and counts[HANGAR + 1] == planes.count(HANGAR)
            assert counts[CENTRE + 1] == planes.count(CENTRE)
            assert slots[row, slot, CELLS + 4] == 1.0  # in play
            for attacker_slot in range(players):
                attacker = (state.turn + attacker_slot) % players
                expected = float((chance[row, attacker, player] * value[row, player]).sum())
                assert slots[row, slot, CELLS + 5 + attacker_slot] == pytest.approx(expected, abs=1e-6)


def test_win_chances_add_up_and_a_decided_game_is_certain() -> None:
    for players in (2, 3, 4):
        states = played_states(players, "house", seed=10 + players)
        table = win_chances(states)
        assert table.shape == (len(states), players)
        assert np.allclose(table.sum(axis=1), 1.0) and (table >= 0).all()
    state = new_game(2, Rules.preset("classic"))
    won = state._replace(planes=((CENTRE,) * 4, (HANGAR,) * 4), ranking=("red",), over=True)
    assert win_chances([won]).tolist() == [[1.0, 0.0]]
    assert chances(won) == {"red": 1.0, "blue": 0.0}


def test_the_batch_simulator_and_the_engine_get_the_same_chances() -> None:
    """Training (BatchGame arrays) and play (engine states) must value a position alike."""
    rng = np.random.default_rng(5)
    game = BatchGame(Rules.preset("classic"), 4, 64)
    for _ in range(40):
        game.step_random(rng)
    me = np.arange(64) % 4
    from flyingchess.bots.value import shipped_net

    batch = mover_chances(game, me, shipped_net())
    single = [win_chances([game.to_state(i)])[0, me[i]] for i in range(64)]
    assert np.allclose(batch, single, atol=1e-5)


def test_the_seat_calibration_belongs_to_the_shipped_weights_and_gives_the_measured_openings() -> None:
    """bots/seat_offsets.json names the weights it was fitted for, and with it the chance
    of the first player to roll at the start is the share of such openings that player
    won in the network's own games (recorded by benchmarks/calibrate_seats.py on games
    it did not fit on): within three standard errors of the difference between the two
    samples, counting one opening per game (a game passes the same opening several times)."""
    import hashlib
    from importlib import resources

    from flyingchess.bots.value import OFFSETS_FILE, WEIGHTS_FILE

    package = resources.files("flyingchess.bots")
    data = json.loads(package.joinpath(OFFSETS_FILE).read_text())
    assert data["weights_sha256"] == hashlib.sha256(package.joinpath(WEIGHTS_FILE).read_bytes()).hexdigest()
    assert len(data["configs"]) == 16  # every preset: 2 players facing and side by side, 3 and 4
    for config in data["configs"]:
        start = new_game(config["players"], Rules.from_json(config["rules"]))
        measured = config["opening_roller_wins"]
        error = 3 * (measured * (1 - measured) * (1 / config["fit_games"] + 1 / config["check_games"])) ** 0.5
        assert abs(win_chances([start])[0, 0] - measured) <= error, config["players"]


def test_a_calibration_is_refused_with_weights_it_was_not_fitted_for() -> None:
    """calibrated_net gives the shipped network with the shipped files, and refuses the
    shipped calibration with any other weights (here the same arrays saved again, so
    only their bytes differ)."""
    import io
    from importlib import resources

    from flyingchess.bots.value import (
        OFFSETS_FILE,
        WEIGHTS_FILE,
        WrongCalibration,
        calibrated_net,
        read_net,
        shipped_net,
    )

    package = resources.files("flyingchess.bots")
    weights, offsets = package.joinpath(WEIGHTS_FILE).read_bytes(), package.joinpath(OFFSETS_FILE).read_text()
    net = calibrated_net(weights, offsets)
    assert np.array_equal(net.w1, shipped_net().w1) and net.seat_offsets is not None
    assert read_net(weights).seat_offsets is None
    other = io.BytesIO()
    np.savez(other, w1=net.w1, b1=net.b1, w2=net.w2, b2=net.b2, extra=np.zeros(1))
    with pytest.raises(WrongCalibration, match="other weights"):
        calibrated_net(other.getvalue(), offsets)


def test_custom_rules_keep_the_networks_own_chances() -> None:
    """A configuration the calibration was not fitted for gets no offsets."""
    from flyingchess.bots.value import shipped_net

    custom = Rules.preset("classic").with_options(launch=frozenset({5, 6}))
    states = played_states(3, custom, seed=3)
    net = shipped_net()
    count = 3
    positions = np.array([s.planes for s in states], np.int8)
    turn = np.array([s.turn for s in states])
    sixes = np.array([s.sixes for s in states])
    assert net.position_offsets(custom, states[0].players, positions, turn) is None
    raw = net.chances(encode(value_tables(custom, states[0].players), positions, turn, sixes), count)
    slots = win_chances(states)[np.arange(len(states))[:, None], (turn[:, None] + np.arange(count)) % count]
    assert np.allclose(slots, raw[:, :count], atol=1e-6)
    # the preset it was changed from has offsets: the same positions valued otherwise
    assert net.position_offsets(Rules.preset("classic"), states[0].players, positions, turn) is not None


def test_a_network_of_the_wrong_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="shapes"):
        ValueNet(np.zeros((INPUTS + 1, 8)), np.zeros(8), np.zeros((8, 4)), np.zeros(4))


@pytest.mark.parametrize("preset", first_fast(list(PRESETS)))
def test_ace_plays_legal_moves_in_every_preset_and_is_deterministic(preset: str) -> None:
    for players in (2, 4):
        for state in played_states(players, preset, seed=7, count=40):
            rolled = state._replace(roll=6)
            moves = legal_moves(rolled)
            plane = make_bot("ace").choose(rolled)
            assert plane in moves if moves else plane is None
            assert AceBot(depth=1).choose(rolled) in (moves or (None,))
            assert make_bot("ace", 3).choose(rolled) == plane


def test_a_hint_says_what_the_best_move_does() -> None:
    state = new_game(2, Rules.preset("classic"))
    finishing = state._replace(planes=((CENTRE, CENTRE, 10, CENTRE - 4), (40, 44, 48, 50)), roll=4)
    assert "finish" in reasons(finishing, 3) and "finish" not in reasons(finishing, 2)
    launching = state._replace(planes=((HANGAR, 20, HANGAR, HANGAR), (HANGAR,) * 4), roll=6)
    assert "launch" in reasons(launching, 0) and "launch" not in reasons(launching, 1)
    given = hint(finishing)
    assert given.best in given.moves and set(given.moves) == {2, 3}
    assert given.moves[given.best] == max(given.moves.values()) and given.reasons == reasons(finishing, given.best)


def test_a_review_prices_every_real_choice() -> None:
    record = Record.for_game(Rules.preset("classic"), ("red", "yellow", "blue", "green"))
    rng = random.Random(4)
    bots = [make_bot(name, 1) for name in ("random", "heuristic", "ace", "greedy")]
    state = record.start()
    while not state.over and len(record.actions) < 250:
        value = rng.randint(1, 6)
        rolled = state._replace(roll=value)
        plane = bots[state.turn].choose(rolled)
        record.add(value, plane)
        state = apply_unchecked(rolled, plane)
    review = analyse(record)
    assert len(review.chances) == len(record.actions) + 1
    assert all(abs(sum(row.values()) - 1) < 1e-3 for row in review.chances)
    assert review.decisions, "a 250-action game has real choices"
    for decision in review.decisions:
        assert decision.cost >= 0
        assert (decision.cost == 0) == (
            decision.played == decision.best
        ) or decision.chance_played == decision.chance_best
        assert decision.reasons
    ace_decisions = [d for d in review.decisions if d.colour == "blue"]
    assert ace_decisions and all(d.cost == 0 for d in ace_decisions)  # the reviewer agrees with itself
    assert all(d.cost >= MISTAKE for d in review.mistakes())
    costs = [d.cost for d in review.mistakes()]
    assert costs == sorted(costs, reverse=True)
    json.dumps(review.to_json())  # plain JSON


def test_analyse_prints_a_review_and_its_json() -> None:
    record = Record.for_game(Rules.preset("classic"), ("red", "blue"))
    state = record.start()
    rng = random.Random(9)
    bot = make_bot("heuristic")
    for _ in range(80):
        value = rng.randint(1, 6)
        rolled = state._replace(roll=value)
        plane = bot.choose(rolled)
        record.add(value, plane)
        state = apply_unchecked(rolled, plane)
    text = record.dumps()
    result = subprocess.run(
        [sys.executable, "-m", "flyingchess", "analyse", "-"], input=text, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "80 actions" in result.stdout and "red" in result.stdout
    as_json = subprocess.run(
        [sys.executable, "-m", "flyingchess", "analyse", "--json", "-"], input=text, capture_output=True, text=True
    )
    data = json.loads(as_json.stdout)
    assert data["players"] == ["red", "blue"] and len(data["chances"]) == 81


def test_levels_name_bots_in_order_and_work_wherever_a_bot_name_does() -> None:
    from flyingchess.bots import BOTS
    from flyingchess.bots.levels import LEVELS, level_of, resolve

    assert [level.name for level in LEVELS] == ["gentle", "casual", "sensible", "strong", "master"]
    ranks = [BOTS[level.bot].level for level in LEVELS]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)  # each level a stronger bot
    assert max(BOTS.values(), key=lambda info: info.level).name == resolve("master") == "ace"
    assert isinstance(make_bot("master"), AceBot) and level_of("ace") == "master" and level_of("learned") is None
    listing = json.loads(
        subprocess.run([sys.executable, "-m", "flyingchess", "bots", "--json"], capture_output=True, text=True).stdout
    )
    assert {entry["name"]: entry["level_name"] for entry in listing}["ace"] == "master"
    played = subprocess.run(
        [sys.executable, "-m", "flyingchess", "simulate", "--bots", "master,gentle", "--games", "4", "--json"],
        capture_output=True,
        text=True,
    )
    assert played.returncode == 0, played.stderr
    assert "ace" in played.stdout and "random" in played.stdout
    # a server's seats take levels too, and keep the bot's own name
    from flyingchess.server.protocol import ProtocolError, SetSeat, parse_new_game

    game = parse_new_game({"players": ["red", "blue"], "seats": {"red": {"kind": "bot", "bot": "master"}}})
    assert game.seats["red"] == {"kind": "bot", "bot": "ace"}
    assert SetSeat.parse({"colour": "blue", "kind": "bot", "bot": "casual"}).bot == "heuristic"
    with pytest.raises(ProtocolError, match="unknown bot"):
        SetSeat.parse({"colour": "blue", "kind": "bot", "bot": "grandmaster"})
