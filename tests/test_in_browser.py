"""The web app as the static site runs it (flyingchess.server.transport.in_browser): the page's
requests and WebSocket messages as calls, the database reached without threads. Run
here in CPython; the browser tests run the same code in Pyodide (test_static_site.py)."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from flyingchess.records.record import loads_record
from flyingchess.server.transport.in_browser import InBrowser


class Page:
    """What the worker's JavaScript does with the app's socket events: keeps them."""

    def __init__(self) -> None:
        self.events: list[tuple[int, str, Any]] = []
        self.saves = 0

    def to_page(self, socket: int, event: str, data: Any) -> None:
        self.events.append((socket, event, data))

    def saved(self) -> None:
        self.saves += 1

    def messages(self, socket: int) -> list[dict[str, Any]]:
        return [json.loads(data) for number, event, data in self.events if number == socket and event == "message"]


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


def test_a_local_game_plays_saves_and_downloads_without_a_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_threads(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("can't start new thread")  # as in the browser

    monkeypatch.setattr(threading.Thread, "start", no_threads)
    page = Page()

    async def play() -> dict[str, Any]:
        app = InBrowser(tmp_path, page.to_page, page.saved)
        await app.start()
        meta = await app.request("GET", "/api/meta")
        assert meta["status"] == 200 and json.loads(meta["body"])["colours"]
        body = json.dumps(
            {
                "players": ["red", "blue"],
                "seats": {"red": {"kind": "bot", "bot": "random"}, "blue": {"kind": "human"}},
                "speed": "instant",
            }
        )
        created = await app.request("POST", "/api/games", body, json.dumps({"Content-Type": "application/json"}))
        assert created["status"] == 200, created["body"]
        game_id = json.loads(created["body"])["id"]
        app.open(1, f"/ws/{game_id}?x=1")
        await settle()
        assert page.events[0] == (1, "open", "")
        assert page.messages(1)[0]["type"] == "snapshot"
        for _ in range(4000):
            game = [m for m in page.messages(1) if "game" in m][-1]["game"]
            if game["state"]["over"]:
                break
            if game["state"]["turn"] == "blue":
                move = game["phase"] == "move"
                app.message(
                    1, json.dumps({"type": "move", "plane": game["moves"][0]["plane"]} if move else {"type": "roll"})
                )
            await asyncio.sleep(0.001)
            app.message(1, json.dumps({"type": "sync"}))
            await settle()
        assert [m for m in page.messages(1) if "game" in m][-1]["game"]["state"]["over"]
        record = await app.request("GET", f"/api/games/{game_id}/record")
        app.close(1)
        await settle()
        listed = await app.request("GET", "/api/games")
        assert [game["id"] for game in json.loads(listed["body"])["games"]] == [game_id]
        bad = await app.request("POST", "/api/records", "{not json", json.dumps({"Content-Type": "application/json"}))
        assert bad["status"] == 400 and json.loads(bad["body"])["error"]["code"] == "bad-record"
        return json.loads(record["body"])

    record = asyncio.run(play())
    assert loads_record(json.dumps(record)).final_state().over  # the same engine replays it
    assert page.saves > 10  # every stored change announced, for the browser's storage
    # and it is on disk: a new app over the same folder (a reopened tab) lists it
    again = Page()

    async def reopen() -> list[str]:
        app = InBrowser(tmp_path, again.to_page, again.saved)
        await app.start()
        listed = await app.request("GET", "/api/games")
        return [game["id"] for game in json.loads(listed["body"])["games"]]

    assert asyncio.run(reopen()) == [record["id"]]
