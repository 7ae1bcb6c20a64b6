"""The best response: the ace bot told who sits at the table and searching with the
opponent's own replies, best-response networks (trained against one known bot: one
ships, against greedy, and serves expectimax too; most tests use one warm-started from
the shipped network), and the batch simulator's twin of the choice (docs/bots.md)."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from flyingchess import Rules, new_game
from flyingchess.bots import HeuristicBot, introduce, make_bot
from flyingchess.bots.ace import AceBot
from flyingchess.bots.value import (
    INPUTS,
    RESPONSE_INPUTS,
    RESPONSES,
    SLOTS,
    encode,
    response_net,
    shipped_net,
    value_tables,
    win_chances,
)
from flyingchess.engine.game import apply_unchecked, legal_moves, moves_unchecked, play_unchecked
from flyingchess.envs.batch import BatchGame, heuristic_actions
from flyingchess.envs.training import response_actions
from flyingchess.simulation.games import play_bots
from test_ace import played_states


def test_the_learner_is_flagged_by_its_slot_after_the_same_inputs() -> None:
    states = played_states(4, "classic", seed=5)
    tables = value_tables(states[0].rules, states[0].players)
    positions = np.array([s.planes for s in states], np.int8)
    turn = np.array([s.turn for s in states])
    sixes = np.array([s.sixes for s in states])
    learner = np.array([k % 4 for k in range(len(states))])
    plain = encode(tables, positions, turn, sixes)
    flagged = encode(tables, positions, turn, sixes, learner)
    assert flagged.shape == (len(states), RESPONSE_INPUTS) and RESPONSE_INPUTS == INPUTS + SLOTS
    assert np.array_equal(flagged[:, :INPUTS], plain)
    flags = flagged[:, INPUTS:]
    assert (flags.sum(axis=1) == 1).all()
    assert np.array_equal(flags.argmax(axis=1), (learner - turn) % 4)


def test_a_response_network_values_for_its_learner_only() -> None:
    net = shipped_net().responding()
    assert net.responds and not shipped_net().responds
    states = played_states(4, "classic", seed=6, count=10)
    chances = win_chances(states, net, learner=2)
    assert chances.shape == (10, 4) and np.allclose(chances.sum(axis=1), 1)
    with pytest.raises(ValueError, match="learner"):
        win_chances(states, net)
    with pytest.raises(ValueError, match="learner"):
        win_chances(states, shipped_net(), learner=2)
    for opponent in ("heuristic", "greedy", "nobody"):
        assert (response_net(opponent) is None) is (opponent not in RESPONSES)


def test_a_warm_start_predicts_what_the_network_it_starts_from_does() -> None:
    start = shipped_net()
    warm = start.responding()
    assert warm.responds and warm.w1.shape == (RESPONSE_INPUTS, start.w1.shape[1])
    states = played_states(3, "house", seed=7, count=20)
    for learner in range(3):
        found = win_chances(states, warm, learner)
        assert np.allclose(found, win_chances(states, _without_calibration(start)), atol=1e-6)


def _without_calibration(net: Any) -> Any:
    from flyingchess.bots.value import ValueNet

    return ValueNet(net.w1, net.b1, net.w2, net.b2)


class Listener:
    name = "listener"

    def __init__(self) -> None:
        self.told: list[tuple[str, dict[str, str | None]]] = []

    def meet(self, colour: str, table: dict[str, str | None]) -> None:
        self.told.append((colour, dict(table)))

    def choose(self, state: Any) -> int | None:
        moves = legal_moves(state)
        return moves[0] if moves else None


def test_every_bot_is_told_the_table_before_play() -> None:
    listener = Listener()
    play_bots(Rules.preset("classic"), [make_bot("heuristic"), listener, make_bot("greedy")], random.Random(1))
    assert listener.told == [("yellow", {"red": "heuristic", "yellow": "listener", "blue": "greedy"})]
    other = Listener()
    introduce({"red": other, "blue": None})  # a seat no bot plays: a person, a client
    assert other.told == [("red", {"red": "listener", "blue": None})]


@pytest.mark.parametrize(
    ("table", "modelled"),
    [
        ({"yellow": "heuristic", "blue": "heuristic", "green": "heuristic"}, True),
        ({"yellow": "casual", "blue": "heuristic", "green": "heuristic"}, True),  # a level name is its bot
        ({"yellow": "heuristic", "blue": None, "green": "heuristic"}, False),  # a person at the table
        ({"yellow": "heuristic", "blue": "greedy", "green": "heuristic"}, False),  # mixed
        ({"yellow": "greedy", "blue": "greedy", "green": "greedy"}, False),  # too slow to ask in the search
    ],
)
def test_ace_responds_only_to_a_table_of_one_modelled_bot(table: dict[str, str | None], modelled: bool) -> None:
    trained = shipped_net().responding()
    ace = AceBot(responses=lambda opponent: trained if opponent == "heuristic" else None)
    ace.meet("red", {"red": "ace", **table})
    assert isinstance(ace.opponent, HeuristicBot) is modelled
    assert (ace.net is trained) is modelled and (ace.net is ace.self_play) is not modelled
    ace.meet("red", {"red": "ace", "yellow": None})  # told again: the new table counts
    assert ace.net is ace.self_play and ace.opponent is None
    plain = AceBot()  # the shipped networks: none against heuristic (modelled, self-play values), one against greedy
    plain.meet("red", {"red": "ace", **table})
    shipped = response_net("greedy") if set(table.values()) == {"greedy"} else plain.self_play
    assert plain.net is shipped and isinstance(plain.opponent, HeuristicBot) is modelled
    never = AceBot(respond=False)
    never.meet("red", {"red": "ace", **table})
    assert never.opponent is None


def test_a_table_of_one_bot_ace_cannot_model_gets_its_response_network_at_the_leaves() -> None:
    trained = shipped_net().responding()
    ace = AceBot(responses=lambda opponent: trained if opponent == "greedy" else None)
    ace.meet("red", {"red": "ace", "yellow": "greedy", "blue": "greedy", "green": "greedy"})
    assert ace.net is trained and ace.opponent is None  # valued as against greedy, replies not asked
    state = played_states(4, "classic", seed=3, count=30)[-1]
    rolled = state._replace(roll=6)
    moves = legal_moves(rolled)
    assert len(ace.move_values(rolled, moves)) == len(moves)
    ace.meet("red", {"red": "ace", "yellow": "greedy", "blue": None, "green": "greedy"})
    assert ace.net is ace.self_play


@pytest.mark.parametrize(
    ("table", "one_bot"),
    [
        ({"yellow": "heuristic", "blue": "greedy", "green": "heuristic"}, False),
        ({"yellow": "casual", "blue": "greedy", "green": "learned"}, False),  # a level name is its bot
        ({"yellow": "greedy", "blue": "learned"}, False),
        ({"yellow": "greedy", "blue": None, "green": "heuristic"}, False),  # a person at the table
        ({"yellow": "greedy", "blue": "sensible", "green": "greedy"}, True),  # one bot, by two names
    ],
)
def test_a_table_of_several_bots_gets_the_self_play_network_whatever_networks_there_are(
    table: dict[str, str | None], one_bot: bool
) -> None:
    trained = shipped_net().responding()
    ace = AceBot(responses=lambda opponent: trained)  # a network for every bot and every name
    ace.meet("red", {"red": "ace", **table})
    assert (ace.net is trained) is one_bot and (ace.net is ace.self_play) is not one_bot
    assert ace.opponent is None
    never = AceBot(respond=False, responses=lambda opponent: trained)
    never.meet("red", {"red": "ace", **table})
    assert never.net is never.self_play


def test_a_table_of_expectimax_gets_the_network_trained_against_greedy() -> None:
    """expectimax has no batched twin to train against; greedy's response carries over
    (docs/bots.md), so the table of one gets it at the leaves, unmodelled."""
    ace = AceBot()
    ace.meet("red", {"red": "ace", "yellow": "strong", "blue": "expectimax", "green": "expectimax"})
    assert ace.net is response_net("expectimax") and ace.opponent is None
    assert all(
        np.array_equal(*pair) for pair in zip(ace.net.arrays().values(), response_net("greedy").arrays().values())
    )
    ace.meet("red", {"red": "ace", "yellow": "expectimax", "blue": "greedy"})  # a mix: no response
    assert ace.net is ace.self_play


def test_when_responding_ace_expects_the_opponent_to_play_as_it_does() -> None:
    ace = AceBot()
    ace.meet("red", {"red": "ace", "yellow": "heuristic", "blue": "heuristic", "green": "heuristic"})
    heuristic = HeuristicBot()
    checked = 0
    for state in played_states(4, "classic", seed=9, count=80):
        plan = ace._expand([state], me=0)
        for face, (roller, children) in zip(range(1, 7), plan[0]):
            replies = moves_unchecked(state, face)
            if roller == 0 or len(replies) < 2:
                continue
            played = heuristic.choose(state._replace(roll=face))
            assert children == [play_unchecked(state, face, played)]
            checked += 1
    assert checked > 20


def test_the_batched_response_chooses_as_ace_does_one_move_ahead() -> None:
    net = shipped_net().responding()
    net.w1[-4:] = np.random.default_rng(8).normal(0, 0.3, net.w1[-4:].shape)  # the learner's slot counts
    ace = AceBot(depth=1, responses=lambda opponent: net, close=0.0)  # one move ahead, no deeper look
    ace.meet("red", {"red": "ace", "yellow": "heuristic", "blue": "heuristic", "green": "heuristic"})
    rng = np.random.default_rng(3)
    game = BatchGame(Rules.preset("classic"), 4, 256)
    compared = 0
    for _ in range(60):
        rolls = game.roll(rng)
        mask = game.move_mask(rolls)
        rows = np.flatnonzero(~game.over)
        twin = response_actions(game, rolls, mask, net, rows)
        for row, action in zip(rows, twin):
            state = game.to_state(int(row))._replace(roll=int(rolls[row]))
            moves = legal_moves(state)
            if len(moves) < 2:
                continue
            values = ace.move_values(state, moves)
            best = max(values)
            # the same move, or one the engine's values rate equal (a tie broken by float noise)
            assert action in moves and values[moves.index(int(action))] >= best - 1e-6
            compared += 1
        game.step(rolls, heuristic_actions(game, rolls, mask))
    assert compared > 200


def test_a_batch_made_from_engine_states_is_the_same_game() -> None:
    rng = np.random.default_rng(4)
    for preset in ("classic", "house", "traditional", "even"):
        game = BatchGame(Rules.preset(preset), 3, 48)
        for step in range(300):
            game.step_random(rng)
            if step % 50 == 49:
                copy = BatchGame.from_states([game.to_state(row) for row in range(game.batch)])
                for name in BatchGame._FIELDS:
                    if name != "rolls":
                        assert np.array_equal(getattr(copy, name), getattr(game, name)), (preset, step, name)
    with pytest.raises(ValueError, match="waiting for a move"):
        BatchGame.from_states([new_game(2)._replace(roll=6)])


def test_responses_ship_for_the_bots_named() -> None:
    for opponent in RESPONSES:
        net = response_net(opponent)
        assert net is not None and net.responds


@pytest.mark.parametrize("depth", [3, 4])
def test_ace_against_a_modelled_table_plays_legal_moves_the_same_way_each_time(depth: int) -> None:
    def game() -> list[int | None]:
        ace = AceBot(depth=depth)
        chosen: list[int | None] = []

        class Watched:
            name = "ace"

            def meet(self, colour: str, table: dict[str, str | None]) -> None:
                ace.meet(colour, table)

            def choose(self, state: Any) -> int | None:
                plane = ace.choose(state)
                assert plane in legal_moves(state)
                chosen.append(plane)
                return plane

        play_bots(Rules.preset("house"), [make_bot("heuristic"), Watched()], random.Random(depth))
        assert isinstance(ace.opponent, HeuristicBot)
        return chosen

    first = game()
    assert len(first) > 10 and game() == first


def test_a_rooms_ace_is_told_who_sits_at_its_table(tmp_path: Any) -> None:
    import asyncio

    from flyingchess.server.rooms.registry import Rooms
    from flyingchess.server.rooms.registry import new_game as new_stored_game
    from flyingchess.server.storage.async_store import AsyncStore
    from flyingchess.server.storage.store import SqliteStore

    async def ace_of(others: dict[str, dict[str, str]]) -> Any:
        folder = tmp_path / str(len(list(tmp_path.iterdir())))  # a database of its own each time
        folder.mkdir()
        rooms = Rooms(AsyncStore(SqliteStore(folder / "games.sqlite3")), lambda: random.Random(1))
        seats = {"red": {"kind": "bot", "bot": "ace"}, **others}
        room = await rooms.create(new_stored_game(Rules.preset("classic"), tuple(seats), seats))
        return room.bot_runner._bot_for("red")

    bots = {colour: {"kind": "bot", "bot": "heuristic"} for colour in ("yellow", "blue", "green")}
    ace = asyncio.run(ace_of(bots))
    assert isinstance(ace, AceBot) and isinstance(ace.opponent, HeuristicBot)
    with_a_person = asyncio.run(ace_of({**bots, "blue": {"kind": "human"}}))
    assert with_a_person.opponent is None  # a person is no bot it can model


def test_a_close_call_is_searched_a_roll_deeper_and_nothing_else_is() -> None:
    """`close`: moves within that much of the best are searched a roll deeper against a
    modelled table. With every move a close call the bot values moves as depth 4 does;
    with none, as depth 3; with no modelled table (nobody told it the table) `close`
    changes nothing."""
    table = {"red": "ace", "blue": "heuristic"}
    decisions = 0
    for state, roll in itertools.product(played_states(2, "classic", seed=29, count=60), (6, 4)):
        rolled = state._replace(roll=roll)
        moves = legal_moves(rolled)
        if len({apply_unchecked(rolled, plane) for plane in moves}) < 2 or rolled.turn != 0:
            continue
        deeper, shallower = AceBot(depth=4), AceBot(close=0.0)
        deeper.meet("red", table)
        shallower.meet("red", table)
        four, three = deeper.move_values(rolled, moves), shallower.move_values(rolled, moves)
        assert four != three  # a roll deeper values differently
        values = sorted(dict(zip([apply_unchecked(rolled, plane) for plane in moves], three)).values())
        if values[-1] == values[-2]:
            continue  # two moves lead at depth 3: a close call whatever the margin
        best, second = values[-1], values[-2]
        every_move_close, none_close = AceBot(close=1.0), AceBot(close=(best - second) / 2)
        every_move_close.meet("red", table)
        none_close.meet("red", table)
        assert every_move_close.move_values(rolled, moves) == four
        assert none_close.move_values(rolled, moves) == three
        untold = AceBot(close=0.0).move_values(rolled, moves)  # no modelled table: the network replies
        assert untold != three and AceBot(close=1.0).move_values(rolled, moves) == untold
        decisions += 1
    assert decisions >= 5
