"""The server against hostile pages and clients (through the ASGI app): DNS rebinding,
cross-site requests, oversized and poisoned input, floods of new games, seats and chat,
damaged games and a failing disk. Each test names the attack it stops; every refusal
must be a typed error that changed nothing."""

from __future__ import annotations

import json
import random
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from flyingchess.server.limits import Limits
from flyingchess.server.storage.async_store import AsyncStore
from flyingchess.server.storage.store import SqliteStore
from flyingchess.server.transport.app import create_app
from flyingchess.server.transport.guard import HostPolicy, host_name
from flyingchess.server.transport.run import ServeOptions, host_policy

from asgi import JSON, LocalClient, error, expect, hello, latest
from asgi import app_over as shared_app_over
from servers import refused_start

FAST = Limits.unlimited()
OPEN_BLUE = {"players": ["red", "blue"], "seats": {"red": {"kind": "human"}, "blue": {"kind": "open"}}}


def app_over(path: Path, limits: Limits = FAST, local: bool = False, **options: Any) -> Any:
    """The app as these tests want it by default: `serve`, real limits, dice seeded alike."""
    return shared_app_over(path, seed=3, limits=limits, local=local, **options)


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture()
def client(db: Path) -> Iterator[TestClient]:
    with LocalClient(app_over(db)) as test_client:
        yield test_client


def stored_games(path: Path) -> int:
    with sqlite3.connect(path) as connection:
        count: int = connection.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    return count


def passes(count: int) -> list[dict[str, Any]]:
    """`count` legal actions: with every plane in its hangar a 1 launches nothing (classic)."""
    return [{"roll": 1, "plane": None}] * count


def record_text(actions: list[dict[str, Any]], **extra: Any) -> str:
    return json.dumps(
        {"format": "flyingchess/1", "rules": "classic", "players": ["red", "blue"], "actions": actions, **extra}
    )


# ---------------------------------------------------------------- DNS rebinding


def test_a_foreign_host_name_is_refused_everywhere(db: Path) -> None:
    """A page on evil.example that makes its name resolve to 127.0.0.1 sends Host
    evil.example: it may not list, delete, or open a WebSocket, even with a matching Origin."""
    with LocalClient(app_over(db, local=True)) as client:
        created = client.post("/api/games", json={"players": ["red", "blue"]}).json()
        evil = {"host": "evil.example:8000", "origin": "http://evil.example:8000"}
        listed = client.get("/api/games", headers=evil)
        assert listed.status_code == 400 and listed.json()["error"]["code"] == "bad-host"
        assert created["id"] not in listed.text
        assert client.delete(f"/api/games/{created['id']}", headers=evil).status_code == 400
        assert client.post("/api/games", json={"players": ["red", "blue"]}, headers=evil).status_code == 400
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            client.websocket_connect(f"/ws/{created['id']}", headers=evil),
        ):
            pass
        assert refused.value.code == 1008
        assert stored_games(db) == 1 and client.get(f"/api/games/{created['id']}").status_code == 200
        # loopback names on any port are this machine's own
        for host in ("127.0.0.1:5555", "localhost", "[::1]:8000", "localhost.:80"):
            assert client.get("/api/meta", headers={"host": host}).status_code == 200, host


def test_host_names_are_parsed_strictly() -> None:
    assert host_name("[::1]:8000") == "::1" and host_name("Example.ORG.") == "example.org"
    for bad in ("", "a b", "evil.example:80x", "x@localhost", "localhost/x", "localhost;", None):
        assert host_name(bad) is None, bad
    policy = HostPolicy.of(["games.example.org", "*.club.example"])
    assert policy.allows("games.example.org:443") and policy.allows("a.club.example")
    assert not policy.allows("club.example.evil") and not policy.allows("example.org")


def test_a_network_server_answers_to_its_own_names_and_the_ones_it_was_given() -> None:
    options = ServeOptions(host="0.0.0.0", network=True, allowed_hosts=["games.example.org"])
    policy = host_policy(options, ["192.168.1.20"], "https://play.example.net")
    for host in ("192.168.1.20:8000", "games.example.org", "play.example.net", "127.0.0.1:8000"):
        assert policy.allows(host), host
    assert not policy.allows("evil.example") and not policy.allows("192.168.1.21:8000")
    local = host_policy(ServeOptions(), ["192.168.1.20"], None)
    assert not local.allows("192.168.1.20:8000") and local.allows("localhost:1")


# ---------------------------------------------------------------- cross-site requests


