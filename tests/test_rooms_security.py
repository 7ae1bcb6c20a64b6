"""Rooms on a network server: seats owned by secret tokens, hostile clients refused.

The app runs in network mode (`local=False`, as `flyingchess serve` does): a page is a
spectator until it proves a seat with a token."""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from flyingchess import canonical_state
from flyingchess.records.record import loads_record
from flyingchess.server.limits import Limits
from flyingchess.server.storage.store import SqliteStore
from flyingchess.server.transport.app import create_app

from asgi import LocalClient, app_client, app_over, error, expect, hello, latest

HTML_NAME = '<b onclick="x()">Ann</b>'


@pytest.fixture()
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


def network_client(path: Path) -> TestClient:
    return app_client(path, seed=11, local=False)


@pytest.fixture()
def client(store_path: Path) -> Iterator[TestClient]:
    with network_client(store_path) as test_client:
        yield test_client


def create(client: TestClient) -> dict[str, Any]:
    body = {
        "players": ["red", "blue"],
        "rules": "classic",
        "seats": {"red": {"kind": "human"}, "blue": {"kind": "open"}},
    }
    data: dict[str, Any] = client.post("/api/games", json=body).json()
    return data


def test_seats_belong_to_their_tokens(client: TestClient) -> None:
    created = create(client)
    game_id, host_token = created["id"], created["host_token"]
    url = f"/ws/{game_id}"
    with (
        client.websocket_connect(url) as host,
        client.websocket_connect(url) as guest,
        client.websocket_connect(url) as stranger,
    ):
        for socket in (host, guest, stranger):
            expect(socket, "snapshot")
        host.send_json({"type": "hello", "token": host_token})
        assert expect(host, "welcome")["role"] == "host"
        # nobody rolls before the host starts the gathered game
        assert error(host, {"type": "roll"}) == "not-started"
        assert error(stranger, {"type": "start"}) == "not-host"
        # a spectator may do nothing but watch
        assert error(stranger, {"type": "seat", "colour": "blue", "kind": "bot", "bot": "heuristic"}) == "not-host"
        assert error(stranger, {"type": "chat", "text": "hi"}) == "not-your-seat"
        assert error(stranger, {"type": "hello", "token": "guessed-token"}) == "bad-token"
        # the guest takes the open seat with a name full of markup: it stays plain data
        guest.send_json({"type": "join", "colour": "blue", "name": HTML_NAME})
        joined = expect(guest, "joined")
        guest_token = joined["token"]
        assert len(guest_token) >= 32
        update = expect(host, "update")
        while not update["game"]["seats"]["blue"]["connected"]:
            update = expect(host, "update")
        assert update["game"]["seats"]["blue"] == {
            "kind": "player",
            "name": HTML_NAME,
            "connected": True,
            "autopilot": False,
        }
        assert guest_token not in json.dumps(update)
        # a full room: nobody else can join
        assert error(stranger, {"type": "join", "colour": "blue", "name": "Eve"}) == "seat-taken"
        assert error(stranger, {"type": "join", "colour": "green", "name": "Eve"}) == "bad-message"
        host.send_json({"type": "start"})
        while not expect(host, "update")["game"]["started"]:
            pass
        assert error(host, {"type": "start"}) == "wrong-phase"
        assert error(stranger, {"type": "roll"}) == "not-your-seat"
        # out of turn, and acting for another's seat
        assert error(guest, {"type": "roll"}) == "not-your-seat"  # red (the host's seat) is to move
        for _ in range(50):
            host.send_json({"type": "roll"})
            game = expect(host, "update")["game"]
            if game["state"]["turn"] == "blue":
                break
            if game["phase"] == "move":
                assert error(guest, {"type": "move", "plane": game["moves"][0]["plane"]}) == "not-your-seat"
                host.send_json({"type": "move", "plane": game["moves"][0]["plane"]})
                game = expect(host, "update")["game"]
                if game["state"]["turn"] == "blue":
                    break
        assert game["state"]["turn"] == "blue"
        assert error(host, {"type": "roll"}) == "not-your-seat"  # the host cannot roll for a player
        # play on until the guest has rolled a die it must move with
        game = latest(guest)
        for _ in range(300):
            mover = guest if game["state"]["turn"] == "blue" else host
            if game["phase"] == "move" and game["state"]["turn"] == "blue":
                break
            if game["phase"] == "roll":
                mover.send_json({"type": "roll"})
            else:
                mover.send_json({"type": "move", "plane": game["moves"][0]["plane"]})
            latest(host)
            game = latest(guest)
        assert game["phase"] == "move" and game["state"]["turn"] == "blue"
        # roll twice: refused while a move is awaited; then an old message sent again
        assert error(guest, {"type": "roll"}) == "wrong-phase"
        old = {"type": "move", "plane": game["moves"][0]["plane"]}
        guest.send_json(old)
        moved = expect(guest, "update")["game"]
        assert moved["actions"] == game["actions"] + 1
        assert error(guest, old) in ("wrong-phase", "not-your-seat", "illegal-move")
        guest.send_json({"type": "sync"})
        assert expect(guest, "snapshot")["game"]["actions"] == moved["actions"]
        # chat and reactions reach everyone, names as data
        guest.send_json({"type": "chat", "text": "<script>alert(1)</script> good luck"})
        said = expect(stranger, "chat")
        assert said["text"] == "<script>alert(1)</script> good luck" and said["name"] == HTML_NAME
        host.send_json({"type": "react", "emoji": "🎉"})
        assert expect(stranger, "react")["emoji"] == "🎉"
        assert error(host, {"type": "react", "emoji": "<b>"}) == "bad-message"
        assert error(host, {"type": "chat", "text": "x" * 500}) == "bad-message"
        assert error(guest, {"type": "join", "colour": "blue", "name": "  "}) == "bad-message"
    record = client.get(f"/api/games/{game_id}/record").text
    assert guest_token not in record and host_token not in record
    stored = client.get(f"/api/games/{game_id}").json()["game"]["state"]
    assert canonical_state(loads_record(record).final_state()) == stored  # the record replays to the game


