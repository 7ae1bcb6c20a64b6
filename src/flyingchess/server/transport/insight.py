"""Win chances, hints and reviews over HTTP (flyingchess.bots.analysis, worked out off the loop).

- `GET /api/games/{id}/chances?actions=N`: every player's chance to finish first now.
- `GET /api/games/{id}/hint?actions=N`: the best move for the rolled die, each move's
  chance and why; only in a game created with hints on, and only while a move is awaited.
- `GET /api/games/{id}/analysis`: the review of the game so far (a game with hints off
  is reviewed once it is over: before that a review would be a hint machine).

`actions` is the position the page is looking at (the snapshot's action count). The
answer is always about the game as it is now and says which position that is
(`actions`); when the game has moved on meanwhile it also says `"moved_on": true`, so a
page never applies it to the position it still shows (a hint asked for a move that has
been played meanwhile is `null` unless a move is awaited again). A race between a page
and the game is thus an ordinary answer, not an error in the browser's console.

The network needs NumPy; without it these answer `no-analysis` (the page hides them:
GET /api/meta says whether they are available). Reviews are kept per game and action
count, so a replay viewer opened by many pages costs one review.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ...bots import BOTS
from ..protocol import ProtocolError

REVIEWS_KEPT: Final = 64


def available() -> bool:
    """Whether this server can work out chances (NumPy installed)."""
    return BOTS["ace"].available


def _require() -> None:
    missing = BOTS["ace"].missing()
    if missing is not None:
        raise ProtocolError("no-analysis", f"win chances and hints need the ace bot's network: {missing}")


def _moved_on(request: Request, actions: int) -> bool:
    """Whether the page asked about another position than the current one."""
    text = request.query_params.get("actions")
    if text is None:
        return False
    if not (text.isascii() and text.isdigit() and len(text) <= 10):
        raise ProtocolError("bad-request", "actions must be a whole number")
    return int(text) != actions


class Insight:
    """The three endpoints, sharing a small cache of reviews."""

    def __init__(self, rooms: Any, heavy_jobs: asyncio.Semaphore, buckets: Any) -> None:
        self.rooms = rooms
        self.heavy_jobs = heavy_jobs
        self.buckets = buckets  # the replay pages' rate limit: a review is as much work
        self.reviews: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()

    async def chances(self, request: Request) -> Response:
        _require()
        from ...bots.analysis import chances

        room = await self.rooms.view(request.path_params["game_id"])
        state, actions = room.session.state, len(room.session.actions)
        moved_on = _moved_on(request, actions)
        found = await self.rooms.store.run_blocking(chances, state)
        return JSONResponse({"actions": actions, "moved_on": moved_on, "chances": found})

    async def hint(self, request: Request) -> Response:
        _require()
        from ...bots.analysis import hint

        room = await self.rooms.view(request.path_params["game_id"])
        session = room.session
        state, actions = session.state, len(session.actions)
        moved_on = _moved_on(request, actions)
        if session.extra.get("hints") is not True:
            raise ProtocolError("hints-off", "this game was created without hints")
        if state.phase != "move":
            if moved_on:
                return JSONResponse({"actions": actions, "moved_on": True, "hint": None})
            raise ProtocolError("no-move", "a hint is for a rolled die: no move is awaited now")
        async with self.heavy_jobs:
            found = await self.rooms.store.run_blocking(hint, state)
        return JSONResponse({"actions": actions, "moved_on": moved_on, "hint": found.to_json()})

    async def analysis(self, request: Request) -> Response:
        _require()
        from ...bots.analysis import analyse

        room = await self.rooms.view(request.path_params["game_id"])
        session = room.session
        actions = len(session.actions)
        moved_on = _moved_on(request, actions)
        if session.extra.get("hints") is not True and not session.state.over:
            raise ProtocolError("not-over", "this game has hints off: its review opens once it is over")
        key = (room.id, actions)
        review = self.reviews.get(key)
        if review is None:
            address = request.client.host if request.client else "unknown"
            wait = self.buckets.allow(address, time.monotonic())
            if wait:
                raise ProtocolError("rate-limited", f"too many reviews: try again in {wait:.0f} s", retry_after=wait)
            record = room.record()
            async with self.heavy_jobs:
                review = (await self.rooms.store.run_blocking(analyse, record)).to_json()
            self.reviews[key] = review
            while len(self.reviews) > REVIEWS_KEPT:
                self.reviews.popitem(last=False)
        self.reviews.move_to_end(key)
        return JSONResponse({"actions": actions, "moved_on": moved_on, "analysis": review})
