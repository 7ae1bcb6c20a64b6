"""The web server through the ASGI test client: API, WebSocket protocol, typed errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest
from starlette.testclient import TestClient

from flyingchess.records.record import loads_record
from flyingchess.server.errors import StoreError
from flyingchess.server.storage.store import SqliteStore
from flyingchess.server.transport.app import create_app

from asgi import JSON, LocalClient, app_client

HUMAN = {"kind": "human"}
HEURISTIC = {"kind": "bot", "bot": "heuristic"}


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    with app_client(tmp_path / "games.sqlite3") as test_client:
        yield test_client


@pytest.fixture()
def limited_client(tmp_path: Path) -> Iterator[TestClient]:
    store = SqliteStore(tmp_path / "games.sqlite3")
    with LocalClient(create_app(store)) as test_client:
        yield test_client
    store.close()


def new_game(
    client: TestClient, seats: dict[str, Any], players: list[str] | None = None, rules: Any = "classic"
) -> dict[str, Any]:
    response = client.post("/api/games", json={"players": players or list(seats), "seats": seats, "rules": rules})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def test_meta_lists_bots_presets_options_and_layout(client: TestClient) -> None:
    meta = client.get("/api/meta").json()
    assert [bot["name"] for bot in meta["bots"]][:2] == ["random", "heuristic"]
    assert set(meta["presets"]) == {"classic", "traditional", "house", "even"}
    assert meta["options"]["chain"]["values"] == ["none", "jump-fly", "jump-fly-jump"]
    assert len(meta["layout"]["ring"]) == 52
    assert client.get("/").status_code == 200
    # what the page would otherwise copy: the engine's and the protocol's own values
    from flyingchess.engine.game import DEFAULT_PLAYERS
    from flyingchess.server.protocol import CHAT_LIMIT, NAME_LIMIT, REACTIONS, SPEEDS

    assert meta["default_players"] == {str(n): list(colours) for n, colours in DEFAULT_PLAYERS.items()}
    assert meta["speeds"] == list(SPEEDS) and meta["reactions"] == list(REACTIONS)
    assert meta["limits"] == {"name": NAME_LIMIT, "chat": CHAT_LIMIT}


def test_hangar_planes_are_numbered_in_reading_order_for_every_colour(client: TestClient) -> None:
    """Keys 1-4 pick the same place in every hangar: plane 1 top left, 2 top right,
    3 bottom left, 4 bottom right, whichever corner the colour's hangar is in."""
    colours = client.get("/api/meta").json()["layout"]["colours"]
    for colour in ("red", "yellow", "blue", "green"):
        (x1, y1), (x2, y2), (x3, y3), (x4, y4) = colours[colour]["hangar"]
        assert y1 == y2 < y3 == y4 and x1 == x3 < x2 == x4, colour


def test_new_game_snapshot(client: TestClient) -> None:
    created = new_game(client, {"red": HUMAN, "blue": HEURISTIC}, rules={"preset": "house", "end": "first"})
    game = created["game"]
    assert game["phase"] == "roll" and game["actions"] == 0 and game["moves"] == []
    assert game["state"]["turn"] == "red" and game["rules"]["launch"] == [5, 6]
    assert game["rules_name"] is None
    assert client.get(f"/api/games/{created['id']}").json()["game"] == game


@pytest.mark.parametrize(
    "body, words",
    [
        ({"players": ["red", "red"]}, "twice"),
        ({"players": ["red", "blue"], "rules": "speedy"}, "speedy"),
        ({"players": ["red", "blue"], "rules": {"preset": "classic", "chain": "x"}}, "chain"),
        ({"players": ["red", "blue"], "seats": {"red": {"kind": "bot", "bot": "deep"}}}, "deep"),
        ({"players": ["red", "blue"], "seats": {"red": {"kind": "alien"}}}, "kind"),
        ({"players": ["red", "blue"], "seats": {"green": HUMAN}}, "colour"),
        ({"players": ["red", "blue"], "speed": "ludicrous"}, "speed"),
        ({"players": ["red", "blue"], "speed": ["fast"]}, "speed"),
    ],
)
def test_bad_new_game_requests_are_typed_errors(client: TestClient, body: dict[str, Any], words: str) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "bad-request" and words in error["message"]
    assert client.get("/api/games").json()["games"] == []
    bad_json = client.post("/api/games", content=b"{nope", headers=JSON)
    assert bad_json.status_code == 400 and bad_json.json()["error"]["code"] == "bad-request"


