"""Start the web app: open the store, bind a port, print the address, open a browser.

`flyingchess play` on loopback is the one mode where every page is the host's own;
`serve` and `play --lan` always ask pages for tokens (SECURITY.md has the threat model).
"""

from __future__ import annotations

import asyncio
import gc
import ipaddress
import logging
import os
import re
import signal
import socket
import sys
import threading
import time
import webbrowser
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import platformdirs
import uvicorn

from .. import metrics
from ..errors import StoreError
from ..limits import Limits
from ..logs import tell_operator, use_json_lines
from ..protocol import MAX_MESSAGE_BYTES
from ..storage.databases import open_database
from ..storage.store import SqliteStore
from .app import create_app
from .connections import ConnectionGuard, guarded_protocols, is_loopback, quiet_repeated_logs, raise_open_files_limit
from .guard import LOOPBACK_NAMES, HostPolicy
from .local import FolderLock, claim_folder, running_server

log = logging.getLogger("flyingchess.server")
DRAIN_SECONDS: Final = 10.0
"""The longest a process shutting down spends handing its rooms over."""
PING_SECONDS: Final = 1.0
"""The server pings every WebSocket this often: a load balancer then knows an open
connection is never quiet for long, and can give up on a handshake that gets no answer
within 1.5 s (a frozen process) without cutting open connections (docs/deploy.md)."""
PONG_SECONDS: Final = 20.0
"""A connection whose pong is this late is closed: the page is gone, or its network is."""
GC_THRESHOLDS = (20_000, 50, 100)
"""Young objects allocated before the collector runs (the default is 700), and how many
young and middle collections before an older one. A server makes and drops a few
hundred objects per move; at the default the collector ran a thousand times a second
and took an eighth of the event loop's time."""


def tune_garbage_collector() -> None:
    """Collect less often, and never re-examine what start-up built.

    Called once the application is built: everything alive then (modules, tables, the
    app) lives as long as the process, so `gc.freeze` moves it out of every later
    collection, which makes the rare full collection short. Cycles made while serving
    are still collected, by the same collector, in larger and rarer batches: the memory a
    busy server holds was unchanged in the load test (docs/deploy.md has the figures).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


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


@dataclass
class ServeOptions:
    """How `play` or `serve` was asked to run."""

    host: str = "127.0.0.1"
    port: int = 0
    data: Path | None = None
    open_browser: bool = False
    network: bool = False
    """Pages need tokens for seats (`serve`, `play --lan`); otherwise every page is the host."""
    database: str | None = None
    """A postgresql:// URL; None: SQLite in the data folder."""
    redis: str | None = None
    """A redis:// URL shared by several processes over one database."""
    lease_seconds: float | None = None
    """How long a room's owner may go silent before another process takes the room."""
    allowed_hosts: list[str] = field(default_factory=list)
    public_url: str | None = None
    trusted_proxies: list[str] = field(default_factory=list)
    metrics: tuple[str, int] | None = None
    """Where to serve the Prometheus metrics (an address and a port of their own)."""
    json_logs: bool = False
    """Log lines as JSON objects (`--log-format json`)."""


class OptionError(ValueError):
    """An option that cannot work (printed as one line, exit status 2)."""


def parse_metrics_address(text: str) -> tuple[str, int]:
    """`--metrics`: PORT (on 127.0.0.1), ADDRESS:PORT or [IPv6]:PORT."""
    address, _, port = text.strip().rpartition(":")
    address = address.strip("[]") or "127.0.0.1"
    try:
        number = int(port)
        ipaddress.ip_address(address)
    except ValueError:
        raise OptionError(
            f"--metrics must be PORT or ADDRESS:PORT (an IP address, such as 127.0.0.1:9100), not {text!r}"
        ) from None
    if not 1 <= number <= 65535:
        raise OptionError(f"--metrics: the port must be 1..65535, not {number}")
    return address, number


