"""Attacks that only show against a real server: a real `flyingchess serve` process, or
uvicorn with the project's own connection guard, spoken to over loopback sockets.

Oversized bodies and frames, idle and half-open connections, running out of files, a
damaged database at start: each is refused or survived, the players keep playing, and
the server's log says so in a line, not a traceback per attempt."""

from __future__ import annotations

import gc
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from websockets.exceptions import ConnectionClosed

from flyingchess.server.limits import Limits
from flyingchess.server.storage.store import SqliteStore, StoredGame
from flyingchess.server.transport.app import create_app
from flyingchess.server.transport.connections import ConnectionGuard, OncePerMinute, guarded_protocols

from servers import Server, refused_start

pytestmark = [pytest.mark.server, pytest.mark.slow]


@pytest.fixture()
def network(tmp_path: Path) -> Iterator[Server]:
    server = Server(tmp_path / "data", network=True, options=["--allowed-host", "games.example.org"])
    yield server
    server.stop()


def raw_request(port: int, head: str, body: bytes = b"", wait: float = 10.0) -> bytes:
    """Send bytes as they are (no client library tidying them) and read the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as connection:
        connection.sendall(head.replace("\n", "\r\n").encode() + b"\r\n" + body)
        answer = b""
        while True:
            try:
                chunk = connection.recv(65536)
            except (TimeoutError, ConnectionResetError):
                break
            if not chunk:
                break
            answer += chunk
    return answer


def status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


def new_game(port: int) -> dict[str, Any]:
    """A game made with the defaults, as a page makes one (`POST /api/games`)."""
    head = "POST /api/games HTTP/1.1\nHost: localhost\nContent-Type: application/json\nContent-Length: 2\nConnection: close\n"
    game: dict[str, Any] = json.loads(raw_request(port, head, b"{}").split(b"\r\n\r\n", 1)[1])
    return game


def test_host_names_on_a_real_server(network: Server) -> None:
    port = network.port
    evil = raw_request(port, f"GET /api/meta HTTP/1.1\nHost: evil.example:{port}\nConnection: close\n")
    assert status(evil) == 400 and b"bad-host" in evil
    allowed = raw_request(port, "GET /api/meta HTTP/1.1\nHost: games.example.org\nConnection: close\n")
    assert status(allowed) == 200


def test_a_declared_huge_body_is_refused_before_it_is_read(network: Server) -> None:
    import psutil

    before = psutil.Process(network.process.pid).memory_info().rss
    answers = []
    for _ in range(4):
        answers.append(
            raw_request(
                network.port,
                (
                    f"POST /api/records HTTP/1.1\nHost: 127.0.0.1:{network.port}\nContent-Type: application/json\n"
                    "Content-Length: 300000000\n"
                ),
                body=b"{" * 1_000_000,
            )
        )
    assert all(status(answer) == 413 and b"too-large" in answer for answer in answers)
    grown = psutil.Process(network.process.pid).memory_info().rss - before
    assert grown < 50_000_000, f"the server grew by {grown} bytes"
    assert network.api("/api/meta")["version"]


def test_an_oversized_websocket_frame_closes_the_connection(network: Server) -> None:
    game = network.api("/api/games", {"players": ["red", "blue"]})
    with network.socket(game["id"]) as page:
        assert json.loads(page.recv(timeout=10))["type"] == "snapshot"
        page.send("x" * 100_000)
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                page.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    with network.socket(game["id"]) as page:  # the server is unharmed
        assert json.loads(page.recv(timeout=10))["type"] == "snapshot"


def test_running_out_of_files_keeps_players_playing_and_the_log_short(tmp_path: Path) -> None:
    """1,100 connections against a server allowed only 200 open files: half of them idle,
    half with a request line never finished. The player already connected keeps playing;
    the accept failures are logged once, not once per attempt; a new player gets in as
    soon as the attacker lets go."""
    server = Server(tmp_path / "data", network=True, open_files=200)
    try:
        game = server.api("/api/games", {"players": ["red", "blue"]})
        with server.socket(game["id"]) as page:
            json.loads(page.recv(timeout=10))
            page.send(json.dumps({"type": "hello", "token": game["host_token"]}))
            attack = []
            for n in range(1_100):
                try:
                    connection = socket.create_connection(("127.0.0.1", server.port), timeout=2)
                except OSError:
                    continue
                if n % 2:
                    connection.sendall(b"GET /api/meta HT")
                attack.append(connection)
            time.sleep(1.5)  # let the server hit its limit and retry accepting
            page.send(json.dumps({"type": "roll"}))
            seen = [json.loads(page.recv(timeout=10))["type"] for _ in range(3)]
            assert "update" in seen
            for connection in attack:
                connection.close()
        time.sleep(1.2)
        assert server.api("/api/games", {"players": ["red", "blue"]})["id"]
        log = server.log()
        assert log.count("Too many open files") <= 3, log[-3000:]
        assert len(log) < 20_000, f"{len(log)} bytes of log"
    finally:
        server.stop()


def test_a_damaged_database_stops_the_server_with_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = SqliteStore(data / "games.sqlite3")
    for n in range(400):
        store.create(
            StoredGame.new(
                f"game{n}",
                "classic",
                ["red", "blue"],
                {"red": {"kind": "human"}, "blue": {"kind": "human"}},
                extra={"note": "x" * 200},
                actions=[(1, None)] * 20,
            )
        )
    store.close()
    path = data / "games.sqlite3"
    with open(path, "r+b") as handle:  # overwrite the middle of the file
        size = handle.seek(0, 2)
        handle.seek(size // 2)
        handle.write(b"\xde\xad\xbe\xef" * 4096)
    finished = refused_start(data)
    lines = finished.stderr.strip().splitlines()
    assert len(lines) == 1 and "games.sqlite3" in lines[0] and "Traceback" not in finished.stderr
    assert finished.stdout == ""


# ---------------------------------------------------------------- the connection guard in uvicorn


class GuardedServer:
    """uvicorn in a thread with the project's protocols and a small guard."""

    def __init__(self, tmp_path: Path, guard: ConnectionGuard) -> None:
        self.store = SqliteStore(tmp_path / "games.sqlite3")
        http, ws = guarded_protocols(guard)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(create_app(self.store, limits=Limits()), http=http, ws=ws, log_level="critical")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.store.close()