def test_a_new_game_starts_at_the_pace_asked_for_and_keeps_it(client: TestClient) -> None:
    created = client.post("/api/games", json={"players": ["red", "blue"], "speed": "fast"}).json()
    assert created["game"]["speed"] == "fast"
    assert client.get(f"/api/games/{created['id']}").json()["game"]["speed"] == "fast"
    plain = client.post("/api/games", json={"players": ["red", "blue"]}).json()
    assert plain["game"]["speed"] == "normal"


def test_unknown_games_are_404(client: TestClient) -> None:
    for path in ["/api/games/nope", "/api/games/nope/record", "/api/games/nope/replay", "/api/games/../../etc"]:
        response = client.get(path)
        assert response.status_code == 404
    assert client.get("/api/games/nope").json()["error"]["code"] == "unknown-game"
    with client.websocket_connect("/ws/nope") as socket:
        assert socket.receive_json()["code"] == "unknown-game"


def play_humans(socket: Any, snapshot: dict[str, Any], rolls: int) -> dict[str, Any]:
    """Roll and move (first legal plane) for `rolls` human rolls."""
    for _ in range(rolls):
        socket.send_json({"type": "roll"})
        update = socket.receive_json()
        assert update["type"] == "update", update
        snapshot = update["game"]
        if snapshot["phase"] == "move":
            socket.send_json({"type": "move", "plane": snapshot["moves"][0]["plane"]})
            update = socket.receive_json()
            snapshot = update["game"]
        if snapshot["phase"] == "over":
            break
    return snapshot


def test_human_game_over_the_websocket_is_stored_action_by_action(client: TestClient) -> None:
    created = new_game(client, {"red": HUMAN, "blue": HUMAN})
    with client.websocket_connect(f"/ws/{created['id']}") as socket:
        first = socket.receive_json()
        assert first["type"] == "snapshot"
        assert {k: v for k, v in first["game"].items() if k != "seats"} == {
            k: v for k, v in created["game"].items() if k != "seats"
        }
        assert first["game"]["seats"]["red"]["connected"] is True  # this page plays both seats
        snapshot = play_humans(socket, first["game"], 40)
    record = loads_record(client.get(f"/api/games/{created['id']}/record").text)
    assert len(record.actions) == snapshot["actions"] > 0
    final = record.final_state()
    assert json.loads(json.dumps(snapshot["state"])) == __import__("flyingchess").canonical_state(final)
    replay = client.get(f"/api/games/{created['id']}/replay").json()
    assert len(replay["steps"]) == snapshot["actions"]
    assert replay["steps"][-1]["state"] == snapshot["state"]


def test_preview_of_each_move_comes_from_the_engine(client: TestClient) -> None:
    created = new_game(client, {"red": HUMAN, "blue": HUMAN})
    with client.websocket_connect(f"/ws/{created['id']}") as socket:
        socket.receive_json()
        for _ in range(200):
            socket.send_json({"type": "roll"})
            snapshot = socket.receive_json()["game"]
            if snapshot["phase"] == "move":
                break
        for move in snapshot["moves"]:
            assert move["events"] and move["events"][-1]["type"] in ("turn", "extra-roll", "game-over")
            if move["launch"]:
                assert (move["from"], move["to"]) == (-1, 0)


def error_of(socket: Any, message: Any) -> dict[str, Any]:
    if isinstance(message, (str, bytes)):
        socket.send_text(message) if isinstance(message, str) else socket.send_bytes(message)
    else:
        socket.send_json(message)
    reply: dict[str, Any] = socket.receive_json()
    assert reply["type"] == "error", reply
    return reply