def parse_public_url(url: str) -> str:
    """`--public-url`: an http(s) address without a path, as invite links should use it."""
    parts = urlsplit(url.strip())
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path.strip("/")
        or parts.query
        or parts.fragment
        or parts.username
    ):
        raise OptionError(f"--public-url {url!r} must look like https://games.example.org (no path)")
    try:
        parts.port  # noqa: B018 - a port that is not a number raises ValueError
    except ValueError:
        raise OptionError(f"--public-url {url!r} has a port that is not a number") from None
    return f"{parts.scheme}://{parts.netloc}"


HOST_LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")


def parse_allowed_host(name: str) -> str:
    """`--allowed-host`: a host name (`games.example.org`), a pattern for its subdomains
    (`*.example.org`), `*` (any name: only behind a proxy that checks Host itself) or an
    IP address; no scheme, port or spaces."""
    text = name.strip().lower()
    if text == "*":
        return text
    text = text.rstrip(".")
    bare = text[2:] if text.startswith("*.") else text
    try:
        ipaddress.ip_address(bare.strip("[]"))
        if bare == text:
            return text
    except ValueError:
        labels = bare.split(".")
        if bare and len(bare) <= 253 and all(HOST_LABEL.fullmatch(label) for label in labels):
            return text
    raise OptionError(
        f"--allowed-host {name[:60]!r} is not a host name: give one like games.example.org or *.example.org"
        " (no scheme, port or spaces)"
    )


def parse_trusted_proxies(proxies: list[str]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """`--trusted-proxy`: addresses or networks (10.0.0.0/8), as uvicorn accepts them."""
    try:
        return [ipaddress.ip_network(proxy, strict=False) for proxy in proxies]
    except ValueError as error:
        raise OptionError(f"--trusted-proxy: {error}") from None


@dataclass(frozen=True)
class CheckedOptions:
    public_url: str | None
    allowed_hosts: list[str]
    trusted_networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network]


def check_options(options: ServeOptions) -> CheckedOptions:
    """Every option checked before anything starts or is printed: OptionError names the
    first that cannot work."""
    public_url = parse_public_url(options.public_url) if options.public_url else None
    allowed = [parse_allowed_host(name) for name in options.allowed_hosts]
    networks = parse_trusted_proxies(options.trusted_proxies)
    if options.redis and not options.database:
        raise OptionError(
            "--redis shares rooms between server processes over one database: give --database postgresql://..."
            " too (a SQLite file belongs to one process; docs/deploy.md)"
        )
    return CheckedOptions(public_url, allowed, networks)


def host_policy(options: ServeOptions, lans: list[str], public_url: str | None) -> HostPolicy:
    """The names this server answers to: loopback names always; on a network also its
    LAN addresses, this machine's name, the address it was bound to, the public URL's
    host and every --allowed-host."""
    names = set(LOOPBACK_NAMES)
    if options.network:
        names |= set(lans)
        hostname = socket.gethostname().lower()
        names |= {hostname, f"{hostname}.local"}
        if options.host not in ("0.0.0.0", "::"):
            names.add(options.host)
        names |= set(options.allowed_hosts)
        if public_url:
            names.add(urlsplit(public_url).hostname or "")
    return HostPolicy.of(names)