def test_tokens_survive_a_restart_and_reconnects(store_path: Path) -> None:
    with network_client(store_path) as client:
        created = create(client)
        with client.websocket_connect(f"/ws/{created['id']}") as guest:
            expect(guest, "snapshot")
            guest.send_json({"type": "join", "colour": "blue", "name": "Bao"})
            token = expect(guest, "joined")["token"]
    with (
        network_client(store_path) as again,
        again.websocket_connect(f"/ws/{created['id']}") as guest,
    ):  # a new server over the same database file
        expect(guest, "snapshot")
        guest.send_json({"type": "hello", "token": token})
        welcome = expect(guest, "welcome")
        assert welcome == {
            "type": "welcome",
            "role": "player",
            "colours": ["blue"],
            "controls": ["blue"],
            "dice_share": "blue",
        }
        guest.send_json({"type": "hello", "token": created["host_token"]})
        assert expect(guest, "welcome")["role"] == "host"


def test_the_host_gives_seats_to_bots_and_removes_players(client: TestClient) -> None:
    created = create(client)
    url = f"/ws/{created['id']}"
    with client.websocket_connect(url) as host, client.websocket_connect(url) as guest:
        expect(host, "snapshot")
        expect(guest, "snapshot")
        host.send_json({"type": "hello", "token": created["host_token"]})
        expect(host, "welcome")
        guest.send_json({"type": "join", "colour": "blue", "name": "Bao"})
        token = expect(guest, "joined")["token"]
        host.send_json({"type": "kick", "colour": "blue"})
        seats = expect(host, "update")["game"]["seats"]
        while seats["blue"]["kind"] != "open":
            seats = expect(host, "update")["game"]["seats"]
        # the removed player's page is told at once, and its token opens nothing now
        assert expect(guest, "seat-lost")["colours"] == ["blue"]
        assert error(guest, {"type": "hello", "token": token}) == "bad-token"
        host.send_json({"type": "seat", "colour": "blue", "kind": "bot", "bot": "greedy"})
        seats = expect(host, "update")["game"]["seats"]
        while seats["blue"].get("bot") != "greedy":
            seats = expect(host, "update")["game"]["seats"]