def test_malformed_and_illegal_messages_get_typed_errors_and_change_nothing(client: TestClient) -> None:
    created = new_game(client, {"red": HUMAN, "blue": HUMAN})
    with client.websocket_connect(f"/ws/{created['id']}") as socket:
        socket.receive_json()

        def snapshot() -> dict[str, Any]:
            socket.send_json({"type": "sync"})
            reply: dict[str, Any] = socket.receive_json()
            return reply["game"]

        before = snapshot()
        cases: list[tuple[Any, str]] = [
            ("not json", "bad-json"),
            (b"\xff\x00", "bad-json"),
            ("[1, 2]", "bad-message"),
            ({"type": "fly"}, "bad-message"),
            ({"no": "type"}, "bad-message"),
            ({"type": "move", "plane": 7}, "bad-message"),
            ({"type": "move", "plane": "0"}, "bad-message"),
            ({"type": "move", "plane": True}, "bad-message"),
            ({"type": "roll", "value": 6}, "bad-message"),
            ({"type": "speed", "speed": "ludicrous"}, "bad-message"),
            ({"type": "move", "plane": 0}, "wrong-phase"),
            (json.dumps({"type": "roll", "pad": "x" * 5000}), "bad-message"),
            ({"type": "roll", "at": -1}, "bad-message"),
            ({"type": "roll", "at": "0"}, "bad-message"),
            ({"type": "roll", "at": before["actions"] + 1}, "moved-on"),  # meant for another moment
        ]
        for message, code in cases:
            assert error_of(socket, message)["code"] == code, message
            assert snapshot() == before
        # roll until a move is awaited (each roll for the moment it was sent at): then rolling
        # again is refused, a bad plane too, and a move for an earlier moment
        game = before
        for _ in range(200):
            socket.send_json({"type": "roll", "at": game["actions"]})
            game = socket.receive_json()["game"]
            if game["phase"] == "move":
                break
        waiting = snapshot()
        if waiting["actions"] > 0:
            move = {"type": "move", "plane": waiting["moves"][0]["plane"], "at": waiting["actions"] - 1}
            assert error_of(socket, move)["code"] == "moved-on"
            assert snapshot() == waiting
        assert error_of(socket, {"type": "roll"})["code"] == "wrong-phase"
        legal = {plane for move in waiting["moves"] for plane in move["planes"]}
        illegal = [plane for plane in range(4) if plane not in legal]
        if illegal:
            assert error_of(socket, {"type": "move", "plane": illegal[0]})["code"] == "illegal-move"
        assert snapshot() == waiting


def test_bots_play_a_whole_game_while_watched(client: TestClient) -> None:
    created = new_game(
        client, {"red": HEURISTIC, "yellow": {"kind": "bot", "bot": "random"}, "blue": HEURISTIC, "green": HEURISTIC}
    )
    with client.websocket_connect(f"/ws/{created['id']}") as socket:
        socket.receive_json()
        socket.send_json({"type": "speed", "speed": "instant"})
        seen = 0
        game: dict[str, Any] = {}
        while game.get("phase") != "over":
            update = socket.receive_json()
            assert update["type"] == "update"
            game = update["game"]
            assert game["actions"] >= seen
            seen = game["actions"]
        assert game["state"]["winner"] in game["players"]
        error = error_of(socket, {"type": "roll"})
        assert error["code"] == "game-over"


def test_a_human_cannot_roll_for_a_bot(client: TestClient) -> None:
    created = new_game(client, {"red": HEURISTIC, "blue": HUMAN})
    with client.websocket_connect(f"/ws/{created['id']}") as socket:
        socket.receive_json()
        socket.send_json({"type": "speed", "speed": "slow"})
        socket.receive_json()
        assert error_of(socket, {"type": "roll"})["code"] == "not-your-turn"