@pytest.mark.parametrize(
    "headers, status, code",
    [
        ({"origin": "http://evil.example", "content-type": "text/plain"}, 403, "bad-origin"),
        ({"origin": "http://evil.example", "content-type": "application/json"}, 403, "bad-origin"),
        ({"origin": "null", "content-type": "application/json"}, 403, "bad-origin"),
        ({"sec-fetch-site": "cross-site", "content-type": "application/json"}, 403, "bad-origin"),
        ({"origin": "http://localhost", "content-type": "text/plain"}, 415, "bad-content-type"),
        ({"content-type": "application/x-www-form-urlencoded"}, 415, "bad-content-type"),
        ({}, 415, "bad-content-type"),
    ],
)
def test_state_changing_requests_need_this_origin_and_json(
    client: TestClient, db: Path, headers: dict[str, str], status: int, code: str
) -> None:
    body = json.dumps({"players": ["red", "blue"]})
    for path in ("/api/games", "/api/records"):
        response = client.post(path, content=body, headers=headers)
        assert response.status_code == status and response.json()["error"]["code"] == code
    assert stored_games(db) == 0
    assert client.post("/api/games", content=body, headers={"origin": "http://localhost", **JSON}).status_code == 200


def test_delete_and_rematch_need_this_origin(client: TestClient, db: Path) -> None:
    created = client.post("/api/games", json={"players": ["red", "blue"]}).json()
    foreign = {"origin": "http://evil.example", "x-host-token": created["host_token"]}
    assert client.delete(f"/api/games/{created['id']}", headers=foreign).status_code == 403
    assert client.post(f"/api/games/{created['id']}/rematch", json={}, headers=foreign).status_code == 403
    assert stored_games(db) == 1


# ---------------------------------------------------------------- sizes


def test_a_body_larger_than_allowed_is_refused_before_it_is_read(client: TestClient, db: Path) -> None:
    declared = client.post("/api/records", content=b"{}", headers={**JSON, "content-length": "300000000"})
    assert declared.status_code == 413 and declared.json()["error"]["code"] == "too-large"

    def stream() -> Iterator[bytes]:  # no Content-Length: the running cap stops it
        for _ in range(40):
            yield b" " * 100_000

    streamed = client.post("/api/records", content=stream(), headers=JSON)
    assert streamed.status_code == 413
    assert client.post("/api/games", content=b" " * 70_000 + b"{}", headers=JSON).status_code == 413
    assert stored_games(db) == 0


def test_records_are_capped_in_actions_and_replays_come_a_page_at_a_time(client: TestClient, db: Path) -> None:
    limits = Limits()
    too_long = client.post("/api/records", content=record_text(passes(limits.record_actions + 1)), headers=JSON)
    assert too_long.status_code == 400 and str(limits.record_actions) in too_long.json()["error"]["message"]
    assert stored_games(db) == 0
    longest = client.post("/api/records", content=record_text(passes(limits.record_actions)), headers=JSON)
    assert longest.status_code == 200 and longest.json()["game"]["actions"] == limits.record_actions
    game_id = longest.json()["id"]
    first = client.get(f"/api/games/{game_id}/replay").json()
    assert len(first["steps"]) == limits.replay_page and first["next"] == limits.replay_page
    assert first["total"] == limits.record_actions and first["from"] == 0
    last = client.get(f"/api/games/{game_id}/replay", params={"from": 4990}).json()
    assert len(last["steps"]) == 10 and last["next"] is None
    assert last["initial"]["turn"] == "red"  # 4990 passes later, red is to move again
    assert client.get(f"/api/games/{game_id}/replay", params={"count": 5000}).status_code == 400
    assert client.get(f"/api/games/{game_id}/replay", params={"from": "-1"}).status_code == 400


# ---------------------------------------------------------------- poisoned records


@pytest.mark.parametrize("timer", ["[1]", "Infinity", '"abc"', "-5", "1e308", "601", "2.5", "true"])
def test_an_imported_record_is_checked_like_a_new_game(client: TestClient, db: Path, timer: str) -> None:
    text = record_text(passes(3))[:-1] + f', "timer": {timer}}}'
    response = client.post("/api/records", content=text, headers=JSON)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "bad-record"
    assert "timer" in error["message"] or "Infinity is not a JSON number" in error["message"]
    assert stored_games(db) == 0


def test_an_imported_timer_that_is_valid_is_kept(client: TestClient) -> None:
    response = client.post("/api/records", content=record_text(passes(3), timer=30), headers=JSON)
    assert response.status_code == 200 and response.json()["game"]["timer"] == 30


