"""`flyingchess seat-bot`: a registered bot and a user's policy (observation and mask in,
action out, as the environments give them) seated in a real network game through the
client, played to the end; bad input as one line and exit status 2 (docs/clients.md)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("websockets")
pytest.importorskip("numpy")

from flyingchess.clients.game_client import GameClient, Invite, create_game

from servers import Server

pytestmark = pytest.mark.slow

POLICIES = """
def first_legal(observation, mask):
    assert observation.ndim == 1 and mask.shape == (5,)
    return int(mask.nonzero()[0][0])

def out_of_range(observation, mask):
    return 9

def broken(observation, mask):
    raise ValueError("no weights loaded")
"""


def seat_bot(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    (tmp_path / "my_policies.py").write_text(POLICIES)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen(
        [sys.executable, "-m", "flyingchess", "seat-bot", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def one_line_refusal(process: subprocess.Popen[str]) -> str:
    out, err = process.communicate(timeout=60)
    assert process.returncode == 2, (out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err.strip()


def test_a_bot_and_a_policy_play_a_network_game_to_its_end(tmp_path: Path) -> None:
    with Server(tmp_path / "data", network=True) as server:
        invite, host_token = asyncio.run(
            create_game(server.url, ["red", "blue"], {"red": {"kind": "open"}, "blue": {"kind": "open"}})
        )
        bot = seat_bot(tmp_path, invite.link, "--bot", "heuristic", "--colour", "red")
        policy = seat_bot(
            tmp_path, invite.link, "--policy", "my_policies:first_legal", "--colour", "blue", "--name", "Agent"
        )

        async def host_starts() -> str:
            async with GameClient(invite, host_token) as host:
                await host.wait_until(lambda g: all(s.get("kind") == "player" for s in g.seats.values()), 60)
                await host.start()
                game = await host.wait_until(lambda g: g.phase == "over", 300)
                return str(game.state.winner)

        winner = asyncio.run(host_starts())
        for process, colour in ((bot, "red"), (policy, "blue")):
            out, err = process.communicate(timeout=60)
            assert process.returncode == 0, err
            assert f"playing {colour}" in out and f"game over: {winner} wins" in out
        record = server.api(f"/api/games/{invite.game_id}/record")
        assert record["seats"]["blue"]["name"] == "Agent"


def test_a_policy_that_breaks_the_rules_ends_in_one_line_and_the_table_goes_on(tmp_path: Path) -> None:
    with Server(tmp_path / "data", network=True) as server:
        for policy, said in (
            ("out_of_range", "chose action 9; the legal actions were"),
            ("broken", "raised ValueError: no weights loaded"),
        ):
            invite, host_token = asyncio.run(
                create_game(
                    server.url,
                    ["red", "blue"],
                    {"red": {"kind": "bot", "bot": "random"}, "blue": {"kind": "open"}},
                    timer=1,  # a seat left to itself goes to the autopilot after a second of its turn
                )
            )
            process = seat_bot(tmp_path, invite.link, "--policy", f"my_policies:{policy}")

            async def start_and_watch(invite: Invite = invite, host_token: str = host_token) -> int:
                async with GameClient(invite, host_token) as host:
                    await host.wait_until(lambda g: g.seats["blue"].get("kind") == "player", 60)
                    await host.start()
                    actions = (await host.wait_until(lambda g: g.phase == "move" and g.to_move == "blue", 120)).actions
                    # the policy gave up; the autopilot plays its seat when its turn runs out: the game goes on
                    return (await host.wait_until(lambda g: g.actions > actions + 4 or g.phase == "over", 120)).actions

            moved_on = asyncio.run(start_and_watch())
            assert said in one_line_refusal(process) and moved_on > 0


def test_bad_input_is_one_line_and_status_2(tmp_path: Path) -> None:
    started = time.monotonic()
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "typo_agent.py").write_text("def act(observation, mask)\n    return 0\n")
    beside = subprocess.Popen(
        [sys.executable, "-m", "flyingchess", "seat-bot", "http://127.0.0.1:9/#/join/x", "--policy", "typo_agent:act"],
        cwd=tmp_path / "here",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert "typo_agent does not compile" in one_line_refusal(beside)  # found in the current folder
    assert "give --bot NAME or --policy" in one_line_refusal(seat_bot(tmp_path, "http://127.0.0.1:9/#/join/x"))
    assert "not a game's link" in one_line_refusal(seat_bot(tmp_path, "http://127.0.0.1:9/", "--bot", "random"))
    assert "unknown bot 'nope'" in one_line_refusal(seat_bot(tmp_path, "http://127.0.0.1:9/#/join/x", "--bot", "nope"))
    assert "cannot import" in one_line_refusal(
        seat_bot(tmp_path, "http://127.0.0.1:9/#/join/x", "--policy", "nowhere:f")
    )
    assert "has no" in one_line_refusal(
        seat_bot(tmp_path, "http://127.0.0.1:9/#/join/x", "--policy", "my_policies:nope")
    )
    assert "seat-bot:" in one_line_refusal(
        seat_bot(tmp_path, "http://127.0.0.1:9/#/join/x", "--bot", "random")
    )  # nobody there
    with Server(tmp_path / "data", network=True) as server:
        invite, _ = asyncio.run(
            create_game(server.url, ["red", "blue"], {"red": {"kind": "human"}, "blue": {"kind": "human"}})
        )
        assert "no open seat" in one_line_refusal(seat_bot(tmp_path, invite.link, "--bot", "random"))
        assert "bad-token" in one_line_refusal(seat_bot(tmp_path, invite.link, "--bot", "random", "--token", "stale"))
    assert time.monotonic() - started < 120


def test_a_seated_master_is_told_its_table_and_plays_it(tmp_path: Path) -> None:
    from flyingchess.bots import HeuristicBot
    from flyingchess.bots.ace import AceBot
    from flyingchess.clients.seat_bot import BotChooser, sit

    with Server(tmp_path / "data", network=True) as server:
        invite, host_token = asyncio.run(
            create_game(
                server.url,
                ["red", "blue"],
                {"red": {"kind": "open"}, "blue": {"kind": "bot", "bot": "heuristic"}},
                speed="instant",
            )
        )
        chooser = BotChooser(AceBot())

        async def play() -> str:
            async def host() -> None:
                async with GameClient(invite, host_token) as table:
                    await table.wait_until(lambda g: g.seats["red"].get("kind") == "player", 60)
                    await table.start()

            _, game = await asyncio.gather(host(), sit(invite.link, chooser, colour="red", say=lambda line: None))
            return game.phase

        assert asyncio.run(asyncio.wait_for(play(), 300)) == "over"
        assert isinstance(chooser.bot, AceBot) and isinstance(chooser.bot.opponent, HeuristicBot)
