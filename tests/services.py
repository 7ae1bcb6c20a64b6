"""The throwaway PostgreSQL, Redis and nginx of flyingchess.server.launch.loopback, for tests:
`require(...)` skips a test whose programs are not installed, with a notice saying
what to install, except under FLYINGCHESS_REQUIRE_SERVICES=1 (CI), where it fails."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import pytest

from flyingchess.server.launch.loopback import Nginx, Postgres, Redis, free_port, missing

__all__ = ["Nginx", "Postgres", "Redis", "free_port", "require", "running"]


def require(*services: str) -> None:
    """Skip (or, in CI, fail) when a service's program is not installed."""
    message = missing(*services)
    if message is None:
        return
    if os.environ.get("FLYINGCHESS_REQUIRE_SERVICES"):
        pytest.fail(message)
    pytest.skip(message)


@contextlib.contextmanager
def running(*services: str) -> Iterator[dict[str, Postgres | Redis]]:
    """Start the named services ("postgres", "redis") for the length of a block."""
    require(*services)
    started: dict[str, Postgres | Redis] = {}
    try:
        for service in services:
            started[service] = Postgres() if service == "postgres" else Redis()
        yield started
    finally:
        for process in started.values():
            process.stop()
