"""`GET /api/health`: whether this process can serve players right now, for a load
balancer's health check or an orchestrator's readiness probe.

Ready means: its games database answers, its Redis answers (with several processes),
and it is not shutting down. Each check is bounded (`CHECK_SECONDS`), so the answer
itself never hangs on a dependency that does not. A process that is frozen answers
nothing at all: that is for the balancer's own timeout to notice (docs/deploy.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

CHECK_SECONDS: Final = 1.0
"""The longest any one dependency may take to answer the health check."""


NOT_USED: Final = "not used"


@dataclass(frozen=True)
class Health:
    """What `/api/health` answers: each dependency's word ("ok", "not used", or why
    not) and whether the process is shutting down."""

    database: str
    redis: str
    shutting_down: bool

    @property
    def ready(self) -> bool:
        return self.database == "ok" and self.redis in ("ok", NOT_USED) and not self.shutting_down

    def to_json(self) -> dict[str, Any]:
        return {
            "ready": self.ready,
            "database": self.database,
            "redis": self.redis,
            "shutting_down": self.shutting_down,
        }


async def _answer(check: Callable[[], Awaitable[object]] | None) -> str:
    if check is None:
        return NOT_USED
    try:
        await asyncio.wait_for(check(), CHECK_SECONDS)
    except TimeoutError:
        return f"no answer within {CHECK_SECONDS:g} s"
    except Exception as error:  # any failure of a dependency is a reason, never a traceback
        text = str(error).strip().splitlines()
        return text[0][:200] if text else type(error).__name__
    return "ok"


async def check_health(
    database: Callable[[], Awaitable[object]],
    redis: Callable[[], Awaitable[object]] | None,
    shutting_down: bool,
) -> Health:
    """Ask each dependency at once (side by side, each bounded)."""
    database_word, redis_word = await asyncio.gather(_answer(database), _answer(redis))
    return Health(database_word, redis_word, shutting_down)