def test_random_messages_never_break_the_game(client: TestClient) -> None:
    """A fuzz test: three clients send random (often malformed) messages; the game stays
    legal and every error is typed."""
    created = create(client)
    rng = random.Random(5)
    url = f"/ws/{created['id']}"
    words: list[Any] = [
        "roll",
        "move",
        "speed",
        "sync",
        "hello",
        "join",
        "seat",
        "kick",
        "chat",
        "react",
        "start",
        "nope",
        None,
        3,
    ]
    values: list[Any] = [
        None,
        0,
        1,
        3,
        4,
        -1,
        True,
        "blue",
        "red",
        "x" * 300,
        [],
        {},
        2.5,
        "🎉",
        created["host_token"],
        "human",
        "bot",
        "open",
        "heuristic",
    ]
    keys = ["plane", "speed", "token", "colour", "name", "kind", "bot", "text", "emoji", "extra"]
    with client.websocket_connect(url) as a, client.websocket_connect(url) as b, client.websocket_connect(url) as c:
        sockets = [a, b, c]
        for socket in sockets:
            expect(socket, "snapshot")
        for _ in range(300):
            socket = rng.choice(sockets)
            message = {"type": rng.choice(words)}
            for key in rng.sample(keys, rng.randint(0, 2)):
                message[key] = rng.choice(values)
            if rng.random() < 0.1:
                socket.send_text(rng.choice(["{", "[]", "null", json.dumps(message)[:-1]]))
            else:
                socket.send_json(message)
            reply = socket.receive_json()
            assert reply["type"] in ("update", "snapshot", "welcome", "joined", "error", "chat", "react", "seat-lost")
            if reply["type"] == "error":
                assert reply["code"] and reply["message"]
    record = loads_record(client.get(f"/api/games/{created['id']}/record").text)
    list(record.replay())  # every stored action is legal


@pytest.mark.slow
def test_an_absent_player_is_replaced_by_the_autopilot_until_back(store_path: Path) -> None:
    app = create_app(
        SqliteStore(store_path),
        dice=lambda: random.Random(2),
        limits=Limits.unlimited(),
        local=False,
        grace_seconds=0.3,
    )
    with LocalClient(app) as client:
        body = {"players": ["red", "blue"], "seats": {"red": {"kind": "open"}, "blue": {"kind": "human"}}}
        created = client.post("/api/games", json=body).json()
        url = f"/ws/{created['id']}"
        with client.websocket_connect(url) as host:
            expect(host, "snapshot")
            host.send_json({"type": "hello", "token": created["host_token"]})
            expect(host, "welcome")
            with client.websocket_connect(url) as guest:
                expect(guest, "snapshot")
                guest.send_json({"type": "join", "colour": "red", "name": "Lan"})
                token = expect(guest, "joined")["token"]
                host.send_json({"type": "start"})
            # the guest left while red is to move: after the grace period the autopilot plays
            game = expect(host, "update")["game"]
            while not game["seats"]["red"]["autopilot"]:
                game = expect(host, "update")["game"]
            while game["actions"] == 0:
                game = expect(host, "update")["game"]
            assert game["seats"]["red"]["connected"] is False
            with client.websocket_connect(url) as guest:
                expect(guest, "snapshot")
                guest.send_json({"type": "hello", "token": token})
                assert expect(guest, "welcome")["colours"] == ["red"]
                game = expect(host, "update")["game"]
                while game["seats"]["red"]["autopilot"] or not game["seats"]["red"]["connected"]:
                    game = expect(host, "update")["game"]


def test_the_autopilot_takes_an_absent_seat_when_its_grace_ends_not_when_the_clock_next_looks(
    store_path: Path,
) -> None:
    """The room's clock sleeps until its next deadline; a page leaving must wake it (it
    would otherwise sleep on for seconds: bot_runner.CLOCK_LONGEST_SLEEP)."""
    app = app_over(store_path, seed=2, local=False, grace_seconds=0.3)
    with LocalClient(app) as client:
        body = {"players": ["red", "blue"], "seats": {"red": {"kind": "open"}, "blue": {"kind": "human"}}}
        created = client.post("/api/games", json=body).json()
        url = f"/ws/{created['id']}"
        with client.websocket_connect(url) as host:
            hello(host, created["host_token"])
            with client.websocket_connect(url) as guest:
                expect(guest, "snapshot")
                guest.send_json({"type": "join", "colour": "red", "name": "Lan"})
                expect(guest, "joined")
                host.send_json({"type": "start"})
                while not expect(guest, "update")["game"]["started"]:
                    pass
                time.sleep(0.5)  # the clock has nothing to wait for: it sleeps
            left = time.monotonic()
            game = expect(host, "update")["game"]
            while not game["seats"]["red"]["autopilot"]:
                game = expect(host, "update")["game"]
            assert time.monotonic() - left < 2.5  # 0.3 s of grace; the clock's longest sleep is 5 s