def test_a_damaged_game_answers_clearly_and_can_still_be_deleted(db: Path) -> None:
    with LocalClient(app_over(db)) as client:
        created = client.post("/api/games", json={"players": ["red", "blue"]}).json()
        other = client.post("/api/games", json={"players": ["red", "blue"]}).json()
    with sqlite3.connect(db) as connection:  # damage it as a bad import once could
        connection.execute("UPDATE games SET extra = '{\"timer\": [1]}' WHERE id = ?", (created["id"],))
    with LocalClient(app_over(db)) as client:
        game_id = created["id"]
        for path in (f"/api/games/{game_id}", f"/api/games/{game_id}/record", f"/api/games/{game_id}/replay"):
            answer = client.get(path)
            assert answer.status_code == 409 and answer.json()["error"]["code"] == "damaged-game", path
        with client.websocket_connect(f"/ws/{game_id}") as socket:
            assert socket.receive_json()["code"] == "damaged-game"
        listed = client.get("/api/games", params={"ids": f"{game_id},{other['id']}"}).json()["games"]
        assert {game["id"] for game in listed} == {game_id, other["id"]}
        assert client.delete(f"/api/games/{game_id}", headers={"x-host-token": "wrong"}).status_code == 403
        deleted = client.delete(f"/api/games/{game_id}", headers={"x-host-token": created["host_token"]})
        assert deleted.status_code == 200
        assert client.get(f"/api/games/{other['id']}").status_code == 200
    assert stored_games(db) == 1


# ---------------------------------------------------------------- floods


def test_new_games_are_rate_limited_per_client_address(db: Path) -> None:
    limits = Limits(create_burst=3, create_rate=0.001)
    app = app_over(db, limits=limits)
    with (
        LocalClient(app, client=("203.0.113.5", 5000)) as attacker,
        LocalClient(app, client=("203.0.113.9", 5000)) as bystander,
    ):
        for _ in range(3):
            assert attacker.post("/api/games", json={"players": ["red", "blue"]}).status_code == 200
        refused = attacker.post("/api/games", json={"players": ["red", "blue"]})
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate-limited"
        assert int(refused.headers["retry-after"]) >= 1
        assert attacker.post("/api/records", content=record_text([]), headers=JSON).status_code == 429
        created = bystander.post("/api/games", json={"players": ["red", "blue"]}).json()
        rematch = bystander.post(
            f"/api/games/{created['id']}/rematch", json={}, headers={"x-host-token": created["host_token"]}
        )
        assert rematch.status_code == 200
    assert stored_games(db) == 5


def test_rooms_nobody_watches_leave_memory_and_a_full_server_refuses_new_games(db: Path) -> None:
    app = app_over(db, limits=Limits(rooms_in_memory=2, room_idle_seconds=0))
    rooms = app.state.rooms
    with LocalClient(app) as client:
        first = client.post("/api/games", json={"players": ["red", "blue"]}).json()
        second = client.post("/api/games", json={"players": ["red", "blue"]}).json()
        third = client.post("/api/games", json={"players": ["red", "blue"]}).json()  # evicts the first
        assert first["id"] not in rooms.rooms and len(rooms.rooms) == 2
        assert client.get(f"/api/games/{first['id']}").status_code == 200  # reloads from storage
        with client.websocket_connect(f"/ws/{second['id']}") as a, client.websocket_connect(f"/ws/{third['id']}") as b:
            expect(a, "snapshot")
            expect(b, "snapshot")
            busy = client.post("/api/games", json={"players": ["red", "blue"]})
            assert busy.status_code == 503 and busy.json()["error"]["code"] == "server-busy"
            assert stored_games(db) == 3
        assert rooms.sweep(float("inf")) == 2 and not rooms.rooms


def test_lists_come_a_page_at_a_time(db: Path) -> None:
    with LocalClient(app_over(db, local=True)) as client:
        ids = [client.post("/api/games", json=OPEN_BLUE).json()["id"] for _ in range(5)]
        page = client.get("/api/games", params={"limit": 2}).json()
        assert [game["id"] for game in page["games"]] == ids[::-1][:2] and page["next"] == 2
        rest = client.get("/api/games", params={"limit": 2, "offset": 4}).json()
        assert [game["id"] for game in rest["games"]] == [ids[0]] and rest["next"] is None
        lobby = client.get("/api/rooms", params={"limit": 3}).json()
        assert len(lobby["rooms"]) == 3 and lobby["next"] == 3
        assert client.get("/api/games", params={"limit": 100_000}).status_code == 400


def test_a_network_server_lists_only_the_games_a_page_names(client: TestClient) -> None:
    private = client.post("/api/games", json={"players": ["red", "blue"]}).json()
    shared = client.post("/api/games", json=OPEN_BLUE).json()
    assert client.get("/api/games").json()["games"] == []
    assert [room["id"] for room in client.get("/api/rooms").json()["rooms"]] == [shared["id"]]
    named = client.get("/api/games", params={"ids": private["id"]}).json()["games"]
    assert [game["id"] for game in named] == [private["id"]]


