"""A real `flyingchess play` server process for tests: started, spoken to, killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

from websockets.sync.client import connect


class Server:
    def __init__(self, data: Path, network: bool = False) -> None:
        command = (["serve", "--host", "127.0.0.1", "--port", "0", "--network"] if network
                   else ["play", "--no-browser"])
        self.process = subprocess.Popen(
            [sys.executable, "-m", "flyingchess", *command, "--data", str(data)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert "running at http://127.0.0.1:" in line, line + self.process.stderr.read()
        self.url = line.split("running at ")[1].split()[0].rstrip("/")

    def api(self, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data,
                                         headers={"Content-Type": "application/json"})
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