def test_pages_coming_back_together_are_announced_in_one_update(store_path: Path) -> None:
    """After a takeover a room's pages come back one after another; the others hear of
    them once, a moment later, not once per page (rooms/presence_updates.py)."""
    with network_client(store_path) as client:
        colours = ["red", "yellow", "blue", "green"]
        body = {"players": colours, "seats": {"red": {"kind": "human"}} | {c: {"kind": "open"} for c in colours[1:]}}
        created = client.post("/api/games", json=body).json()
        url = f"/ws/{created['id']}"
        with client.websocket_connect(url) as host:
            hello(host, created["host_token"])
            tokens = {}
            for colour in colours[1:]:
                with client.websocket_connect(url) as guest:
                    expect(guest, "snapshot")
                    guest.send_json({"type": "join", "colour": colour, "name": colour.title()})
                    tokens[colour] = expect(guest, "joined")["token"]
            time.sleep(0.5)
            assert not any(latest(host)["seats"][c]["connected"] for c in colours[1:])
            with contextlib.ExitStack() as pages:
                for colour in colours[1:]:
                    guest = pages.enter_context(client.websocket_connect(url))
                    expect(guest, "snapshot")
                    hello(guest, tokens[colour])
                time.sleep(0.5)
                host.send_json({"type": "sync"})
                updates = []
                while (message := host.receive_json())["type"] != "snapshot":
                    updates.append(message)
                assert 1 <= len(updates) < 3  # one a page would be three
                assert all(updates[-1]["game"]["seats"][c]["connected"] for c in colours)


@pytest.mark.slow
def test_the_turn_timer_moves_for_an_idle_player(store_path: Path) -> None:
    with network_client(store_path) as client:
        body = {
            "players": ["red", "blue"],
            "timer": 1,
            "seats": {"red": {"kind": "human"}, "blue": {"kind": "bot", "bot": "random"}},
        }
        created = client.post("/api/games", json=body).json()
        assert created["game"]["timer"] == 1
        with client.websocket_connect(f"/ws/{created['id']}") as host:
            expect(host, "snapshot")
            host.send_json({"type": "hello", "token": created["host_token"]})
            expect(host, "welcome")
            game = expect(host, "update")["game"]
            while game["actions"] < 2:  # nobody touches the die: the autopilot plays red
                game = expect(host, "update")["game"]
            assert game["seats"]["red"]["autopilot"] or game["actions"] >= 2
        bad = client.post("/api/games", json={"players": ["red", "blue"], "timer": -5})
        assert bad.status_code == 400 and "timer" in bad.json()["error"]["message"]


def test_lobby_and_invite_code(client: TestClient) -> None:
    open_room = create(client)
    closed = client.post("/api/games", json={"players": ["red", "blue"]}).json()
    with client.websocket_connect(f"/ws/{open_room['id']}") as guest:
        expect(guest, "snapshot")
        guest.send_json({"type": "join", "colour": "blue", "name": "Mai"})
        token = expect(guest, "joined")["token"]
    third = create(client)
    lobby = client.get("/api/rooms")
    rooms = lobby.json()["rooms"]
    assert next(room["id"] for room in rooms) == third["id"]  # open seats first
    # a game played on one device (no open seat, no remote player) is no room to join or watch
    assert {room["id"] for room in rooms} == {open_room["id"], third["id"]}
    # on a network server a page lists only the games it names (those it holds tokens for)
    assert client.get("/api/games").json()["games"] == []
    mine = client.get("/api/games", params={"ids": f"{closed['id']},{open_room['id']}"})
    assert {game["id"] for game in mine.json()["games"]} == {closed["id"], open_room["id"]}
    assert token_free(lobby.text, token) and token_free(mine.text, token)
    svg = client.get(f"/api/games/{open_room['id']}/invite.svg")
    assert svg.headers["content-type"].startswith("image/svg+xml") and "<svg" in svg.text
    assert client.get("/api/games/nope/invite.svg").status_code == 404


def token_free(text: str, token: str) -> bool:
    import hashlib

    return token not in text and hashlib.sha256(token.encode()).hexdigest() not in text


def next_message(socket: Any, *kinds: str) -> dict[str, Any]:
    """The next message of one of `kinds`, skipping only chat: the order matters here."""
    while True:
        message: dict[str, Any] = socket.receive_json()
        if message["type"] in kinds:
            return message
        assert message["type"] in ("chat", "react"), message


