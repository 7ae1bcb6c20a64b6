"""PostgreSQL, Redis and nginx of their own, for benchmarks and tests: each started from
Debian's packages on a free loopback port in a temporary folder (never the system
services), and stopped afterwards. PostgreSQL refuses to run as root, so as root it runs
as the unprivileged `postgres` user the Debian package creates.

`missing(...)` names the programs that are not installed (and the packages to install);
the tests skip or fail on it (tests/services.py), the benchmarks stop with one line.
The nginx configuration is the one docs/deploy.md documents (`NGINX_PROXY`).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

PACKAGES = {"postgres": "postgresql", "redis": "redis-server", "nginx": "nginx"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def postgres_binary(name: str) -> str:
    """The path of one of PostgreSQL's programs (pg_dump, pg_restore, ...) from the
    installed server's version, so that it reads what that server writes."""
    binaries = _postgres_bin()
    found = binaries / name if binaries is not None else None
    return str(found) if found is not None and found.exists() else (shutil.which(name) or name)


def available(service: str) -> bool:
    if service == "postgres":
        return _postgres_bin() is not None
    return shutil.which({"redis": "redis-server", "nginx": "nginx"}[service]) is not None


def missing(*services: str) -> str | None:
    """None when every named service's program is installed, else one line saying
    which are missing and the Debian packages that bring them."""
    absent = [service for service in services if not available(service)]
    if not absent:
        return None
    packages = " ".join(PACKAGES[service] for service in absent)
    return f"needs {', '.join(absent)}: apt-get install {packages}"