def test_one_address_cannot_take_every_open_seat(db: Path) -> None:
    body = {
        "players": ["red", "yellow", "blue", "green"],
        "seats": {
            "red": {"kind": "human"},
            "yellow": {"kind": "open"},
            "blue": {"kind": "open"},
            "green": {"kind": "open"},
        },
    }
    app = app_over(db, limits=Limits(join_burst=2, join_rate=0.001))
    with (
        LocalClient(app, client=("203.0.113.5", 1)) as attacker,
        LocalClient(app, client=("198.51.100.2", 1)) as friend,
    ):
        game_id = attacker.post("/api/games", json=body).json()["id"]
        url = f"/ws/{game_id}"
        with (
            attacker.websocket_connect(url) as a,
            attacker.websocket_connect(url) as b,
            attacker.websocket_connect(url) as c,
            friend.websocket_connect(url) as d,
        ):
            for socket in (a, b, c, d):
                expect(socket, "snapshot")
            a.send_json({"type": "join", "colour": "yellow", "name": "A"})
            expect(a, "joined")
            assert error(a, {"type": "join", "colour": "blue", "name": "A"}) == "already-seated"
            b.send_json({"type": "join", "colour": "blue", "name": "B"})
            expect(b, "joined")
            c.send_json({"type": "join", "colour": "green", "name": "C"})
            refused = expect(c, "error")
            assert refused["code"] == "rate-limited" and refused["retry_after"] > 0
            d.send_json({"type": "join", "colour": "green", "name": "Dung"})
            assert expect(d, "joined")["colour"] == "green"
            assert latest(d)["seats"]["green"]["name"] == "Dung"


# ---------------------------------------------------------------- seats and chat


def test_a_removed_player_loses_chat_and_reactions_at_once(client: TestClient) -> None:
    created = client.post("/api/games", json=OPEN_BLUE).json()
    url = f"/ws/{created['id']}"
    with (
        client.websocket_connect(url) as host,
        client.websocket_connect(url) as old,
        client.websocket_connect(url) as new,
    ):
        for socket in (host, old, new):
            expect(socket, "snapshot")
        hello(host, created["host_token"])
        old.send_json({"type": "join", "colour": "blue", "name": "Old"})
        expect(old, "joined")
        host.send_json({"type": "kick", "colour": "blue"})
        assert expect(old, "seat-lost")["colours"] == ["blue"]
        new.send_json({"type": "join", "colour": "blue", "name": "New"})
        expect(new, "joined")
        assert error(old, {"type": "chat", "text": "I am still here"}) == "not-your-seat"
        assert error(old, {"type": "react", "emoji": "👍"}) == "not-your-seat"
        new.send_json({"type": "chat", "text": "hello"})
        line = expect(host, "chat")
        assert (line["name"], line["text"]) == ("New", "hello")
        assert [chat["text"] for chat in latest(host)["chat"]] == ["hello"]


def test_chat_is_rate_limited_per_seat_and_only_the_last_lines_are_kept(db: Path) -> None:
    app = app_over(db, limits=Limits(chat_burst=3, chat_rate=0.001, chat_history=4))
    with LocalClient(app) as client:
        created = client.post("/api/games", json={"players": ["red", "blue"]}).json()
        with client.websocket_connect(f"/ws/{created['id']}") as host:
            expect(host, "snapshot")
            hello(host, created["host_token"])
            for n in range(3):
                host.send_json({"type": "chat", "text": f"line {n}"})
                expect(host, "chat")
            assert error(host, {"type": "chat", "text": "one too many"}) == "rate-limited"
    store = SqliteStore(db)
    for n in range(3, 10):
        store.add_chat(created["id"], time.time() + n, None, "host", f"line {n}", keep=4)
    assert [line["text"] for line in store.chat(created["id"], 100)] == [f"line {n}" for n in range(6, 10)]
    store.close()


# ---------------------------------------------------------------- a failing disk