def test_each_page_is_told_what_it_may_do_before_the_seats_change_under_it(client: TestClient) -> None:
    """docs/protocol.md, `you` and `welcome`: the server says which seats a page controls
    and who it adds dice as, so the page never works authority out; a change of seats
    reaches the pages it concerns as a fresh welcome before the update that shows it."""
    created = create(client)
    url = f"/ws/{created['id']}"
    with client.websocket_connect(url) as host, client.websocket_connect(url) as guest:
        first = expect(host, "snapshot")
        assert first["you"] == {"role": "spectator", "colours": [], "controls": [], "dice_share": None}
        assert first["game"]["choices"] == 0  # nothing to choose while a roll is awaited
        assert hello(host, created["host_token"]) == {
            "type": "welcome",
            "role": "host",
            "colours": [],
            "controls": ["red"],
            "dice_share": "host",
        }
        expect(guest, "snapshot")
        guest.send_json({"type": "join", "colour": "blue", "name": "Bao"})
        expect(guest, "joined")
        assert next_message(guest, "welcome", "update") == {
            "type": "welcome",
            "role": "player",
            "colours": ["blue"],
            "controls": ["blue"],
            "dice_share": "blue",
        }
        guest.send_json({"type": "sync"})
        assert expect(guest, "snapshot")["you"]["controls"] == ["blue"]
        latest(host)  # read up to now: what follows is in order
        # the host takes blue onto its own device: both pages hear of it before the update
        host.send_json({"type": "seat", "colour": "blue", "kind": "human"})
        assert next_message(host, "welcome", "update")["controls"] == ["blue", "red"]
        assert next_message(guest, "seat-lost", "welcome", "update")["type"] == "seat-lost"
        assert next_message(guest, "welcome", "update") == {
            "type": "welcome",
            "role": "spectator",
            "colours": [],
            "controls": [],
            "dice_share": None,
        }
        latest(host), latest(guest)
        # a bot for blue: the host's control shrinks again; a change that leaves it alone says nothing
        host.send_json({"type": "seat", "colour": "blue", "kind": "bot", "bot": "random"})
        assert next_message(host, "welcome", "update")["controls"] == ["red"]
        assert next_message(guest, "welcome", "update")["type"] == "update"
        latest(host)
        host.send_json({"type": "seat", "colour": "blue", "kind": "bot", "bot": "heuristic"})
        assert next_message(host, "welcome", "update")["type"] == "update"


def test_a_move_with_one_real_choice_says_so(client: TestClient) -> None:
    """`choices` counts the different moves: two hangar planes launched on a 6 are one."""
    created = create(client)
    game_id = created["id"]
    with client.websocket_connect(f"/ws/{game_id}") as host:
        expect(host, "snapshot")
        hello(host, created["host_token"])
        host.send_json({"type": "seat", "colour": "blue", "kind": "human"})
        host.send_json({"type": "start"})
        seen = set()
        for _ in range(400):
            game = latest(host)
            if game["phase"] == "over":
                break
            if game["phase"] == "move":
                alike = {move["choice"] for move in game["moves"]}
                assert game["choices"] == len(alike) >= 1
                seen.add(game["choices"])
                host.send_json({"type": "move", "plane": game["moves"][-1]["plane"]})
            else:
                assert game["choices"] == 0
                host.send_json({"type": "roll"})
        assert 1 in seen and max(seen) > 1  # both kinds of turn were met


def test_a_player_who_acts_as_the_turn_timer_runs_out_keeps_the_seat(store_path: Path) -> None:
    """The clock decides under the room's lock: a roll stored while it waited for the
    lock starts a new turn, and the player who made it is not put on the autopilot for
    the turn it just played (bot_runner._watch_clock)."""
    import asyncio

    from flyingchess.engine.rules import Rules
    from flyingchess.server.protocol import Roll
    from flyingchess.server.rooms.registry import Rooms, new_game
    from flyingchess.server.rooms.seats import HOST
    from flyingchess.server.storage.async_store import AsyncStore

    class Page:
        async def send_text(self, data: str) -> None:
            pass

        async def close(self, code: int = 1000, reason: str | None = None) -> None:
            pass

    async def play() -> tuple[set[str], set[str]]:
        store = AsyncStore(SqliteStore(store_path))
        try:
            rooms = Rooms(store, lambda: random.Random(1))
            seats = {"red": {"kind": "human"}, "blue": {"kind": "bot", "bot": "random"}}
            room = await rooms.create(new_game(Rules.preset("classic"), ("red", "blue"), seats, extra={"timer": 30}))
            page = Page()
            await room.connect(page, HOST)
            room.presence.turn_started -= 31  # red's turn timer ran out...
            room.bot_runner.poke()
            await asyncio.sleep(0.1)
            on_the_clock = set(room.presence.autopilot)
            await room.receive(page, "127.0.0.1", Roll())  # ...and red comes back and rolls
            await asyncio.sleep(0.3)
            after = set(room.presence.autopilot)
            room.bot_runner.stop()
            return on_the_clock, after
        finally:
            store.close()

    on_the_clock, after = asyncio.run(play())
    assert on_the_clock == {"red"}  # the timer did hand the seat over
    assert "red" not in after  # the player's own roll took it back, and it stays back
