"""The games database for the event loop: reads in worker threads, writes group-committed.

No database call may block the event loop, and every roll and move must be committed
before anyone hears of it. Sending each write to a thread of its own and committing it
alone costs a thread hop and a commit per action; with hundreds of rooms playing, most of
the server's time went there. So writes go to one writer thread that takes everything
queued while it was busy and commits it as one transaction (`SqlStore.write_batch`): the
more the server is asked, the bigger the batches, and each caller still hears only after
its own write is committed. Writes are applied in the order they were asked for.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from .. import metrics
from ..errors import StoreError
from .store import SqlStore, WriteBody

log = logging.getLogger(__name__)

R = TypeVar("R")

BATCH_LIMIT = 512
"""The most writes committed in one transaction (a bound on how long one commit takes)."""


@dataclass(frozen=True)
class _Write:
    body: WriteBody
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    future: asyncio.Future[Any]
    loop: asyncio.AbstractEventLoop


class GroupCommit:
    """One writer thread committing queued writes in batches."""

    def __init__(self, database: SqlStore, limit: int = BATCH_LIMIT) -> None:
        self.database = database
        self.limit = limit
        self.pending: collections.deque[_Write] = collections.deque()
        self.ready = threading.Condition(threading.Lock())
        self.closing = False
        self.batches = 0
        self.writes = 0
        self.thread = threading.Thread(target=self._run, name="store-writer", daemon=True)
        self.thread.start()

    def submit(self, body: WriteBody, args: tuple[Any, ...], kwargs: dict[str, Any]) -> asyncio.Future[Any]:
        """Queue a write; the future settles once its batch is committed (or failed)."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        with self.ready:
            if self.closing:
                raise StoreError(f"the games database {self.database.name} is closed")
            self.pending.append(_Write(body, args, kwargs, future, loop))
            if len(self.pending) == 1:
                self.ready.notify()
        return future

    def _run(self) -> None:
        while True:
            with self.ready:
                while not self.pending and not self.closing:
                    self.ready.wait()
                if not self.pending:
                    return
                batch = [self.pending.popleft() for _ in range(min(self.limit, len(self.pending)))]
            started = time.perf_counter()
            try:
                outcomes = self.database.write_batch([(w.body, w.args, w.kwargs) for w in batch])
            except BaseException as error:  # a bug, not a database failure: fail the batch, keep writing
                log.exception("a batch of writes failed")
                outcomes = [StoreError(f"the games database {self.database.name} failed: {error}")] * len(batch)
            self.batches += 1
            self.writes += len(batch)
            metrics.storage_batch_seconds.observe(time.perf_counter() - started)
            metrics.storage_batch_writes.observe(len(batch))
            by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], Any]]] = {}
            for write, outcome in zip(batch, outcomes, strict=True):
                by_loop.setdefault(write.loop, []).append((write.future, outcome))
            for loop, settled in by_loop.items():
                with contextlib.suppress(RuntimeError):  # a loop that has closed: nobody waits any more
                    loop.call_soon_threadsafe(_settle, settled)  # one wake-up of the loop per batch

    def close(self) -> None:
        """Commit what is queued, then stop the writer."""
        with self.ready:
            self.closing = True
            self.ready.notify()
        self.thread.join()


def _settle(settled: list[tuple[asyncio.Future[Any], Any]]) -> None:
    for future, outcome in settled:
        if future.cancelled():
            continue
        if isinstance(outcome, BaseException):
            future.set_exception(outcome)
        else:
            future.set_result(outcome)


class AsyncStore:
    """A `SqlStore` for the event loop: the same methods, awaited. Writes (the methods
    `SqlStore` marks with `_write`) are group-committed; reads run in worker threads (one
    for SQLite, a pool for PostgreSQL)."""

    def __init__(self, database: SqlStore) -> None:
        self.database = database
        self.readers = ThreadPoolExecutor(max_workers=database.workers, thread_name_prefix="store")
        self.writer = GroupCommit(database)

    async def call(self, method: Callable[..., R], *args: Any, **kwargs: Any) -> R:
        """Run any method of the database in a worker thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.readers, functools.partial(method, *args, **kwargs))

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self.database, name)
        body = getattr(method, "body", None)
        if body is not None:

            async def write(*args: Any, **kwargs: Any) -> Any:
                return await self.writer.submit(body, args, kwargs)

            setattr(self, name, write)  # found once: later calls skip __getattr__
            return write

        async def call(*args: Any, **kwargs: Any) -> Any:
            return await self.call(method, *args, **kwargs)

        setattr(self, name, call)
        return call

    async def run_blocking(self, function: Callable[..., R], *args: Any) -> R:
        """CPU-bound work of the app (rebuilding a game, a review) off the event loop:
        in a worker thread here; at once where there are no threads (InlineStore)."""
        return await asyncio.to_thread(function, *args)

    def close(self) -> None:
        self.writer.close()
        self.readers.shutdown(wait=True)


class InlineStore:
    """A `SqlStore` for an event loop that cannot start threads (Python in the browser):
    the same awaited methods as `AsyncStore`, each run at once, each write its own
    transaction. `after_write` is told after every write that succeeded (the browser
    saves the database file to its own storage then)."""

    def __init__(self, database: SqlStore, after_write: Callable[[], None] | None = None) -> None:
        self.database = database
        self.after_write = after_write

    async def call(self, method: Callable[..., R], *args: Any, **kwargs: Any) -> R:
        return method(*args, **kwargs)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self.database, name)
        writes = getattr(method, "body", None) is not None

        async def call(*args: Any, **kwargs: Any) -> Any:
            result = method(*args, **kwargs)
            if writes and self.after_write is not None:
                self.after_write()
            return result

        setattr(self, name, call)
        return call

    async def run_blocking(self, function: Callable[..., R], *args: Any) -> R:
        return function(*args)

    def close(self) -> None:
        """Nothing waits to be written: every write was done when it was asked for."""


LoopStore = AsyncStore | InlineStore
"""How the event loop reaches the games database."""