@pytest.fixture()
def guarded(tmp_path: Path) -> Iterator[tuple[GuardedServer, ConnectionGuard]]:
    guard = ConnectionGuard(per_address=4, header_seconds=0.5, exempt=lambda address: False)
    server = GuardedServer(tmp_path, guard)
    yield server, guard
    server.stop()


def closed_soon(connection: socket.socket, within: float) -> bool:
    connection.settimeout(within)
    try:
        return connection.recv(1024) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_one_address_may_hold_only_so_many_connections(guarded: Any) -> None:
    server, guard = guarded
    held = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(4)]
    extra = socket.create_connection(("127.0.0.1", server.port))
    assert closed_soon(extra, 2.0) and guard.refused >= 1
    for connection in held + [extra]:
        connection.close()
    time.sleep(0.2)
    assert status(raw_request(server.port, "GET /api/meta HTTP/1.1\nHost: localhost\nConnection: close\n")) == 200


def test_headers_that_never_arrive_are_cut_off(guarded: Any) -> None:
    server, guard = guarded
    silent = socket.create_connection(("127.0.0.1", server.port))
    partial = socket.create_connection(("127.0.0.1", server.port))
    partial.sendall(b"GET /api/meta HTTP/1.1\r\nHost: local")
    assert closed_soon(silent, 3.0) and closed_soon(partial, 3.0)
    assert not guard.open  # both released
    # a request that arrives in time, and a WebSocket that stays open for long, are fine
    answer = raw_request(server.port, "GET /api/meta HTTP/1.1\nHost: localhost\nConnection: close\n")
    assert status(answer) == 200
    from websockets.sync.client import connect

    game = new_game(server.port)
    with connect(f"ws://127.0.0.1:{server.port}/ws/{game['id']}", open_timeout=5) as page:
        page.recv(timeout=5)
        time.sleep(1.2)
        page.send(json.dumps({"type": "sync"}))
        assert json.loads(page.recv(timeout=5))["type"] == "snapshot"


def test_a_page_that_leaves_is_freed_at_once_not_by_the_garbage_collector(guarded: Any) -> None:
    """Everything a page's connection holds (its protocol, transport, outbox and tasks) is
    freed when the page leaves, by reference counting alone. A cycle through it left
    thousands of connections to the collector in a reconnection storm, and its
    collections stopped the event loop for tens of milliseconds each (the rolling restart
    in docs/benchmarks.md, The cluster)."""
    from websockets.sync.client import connect

    from flyingchess.server.transport.outbox import Outbox

    server, guard = guarded
    game = new_game(server.port)

    def pages_in_memory() -> int:
        return sum(1 for thing in gc.get_objects() if type(thing) is Outbox)

    gc.collect()
    gc.disable()  # what is still in memory below was not freed by reference counting
    try:
        for _ in range(12):
            with connect(f"ws://127.0.0.1:{server.port}/ws/{game['id']}", open_timeout=5) as page:
                page.recv(timeout=5)
                page.send(json.dumps({"type": "sync"}))
                assert json.loads(page.recv(timeout=5))["type"] == "snapshot"
        deadline = time.monotonic() + 5
        while (guard.open or pages_in_memory()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not guard.open  # every connection has closed on the server's side
        assert pages_in_memory() == 0
    finally:
        gc.enable()


def test_a_handshake_nobody_waits_for_any_more_costs_the_room_nothing(guarded: Any) -> None:
    """In a process that is behind, a balancer gives up on a handshake (504) and closes
    its side before the process gets to it; the process then skips finding the room and
    sending it the game (connections.client_gone), and counts it."""
    from websockets.sync.client import connect

    from flyingchess.server import metrics

    server, _guard = guarded
    game = new_game(server.port)

    def abandoned() -> float:
        return metrics.REGISTRY.get_sample_value("flyingchess_handshakes_abandoned_total") or 0.0

    before = abandoned()
    loop = server.server.servers[0].get_loop()
    loop.call_soon_threadsafe(time.sleep, 1.0)  # the process is busy for a second
    upgrade = (
        f"GET /ws/{game['id']} HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", server.port)) as waiting:
        waiting.sendall(upgrade.encode())
    deadline = time.monotonic() + 5  # the client gave up and left before the process got to it
    while abandoned() == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert abandoned() == before + 1
    with connect(f"ws://127.0.0.1:{server.port}/ws/{game['id']}", open_timeout=5) as page:
        assert json.loads(page.recv(timeout=5))["type"] == "snapshot"  # a page that waits is served
    assert abandoned() == before + 1


def test_a_repeated_failure_is_logged_once_with_a_count() -> None:
    logger = logging.getLogger("flyingchess.test-repeats")
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    logger.addHandler(Keep())
    quiet = OncePerMinute(window=0.3)
    logger.addFilter(quiet)
    logger.propagate = False
    for _ in range(500):
        logger.error("socket.accept() out of system resource")
    logger.error("something else")
    assert records == ["socket.accept() out of system resource", "something else"]
    time.sleep(0.35)
    logger.error("socket.accept() out of system resource")
    assert records[-1] == "socket.accept() out of system resource (and 499 more like it in the last minute)"
