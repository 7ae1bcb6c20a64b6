"""What every part of the games database stands on: a transaction taking `?` whatever the
engine, the engine's failures as one StoreError, and writes that may share a commit."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, ClassVar, Concatenate, Final, ParamSpec, TypeVar

from ..errors import DamagedGame, LostGame, StoreError


class Sql:
    """A connection inside one transaction, taking `?` placeholders whatever the engine."""

    def __init__(self, connection: Any, placeholder: str) -> None:
        self.connection = connection
        self.placeholder = placeholder

    def _sql(self, sql: str) -> str:
        return sql if self.placeholder == "?" else sql.replace("?", self.placeholder)

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        return self.connection.execute(self._sql(sql), params)

    def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            if self.placeholder == "?":
                self.connection.executemany(sql, rows)
            else:
                with self.connection.cursor() as cursor:
                    cursor.executemany(self._sql(sql), rows)


P = ParamSpec("P")
R = TypeVar("R")


def _as_store_error(store: SqlEngine, error: BaseException) -> BaseException:
    """A failure of the database engine as a StoreError naming the database; the store's
    own errors (LostGame, DamagedGame) and anything else pass as they are."""
    if isinstance(error, store.errors) and not isinstance(error, (StoreError, DamagedGame)):
        return StoreError(f"the games database {store.name} failed: {_first_line(error)}")
    return error


def _mapped(method: Callable[P, R]) -> Callable[P, R]:
    """Any failure of the database engine becomes a StoreError naming the database."""

    @functools.wraps(method)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        store = args[0]
        assert isinstance(store, SqlEngine)
        try:
            return method(*args, **kwargs)
        except (StoreError, DamagedGame):
            raise
        except store.errors as error:
            raise _as_store_error(store, error) from None

    return run


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


WriteBody = Callable[..., Any]
"""A write's statements, run inside a transaction it is given: (store, sql, *args)."""


Valid = Callable[[], bool]
"""A write's `valid=` keyword: asked just before the commit, in the writing thread; when it
says no (the writer's lease ran out meanwhile), the write is rolled back as `LostGame`."""


def _split_valid(kwargs: dict[str, Any]) -> tuple[dict[str, Any], Valid | None]:
    if "valid" not in kwargs:
        return kwargs, None
    rest = dict(kwargs)
    return rest, rest.pop("valid")


def _check_valid(checks: Iterable[Valid | None]) -> None:
    if not all(check() for check in checks if check is not None):
        raise LostGame("this process's lease ran out before the write was committed")


def _write(body: Callable[Concatenate[Any, Sql, P], R]) -> Callable[Concatenate[Any, P], R]:
    """A write: alone, it is one transaction; `write_batch` (and so `AsyncStore`) may run
    it with others in one transaction instead. The statements are kept as `.body`. Any
    write takes `valid=` (see `Valid`)."""

    @functools.wraps(body)
    def alone(store: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        rest, valid = _split_valid(kwargs)
        with store._transaction() as sql:
            result = body(store, sql, *args, **rest)
            _check_valid([valid])
            return result

    mapped = _mapped(alone)
    mapped.body = body  # type: ignore[attr-defined]
    return mapped


IN_ONE_QUERY: Final = 500
"""Games named in one statement (SQLite allows 32,766 parameters, PostgreSQL 65,535)."""


def _parts(game_ids: Sequence[str]) -> list[tuple[str, ...]]:
    ids = tuple(game_ids)
    return [ids[start : start + IN_ONE_QUERY] for start in range(0, len(ids), IN_ONE_QUERY)]


class SqlEngine:
    """The engine under every part of `SqlStore`. Subclasses say how to connect
    (`_transaction`), which errors the engine raises, and its placeholder and row-id names."""

    name = "?"
    workers = 1
    """Worker threads `AsyncStore` may use at once (SQLite: one connection, one thread)."""
    errors: ClassVar[tuple[type[BaseException], ...]] = ()
    unavailable: ClassVar[tuple[type[BaseException], ...]] = ()
    """The engine's errors that mean the database (or the connection to it) failed, not
    one write: a batch that meets one is not retried write by write."""
    placeholder = "?"
    row_id = "rowid"
    """The chat table's row identity (SQLite's rowid; PostgreSQL's id column)."""

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Sql]:
        raise NotImplementedError
        yield  # pragma: no cover

    def close(self) -> None:
        raise NotImplementedError

    def write_batch(self, writes: list[tuple[WriteBody, tuple[Any, ...], dict[str, Any]]]) -> list[Any]:
        """Several writes in one transaction (group commit: one commit for everything that
        arrived while the last batch was being written).

        Returns each write's result, or the exception it raised in its place. If any write
        fails (a game claimed by another process, an action number taken, a writer's lease
        run out), the batch is rolled back and each write is tried again in a transaction
        of its own, so the failure undoes only itself. If the database itself fails (the
        connection lost or ended, a wait timed out), or the commit does, nothing of the
        batch is stored and every write fails: retried later, a write could land after
        its writer's lease (a process frozen inside the transaction, woken up)."""
        split = [(body, args, *_split_valid(kwargs)) for body, args, kwargs in writes]
        if len(split) > 1:
            try:
                with self._transaction() as sql:
                    results = [body(self, sql, *args, **rest) for body, args, rest, _ in split]
                    _check_valid(valid for *_, valid in split)
                    return results
            except self.unavailable as error:
                return [_as_store_error(self, error)] * len(split)
            except Exception:  # rolled back: find which write failed, one transaction each
                pass
        outcomes: list[Any] = []
        for body, args, rest, valid in split:
            try:
                with self._transaction() as sql:
                    result = body(self, sql, *args, **rest)
                    _check_valid([valid])
                outcomes.append(result)
            except Exception as error:
                outcomes.append(_as_store_error(self, error))
        return outcomes