def _in_networks(address: str, networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def open_browser_soon(address: str) -> None:
    """Open the page once the server is listening; where this machine has no browser
    (a server, a container, SSH), say so instead of failing without a word."""
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        print(f"  no web browser found on this machine: open {address} in a browser yourself", flush=True)
        return

    def open_page() -> None:
        try:
            opened = browser.open(address)
        except (webbrowser.Error, OSError):
            opened = False
        if not opened:
            print(f"  the browser could not be opened: open {address} in a browser yourself", flush=True)

    threading.Timer(0.6, open_page).start()


def serve(options: ServeOptions) -> int:
    """Run until interrupted. Returns the exit status (2 when the store, port or an option fails)."""
    try:
        checked = check_options(options)
    except OptionError as error:
        print(f"flyingchess: {error}", file=sys.stderr)
        return 2
    public_url = checked.public_url
    options = replace(options, allowed_hosts=checked.allowed_hosts)
    folder = options.data if options.data is not None else default_data_dir()
    if options.redis:
        try:
            from ..cluster.nodes import ClusterError, check_reachable
        except ImportError as error:
            print(
                f"flyingchess: --redis needs the cluster extra ({error.name} is missing):"
                " pip install 'flyingchess[cluster]'",
                file=sys.stderr,
            )
            return 2
        try:
            check_reachable(options.redis)
        except ClusterError as error:
            print(f"flyingchess: {error}", file=sys.stderr)
            return 2
    local = options.host in LOOPBACK_NAMES and not options.network
    claim: FolderLock | None = None
    if not options.database:  # one server per data folder's SQLite file (local.py)
        try:
            claim = claim_folder(folder)
        except OSError:
            pass  # a folder that cannot be made: the store says why below
        else:
            if claim is None:
                return _join_running(folder, options.open_browser, local)
    try:
        store = open_database(options.database) if options.database else SqliteStore(folder / "games.sqlite3")
    except ImportError as error:
        print(
            f"flyingchess: --database needs the cluster extra ({error.name} is missing):"
            " pip install 'flyingchess[cluster]'",
            file=sys.stderr,
        )
        return 2
    except StoreError as error:
        if claim is not None:
            claim.close()
        print(f"flyingchess: {error}", file=sys.stderr)
        return 2
    host = options.host
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, options.port))
        sock.listen(1024)  # connections wait in the backlog until uvicorn has started
    except OSError as error:
        store.close()
        if claim is not None:
            claim.close()
        print(f"flyingchess: cannot listen on {host}:{options.port}: {error.strerror}", file=sys.stderr)
        return 2
    if options.metrics is not None:  # before saying it runs: a port taken is one line, status 2
        try:
            metrics.serve(*options.metrics, rooms_in_memory=lambda: len(app.state.rooms.rooms))
        except metrics.MetricsError as error:
            sock.close()
            store.close()
            if claim is not None:
                claim.close()
            print(f"flyingchess: {error}", file=sys.stderr)
            return 2
    bound = sock.getsockname()[1]
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    address = f"http://{shown}:{bound}/"
    saved = store.name if options.database else folder
    print(f"flyingchess is running at {address}  (games are saved in {saved}; Ctrl+C stops)", flush=True)
    if options.metrics is not None:
        print(f"  metrics for Prometheus at http://{options.metrics[0]}:{options.metrics[1]}/metrics", flush=True)
    lans = lan_addresses() if host in ("0.0.0.0", "::") else []
    for lan in lans:
        print(f"  on your network: http://{lan}:{bound}/", flush=True)
    invite_base = f"http://{lans[0]}:{bound}" if lans else None
    limits = Limits()
    trusted = set(options.trusted_proxies)
    networks = checked.trusted_networks
    guard = ConnectionGuard(
        limits.connections_per_address,
        limits.header_seconds,
        exempt=lambda peer: is_loopback(peer) or _in_networks(peer, networks),
    )
    http_protocol, ws_protocol = guarded_protocols(guard)
    app = create_app(
        store,
        redis_url=options.redis,
        lease_seconds=options.lease_seconds,
        limits=limits,
        local=local,
        invite_base=invite_base,
        public_url=public_url,
        hosts=host_policy(options, lans, public_url),
    )
    cluster = getattr(app.state.rooms, "cluster", None)
    if cluster is not None:
        print(f"  sharing rooms over Redis as process {cluster.node}", flush=True)
    log_level = os.environ.get("FLYINGCHESS_LOG", "warning")
    if options.json_logs:
        use_json_lines(log_level)
    config = uvicorn.Config(
        app,
        log_level=log_level,
        log_config=None if options.json_logs else uvicorn.config.LOGGING_CONFIG,
        http=http_protocol,
        ws=ws_protocol,
        ws_max_size=MAX_MESSAGE_BYTES,
        ws_per_message_deflate=False,  # compressing each update per connection costs more than it saves
        ws_ping_interval=PING_SECONDS,
        ws_ping_timeout=PONG_SECONDS,
        proxy_headers=bool(trusted),
        forwarded_allow_ips=",".join(sorted(trusted)) or None,
        server_header=False,
        timeout_keep_alive=5,
    )
    raise_open_files_limit()
    quiet_repeated_logs()
    server = DrainingServer(config, app)
    tune_garbage_collector()
    if claim is not None:
        claim.publish(address, network=not local)
    if options.open_browser:
        open_browser_soon(address)
    # uvicorn stops gracefully on SIGTERM, then raises the signal again: to this handler,
    # so the process exits 0 after the clean-up below instead of dying of the signal
    signal.signal(signal.SIGTERM, _stopped_by_signal)
    try:
        server.run(sockets=[sock])
    except SystemExit as stopped:
        if stopped.code != 0:
            raise
    finally:
        app.state.store.close()  # commit the writes still queued, then close the database
        store.close()
        if claim is not None:
            claim.close()
    tell_operator("flyingchess stopped: every change is saved")
    return 0


