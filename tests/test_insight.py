"""Win chances, hints and reviews over HTTP (server/transport/insight.py), through the ASGI client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numpy")

from starlette.testclient import TestClient

from asgi import app_client

HUMAN = {"kind": "human"}


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    with app_client(tmp_path / "games.sqlite3", seed=3) as test_client:
        yield test_client


def create(client: TestClient, **options: Any) -> dict[str, Any]:
    body = {"players": ["red", "blue"], "seats": {"red": HUMAN, "blue": HUMAN}, **options}
    response = client.post("/api/games", json=body)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def roll_until_a_choice(socket: Any) -> dict[str, Any]:
    """Roll (and move the first plane) until a die leaves two or more moves."""
    snapshot = socket.receive_json()["game"]
    for _ in range(300):
        if snapshot["phase"] == "move" and len({m["to"] for m in snapshot["moves"]}) >= 2:
            return snapshot
        if snapshot["phase"] == "move":
            socket.send_json({"type": "move", "plane": snapshot["moves"][0]["plane"]})
        else:
            socket.send_json({"type": "roll"})
        snapshot = socket.receive_json()["game"]
    raise AssertionError("no real choice in 300 actions")


def test_chances_are_for_the_position_the_page_shows(client: TestClient) -> None:
    created = create(client)
    game_id = created["id"]
    assert client.get("/api/meta").json()["analysis"] is True
    now = client.get(f"/api/games/{game_id}/chances").json()
    assert now["actions"] == 0 and set(now["chances"]) == {"red", "blue"}
    assert abs(sum(now["chances"].values()) - 1) < 1e-3
    assert client.get(f"/api/games/{game_id}/chances", params={"actions": 0}).json() == now
    assert now["moved_on"] is False
    moved_on = client.get(f"/api/games/{game_id}/chances", params={"actions": 5}).json()
    assert moved_on["moved_on"] is True and moved_on["actions"] == 0  # about the game as it is
    bad = client.get(f"/api/games/{game_id}/chances", params={"actions": "-1"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad-request"
    assert client.get("/api/games/nope/chances").status_code == 404


def test_a_hint_needs_hints_on_a_rolled_die_and_the_current_position(client: TestClient) -> None:
    off = create(client)
    assert off["game"]["hints"] is False
    refused = client.get(f"/api/games/{off['id']}/hint")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "hints-off"
    on = create(client, hints=True)
    assert on["game"]["hints"] is True
    not_rolled = client.get(f"/api/games/{on['id']}/hint")
    assert not_rolled.status_code == 409 and not_rolled.json()["error"]["code"] == "no-move"
    with client.websocket_connect(f"/ws/{on['id']}") as socket:
        snapshot = roll_until_a_choice(socket)
        actions = snapshot["actions"]
        answer = client.get(f"/api/games/{on['id']}/hint", params={"actions": actions}).json()
        hint = answer["hint"]
        assert answer["actions"] == actions and hint["roll"] == snapshot["roll"]
        legal = {m["plane"] for m in snapshot["moves"]}
        assert hint["best"] in legal and {int(p) for p in hint["moves"]} == legal
        assert hint["reasons"] and hint["colour"] == snapshot["state"]["turn"]
        stale = client.get(f"/api/games/{on['id']}/hint", params={"actions": actions - 1}).json()
        assert stale["moved_on"] is True and stale["actions"] == actions  # about this position, said so
        assert answer["moved_on"] is False
        # asking changed nothing: the game still waits for the same move
        assert client.get(f"/api/games/{on['id']}").json()["game"]["actions"] == actions
        socket.send_json({"type": "move", "plane": hint["best"]})
        after = socket.receive_json()["game"]
        assert after["phase"] == "roll"  # a page still showing the move gets no hint for it
        late = client.get(f"/api/games/{on['id']}/hint", params={"actions": actions}).json()
        assert late == {"actions": after["actions"], "moved_on": True, "hint": None}


def test_a_review_opens_during_a_hinted_game_or_after_any_game(client: TestClient) -> None:
    off = create(client)
    closed = client.get(f"/api/games/{off['id']}/analysis")
    assert closed.status_code == 409 and closed.json()["error"]["code"] == "not-over"
    on = create(client, hints=True)
    with client.websocket_connect(f"/ws/{on['id']}") as socket:
        snapshot = roll_until_a_choice(socket)
    review = client.get(f"/api/games/{on['id']}/analysis").json()
    assert review["actions"] == snapshot["actions"]
    assert len(review["analysis"]["chances"]) == snapshot["actions"] + 1
    again = client.get(f"/api/games/{on['id']}/analysis").json()
    assert again == review  # kept: the same review


def test_a_new_game_refuses_hints_that_are_not_true_or_false(client: TestClient) -> None:
    response = client.post("/api/games", json={"players": ["red", "blue"], "hints": "yes"})
    assert response.status_code == 400 and "hints" in response.json()["error"]["message"]