def test_a_failed_write_changes_nothing_in_memory_or_on_disk(db: Path) -> None:
    app = app_over(db)
    store: SqliteStore = app.state.database
    with LocalClient(app) as client:
        created = client.post("/api/games", json=OPEN_BLUE).json()
        url = f"/ws/{created['id']}"
        with (
            client.websocket_connect(url) as host,
            client.websocket_connect(url) as guest,
            client.websocket_connect(url) as other,
        ):
            for socket in (host, guest, other):
                expect(socket, "snapshot")
            hello(host, created["host_token"])
            store.db.execute("PRAGMA query_only = ON")  # every write now fails, as on a full disk
            assert error(guest, {"type": "join", "colour": "blue", "name": "Bo"}) == "storage-unavailable"
            assert error(host, {"type": "chat", "text": "hi"}) == "storage-unavailable"
            assert error(host, {"type": "start"}) == "storage-unavailable"
            assert error(host, {"type": "speed", "speed": "fast"}) == "storage-unavailable"
            game = latest(other)
            assert game["seats"]["blue"]["kind"] == "open" and game["chat"] == []
            assert not game["started"] and game["speed"] == "normal"
            refused = client.post("/api/games", json={"players": ["red", "blue"]})
            assert refused.status_code == 503 and refused.json()["error"]["code"] == "storage-unavailable"
            store.db.execute("PRAGMA query_only = OFF")  # the disk has room again: all works
            other.send_json({"type": "join", "colour": "blue", "name": "Cam"})
            assert expect(other, "joined")["colour"] == "blue"
    reloaded = SqliteStore(db).load(created["id"])
    assert reloaded is not None and reloaded.seats["blue"]["name"] == "Cam" and not reloaded.started


def test_a_failed_roll_is_never_seen_and_the_game_stays_where_it_was(db: Path) -> None:
    app = app_over(db)
    store: SqliteStore = app.state.database
    with LocalClient(app) as client:
        created = client.post("/api/games", json={"players": ["red", "blue"]}).json()
        with client.websocket_connect(f"/ws/{created['id']}") as host:
            expect(host, "snapshot")
            hello(host, created["host_token"])
            store.db.execute("PRAGMA query_only = ON")
            for _ in range(5):
                assert error(host, {"type": "roll"}) == "storage-unavailable"
            game = latest(host)
            assert game["phase"] == "roll" and game["actions"] == 0 and game["roll"] is None
            store.db.execute("PRAGMA query_only = OFF")
            host.send_json({"type": "roll"})
            assert expect(host, "update")["events"][0]["type"] == "roll"


# ---------------------------------------------------------------- what every answer carries


def test_every_answer_carries_the_security_headers(client: TestClient) -> None:
    for path in ("/", "/api/meta", "/static/app.js", "/api/games/nope"):
        headers = client.get(path).headers
        policy = headers["content-security-policy"]
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
        assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "no-referrer"