def _join_running(folder: Path, open_browser: bool, local: bool) -> int:
    """Another process serves this data folder: a local `play` opens its page (when it
    is a local one too), anything else stops with one line; never a second server over
    the same file (local.py)."""
    running = running_server(folder)
    if running is None:
        print(f"flyingchess: another flyingchess holds {folder} but does not answer", file=sys.stderr)
        return 2
    if not local or running.network:
        print(
            f"flyingchess: another flyingchess serves {folder} (process {running.pid}, {running.address}):"
            " stop it, or give --data another folder",
            file=sys.stderr,
        )
        return 2
    print(f"flyingchess is already running at {running.address}  (for {folder}): opening it", flush=True)
    if open_browser:
        open_browser_soon(running.address)
    return 0


def _stopped_by_signal(signum: int, frame: object) -> None:
    raise SystemExit(0)


class DrainingServer(uvicorn.Server):
    """uvicorn's server, shutting down (SIGTERM, Ctrl+C) the way a game server must: it
    stops taking connections, hands its rooms over (each finishes the change under way;
    with several processes the others take them, docs/deploy.md), and only then closes
    what is still open and commits what is still queued."""

    def __init__(self, config: uvicorn.Config, app: Any) -> None:
        super().__init__(config)
        self.app = app

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()  # no new connection: a balancer sends them to the other processes
        for sock in sockets or []:
            sock.close()
        self.app.state.shutting_down = True
        # No garbage collection while the rooms are handed over: the process is about to
        # exit, and dropping hundreds of rooms set off full collections of 300-600 ms
        # (measured in a rolling restart), during which the rooms' pages and the process
        # taking them over waited.
        gc.disable()
        rooms = sum(not room.lost for room in self.app.state.rooms.rooms.values())
        began = time.monotonic()
        try:
            await asyncio.wait_for(self.app.state.rooms.drain(), DRAIN_SECONDS)
        except TimeoutError:
            log.warning("handing the rooms over took more than %s s; closing anyway", DRAIN_SECONDS)
        else:
            if getattr(self.app.state.rooms, "cluster", None) is not None:  # alone, nobody takes them
                took = time.monotonic() - began
                tell_operator(f"flyingchess: handed {rooms} room{'' if rooms == 1 else 's'} over in {took:.2f} s")
        await super().shutdown(sockets)


def serve_static_site(folder: Path, host: str, port: int, open_browser: bool) -> int:
    """Serve a static site built by `flyingchess build-site` as any static host would
    (its files, compressed), until interrupted: the game plays in the page itself."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.gzip import GZipMiddleware
    from starlette.routing import Mount
    from starlette.staticfiles import StaticFiles

    app = Starlette(
        routes=[Mount("/", StaticFiles(directory=folder, html=True))],
        middleware=[Middleware(GZipMiddleware, minimum_size=1024)],
    )
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as error:
        print(f"flyingchess: cannot listen on {host}:{port}: {error.strerror}", file=sys.stderr)
        return 2
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    address = f"http://{shown}:{sock.getsockname()[1]}/"
    print(f"flyingchess (static site, {folder}) is running at {address}  (Ctrl+C stops)", flush=True)
    if open_browser:
        open_browser_soon(address)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", server_header=False)).run(sockets=[sock])
    return 0
