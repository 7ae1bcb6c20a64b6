"""A flyingchess server in a child process on loopback: started, waited for, stopped.

What benchmarks, tests and scripts need to put a real server under load or in front of a
browser: `flyingchess play` (every page is the host's) or `flyingchess serve` (pages
prove their seats with tokens), in its own process exactly as a user starts it, its
address read from what it prints, and ready once it answers.
"""

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

START_SECONDS = 30.0
"""How long a server may take to answer before it counts as failed to start."""


class ServerFailed(RuntimeError):
    """The server process did not start; the message ends with what it wrote."""


class ServerProcess:
    def __init__(
        self, data: Path, network: bool = False, options: Sequence[str] = (), open_files: int | None = None
    ) -> None:
        """`network`: `flyingchess serve` on loopback, else `flyingchess play` (no browser).
        `options` go to the command; `open_files` limits the process's open files."""
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
        if "running at http://127.0.0.1:" not in line:
            self.stop()
            raise ServerFailed(f"the server did not start: {line.strip()}\n{self.log()}")
        self.url = line.split("running at ")[1].split()[0].rstrip("/")
        self.node: str | None = None
        """The process's name among a cluster's (with --redis)."""
        if "--redis" in options:  # the next line names this process among the others
            self.node = self.process.stdout.readline().rsplit(" ", 1)[1].strip()
        self._wait_until_serving()

    def _wait_until_serving(self) -> None:
        """The address is printed before the server has started (connections wait in the
        backlog meanwhile); the caller goes on once it answers, so that what it does next
        (kill Redis, say) cannot happen during the server's own start."""
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                with urllib.request.urlopen(self.url + "/api/meta", timeout=5):
                    return
            except OSError as error:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise ServerFailed(f"the server did not start: {error}\n{self.log()}") from None
                time.sleep(0.05)

    def log(self) -> str:
        """What the server wrote on standard error so far."""
        return self.log_path.read_text(errors="replace")

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def api(self, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
        """A JSON request (GET, or POST with `body`); urllib's HTTPError for a refusal."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path, data=data, headers={"Content-Type": "application/json", **(headers or {})}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def socket(self, game_id: str) -> Any:
        """A WebSocket to a game's room (the `websockets` package's synchronous client)."""
        from websockets.sync.client import connect

        return connect(self.url.replace("http", "ws") + f"/ws/{game_id}", open_timeout=10)

    def kill(self) -> None:
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