def test_import_record_then_rematch_and_delete(client: TestClient) -> None:
    golden = (Path(__file__).parent / "records" / "house-3p.json").read_text()
    data = json.loads(golden)
    data["actions"] = data["actions"][:50]
    data["seats"] = {"yellow": HUMAN, "blue": HEURISTIC, "green": HUMAN}
    imported = client.post("/api/records", content=json.dumps(data), headers=JSON).json()
    game = imported["game"]
    assert game["actions"] == 50 and game["seats"]["blue"]["bot"] == "heuristic"
    assert game["rules_name"] == "house"
    rematch = client.post(f"/api/games/{imported['id']}/rematch", json={}).json()
    assert rematch["game"]["actions"] == 0
    assert {c: s["kind"] for c, s in rematch["game"]["seats"].items()} == {
        c: s["kind"] for c, s in game["seats"].items()
    }
    ids = [g["id"] for g in client.get("/api/games").json()["games"]]
    assert set(ids) == {imported["id"], rematch["id"]}
    assert client.delete(f"/api/games/{rematch['id']}").json() == {"deleted": True}
    assert client.get(f"/api/games/{rematch['id']}").status_code == 404


@pytest.mark.parametrize(
    "content, words",
    [
        (b"not json at all", "not a JSON game record"),
        (json.dumps({"format": "chess/1"}).encode(), "format"),
        (
            json.dumps(
                {"format": "flyingchess/1", "players": ["red", "blue"], "actions": [{"roll": 3, "plane": 0}]}
            ).encode(),
            "action 0",
        ),
        (json.dumps([1, 2, 3]).encode(), "object"),
    ],
)
def test_corrupt_or_foreign_records_are_refused(client: TestClient, content: bytes, words: str) -> None:
    response = client.post("/api/records", content=content, headers=JSON)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "bad-record" and words in error["message"]
    # asked first, the same answer comes as a successful request (the page shows it)
    checked = client.post("/api/records/check", content=content, headers=JSON)
    assert checked.status_code == 200 and checked.json() == {"valid": False, "error": error}
    assert client.get("/api/games").json()["games"] == []


def test_checking_a_good_record_stores_nothing(client: TestClient) -> None:
    data = json.loads((Path(__file__).parent / "records" / "house-3p.json").read_text())
    checked = client.post("/api/records/check", content=json.dumps(data), headers=JSON).json()
    assert checked == {"valid": True, "players": data["players"], "actions": len(data["actions"]), "over": True}
    assert client.get("/api/games").json()["games"] == []


def test_a_database_that_cannot_be_opened_is_a_clear_error(tmp_path: Path) -> None:
    not_a_database = tmp_path / "games.sqlite3"
    not_a_database.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="cannot open the games database"):
        SqliteStore(not_a_database)


def test_a_foreign_origin_is_refused_and_the_own_origin_accepted(client: TestClient) -> None:
    created = new_game(client, {"red": HUMAN, "blue": HUMAN})
    from starlette.websockets import WebSocketDisconnect

    with (
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect(f"/ws/{created['id']}", headers={"origin": "http://evil.example"}),
    ):
        pass
    with client.websocket_connect(f"/ws/{created['id']}", headers={"origin": "http://localhost"}) as socket:
        assert socket.receive_json()["type"] == "snapshot"


def test_flooding_is_rate_limited_then_cut_off(limited_client: TestClient) -> None:
    client = limited_client
    created = new_game(client, {"red": HUMAN, "blue": HUMAN})
    from starlette.websockets import WebSocketDisconnect

    with client.websocket_connect(f"/ws/{created['id']}") as socket:
        socket.receive_json()
        for _ in range(100):
            socket.send_json({"type": "sync"})
        replies = [socket.receive_json()]
        while replies[-1].get("code") != "rate-limited":
            replies.append(socket.receive_json())
        assert 55 <= len(replies) <= 100  # the burst was served, then the rest refused
        with pytest.raises(WebSocketDisconnect):
            for _ in range(600):
                socket.send_json({"type": "sync"})
            while True:
                socket.receive_json()
    # the game is unharmed
    assert client.get(f"/api/games/{created['id']}").json()["game"]["actions"] == 0


def test_rate_limit_refills_over_time() -> None:
    from flyingchess.server.limits import TokenBucket

    limit = TokenBucket(now=0.0, rate=10, burst=2)
    assert limit.allow(0.0) and limit.allow(0.0) and not limit.allow(0.0)
    assert limit.wait() == pytest.approx(0.1)
    assert limit.allow(0.1) and not limit.allow(0.1)
    assert limit.refused == 2


