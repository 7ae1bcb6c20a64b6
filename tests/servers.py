"""A real `flyingchess play` server process for tests: started, spoken to, killed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from flyingchess.server.launch.process import ServerProcess

Server = ServerProcess
"""A real server process (flyingchess.server.launch.process): the tests start it as users do."""


def refused_start(data: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """`flyingchess serve` (on loopback) with these options must stop at once: status 2 and
    one line on standard error, never a traceback."""
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "flyingchess",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--data",
            str(data),
            *options,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode == 2, finished.stderr
    assert len(finished.stderr.strip().splitlines()) == 1 and "Traceback" not in finished.stderr, finished.stderr
    return finished
