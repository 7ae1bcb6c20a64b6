"""What an operator reads from a running server: Prometheus metrics on an address of
their own (never on the game's port) and log lines as JSON, from a real process."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from flyingchess.server.launch.loopback import free_port

from servers import Server, refused_start

pytestmark = [pytest.mark.server, pytest.mark.slow]  # starts server processes


def scrape(port: int) -> dict[str, float]:
    """The samples of a /metrics page, by name with labels."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    return samples


def test_metrics_count_play_on_their_own_port_and_logs_are_json_lines(tmp_path: Path) -> None:
    port = free_port()
    server = Server(tmp_path, network=True, options=["--metrics", f"127.0.0.1:{port}", "--log-format", "json"])
    try:
        created = server.api("/api/games", {"players": ["red", "blue"]})
        with server.socket(created["id"]) as page:
            page.recv(timeout=10)
            page.send(json.dumps({"type": "hello", "token": created["host_token"]}))
            game = created["game"]
            while game["actions"] < 1:  # a 6 waits for its move before it is an action
                if game["phase"] == "roll":
                    page.send(json.dumps({"type": "roll"}))
                else:
                    page.send(json.dumps({"type": "move", "plane": game["moves"][0]["plane"]}))
                while (reply := json.loads(page.recv(timeout=10)))["type"] != "update" or not reply["events"]:
                    pass
                game = reply["game"]
            page.send(json.dumps({"type": "move", "plane": 9}))  # refused: no such plane
            while json.loads(page.recv(timeout=10))["type"] != "error":
                pass
            during = scrape(port)
        assert during["flyingchess_pages"] == 1
        assert during["flyingchess_rooms"] == 1
        assert during["flyingchess_actions_total"] == game["actions"] >= 1
        assert during["flyingchess_request_seconds_count"] >= 2
        assert (
            during['flyingchess_refusals_total{code="bad-message"}']
            + during.get('flyingchess_refusals_total{code="illegal-move"}', 0)
            == 1
        )
        assert during["flyingchess_storage_batch_writes_count"] >= 1
        assert during["process_resident_memory_bytes"] > 0
        time.sleep(0.2)
        assert scrape(port)["flyingchess_pages"] == 0  # the page left
        with pytest.raises(urllib.error.HTTPError) as not_here:  # never on the game's own port
            urllib.request.urlopen(server.url + "/metrics", timeout=10)
        assert not_here.value.code == 404
        with socket.create_connection(("127.0.0.1", server.port)) as garbage:  # uvicorn logs a warning
            garbage.sendall(b"NOT HTTP AT ALL\r\n\r\n")
            garbage.recv(100)
        time.sleep(0.3)
    finally:
        server.stop()
    lines = [line for line in server.log().splitlines() if line.strip()]
    assert lines, "nothing was logged"
    for line in lines:
        record = json.loads(line)  # every log line is one JSON object, how the shutdown went too
        assert {"time", "level", "logger", "message"} <= set(record)
    assert "flyingchess stopped: every change is saved" in [json.loads(line)["message"] for line in lines]
    assert any(json.loads(line)["logger"].startswith("uvicorn") for line in lines if line.startswith("{"))


def test_a_metrics_address_that_cannot_be_used_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        finished = refused_start(tmp_path, "--metrics", f"127.0.0.1:{port}")
    assert finished.stderr.startswith(f"flyingchess: cannot serve metrics on 127.0.0.1:{port}")
    assert "--metrics must be PORT or ADDRESS:PORT" in refused_start(tmp_path, "--metrics", "example.org:9100").stderr