def test_meta_says_local_and_the_invite_address(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "lan.sqlite3")
    app = create_app(store, local=False, invite_base="http://192.0.2.7:8000")
    with LocalClient(app) as lan:
        meta = lan.get("/api/meta").json()
        assert meta["local"] is False and meta["invite_base"] == "http://192.0.2.7:8000"
    store.close()


def test_the_manifest_names_icons_that_exist_at_their_sizes(client: TestClient) -> None:
    response = client.get("/static/manifest.webmanifest")
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/manifest+json")
    manifest = response.json()
    # relative to the manifest (static/), so the same files work under any path (a static site)
    root = str(client.base_url).rstrip("/") + "/"
    base = root + "static/manifest.webmanifest"
    assert manifest["display"] == "standalone" and urljoin(base, manifest["start_url"]) == root
    for icon in manifest["icons"]:
        image = client.get(urljoin(base, icon["src"]))
        assert image.status_code == 200 and image.headers["content-type"].startswith(icon["type"])
        if icon["type"] == "image/png":  # width and height from the PNG header
            width, height = int.from_bytes(image.content[16:20]), int.from_bytes(image.content[20:24])
            assert f"{width}x{height}" == icon["sizes"]
    assert 'rel="manifest"' in client.get("/").text


def test_local_players_may_be_named_and_a_bad_name_is_refused(client: TestClient) -> None:
    created = new_game(client, {"red": {"kind": "human", "name": "  Ana  "}, "blue": {"kind": "human"}})
    seats = created["game"]["seats"]
    assert seats["red"]["name"] == "Ana" and "name" not in seats["blue"]
    refused = client.post(
        "/api/games", json={"players": ["red", "blue"], "seats": {"red": {"kind": "human", "name": "x" * 25}}}
    )
    assert refused.status_code == 400 and "seat red: name" in refused.json()["error"]["message"]
    assert len(client.get("/api/games").json()["games"]) == 1


def test_statistics_count_finished_games_by_player_and_colour(client: TestClient) -> None:
    data = json.loads((Path(__file__).parent / "records" / "house-3p.json").read_text())
    data["seats"] = {"yellow": {"kind": "human", "name": "Ana"}, "blue": HEURISTIC, "green": HUMAN}
    imported = client.post("/api/records", content=json.dumps(data), headers=JSON).json()
    winner = imported["game"]["state"]["winner"]
    new_game(client, {"red": HUMAN, "blue": HEURISTIC})  # unfinished: not counted
    stats = client.get("/api/stats").json()
    assert stats["games"] == 1
    assert {row["colour"]: (row["played"], row["won"]) for row in stats["colours"]} == {
        colour: (1, int(colour == winner)) for colour in data["players"]
    }
    players = {(row["kind"], row["name"]): (row["played"], row["won"]) for row in stats["players"]}
    assert players == {
        ("player", "Ana"): (1, int(winner == "yellow")),
        ("bot", "heuristic"): (1, int(winner == "blue")),
        ("human", ""): (1, int(winner == "green")),
    }
    assert stats["players"][0]["won"] == 1  # most wins first


def test_the_pages_files_are_compressed_and_the_api_answers_are_not(client: TestClient) -> None:
    script = client.get("/static/game.js", headers={"Accept-Encoding": "gzip"})
    assert script.status_code == 200 and script.headers.get("content-encoding") == "gzip"
    assert "mountGame" in script.text  # the client undid it: the same file
    listing = client.get("/api/games", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in listing.headers


def test_health_says_ready_only_while_the_database_answers(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "games.sqlite3")
    with LocalClient(create_app(store)) as client:
        answer = client.get("/api/health")
        assert answer.status_code == 200 and answer.headers["Cache-Control"] == "no-store"
        assert answer.json() == {"ready": True, "database": "ok", "redis": "not used", "shutting_down": False}
        store.db.close()  # the database is gone from under the server
        answer = client.get("/api/health")
        assert answer.status_code == 503
        assert answer.json()["ready"] is False and "closed" in answer.json()["database"]
        assert answer.json()["redis"] == "not used"