def test_the_die_comes_from_the_operating_system(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from flyingchess.server.rooms import dice as dice_module

    app = create_app(SqliteStore(db), local=True)
    with LocalClient(app) as client:
        created = client.post("/api/games", json={"players": ["red", "blue"]}).json()
        die = app.state.rooms.rooms[created["id"]].dice
    assert isinstance(die, dice_module.EntropyDice)
    # every roll is made of the kernel's bytes, read a block at a time
    asked: list[int] = []

    def urandom(count: int) -> bytes:
        asked.append(count)
        return bytes(range(count))

    monkeypatch.setattr(dice_module.os, "urandom", urandom)
    die = dice_module.EntropyDice(block_bytes=4)
    assert [die.getrandbits(8) for _ in range(6)] == [0, 1, 2, 3, 0, 1]
    assert asked == [4, 4]
    assert die.getrandbits(3) == 2 >> 5  # the high bits of the next byte
    with pytest.raises(NotImplementedError):
        die.getstate()


def test_pages_that_stop_reading_hold_up_nobody_and_are_hung_up_on(db: Path) -> None:
    """A page whose socket buffer is full never finishes accepting a message. The room
    broadcasts while it holds its lock, so it only queues into each page's outbox; a page
    that falls too far behind is hung up on (1013) and the game goes on for the others."""
    import asyncio

    from flyingchess import Rules
    from flyingchess.server.rooms.registry import Rooms, new_game
    from flyingchess.server.rooms.seats import Control
    from flyingchess.server.transport.outbox import Outbox

    class StoppedReading:
        closed_with: int | None = None

        async def send_text(self, data: str) -> None:
            await asyncio.Event().wait()  # the network never drains

        async def close(self, code: int = 1000, reason: str | None = None) -> None:
            self.closed_with = code

    class Reading:
        def __init__(self) -> None:
            self.got: list[dict[str, Any]] = []

        async def send_text(self, data: str) -> None:
            self.got.append(json.loads(data))

        async def close(self, code: int = 1000, reason: str | None = None) -> None:
            pass

    async def scenario() -> tuple[list[StoppedReading], Reading, Any]:
        rooms = Rooms(AsyncStore(SqliteStore(db)), lambda: random.Random(1))
        seats = {"red": {"kind": "human"}, "blue": {"kind": "human"}}
        room = await rooms.create(new_game(Rules.preset("classic"), ("red", "blue"), seats))
        stuck = [StoppedReading() for _ in range(8)]
        reader = Reading()
        for connection in stuck:
            await room.attach(Outbox(connection, limit=20_000), Control())
        await room.attach(Outbox(reader, limit=20_000), Control())
        host = Control(host=True)
        for _ in range(40):
            if room.state.phase == "roll":
                await room.turns.human_roll(host)
            else:
                await room.turns.human_move(room.snapshot()["moves"][0]["plane"], host)
            await asyncio.sleep(0)  # let the outboxes write
        await asyncio.sleep(0.05)
        return stuck, reader, room

    stuck, reader, room = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert all(page.closed_with == 1013 for page in stuck)
    assert room.watcher_count() == 1  # only the page that reads is left
    assert [message["type"] for message in reader.got] == ["update"] * 40


def test_a_public_url_is_what_invites_use_and_a_bad_one_is_refused(db: Path) -> None:
    from flyingchess.server.transport.run import OptionError, parse_public_url

    app = app_over(db, public_url="https://games.example.org", hosts=HostPolicy.of(["games.example.org"]))
    with LocalClient(app, base_url="https://games.example.org") as client:
        assert client.get("/api/meta").json()["public_url"] == "https://games.example.org"
        assert client.get("/api/meta", headers={"host": "localhost"}).status_code == 400
    assert parse_public_url("https://games.example.org/") == "https://games.example.org"
    for bad in ("ftp://games.example.org", "games.example.org", "https://x.org/path", "https://x.org:port"):
        with pytest.raises(OptionError):
            parse_public_url(bad)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--public-url", "ftp://x"], "--public-url 'ftp://x' must look like"),
        (["--trusted-proxy", "banana"], "--trusted-proxy: 'banana' does not appear to be an IPv4 or IPv6 network"),
        (["--allowed-host", "a b"], "--allowed-host 'a b' is not a host name"),
        (["--allowed-host", "games.example.org:8080"], "--allowed-host 'games.example.org:8080' is not a host name"),
        (["--allowed-host", "https://games.example.org"], "is not a host name"),
        (["--redis", "redis://127.0.0.1:1/0"], "--redis shares rooms between server processes over one database"),
    ],
)
def test_serve_refuses_an_option_that_cannot_work_in_one_line_before_it_says_it_runs(
    tmp_path: Path, options: list[str], words: str
) -> None:
    finished = refused_start(tmp_path, *options)
    assert finished.returncode == 2 and finished.stderr.strip().splitlines() == [finished.stderr.strip()]
    assert words in finished.stderr and "Traceback" not in finished.stderr
    assert finished.stdout == ""  # never "flyingchess is running at ..." first


def test_allowed_hosts_take_names_patterns_and_addresses() -> None:
    from flyingchess.server.transport.run import OptionError, parse_allowed_host

    for good in ("games.example.org", "*.example.org", "*", "Games.Example.org.", "10.0.0.7", "[::1]", "localhost"):
        assert parse_allowed_host(good) == good.lower().rstrip(".")
    for bad in ("", "a b", "-bad.org", "x.org:80", "http://x.org", "x..org", "*.", "é.org", "*.[::1]"):
        with pytest.raises(OptionError):
            parse_allowed_host(bad)


def test_a_room_takes_only_so_many_watchers(db: Path) -> None:
    with LocalClient(app_over(db, limits=Limits(watchers_per_room=2))) as client:
        created = client.post("/api/games", json={"players": ["red", "blue"]}).json()
        url = f"/ws/{created['id']}"
        with client.websocket_connect(url) as a, client.websocket_connect(url) as b:
            expect(a, "snapshot")
            expect(b, "snapshot")
            with client.websocket_connect(url) as c:
                assert c.receive_json()["code"] == "room-full"
                with pytest.raises(WebSocketDisconnect) as closed:
                    c.receive_json()
                assert closed.value.code == 1013
            assert latest(a)["id"] == created["id"]


def test_pages_watching_a_deleted_game_are_told_it_is_gone(client: TestClient, db: Path) -> None:
    created = client.post("/api/games", json={"players": ["red", "blue"]}).json()
    with client.websocket_connect(f"/ws/{created['id']}") as page:
        expect(page, "snapshot")
        deleted = client.delete(f"/api/games/{created['id']}", headers={"x-host-token": created["host_token"]})
        assert deleted.status_code == 200
        assert expect(page, "error")["code"] == "unknown-game"
        with pytest.raises(WebSocketDisconnect) as closed:
            page.receive_json()
        assert closed.value.code == 4404
    assert stored_games(db) == 0
    assert (
        client.delete(f"/api/games/{created['id']}", headers={"x-host-token": created["host_token"]}).status_code == 404
    )