def _wait_for_port(port: int, process: subprocess.Popen[bytes] | None, what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{what} exited with status {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on port {port}")


class Postgres:
    """A PostgreSQL cluster of its own (initdb), trusting loopback connections."""

    def __init__(self) -> None:
        binaries = _postgres_bin()
        assert binaries is not None
        self.folder = Path(tempfile.mkdtemp(prefix="flyingchess-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.user = "flyingchess"
        as_root = os.geteuid() == 0
        owner = pwd.getpwnam("postgres") if as_root else None
        if owner is not None:
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
        self._run([str(binaries / "initdb"), "-D", str(self.data), "-U", self.user, "--auth=trust", "-E", "UTF8"])
        options = f"-p {self.port} -k {self.folder} -h 127.0.0.1 -c fsync=off -c synchronous_commit=off"
        self._run(
            [
                str(binaries / "pg_ctl"),
                "-D",
                str(self.data),
                "-o",
                options,
                "-l",
                str(self.folder / "log"),
                "-w",
                "start",
            ]
        )
        self.pg_ctl = binaries / "pg_ctl"
        self.url = f"postgresql://{self.user}@127.0.0.1:{self.port}/postgres"

    def _run(self, command: Sequence[str]) -> None:
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def stop(self) -> None:
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            self._run([str(self.pg_ctl), "-D", str(self.data), "-m", "immediate", "stop"])
        shutil.rmtree(self.folder, ignore_errors=True)

    def pause(self) -> None:
        """Stop the server (the database keeps its data) to test a lost database."""
        self._run([str(self.pg_ctl), "-D", str(self.data), "-m", "fast", "stop"])

    def resume(self) -> None:
        options = f"-p {self.port} -k {self.folder} -h 127.0.0.1 -c fsync=off -c synchronous_commit=off"
        self._run(
            [str(self.pg_ctl), "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "start"]
        )


class Redis:
    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="flyingchess-redis-"))
        self.port = free_port()
        self.start()
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                shutil.which("redis-server") or "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
                "--protected-mode",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_for_port(self.port, self.process, "redis-server")

    def kill(self) -> None:
        """Redis goes away (its data with it: nothing is saved)."""
        self.process.kill()
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)


NGINX_MAP: Final = "map $http_upgrade $connection_upgrade { default upgrade; '' ''; }"
"""Connection: upgrade for a WebSocket, nothing for HTTP (in nginx's `http` block)."""
NGINX_UPSTREAM_SERVER: Final = "server {address} max_fails=3 fail_timeout=2s;"
"""One process in the upstream for pages and the API: three failures (refused, reset, timed
out, 503) within 2 s take it out of the rotation for 2 s, after which one request tries it
again. Short, because a restarted process is back within a second or two, and while
every process is out nginx answers 502 to everyone; three, so that one slow answer on a
busy machine does not take a healthy process out."""
NGINX_SOCKET_SERVER: Final = "server {address} max_fails=0;"
"""One process in the upstream for WebSockets: never taken out (a handshake that times out
is still asked of the next process). When 2,000 pages reconnect at once a busy process
answers some handshakes late; counted as failures, they took every process out and nginx
answered 502 to everyone, again and again."""
NGINX_ZONE: Final = "zone flyingchess 64k;"
"""In the upstream: every nginx worker shares one view of which processes are failing."""
NGINX_SOCKET_ZONE: Final = "zone flyingchess_sockets 64k;"
NGINX_PROXY: Final = """\
proxy_http_version 1.1;
proxy_set_header Host $http_host;
proxy_set_header X-Forwarded-For $remote_addr;
proxy_set_header X-Forwarded-Proto $scheme;
proxy_set_header Upgrade $http_upgrade;
proxy_set_header Connection $connection_upgrade;
proxy_connect_timeout 1s;
proxy_next_upstream error timeout http_502 http_503;
location / {
    proxy_pass http://flyingchess;
    proxy_read_timeout 1500ms;
}
location /ws/ {
    proxy_pass http://flyingchess_sockets;
    proxy_read_timeout 1500ms;
}
location ~ ^/api/(stats|games/[^/]+/(chances|hint|analysis))$ {
    proxy_pass http://flyingchess;
    proxy_read_timeout 30s;
}"""
"""The proxying part of the documented nginx configuration (in its `server` block; docs/
deploy.md shows it whole). A process that has not answered within 1.5 s (a page, the API,
a WebSocket handshake: the server pings every connection each second, so an open one is
never quiet that long) is taken for failing and the request goes to another
process, if it is one a retry cannot harm (GET, or a handshake); the answers that
compute (win chances, hints, analysis, statistics) get 30 s."""


def _indented(text: str, spaces: int) -> str:
    return "\n".join(" " * spaces + line if line else line for line in text.splitlines())


class Nginx:
    """nginx balancing HTTP and WebSockets over `upstreams` (ports on 127.0.0.1), with the
    documented configuration (`NGINX_PROXY`).

    `clients_on_loopback_are_proxies` makes nginx believe the X-Forwarded-For of a
    loopback client (the realip module), as it would behind another trusted proxy: the
    load benchmark speaks for thousands of players from one address that way.
    """

    def __init__(self, upstreams: Sequence[int], *, clients_on_loopback_are_proxies: bool = False) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="flyingchess-nginx-"))
        self.port = free_port()
        servers = "\n".join(
            "        " + NGINX_UPSTREAM_SERVER.format(address=f"127.0.0.1:{port}") for port in upstreams
        )
        socket_servers = "\n".join(
            "        " + NGINX_SOCKET_SERVER.format(address=f"127.0.0.1:{port}") for port in upstreams
        )
        temp = self.folder
        real_ip = (
            "set_real_ip_from 127.0.0.1; real_ip_header X-Forwarded-For;" if clients_on_loopback_are_proxies else ""
        )
        config = f"""
pid {temp}/nginx.pid;
error_log {temp}/error.log warn;
worker_processes 1;
events {{ worker_connections 8192; }}
http {{
    access_log off;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    client_max_body_size 1m;
    {NGINX_MAP}
    upstream flyingchess {{
        {NGINX_ZONE}
{servers}
    }}
    upstream flyingchess_sockets {{
        {NGINX_SOCKET_ZONE}
{socket_servers}
    }}
    server {{
        listen 127.0.0.1:{self.port};
        {real_ip}
{_indented(NGINX_PROXY, 8)}
    }}
}}
"""
        (self.folder / "nginx.conf").write_text(config)
        self.process = subprocess.Popen(
            [shutil.which("nginx") or "/usr/sbin/nginx", "-c", str(self.folder / "nginx.conf"), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        _wait_for_port(self.port, self.process, "nginx")
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)
