"""`serve --log-format json`: one JSON object per log line, for log collectors (Loki,
Elasticsearch, journald's JSON fields) that would otherwise have to parse text."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from typing import Final

FIELDS: Final = ("time", "level", "logger", "message")
"""Every line has these; a line about an exception adds `exception` (its traceback)."""


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def use_json_lines(level: str) -> None:
    """Send every log record (the server's, uvicorn's, asyncio's) to standard error as JSON
    lines, from `level` up. uvicorn is then told to leave logging alone (log_config=None)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines())
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers = []
        logger.propagate = True


def tell_operator(message: str) -> None:
    """A line the operator is always shown, whatever the log level (how a shutdown went):
    plain text, or one JSON line like every other when the logs are JSON."""
    if any(isinstance(handler.formatter, JsonLines) for handler in logging.getLogger().handlers):
        record = logging.LogRecord("flyingchess.server", logging.INFO, __file__, 0, message, None, None)
        message = JsonLines().format(record)
    print(message, file=sys.stderr, flush=True)


def log_failure(task: asyncio.Task[None]) -> None:
    """A done callback for background tasks: a failure reaches the log, never vanishes."""
    if not task.cancelled() and task.exception() is not None:
        logging.getLogger("flyingchess.server").error(
            "a background task failed: %s", task.get_name(), exc_info=task.exception()
        )