# ---------------------------------------------------------------- found by a hostile review


@pytest.mark.parametrize(
    "query", ["limit=%C2%B2", "offset=%C2%B2", "offset=" + "1" * 5000, "limit=0", "limit=-1", "limit=1.5"]
)
def test_odd_query_numbers_are_refused_not_crashed_on(client: TestClient, query: str) -> None:
    for path in ("/api/games", "/api/rooms"):
        answer = client.get(f"{path}?{query}")
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad-request", (path, query)


def test_odd_replay_pages_are_refused(client: TestClient) -> None:
    created = client.post("/api/records", content=record_text(passes(10)), headers=JSON).json()
    for query in ("count=0", "count=%C2%B2", "from=x", "count=1001"):
        assert client.get(f"/api/games/{created['id']}/replay?{query}").status_code == 400, query


def test_a_bot_named_by_something_that_is_not_a_name_is_a_typed_error(client: TestClient, db: Path) -> None:
    seats = {"red": {"kind": "bot", "bot": []}, "blue": {"kind": "human"}}
    made = client.post("/api/games", json={"players": ["red", "blue"], "seats": seats})
    assert made.status_code == 400 and made.json()["error"]["code"] == "bad-request"
    imported = client.post("/api/records", content=record_text([], seats=seats), headers=JSON)
    assert imported.status_code == 200 and imported.json()["game"]["seats"]["red"]["kind"] == "human"
    with client.websocket_connect(f"/ws/{imported.json()['id']}") as page:
        expect(page, "snapshot")
        assert error(page, {"type": "seat", "colour": "red", "kind": "bot", "bot": []}) == "bad-message"
        assert latest(page)["seats"]["red"]["kind"] == "human"  # still connected, nothing changed


@pytest.mark.parametrize(
    "extra, words",
    [
        ('"x": ' + "[" * 40 + "]" * 40, "levels deep"),
        ('"x": NaN', "NaN is not a JSON number"),
        ('"x": "' + "y" * 70_000 + '"', "longer than"),
    ],
)
def test_an_import_keeps_only_plain_modest_extra_fields(client: TestClient, db: Path, extra: str, words: str) -> None:
    text = record_text(passes(2))[:-1] + ", " + extra + "}"
    answer = client.post("/api/records", content=text, headers=JSON)
    assert answer.status_code == 400 and words in answer.json()["error"]["message"]
    assert stored_games(db) == 0


def test_an_import_drops_the_fields_the_server_owns_and_keeps_the_others(client: TestClient) -> None:
    text = record_text(passes(2), host_token="mine", speed="instant", started=False, pending_roll=6, note={"by": "Ann"})
    created = client.post("/api/records", content=text, headers=JSON).json()
    record = json.loads(client.get(f"/api/games/{created['id']}/record").text)
    assert record["note"] == {"by": "Ann"}
    assert "host_token" not in record and "pending_roll" not in record and "started" not in record
    assert created["game"]["speed"] == "normal" and created["game"]["started"] is True


def test_a_damaged_row_still_lists_and_the_lobby_still_answers(db: Path) -> None:
    with LocalClient(app_over(db, local=True)) as client:
        broken = client.post("/api/games", json=OPEN_BLUE).json()
        fine = client.post("/api/games", json=OPEN_BLUE).json()
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE games SET seats = '[]', created = 'yesterday' WHERE id = ?", (broken["id"],))
    with LocalClient(app_over(db, local=True)) as client:
        assert {game["id"] for game in client.get("/api/games").json()["games"]} == {broken["id"], fine["id"]}
        assert client.get("/api/rooms").status_code == 200
        assert client.get(f"/api/games/{broken['id']}").status_code == 409
        assert client.delete(f"/api/games/{broken['id']}").status_code == 200


def test_replay_pages_are_limited_per_client_address(db: Path) -> None:
    with LocalClient(app_over(db, limits=Limits(replay_burst=3, replay_rate=0.001))) as client:
        created = client.post("/api/records", content=record_text(passes(10)), headers=JSON).json()
        answers = [client.get(f"/api/games/{created['id']}/replay").status_code for _ in range(5)]
        assert answers == [200, 200, 200, 429, 429]


def test_the_snapshot_says_when_the_game_last_changed(client: TestClient, db: Path) -> None:
    created = client.post("/api/games", json={"players": ["red", "blue"]}).json()
    with sqlite3.connect(db) as connection:  # as if made an hour ago
        connection.execute("UPDATE games SET created = created - 3600, updated = updated - 3600")
    with LocalClient(app_over(db)) as fresh, fresh.websocket_connect(f"/ws/{created['id']}") as page:
        expect(page, "snapshot")
        hello(page, created["host_token"])
        page.send_json({"type": "roll"})
        game = expect(page, "update")["game"]
        listed = fresh.get("/api/games", params={"ids": created["id"]}).json()["games"][0]
        assert game["updated"] == listed["updated"] != game["created"]


