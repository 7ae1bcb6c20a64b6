"""One loopback server per data folder, shared by the browser and the terminal.

A data folder's SQLite file is played by one server process at a time: a second server
over the same file would keep its own copy of a room in memory, and the two would refuse
each other's moves. So the process serving a folder on loopback (`flyingchess play`, or
the server a terminal game starts for itself) holds an exclusive lock on the folder's
`server.lock` for as long as it runs and writes its address into `server.json`. Whoever
comes next asks `running_address` and joins that server instead of starting another: a
game begun in the browser goes on in the terminal, live, and back. The lock is the
operating system's (`flock`): a process that dies lets go of it, so a stale
`server.json` is never believed.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
import urllib.request
from pathlib import Path
from typing import IO, Final, NamedTuple

try:
    import fcntl
except ImportError:  # Windows: no sharing between processes, each starts its own
    fcntl = None  # type: ignore[assignment]

LOCK_FILE: Final = "server.lock"
ADDRESS_FILE: Final = "server.json"
START_SECONDS: Final = 15.0
"""How long a server started here may take to answer before the start counts as failed."""


class FolderLock:
    """The claim of one process on a data folder's loopback server (see the module's
    docstring); released when closed or when the process ends."""

    def __init__(self, handle: IO[str], folder: Path) -> None:
        self.handle = handle
        self.folder = folder

    def publish(self, address: str, network: bool = False) -> None:
        """Say where this process serves the folder (after it listens), and whether it
        serves it for a network (pages prove their seats with tokens: not a local game's)."""
        note = self.folder / ADDRESS_FILE
        temporary = note.with_suffix(".tmp")
        said = {"address": address, "pid": os.getpid(), "network": network}
        temporary.write_text(json.dumps(said), encoding="utf-8")
        temporary.replace(note)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            (self.folder / ADDRESS_FILE).unlink()
        self.handle.close()  # lets go of the lock


def claim_folder(folder: Path) -> FolderLock | None:
    """The folder's lock for this process, or None while another process holds it."""
    folder.mkdir(parents=True, exist_ok=True)
    handle = (folder / LOCK_FILE).open("a+", encoding="utf-8")
    if fcntl is not None:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return None
    return FolderLock(handle, folder)


class Running(NamedTuple):
    """The server another process runs for a data folder."""

    address: str
    pid: int
    network: bool


def running_server(folder: Path, wait: float = 2.0) -> Running | None:
    """The server another process runs for this folder, if one does and answers (it may
    have just taken the lock and not yet said where it listens)."""
    if fcntl is None:
        return None
    lock = claim_folder(folder)
    if lock is not None:  # nobody serves it
        lock.handle.close()
        return None
    deadline = time.monotonic() + wait
    while True:
        found = _published(folder)
        if found is not None and answers(found.address):
            return found
        if time.monotonic() > deadline:
            return None
        time.sleep(0.05)


def running_address(folder: Path, wait: float = 2.0) -> str | None:
    found = running_server(folder, wait)
    return found.address if found is not None else None


def _published(folder: Path) -> Running | None:
    try:
        said = json.loads((folder / ADDRESS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(said, dict):
        return None
    address, pid = said.get("address"), said.get("pid")
    if not (isinstance(address, str) and address.startswith("http://") and isinstance(pid, int)):
        return None
    return Running(address, pid, said.get("network") is True)


def answers(address: str, timeout: float = 1.0) -> bool:
    """Whether a flyingchess server answers at `address` (its `/api/meta`)."""
    try:
        with urllib.request.urlopen(f"{address.rstrip('/')}/api/meta", timeout=timeout) as reply:
            return bool(reply.status == 200)
    except (OSError, ValueError):
        return False


class ThreadServer:
    """The local server in a thread of this process, for a terminal game that found
    none running: the same app `flyingchess play` serves (every page on loopback is the
    host), over the folder's SQLite file, on a free loopback port, with the folder's
    lock held until `stop`."""

    def __init__(self, folder: Path, lock: FolderLock) -> None:
        import uvicorn

        from ..limits import Limits
        from ..protocol import MAX_MESSAGE_BYTES
        from ..storage.store import SqliteStore
        from .app import create_app
        from .run import DrainingServer

        self.lock = lock
        self.store = SqliteStore(folder / "games.sqlite3")
        self.app = create_app(self.store, limits=Limits(), local=True)
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(128)
        self.address = f"http://127.0.0.1:{self.socket.getsockname()[1]}/"
        config = uvicorn.Config(
            self.app, log_level="error", log_config=None, ws_max_size=MAX_MESSAGE_BYTES, server_header=False
        )
        self.server = DrainingServer(config, self.app)  # SIGTERM's way: rooms finish and hand over
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, name="flyingchess server", daemon=True
        )

    def start(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + START_SECONDS
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise OSError("the local game server did not start")
            time.sleep(0.02)
        self.lock.publish(self.address)
        return self.address

    def stop(self) -> None:
        """Stop serving: the rooms hand over what is queued and the store is closed
        (every move is saved), then the lock goes."""
        self.server.should_exit = True
        self.thread.join(30)
        if self.thread.is_alive():  # never close the store under a server still writing
            raise OSError("the local game server did not stop in 30 s")
        self.app.state.store.close()
        self.store.close()
        self.socket.close()
        self.lock.close()

    def pages(self) -> int:
        """Pages connected to its rooms now (a browser's, another terminal's)."""
        rooms = self.app.state.rooms.rooms.values()
        return sum(len(room.presence.watchers) for room in rooms)


class ServedForNetwork(OSError):
    """The folder's server runs for a network: its games belong to pages with tokens."""


def local_server(folder: Path) -> tuple[str, ThreadServer | None]:
    """The address of the folder's local server: the running one, else one started in
    a thread here (returned too, to be stopped at the end). `ServedForNetwork` when the
    folder's server is a network one (`serve`, `play --lan`)."""
    for _ in range(3):  # the lock can change hands between the two questions
        found = running_server(folder)
        if found is not None and found.network:
            raise ServedForNetwork(
                f"flyingchess serves {folder} for a network (process {found.pid}, {found.address}):"
                " play its games with `flyingchess join`, or stop it, or give --data another folder"
            )
        if found is not None:
            return found.address, None
        lock = claim_folder(folder)
        if lock is not None:
            server = ThreadServer(folder, lock)
            return server.start(), server
    raise OSError(f"another program holds {folder / LOCK_FILE} but does not answer")
