"""A real `flyingchess play` server process for tests: started, spoken to, killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from websockets.sync.client import connect


class Server:
    def __init__(
        self, data: Path, network: bool = False, options: Sequence[str] = (), open_files: int | None = None
    ) -> None:
        """`network`: `flyingchess serve` on loopback (pages need tokens), else `play`.
        `open_files`: a hard limit of open files for the server process."""
        command = ["serve", "--host", "127.0.0.1", "--port", "0"] if network else ["play", "--no-browser"]

        def limit_files() -> None:
            if open_files is not None:
                import resource

                resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

        data.mkdir(parents=True, exist_ok=True)
        self.log_path = data / "server.log"  # a file, so a chatty server can never block on a full pipe
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "flyingchess", *command, *options, "--data", str(data)],
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                preexec_fn=limit_files,
            )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert "running at http://127.0.0.1:" in line, line + self.log()
        self.url = line.split("running at ")[1].split()[0].rstrip("/")
        self.node: str | None = None
        if "--redis" in options:  # the next line names this process among the others
            self.node = self.process.stdout.readline().rsplit(" ", 1)[1].strip()
        self._wait_until_serving()

    def _wait_until_serving(self) -> None:
        """The address is printed before the server has started (connections wait in the
        backlog meanwhile); a test starts once it answers, so that what the test does
        next (kill Redis, say) cannot happen during the server's own start."""
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(self.url + "/api/meta", timeout=5):
                    return
            except OSError as error:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"the server did not start: {error}\n{self.log()}") from None
                time.sleep(0.05)

    def log(self) -> str:
        """What the server wrote on standard error so far."""
        return self.log_path.read_text(errors="replace")

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def api(self, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path, data=data, headers={"Content-Type": "application/json", **(headers or {})}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def socket(self, game_id: str) -> Any:
        return connect(self.url.replace("http", "ws") + f"/ws/{game_id}", open_timeout=10)

    def kill(self) -> None:
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


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
