"""Rooms asked for in the same moment, loaded together. When a process takes many rooms
over at once (a rolling restart hands it the other's rooms, a killed process's pages
reconnect, Redis comes back), loading each with its own claim and read queued hundreds of
round trips on the database's few connections: the last room came back up to a second
later, and requests sent to it waited as long. Here every room asked for while a load is
under way waits for the next one, and each load claims and reads all of its rooms in one
transaction each; a room asked for alone costs one turn of the event loop more. One job:
`ClusteredRooms` (rooms.py) loads the rooms it owns through one `Coalesced`."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Generic, TypeVar

from ..errors import NoSuchGame

T = TypeVar("T")


class Coalesced(Generic[T]):
    """`load(key)` for one key at a time, carried out by `load_all(keys)` for every key
    asked for meanwhile. `load_all` returns each key's value or the exception it raises
    for that key alone (one damaged game does not fail the others); a key it leaves out
    does not exist (NoSuchGame); an exception it raises fails every key of its batch."""

    def __init__(self, load_all: Callable[[list[str]], Awaitable[Mapping[str, T | Exception]]]) -> None:
        self.load_all = load_all
        self.waiting: dict[str, asyncio.Future[T]] = {}
        self.running: asyncio.Task[None] | None = None

    async def load(self, key: str) -> T:
        future = self.waiting.get(key)
        if future is None:
            future = self.waiting[key] = asyncio.get_running_loop().create_future()
        if self.running is None or self.running.done():
            self.running = asyncio.get_running_loop().create_task(self._run())
        return await future

    async def _run(self) -> None:
        await asyncio.sleep(0)  # the others asking in this moment join the first batch
        while self.waiting:
            batch, self.waiting = self.waiting, {}
            try:
                made = await self.load_all(list(batch))
            except asyncio.CancelledError:  # the process is stopping: nobody waits for ever
                for future in [*batch.values(), *self.waiting.values()]:
                    future.cancel()
                raise
            except Exception as error:
                for future in batch.values():
                    if not future.done():
                        future.set_exception(error)
                continue
            for key, future in batch.items():
                if future.done():  # its caller gave up (cancelled)
                    continue
                value = made.get(key)
                if value is None:
                    future.set_exception(NoSuchGame("no game with that id"))
                elif isinstance(value, Exception):
                    future.set_exception(value)
                else:
                    future.set_result(value)
