"""Start the web app: open the store, bind a port, print the address, open a browser."""

from __future__ import annotations

import os
import socket
import sys
import threading
import webbrowser
from pathlib import Path

import platformdirs
import uvicorn

from .app import create_app
from .store import Store, StoreError


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("flyingchess", appauthor=False))


def lan_addresses() -> list[str]:
    """This machine's own IPv4 addresses other than loopback, from its network interfaces
    (psutil) or, without psutil, the resolver. Nothing is sent on the network."""
    found: set[str] = set()
    try:
        import psutil
        for addresses in psutil.net_if_addrs().values():
            found |= {a.address for a in addresses if a.family == socket.AF_INET}
    except ImportError:
        try:
            found = {str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
        except OSError:
            return []
    return sorted(address for address in found if not address.startswith(("127.", "169.254.")))


def serve(host: str, port: int, data: Path | None, open_browser: bool, network: bool = False) -> int:
    """Run until interrupted. Returns the exit status (2 when the store or port fails)."""
    folder = data if data is not None else default_data_dir()
    try:
        store = Store(folder / "games.sqlite3")
    except StoreError as error:
        print(f"flyingchess: {error}", file=sys.stderr)
        return 2
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)  # connections wait in the backlog until uvicorn has started
    except OSError as error:
        print(f"flyingchess: cannot listen on {host}:{port}: {error.strerror}", file=sys.stderr)
        return 2
    bound = sock.getsockname()[1]
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    address = f"http://{shown}:{bound}/"
    print(f"flyingchess is running at {address}  (games are saved in {folder}; Ctrl+C stops)",
          flush=True)
    invite_base = None
    if host in ("0.0.0.0", "::"):
        lans = lan_addresses()
        for lan in lans:
            print(f"  on your network: http://{lan}:{bound}/", flush=True)
        invite_base = f"http://{lans[0]}:{bound}" if lans else None
    local = host in ("127.0.0.1", "localhost", "::1") and not network
    config = uvicorn.Config(create_app(store, local=local, invite_base=invite_base), log_level=os.environ.get("FLYINGCHESS_LOG", "warning"),
                            ws="websockets-sansio", ws_per_message_deflate=False)
    # (compressing each update once per connection costs more CPU than it saves on a LAN)
    server = uvicorn.Server(config)
    if open_browser:
        threading.Timer(0.6, webbrowser.open, args=(address,)).start()
    try:
        server.run(sockets=[sock])
    finally:
        store.close()
    return 0