def test_an_unexpected_fault_is_a_typed_500_with_the_usual_headers(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(client.app.state.database, "lobby", broken)  # type: ignore[attr-defined]
    answer = client.get("/api/rooms")
    assert answer.status_code == 500 and answer.json()["error"]["code"] == "internal-error"
    assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
    assert "a bug" not in answer.text and "Traceback" not in answer.text


@pytest.mark.parametrize("host", ["[::1]evil.example:80", "[::1]]:80", "[::1][:80", "[::1]:", "localhost:80:80"])
def test_malformed_host_headers_are_refused(client: TestClient, host: str) -> None:
    assert client.get("/api/meta", headers={"host": host}).status_code == 400


def test_a_cross_site_websocket_is_refused(client: TestClient) -> None:
    created = client.post("/api/games", json={"players": ["red", "blue"]}).json()
    with (
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect(f"/ws/{created['id']}", headers={"sec-fetch-site": "cross-site"}),
    ):
        pass


def test_a_game_deleted_while_it_loads_is_not_kept(db: Path) -> None:
    import asyncio

    from flyingchess.server.errors import NoSuchGame
    from flyingchess.server.rooms.registry import Rooms

    with LocalClient(app_over(db)) as client:
        created = client.post("/api/games", json={"players": ["red", "blue"]}).json()

    async def scenario() -> Rooms:
        rooms = Rooms(AsyncStore(SqliteStore(db)), lambda: random.Random(1))
        loading = asyncio.ensure_future(rooms.get(created["id"]))
        await asyncio.sleep(0)  # the load is under way in a worker thread
        assert await rooms.forget(created["id"])
        with pytest.raises(NoSuchGame):
            await loading
        return rooms

    rooms = asyncio.run(scenario())
    assert created["id"] not in rooms.rooms and stored_games(db) == 0


def test_a_room_keeps_its_actions_a_byte_each() -> None:
    from flyingchess.server.rooms.session import ActionLog

    actions = [(6, 0), (3, None), (5, 3), (1, None), (6, 2)]
    log = ActionLog(actions)
    log.append(2, 1)
    assert log.pairs() == actions + [(2, 1)] and len(log) == 6 and len(log.data) == 6


def test_the_blocked_die_is_fair() -> None:
    """Each face within six standard deviations of 1/6 over 60,000 rolls: catches a
    broken mapping from bytes to faces (a face missing, doubled or out of range)."""
    from flyingchess.server.rooms.dice import EntropyDice

    rolls, die = 60_000, EntropyDice()
    counts = [0] * 7
    for _ in range(rolls):
        counts[die.randint(1, 6)] += 1
    spread = 6 * (rolls * (1 / 6) * (5 / 6)) ** 0.5
    assert counts[0] == 0 and all(abs(count - rolls / 6) < spread for count in counts[1:]), counts


def test_a_stored_row_is_read_once_into_the_game_a_room_plays() -> None:
    """session.load reads every field of a row (checked as a page's would be) into one
    LoadedGame, and the room and its session take its parsed parts as they are."""
    from flyingchess.engine.rules import Rules
    from flyingchess.server.errors import DamagedGame
    from flyingchess.server.rooms.room import Room
    from flyingchess.server.rooms.session import load
    from flyingchess.server.storage.store import StoredGame

    rules = Rules.preset("classic")
    stored = StoredGame.new(
        "g1",
        rules.to_json(),
        ["red", "blue"],
        {"red": {"kind": "human"}, "blue": {"kind": "bot", "bot": "random"}},
        extra={"timer": 30},
        actions=[(6, 0), (3, 0), (2, None)],
    )
    game = load(stored)
    assert (game.rules, game.players, game.timer, len(game.actions)) == (rules, ("red", "blue"), 30, 3)
    assert game.seats["blue"].bot == "random" and game.proof is None
    room = Room(None, game, random.Random(1))  # type: ignore[arg-type]  # a room that writes nothing here
    assert room.session.rules is game.rules and room.session.seats is game.seats and room.state is game.state
    assert room.presence.timer == 30
    for damage in ({"speed": "warp"}, {"extra": {"timer": "soon"}}, {"actions": [(6, 3), (9, 0)]}):
        broken = StoredGame(**{**stored.__dict__, **damage})
        with pytest.raises(DamagedGame, match="g1 cannot be loaded"):
            load(broken)
