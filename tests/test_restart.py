"""A real `flyingchess play` server killed with SIGKILL mid-game and started again loses nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flyingchess import canonical_state
from flyingchess.records.record import loads_record

from servers import Server

pytestmark = [pytest.mark.server, pytest.mark.slow]


@pytest.fixture()
def servers(tmp_path: Path) -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for server in started:
        server.stop()


def next_game(socket: Any) -> dict[str, Any]:
    """The snapshot of the next snapshot or update message (an error fails the test)."""
    message: dict[str, Any] = json.loads(socket.recv(timeout=10))
    assert message["type"] in ("snapshot", "update"), message
    game: dict[str, Any] = message["game"]
    return game


def until_red_acts(socket: Any, game: dict[str, Any]) -> dict[str, Any]:
    while game["state"]["turn"] != "red":
        assert game["phase"] != "over"
        game = next_game(socket)
    return game


def test_sigkill_with_a_roll_pending_and_during_bot_play(tmp_path: Path, servers: list[Server]) -> None:
    first = Server(tmp_path)
    servers.append(first)
    created = first.api(
        "/api/games",
        {
            "players": ["red", "yellow", "blue", "green"],
            "rules": "traditional",
            "seats": {
                "red": {"kind": "human"},
                "yellow": {"kind": "bot", "bot": "heuristic"},
                "blue": {"kind": "bot", "bot": "random"},
                "green": {"kind": "bot", "bot": "heuristic"},
            },
        },
    )
    game_id = created["id"]
    with first.socket(game_id) as socket:
        next_game(socket)
        socket.send(json.dumps({"type": "speed", "speed": "instant"}))
        game = next_game(socket)
        # play until red (the human) has rolled a die it must move with
        while True:
            game = until_red_acts(socket, game)
            if game["phase"] == "move":
                break
            socket.send(json.dumps({"type": "roll"}))
            game = next_game(socket)
        pending = game
    first.kill()

    second = Server(tmp_path)
    servers.append(second)
    restored = second.api(f"/api/games/{game_id}")["game"]
    assert {k: restored[k] for k in ("state", "phase", "roll", "moves", "actions")} == {
        k: pending[k] for k in ("state", "phase", "roll", "moves", "actions")
    }

    # continue: move, then let the bots run and kill the server while they play
    with second.socket(game_id) as socket:
        next_game(socket)
        socket.send(json.dumps({"type": "move", "plane": pending["moves"][0]["plane"]}))
        last = next_game(socket)
        assert last["actions"] == pending["actions"] + 1
        for _ in range(12):
            if last["phase"] == "over":
                break
            last = until_red_acts(socket, last)
            if last["phase"] == "roll":
                socket.send(json.dumps({"type": "roll"}))
            else:
                socket.send(json.dumps({"type": "move", "plane": last["moves"][0]["plane"]}))
            last = next_game(socket)
        # bots are playing at full speed now: kill the server in the middle of it
        for _ in range(3):
            if last["state"]["turn"] == "red" or last["phase"] == "over":
                break
            last = next_game(socket)
        second.kill()

    third = Server(tmp_path)
    servers.append(third)
    record = loads_record(json.dumps(third.api(f"/api/games/{game_id}/record")))
    # every action the page was told about was stored first
    assert len(record.actions) >= last["actions"]
    state = record.start()
    for index, state in enumerate(record.replay(), start=1):
        if index == last["actions"]:
            assert canonical_state(state) == last["state"]
    listed = third.api("/api/games")["games"]
    assert [game["id"] for game in listed] == [game_id]


def test_sigkill_keeps_rooms_seats_and_tokens(tmp_path: Path, servers: list[Server]) -> None:
    """A network server (tokens required) killed with SIGKILL: seats, names and tokens,
    the started flag, chat and the game all come back; the guest's token still works."""
    first = Server(tmp_path, network=True)
    servers.append(first)
    created = first.api(
        "/api/games", {"players": ["red", "blue"], "seats": {"red": {"kind": "human"}, "blue": {"kind": "open"}}}
    )
    game_id, host_token = created["id"], created["host_token"]
    with first.socket(game_id) as guest, first.socket(game_id) as host:
        next_game(guest)
        next_game(host)
        guest.send(json.dumps({"type": "join", "colour": "blue", "name": "Minh"}))
        host.send(json.dumps({"type": "hello", "token": host_token}))
        token = None
        while token is None:
            message = json.loads(guest.recv(timeout=10))
            token = message.get("token") if message["type"] == "joined" else None
        host.send(json.dumps({"type": "start"}))
        host.send(json.dumps({"type": "roll"}))
        guest.send(json.dumps({"type": "chat", "text": "xin chào"}))
        before = first.api(f"/api/games/{game_id}")["game"]
        while (before["actions"] == 0 and before["phase"] != "move") or not before["chat"]:
            before = first.api(f"/api/games/{game_id}")["game"]
        first.kill()

    second = Server(tmp_path, network=True)
    servers.append(second)
    after = second.api(f"/api/games/{game_id}")["game"]
    assert after["started"] is True and after["seats"]["blue"]["name"] == "Minh"
    assert {k: after[k] for k in ("state", "phase", "roll", "actions")} == {
        k: before[k] for k in ("state", "phase", "roll", "actions")
    }
    assert [line["text"] for line in after["chat"]] == ["xin chào"]
    with second.socket(game_id) as guest:
        next_game(guest)
        guest.send(json.dumps({"type": "hello", "token": token}))
        welcome = json.loads(guest.recv(timeout=10))
        while welcome["type"] != "welcome":
            welcome = json.loads(guest.recv(timeout=10))
        assert welcome["role"] == "player" and welcome["colours"] == ["blue"]


def test_sigterm_during_bot_play_finishes_the_move_under_way_and_exits_cleanly(
    tmp_path: Path, servers: list[Server]
) -> None:
    """One process, SIGTERM while bots play as fast as they can: the change under way is
    stored and sent, every page is hung up on with 1012 ("reconnect"), the process says
    so and exits 0; started again, the game holds every action a page saw."""
    from websockets.exceptions import ConnectionClosed

    server = Server(tmp_path)
    servers.append(server)
    bots = {colour: {"kind": "bot", "bot": "heuristic"} for colour in ("red", "blue")}
    game_id = server.api("/api/games", {"players": ["red", "blue"], "seats": bots, "speed": "instant"})["id"]
    seen = 0
    with server.socket(game_id) as socket:
        seen = next_game(socket)["actions"]
        for _ in range(5):
            seen = max(seen, next_game(socket)["actions"])
        server.process.terminate()
        try:
            while True:
                message = json.loads(socket.recv(timeout=10))
                assert message["type"] in ("snapshot", "update"), message  # never an error
                seen = max(seen, message["game"]["actions"])
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1012
    assert server.process.wait(timeout=20) == 0
    assert "flyingchess stopped: every change is saved" in server.log()
    assert "flyingchess: handed" not in server.log()  # alone, it hands nothing over (docs/deploy.md)
    assert "Traceback" not in server.log()
    again = Server(tmp_path)
    servers.append(again)
    with again.socket(game_id) as socket:
        assert next_game(socket)["actions"] >= seen > 0
