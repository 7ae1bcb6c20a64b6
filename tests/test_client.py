"""flyingchess.clients.game_client against a real `flyingchess serve` process: a seat taken and a game
played to its end through it, refusals as typed errors, committed dice checked, and a
restart of the server under the client's feet (docs/clients.md)."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import socket
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("websockets")

from flyingchess import State
from flyingchess.clients.game_client import ClientError, GameClient, Invite, Refused, SyncGameClient, create_game
from flyingchess.engine.events import EVENT_TYPES, Rolled, event_from_json
from flyingchess.engine.game import legal_moves
from flyingchess.records.fair_dice import ProofError

from servers import Server


def test_an_invite_link_names_the_server_and_the_game() -> None:
    invite = Invite.parse("http://192.168.1.20:8000/#/join/k3v9q2")
    assert (invite.base, invite.game_id) == ("http://192.168.1.20:8000", "k3v9q2")
    assert invite.socket_url == "ws://192.168.1.20:8000/ws/k3v9q2"
    assert Invite.parse("https://chess.example.org/play/#/game/abc").socket_url == "wss://chess.example.org/play/ws/abc"
    assert Invite.parse("abc_9", base="http://127.0.0.1:9/") == Invite("http://127.0.0.1:9", "abc_9")
    for wrong in ("http://host:8000/", "ftp://host/#/join/x", "not a link", "http://host/#/join/"):
        with pytest.raises(ClientError):
            Invite.parse(wrong)


def test_events_read_back_from_the_wire_are_the_engines_own() -> None:
    assert event_from_json(Rolled("red", 6).to_json()) == Rolled("red", 6)
    for kind in EVENT_TYPES.values():
        assert kind.kind  # every kind has a wire name
    for wrong in ({"type": "roll", "colour": "red"}, {"type": "warp"}, ["roll"], None):
        with pytest.raises(ValueError):
            event_from_json(wrong)


def network_game(server: Server, seats: dict[str, dict[str, str]]) -> tuple[Invite, str]:
    return asyncio.run(create_game(server.url, list(seats), seats, speed="instant"))


@pytest.mark.slow
def test_a_client_takes_a_seat_and_plays_a_game_to_its_end(tmp_path: Path) -> None:
    with Server(tmp_path / "data", network=True) as server:
        invite, host_token = network_game(
            server, {"red": {"kind": "bot", "bot": "heuristic"}, "blue": {"kind": "open"}}
        )

        async def play() -> tuple[int, int, bool]:
            rng = random.Random(5)
            async with GameClient(invite.link) as guest, GameClient(invite, host_token) as host:
                assert host.you.role == "host" and guest.you.role == "spectator"
                with pytest.raises(Refused) as refused:
                    await guest.roll()
                assert refused.value.code in ("not-your-seat", "not-started")
                token = await guest.join("blue", "Ada")
                assert guest.you.controls == ("blue",) and token == guest.token
                await guest.chat("good luck")
                said = (await guest.sync()).raw["chat"]
                assert [line["text"] for line in said] == ["good luck"]
                share = await guest.contribute()
                await host.start()
                turns = 0
                while (game := await guest.my_turn(60)).phase != "over":
                    assert isinstance(game.state, State) and game.to_move == "blue"
                    if game.phase == "roll":
                        update = await guest.roll()
                    else:
                        assert tuple(sorted({m.plane for m in game.moves})) == legal_moves(game.state)
                        update = await guest.move(rng.choice(game.moves).plane)
                    assert update.game.actions >= game.actions
                    # the answer is the update of blue's own action, even when the bot's
                    # next roll (instant) arrives before the client wakes
                    assert not [e for e in update.events if isinstance(e, Rolled) and e.colour != "blue"], update.events
                    turns += 1
                verified = await guest.verify_dice(share)
                assert verified.complete and verified.share_by == "blue"
                return turns, game.actions, game.state.over

        turns, actions, over = asyncio.run(play())
        assert over and turns > 10 and actions > 10  # a roll and a move are two of the client's turns, one action


@pytest.mark.slow
def test_refusals_and_missing_things_are_one_clear_error(tmp_path: Path) -> None:
    with Server(tmp_path / "data", network=True) as server:
        invite, _ = network_game(server, {"red": {"kind": "human"}, "blue": {"kind": "open"}})
        with pytest.raises(Refused) as refused:
            SyncGameClient(Invite(server.url, "no-such-game"))
        assert refused.value.code == "unknown-game"
        with pytest.raises(Refused) as refused:
            SyncGameClient(invite, token="not-a-token")
        assert refused.value.code == "bad-token"
        with SyncGameClient(invite) as watcher:
            assert watcher.game is not None and watcher.game.phase == "roll" and watcher.you.role == "spectator"
            with pytest.raises(Refused) as refused:
                watcher.join("green", "Zed")
            assert refused.value.code == "bad-message"
            with pytest.raises(ProofError):
                watcher.verify_dice()  # not over: the seed is not revealed yet
    with pytest.raises(ClientError):
        SyncGameClient(Invite(server.url, "anything"))  # the server is gone


async def seat_and_start(guest: GameClient, invite: Invite, host_token: str) -> None:
    """The guest takes blue and the host starts the game, then leaves."""
    await guest.join("blue", "Ada")
    async with GameClient(invite, host_token) as host:
        await host.start()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.slow
def test_the_client_comes_back_after_a_server_restart_with_its_seat(tmp_path: Path) -> None:
    """The server stopped and started again on the same address mid-game: the client is
    back in its seat; a move whose answer was lost with the connection (the server frozen,
    then killed, with the move unread) is sent again once and played once."""
    options = ["--port", str(free_port())]  # the same address after the restart
    server = Server(tmp_path / "data", network=True, options=options)
    invite, host_token = network_game(server, {"red": {"kind": "bot", "bot": "random"}, "blue": {"kind": "open"}})

    async def play() -> tuple[int, int, int, tuple[str, ...]]:
        nonlocal server
        async with GameClient(invite) as guest:
            await seat_and_start(guest, invite, host_token)
            while (game := await guest.my_turn(60)).phase == "roll":
                await guest.roll()
            assert game.phase == "move"
            os.kill(server.process.pid, signal.SIGSTOP)  # the move below is never read by this process
            move = asyncio.get_running_loop().create_task(guest.move(game.moves[0].plane))
            await asyncio.sleep(0.3)
            server.kill()
            server = Server(tmp_path / "data", network=True, options=options)
            after = (await move).game
            return guest.reconnections, game.actions, after.actions, guest.you.controls

    try:
        reconnections, before, after, controls = asyncio.run(play())
    finally:
        server.stop()
    assert reconnections >= 1 and controls == ("blue",)
    assert after == before + 1  # the move was played, once


def test_an_event_of_a_kind_this_client_does_not_know_is_left_out() -> None:
    from flyingchess.clients.game_client import _readable_events

    read = _readable_events([{"type": "roll", "colour": "red", "value": 6}, {"type": "fireworks", "colour": "red"}])
    assert read == (Rolled("red", 6),)


@pytest.mark.slow
def test_a_roll_made_while_the_server_is_down_is_played_once_it_is_back(tmp_path: Path) -> None:
    options = ["--port", str(free_port())]  # the same address after the restart
    server = Server(tmp_path / "data", network=True, options=options)
    invite, host_token = network_game(server, {"red": {"kind": "bot", "bot": "random"}, "blue": {"kind": "open"}})

    async def play() -> tuple[int, int]:
        nonlocal server
        async with GameClient(invite) as guest:
            await seat_and_start(guest, invite, host_token)
            while (game := await guest.my_turn(60)).phase == "move":
                await guest.move(game.moves[0].plane)
            server.stop()
            await asyncio.sleep(0.5)  # the client sees the connection go
            rolling = asyncio.get_running_loop().create_task(guest.roll())
            await asyncio.sleep(0.5)
            server = Server(tmp_path / "data", network=True, options=options)
            after = (await rolling).game
            assert (after.actions, after.to_move, after.phase) != (game.actions, game.to_move, game.phase)
            return game.actions, after.actions

    try:
        before, after = asyncio.run(play())
    finally:
        server.stop()
    assert after in (before, before + 1)  # the roll was played once: its move awaited, or a pass


@pytest.mark.slow
def test_a_seat_given_away_ends_the_clients_waits(tmp_path: Path) -> None:
    with Server(tmp_path / "data", network=True) as server:
        invite, host_token = network_game(server, {"red": {"kind": "human"}, "blue": {"kind": "open"}})

        async def kicked() -> str:
            async with GameClient(invite) as guest, GameClient(invite, host_token) as host:
                await guest.join("blue", "Ada")
                await host._send({"type": "kick", "colour": "blue"})
                with pytest.raises(Refused) as refused:
                    await guest.my_turn(30)
                return refused.value.code

        assert asyncio.run(kicked()) == "seat-lost"


@pytest.mark.slow
def test_the_blocking_client_follows_a_game_and_asks_again_after_a_gap(tmp_path: Path) -> None:
    """SyncGameClient: a seat played to the end by `my_turn`, `roll` and `move`, its
    `updates()` read to the end; an update whose action count skips one makes the client
    ask for the whole game (`sync`), and the server's fresh snapshot puts it right."""
    with Server(tmp_path / "data", network=True) as server:
        invite, host_token = network_game(server, {"red": {"kind": "bot", "bot": "random"}, "blue": {"kind": "open"}})
        with SyncGameClient(invite) as guest:
            guest.join("blue", "Ada")
            with SyncGameClient(invite, host_token) as host:
                host._run(host.client.start())
            real = guest.my_turn(60)
            skipped = {**real.raw, "actions": real.actions + 2}  # as if an update had gone missing
            guest._run(_take_later(guest.client, {"type": "update", "events": [], "game": skipped}))
            fresh = guest._run(guest.client.wait_until(lambda g: g.actions == real.actions, 30))
            assert fresh.raw is not skipped
            while (game := guest.my_turn(60)).phase != "over":
                if game.phase == "roll":
                    guest.roll()
                else:
                    guest.move(game.moves[0].plane)
            seen = list(guest.updates())
        assert seen[-1].game.phase == "over"
        assert any(isinstance(event, Rolled) and event.colour == "blue" for u in seen for event in u.events)


async def _take_later(client: GameClient, message: dict[str, object]) -> None:
    client._take(message)


@pytest.mark.slow
def test_a_game_deleted_under_the_client_ends_its_waits(tmp_path: Path) -> None:
    with Server(tmp_path / "data", network=True) as server:
        invite, host_token = network_game(server, {"red": {"kind": "human"}, "blue": {"kind": "open"}})

        async def deleted() -> str:
            async with GameClient(invite) as watcher:
                gone = urllib.request.Request(
                    f"{server.url}/api/games/{invite.game_id}", method="DELETE", headers={"X-Host-Token": host_token}
                )
                await asyncio.to_thread(urllib.request.urlopen, gone)
                with pytest.raises(Refused) as refused:
                    await watcher.my_turn(30)
                return refused.value.code

        assert asyncio.run(deleted()) == "unknown-game"
