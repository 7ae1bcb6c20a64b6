"""Several `flyingchess serve` processes over a real Redis and PostgreSQL, alone and behind
a real nginx: pages on any process play the same game; a process killed (SIGKILL) or
frozen past its lease (SIGSTOP) loses nothing, applies nothing twice, and its pages
carry on from another process after reconnecting."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from flyingchess.records.fair_dice import verify_rolls
from flyingchess.server.rooms.session import load
from flyingchess.server.storage.databases import open_database
from services import Nginx, Postgres, Redis, free_port, require

from servers import Server, refused_start

pytestmark = [pytest.mark.server, pytest.mark.slow]
_databases = iter(range(10**6))


@pytest.fixture(scope="module")
def services() -> Iterator[tuple[Postgres, Redis]]:
    require("postgres", "redis")
    postgres, redis = Postgres(), Redis()
    yield postgres, redis
    redis.stop()
    postgres.stop()


def fresh_database(postgres: Postgres) -> str:
    import psycopg

    name = f"cluster_{os.getpid()}_{next(_databases)}"
    with psycopg.connect(postgres.url, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    return postgres.url.rsplit("/", 1)[0] + f"/{name}"


class Cluster:
    """N serve processes sharing one database and one Redis (a short lease for tests)."""

    def __init__(
        self, tmp_path: Path, services: tuple[Postgres, Redis], count: int = 2, lease_seconds: float = 2
    ) -> None:
        postgres, redis = services
        self.database = fresh_database(postgres)
        self.redis = redis.url
        self.tmp_path = tmp_path
        self.lease_seconds = lease_seconds
        self.servers = [self.start(n) for n in range(count)]

    def start(self, n: int, port: int | None = None) -> Server:
        """Process `n` (on `port`, else any free one)."""
        return Server(
            self.tmp_path / f"node{n}-{time.monotonic_ns()}",
            network=True,
            options=[
                "--database",
                self.database,
                "--redis",
                self.redis,
                "--trusted-proxy",
                "127.0.0.1",
                "--lease-seconds",
                str(self.lease_seconds),
                *(["--port", str(port)] if port is not None else []),
            ],
        )

    def stop(self) -> None:
        for server in self.servers:
            if server.process.poll() is None:
                os.kill(server.process.pid, signal.SIGCONT)
            server.stop()


@pytest.fixture()
def cluster(tmp_path: Path, services: tuple[Postgres, Redis]) -> Iterator[Cluster]:
    running = Cluster(tmp_path, services)
    yield running
    running.stop()


def api(url: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url + path, data=data, headers={"Content-Type": "application/json", **(headers or {})}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


class Page:
    """A page as the browser's net.js is one: it says hello with its token on every
    (re)connect, and reconnects (to the next address) when the connection is closed."""

    def __init__(self, urls: list[str], game_id: str, token: str) -> None:
        self.urls, self.game_id, self.token = urls, game_id, token
        self.at = 0
        self.reconnects = 0
        self.socket: ClientConnection | None = None
        self.game: dict[str, Any] = {}
        self.errors: list[dict[str, Any]] = []
        """Errors the server sent, but `reconnecting` (the page shows no error for it)."""
        self.open()

    def open(self) -> None:
        deadline = time.monotonic() + 30
        while True:
            url = self.urls[self.at % len(self.urls)].replace("http", "ws", 1) + f"/ws/{self.game_id}"
            try:
                self.socket = connect(url, open_timeout=5, additional_headers={"X-Forwarded-For": "198.51.100.9"})
                first = json.loads(self.socket.recv(timeout=10))
                if first["type"] == "snapshot":
                    self.game = first["game"]
                    self.socket.send(json.dumps({"type": "hello", "token": self.token}))
                    return
            except (OSError, ConnectionClosed, TimeoutError, InvalidStatus):
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"could not reconnect to {self.urls}")
            self.at += 1
            time.sleep(0.3)

    def request(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Send a request and wait for the update it causes (None: refused or reconnected)."""
        assert self.socket is not None
        try:
            self.socket.send(json.dumps(message))
            while True:
                reply = json.loads(self.socket.recv(timeout=15))
                if reply.get("game"):
                    self.game = reply["game"]
                if reply["type"] == "update" and reply["events"]:
                    return reply
                if reply["type"] == "error":
                    if reply["code"] != "reconnecting":
                        self.errors.append(reply)
                    return None
        except (ConnectionClosed, TimeoutError):
            self.reconnects += 1
            self.at += 1
            self.open()
            return None

    def sync(self) -> dict[str, Any]:
        """The game as the server has it now (reconnecting first if the connection dropped)."""
        for _ in range(5):
            assert self.socket is not None
            try:
                self._drain()
                self.socket.send(json.dumps({"type": "sync"}))
                while True:
                    reply = json.loads(self.socket.recv(timeout=15))
                    if reply["type"] == "snapshot":
                        self.game = reply["game"]
                        return self.game
            except (ConnectionClosed, TimeoutError):
                self.reconnects += 1
                self.at += 1
                self.open()
        raise AssertionError("no snapshot after five reconnects")

    def _drain(self) -> None:
        """Read what the server sent unasked: a page whose room moved to another process
        is sent a snapshot then, which must not pass for the answer to the next sync."""
        assert self.socket is not None
        with contextlib.suppress(TimeoutError):
            while True:
                reply = json.loads(self.socket.recv(timeout=0.05))
                if reply.get("game"):
                    self.game = reply["game"]

    def play_once(self) -> dict[str, Any] | None:
        game = self.sync()
        if game["phase"] == "over":
            return None
        if game["phase"] == "move":
            return self.request({"type": "move", "plane": game["moves"][0]["plane"]})
        return self.request({"type": "roll"})

    def close(self) -> None:
        if self.socket is not None:
            self.socket.close()


def open_redis_owner(url: str, game_id: str) -> str:
    import redis

    client = redis.Redis.from_url(url)
    owner = client.get(f"fc:owner:{game_id}")
    client.close()
    assert isinstance(owner, bytes), "nobody owns the room"
    return owner.decode()


def two_seat_game(url: str) -> dict[str, Any]:
    """A game whose two seats the host plays on its own device (no bots: only pages move)."""
    return api(url, "/api/games", {"players": ["red", "blue"]})


def stored_actions(database: str, game_id: str) -> list[tuple[int, int | None]]:
    store = open_database(database)
    try:
        stored = store.load(game_id)
        assert stored is not None
        return stored.actions
    finally:
        store.close()


def test_pages_on_two_processes_play_one_game(cluster: Cluster) -> None:
    a, b = cluster.servers
    created = two_seat_game(a.url)
    on_a = Page([a.url], created["id"], created["host_token"])
    on_b = Page([b.url], created["id"], created["host_token"])
    acknowledged = 0
    for n in range(40):
        page = on_a if n % 2 else on_b  # requests alternate between the owner and the forwarder
        if page.play_once() is not None:
            acknowledged += 1
    assert acknowledged >= 38
    seen_a, seen_b = on_a.sync(), on_b.sync()
    assert seen_a["actions"] == seen_b["actions"] == len(stored_actions(cluster.database, created["id"]))
    assert seen_a["state"] == seen_b["state"]
    on_a.close()
    on_b.close()


def test_a_killed_owner_loses_nothing_and_pages_carry_on(cluster: Cluster) -> None:
    a, b = cluster.servers
    created = two_seat_game(a.url)
    page = Page([a.url, b.url], created["id"], created["host_token"])  # a owns the room
    before = 0
    for _ in range(10):
        page.play_once()
    before = page.sync()["actions"]
    a.kill()  # SIGKILL: no goodbye, no lease released
    started = time.monotonic()
    while page.play_once() is None:  # the page reconnects to b, which takes the room over
        assert time.monotonic() - started < 20
    for _ in range(10):
        page.play_once()
    after = page.sync()
    stored = stored_actions(cluster.database, created["id"])
    assert after["actions"] == len(stored) > before  # nothing lost, nothing applied twice
    assert page.reconnects >= 1
    page.close()


def test_a_killed_owner_is_replaced_at_once_not_after_its_lease(
    tmp_path: Path, services: tuple[Postgres, Redis]
) -> None:
    """A killed process stops listening on Redis at once: the others take its rooms
    without waiting out a lease (a minute here), pages watching through them included."""
    cluster = Cluster(tmp_path, services, lease_seconds=60)
    try:
        a, b = cluster.servers
        created = two_seat_game(a.url)
        owner_page = Page([a.url, b.url], created["id"], created["host_token"])  # a owns the room
        forwarded_page = Page([b.url], created["id"], created["host_token"])  # b forwards to a
        owner_page.play_once()
        a.kill()
        started = time.monotonic()
        while forwarded_page.play_once() is None:
            assert time.monotonic() - started < 20, "the room waited for the lease to run out"
        assert open_redis_owner(cluster.redis, created["id"]) == b.node
        assert forwarded_page.reconnects == 0  # b moved the room to itself under the page
        assert forwarded_page.sync()["actions"] == len(stored_actions(cluster.database, created["id"]))
        owner_page.close()
        forwarded_page.close()
    finally:
        cluster.stop()


def test_a_player_watching_through_a_dying_owner_keeps_its_seat_and_its_connection(
    tmp_path: Path, services: tuple[Postgres, Redis]
) -> None:
    """The owner is killed: the process a player's page is connected to takes the room
    over and moves the page to it on the same connection, with the seat the owner had
    authenticated (the owner told that process when the page said hello)."""
    cluster = Cluster(tmp_path, services, lease_seconds=60)
    try:
        a, b = cluster.servers
        created = api(a.url, "/api/games", {"players": ["red", "blue"], "seats": {"blue": {"kind": "open"}}})
        host = Page([a.url, b.url], created["id"], created["host_token"])  # a owns the room
        with connect(b.url.replace("http", "ws", 1) + f"/ws/{created['id']}", open_timeout=5) as joining:
            json.loads(joining.recv(timeout=10))
            joining.send(json.dumps({"type": "join", "colour": "blue", "name": "Bo"}))
            token = next(m for m in iter(lambda: json.loads(joining.recv(timeout=10)), None) if m["type"] == "joined")
        guest = Page([b.url], created["id"], token["token"])  # through b: a authenticates it
        host.request({"type": "start"})
        assert guest.sync()["started"]

        def play(turns: int) -> int:
            """Play this many turns, each by the page whose seat is to move; the guest's successes."""
            moved = 0
            for _ in range(turns):
                to_move = host.sync()["state"]["turn"]
                if to_move == "blue":
                    moved += guest.play_once() is not None
                else:
                    host.play_once()
            return moved

        play(6)
        a.kill()
        started = time.monotonic()
        while play(1) == 0 or guest.game["state"]["turn"] == "blue":  # until blue has moved since
            assert time.monotonic() - started < 30, "the guest's seat did not play on"
        assert guest.reconnects == 0 and host.reconnects >= 1
        assert open_redis_owner(cluster.redis, created["id"]) == b.node
        assert guest.sync()["actions"] == len(stored_actions(cluster.database, created["id"]))
        host.close()
        guest.close()
    finally:
        cluster.stop()


def first_of(socket: ClientConnection, kind: str, timeout: float = 10) -> dict[str, Any]:
    """The next message of this type (the others are read and passed over)."""
    return next(m for m in iter(lambda: json.loads(socket.recv(timeout=timeout)), None) if m["type"] == kind)


def act_once(socket: ClientConnection, game: dict[str, Any]) -> dict[str, Any]:
    """Roll or move (the first legal plane) in `game`: the answer, an update with events
    or an error."""
    plane = game["moves"][0]["plane"] if game["phase"] == "move" else None
    socket.send(json.dumps({"type": "roll"} if plane is None else {"type": "move", "plane": plane}))
    return next(
        m
        for m in iter(lambda: json.loads(socket.recv(timeout=10)), None)
        if m["type"] == "error" or (m["type"] == "update" and m["events"])
    )


@contextlib.contextmanager
def room_owned_by_a(tmp_path: Path, services: tuple[Postgres, Redis]) -> Iterator[tuple[Cluster, dict[str, Any]]]:
    """Two processes, a lease of a minute (a dead owner is replaced at once, never by its
    lease running out) and a two-seat game whose room process a owns, played once."""
    cluster = Cluster(tmp_path, services, lease_seconds=60)
    try:
        a, _ = cluster.servers
        created = two_seat_game(a.url)
        host = Page([a.url], created["id"], created["host_token"])
        host.play_once()
        yield cluster, created
        host.close()
    finally:
        cluster.stop()


def test_a_hello_the_dying_owner_never_answered_still_seats_the_page(
    tmp_path: Path, services: tuple[Postgres, Redis]
) -> None:
    """A page says hello through a process that forwards to the owner, and the owner dies
    before answering: the process that takes the room over says the hello again to the
    room, so the page plays its seats instead of being refused as a watcher."""
    with room_owned_by_a(tmp_path, services) as (cluster, created):
        a, b = cluster.servers
        with connect(b.url.replace("http", "ws", 1) + f"/ws/{created['id']}", open_timeout=5) as late:
            assert json.loads(late.recv(timeout=10))["type"] == "snapshot"
            os.kill(a.process.pid, signal.SIGSTOP)  # the hello reaches a, which never answers it
            try:
                late.send(json.dumps({"type": "hello", "token": created["host_token"]}))
                time.sleep(0.5)
            finally:
                a.kill()
            game = first_of(late, "snapshot", timeout=20)["game"]  # b took the room over and moved the page
            answer = act_once(late, game)
            assert answer["type"] == "update", answer  # not-your-seat before


def test_a_page_whose_token_opens_nothing_holds_up_no_other_page_when_the_room_moves(
    tmp_path: Path, services: tuple[Postgres, Redis]
) -> None:
    """Two pages watch through a process that forwards to the owner: one said hello with a
    token that opens nothing (refused), the other with the host's. The owner dies: the
    process taking the room over moves both, and the host's page plays on."""
    with room_owned_by_a(tmp_path, services) as (cluster, created):
        a, b = cluster.servers
        url = b.url.replace("http", "ws", 1) + f"/ws/{created['id']}"
        first = first_of
        with connect(url, open_timeout=5) as stranger, connect(url, open_timeout=5) as player:
            first(stranger, "snapshot")
            first(player, "snapshot")
            stranger.send(json.dumps({"type": "hello", "token": "opens-nothing"}))
            assert first(stranger, "error")["code"] == "bad-token"
            player.send(json.dumps({"type": "hello", "token": created["host_token"]}))
            assert first(player, "welcome")["role"] == "host"
            a.kill()
            game = first(player, "snapshot", timeout=20)["game"]  # moved to b on the same connection
            first(stranger, "snapshot")
            answer = act_once(player, game)
            assert answer["type"] == "update", answer


def test_a_frozen_owner_never_applies_a_move_after_its_lease(cluster: Cluster) -> None:
    a, b = cluster.servers
    created = two_seat_game(a.url)
    frozen_page = Page([a.url], created["id"], created["host_token"])
    for _ in range(6):
        frozen_page.play_once()
    os.kill(a.process.pid, signal.SIGSTOP)  # paused past its 2 s lease
    try:
        time.sleep(3)
        other = Page([b.url], created["id"], created["host_token"])  # b takes the room over
        for _ in range(8):
            other.play_once()
        taken_over = other.sync()["actions"]
        # the frozen owner is sent a move it will only read after waking up
        assert frozen_page.socket is not None
        frozen_page.socket.send(json.dumps({"type": "roll"}))
    finally:
        os.kill(a.process.pid, signal.SIGCONT)
    # a wakes, reads the roll, and must refuse it (its lease and epoch are gone); it sends
    # its pages nothing of the game again (its state is stale), it only hangs up
    heard = []
    with contextlib.suppress(ConnectionClosed, TimeoutError):
        while True:
            heard.append(json.loads(frozen_page.socket.recv(timeout=3)))
    assert not [message for message in heard if "game" in message], heard
    stored = stored_actions(cluster.database, created["id"])
    assert other.sync()["actions"] == len(stored) == taken_over
    for _ in range(6):
        other.play_once()
    assert other.sync()["actions"] == len(stored_actions(cluster.database, created["id"])) > taken_over
    other.close()


def test_behind_nginx_pages_reach_any_process_and_survive_one_dying(cluster: Cluster) -> None:
    require("nginx")
    a, b = cluster.servers
    nginx = Nginx([a.port, b.port])
    try:
        created = api(nginx.url, "/api/games", {"players": ["red", "blue"]})
        pages = [Page([nginx.url], created["id"], created["host_token"]) for _ in range(4)]
        for n in range(20):
            pages[n % 4].play_once()
        owner = open_redis_owner(cluster.redis, created["id"])
        dying = next(server for server in (a, b) if server.node == owner)  # the room's owner dies
        dying.kill()
        for n in range(20):
            pages[n % 4].play_once()
        final = pages[0].sync()
        assert final["actions"] == len(stored_actions(cluster.database, created["id"])) >= 10
        assert all(page.sync()["actions"] == final["actions"] for page in pages)
        for page in pages:
            page.close()
    finally:
        nginx.stop()


def games_noting_claims(tmp_path: Path, game_ids: list[str]) -> tuple[Any, list[list[str]]]:
    """A SQLite store holding an unstarted two-player game under each id, and the list
    each batch of its `claim_all` is noted in."""
    from flyingchess.server.storage.store import SqliteStore, StoredGame

    database = SqliteStore(tmp_path / "games.sqlite3")
    seats = {"red": {"kind": "human"}, "blue": {"kind": "open"}}
    for game_id in game_ids:
        database.create(
            StoredGame.new(
                game_id, "classic", ["red", "blue"], seats, extra={"timer": 30}, host_token="h", started=False
            )
        )
    claims: list[list[str]] = []
    claim_all = database.claim_all

    def claim_and_note(ids: list[str]) -> dict[str, int]:
        claims.append(list(ids))
        return claim_all(ids)

    database.claim_all = claim_and_note  # type: ignore[method-assign]
    return database, claims


def test_rooms_taken_over_together_take_a_few_round_trips_and_only_what_is_ours(
    tmp_path: Path, services: tuple[Postgres, Redis]
) -> None:
    """A leaving or dead owner's rooms, asked for at once (a rolling restart hands over
    hundreds), are taken in one batch: one look at their owners, one script for the free
    leases, one for the dead owner's, one claim for them all; a room a third process holds,
    or whose owner lives, is left to it (its pages reconnect)."""
    import asyncio

    from flyingchess.server.cluster.forwarding import RemoteRoom
    from flyingchess.server.cluster.nodes import Cluster as RedisCluster
    from flyingchess.server.cluster.rooms import ClusteredRooms
    from flyingchess.server.storage.async_store import AsyncStore

    left, died, third, living = [f"l{n}" for n in range(40)], [f"d{n}" for n in range(20)], "t", "a"
    database, claims = games_noting_claims(tmp_path, [*left, *died, third, living])
    store = AsyncStore(database)
    asked: list[str] = []

    async def taken_over() -> tuple[set[str], set[str]]:
        rooms = ClusteredRooms(store, cluster=RedisCluster(services[1].url))
        elsewhere, owner = RedisCluster(services[1].url), RedisCluster(services[1].url)
        await rooms.start()
        await elsewhere.start()
        await owner.start()
        try:
            assert await elsewhere.acquire_all([third, *died]) == {third, *died}
            assert await owner.acquire(living)
            await elsewhere.stop()  # dead: its listener is gone; the third room is taken by a fourth
            assert await RedisCluster(services[1].url).take_over(third, elsewhere.node)
            for name in ("owners_of", "acquire_all", "take_over_all", "living"):
                method = getattr(rooms.cluster, name)

                async def noted(*args: Any, _method: Any = method, _name: str = name) -> Any:
                    asked.append(_name)
                    return await _method(*args)

                setattr(rooms.cluster, name, noted)
            remotes = [RemoteRoom(rooms, game_id, "gone") for game_id in left]  # gave their leases up
            remotes += [RemoteRoom(rooms, game_id, elsewhere.node) for game_id in [*died, third]]
            remotes.append(RemoteRoom(rooms, living, owner.node))
            for remote in remotes:
                rooms.remote[remote.id] = remote
            assert all(rooms.takeovers.take_over_from(remote) for remote in remotes)
            await asyncio.gather(*(remote.moving for remote in remotes if remote.moving is not None))
            for _ in range(50):  # the moves finish in their own tasks
                if not any(remote.moving for remote in remotes):
                    break
                await asyncio.sleep(0.02)
            return set(rooms.rooms), {game_id for game_id in rooms.rooms if rooms.cluster.holds(game_id)}
        finally:
            await owner.stop()
            await rooms.stop()

    owned, held = asyncio.run(taken_over())
    store.close()
    assert owned == held == {*left, *died}  # not the third process's room, nor the living owner's
    assert [sorted(batch) for batch in claims] == [sorted([*left, *died])]  # claimed together, once
    # one batch of Redis round trips for 62 rooms (the watch on the owners runs beside it)
    assert asked.count("acquire_all") == 1 and asked.count("take_over_all") == 1, asked
    assert all(database.claim(game_id) == 2 for game_id in [*left, *died])
    database.close()


def test_an_unreachable_redis_is_one_line_and_status_2(tmp_path: Path) -> None:
    finished = refused_start(
        tmp_path, "--database", "postgresql://127.0.0.1:1/none", "--redis", f"redis://127.0.0.1:{free_port()}/0"
    )
    assert finished.returncode == 2 and len(finished.stderr.strip().splitlines()) == 1
    assert finished.stderr.startswith("flyingchess: cannot reach Redis at redis://127.0.0.1:")


def test_losing_redis_or_postgresql_while_running_changes_nothing_and_play_resumes(tmp_path: Path) -> None:
    require("postgres", "redis")
    postgres, redis = Postgres(), Redis()
    cluster = Cluster(tmp_path, (postgres, redis))
    try:
        a, b = cluster.servers
        created = two_seat_game(a.url)
        page = Page([a.url, b.url], created["id"], created["host_token"])
        for _ in range(6):
            page.play_once()
        # Redis goes away: within a lease the rooms stop; nothing is acknowledged meanwhile
        redis.kill()
        time.sleep(3)  # more than a lease: the owner has stopped and hung up
        before = len(stored_actions(cluster.database, created["id"]))
        for server in (a, b):  # a page that connects now is refused before the upgrade: try again
            with pytest.raises(InvalidStatus) as refused:
                connect(server.url.replace("http", "ws", 1) + f"/ws/{created['id']}", open_timeout=5)
            response = refused.value.response
            assert response.status_code == 503 and response.headers["Retry-After"] == "2"
            assert json.loads(response.body)["error"]["code"] == "reconnecting"
        assert len(stored_actions(cluster.database, created["id"])) == before
        redis.start()  # it comes back (empty): play resumes, the game as stored
        deadline = time.monotonic() + 30
        while page.play_once() is None:
            assert time.monotonic() < deadline, "play did not resume after Redis came back"
        assert page.sync()["actions"] == len(stored_actions(cluster.database, created["id"])) >= before
        # PostgreSQL goes away: moves are refused as storage-unavailable, then work again
        postgres.pause()
        try:
            refused = page.play_once()
        finally:
            postgres.resume()
        assert refused is None
        deadline = time.monotonic() + 30
        while page.play_once() is None:
            assert time.monotonic() < deadline, "play did not resume after PostgreSQL came back"
        assert page.sync()["actions"] == len(stored_actions(cluster.database, created["id"]))
        page.close()
    finally:
        cluster.stop()
        redis.stop()
        postgres.stop()


def test_pages_arriving_together_load_and_claim_a_room_once(tmp_path: Path, services: tuple[Postgres, Redis]) -> None:
    """Pages that ask for a room while it loads get that room: a second load would claim
    the game again and fence the first (its pages were hung up on, seen under load)."""
    import asyncio

    from flyingchess.server.cluster.nodes import Cluster as RedisCluster
    from flyingchess.server.cluster.rooms import ClusteredRooms
    from flyingchess.server.storage.async_store import AsyncStore
    from flyingchess.server.storage.store import SqliteStore, StoredGame

    database = SqliteStore(tmp_path / "games.sqlite3")
    seats = {"red": {"kind": "human"}, "blue": {"kind": "open"}}
    database.create(
        StoredGame.new("g1", "classic", ["red", "blue"], seats, extra={"timer": 30}, host_token="h", started=False)
    )
    store = AsyncStore(database)

    async def pages_arrive() -> list[object]:
        rooms = ClusteredRooms(store, cluster=RedisCluster(services[1].url))
        await rooms.start()
        try:

            async def page(delay: float) -> object:
                await asyncio.sleep(delay)
                return await rooms.for_page("g1")

            return await asyncio.gather(*(page(n * 0.001) for n in range(60)))
        finally:
            await rooms.stop()

    found = asyncio.run(pages_arrive())
    store.close()
    assert all(room is found[0] for room in found)
    assert database.claim("g1") == 2  # claimed once by the pages, once just now
    database.close()


def test_rooms_asked_for_together_are_claimed_once_each_in_a_few_batches(
    tmp_path: Path, services: tuple[Postgres, Redis]
) -> None:
    """Rooms taken back together (Redis returning) and rooms many pages ask for at once
    (a restart's reconnections) are claimed and read in a few batches, not one by one; a
    page asking for a room while it loads joins that load rather than claiming it again (a
    second claim would fence the first room), and a game that does not exist is named."""
    import asyncio

    from flyingchess.server.cluster.nodes import Cluster as RedisCluster
    from flyingchess.server.cluster.rooms import ClusteredRooms
    from flyingchess.server.errors import NoSuchGame
    from flyingchess.server.storage.async_store import AsyncStore

    games = [f"g{n}" for n in range(60)]
    database, batches = games_noting_claims(tmp_path, games)
    store = AsyncStore(database)
    back, asked_for = games[:30], games[30:]

    async def rooms_are_asked_for() -> tuple[list[object], list[object], list[object]]:
        rooms = ClusteredRooms(store, cluster=RedisCluster(services[1].url))
        await rooms.start()
        try:
            other = RedisCluster(services[1].url)  # another process holds one room's lease
            assert await other.acquire("elsewhere")
            assert await rooms.cluster.acquire_all([*back, "nope", "elsewhere"]) == {*back, "nope"}
            await other.stop()
            together = asyncio.ensure_future(rooms.own_all([*back, "nope"]))
            meanwhile = [asyncio.ensure_future(rooms.for_page(game_id)) for game_id in back[::4]]
            pages = [asyncio.ensure_future(rooms.for_page(game_id)) for game_id in asked_for for _ in range(3)]
            return await together, await asyncio.gather(*meanwhile), await asyncio.gather(*pages)
        finally:
            await rooms.stop()

    loaded, joined, found = asyncio.run(rooms_are_asked_for())
    store.close()
    assert [room.id for room in loaded[:-1]] == back  # type: ignore[attr-defined]
    assert isinstance(loaded[-1], NoSuchGame)
    assert all(room is loaded[4 * n] for n, room in enumerate(joined))
    assert [room.id for room in found] == [game_id for game_id in asked_for for _ in range(3)]  # type: ignore[attr-defined]
    assert batches[0] == [*back, "nope"]  # taken back in one batch
    assert sorted(game for batch in batches for game in batch) == sorted([*games, "nope"])  # each claimed once
    assert len(batches) <= 10, batches  # the pages' rooms in a few batches, not thirty
    assert all(database.claim(game_id) == 2 for game_id in games)  # claimed once each, once just now
    database.close()


def test_committed_dice_roll_on_through_a_killed_owner_and_a_rematch_reveals_them(cluster: Cluster) -> None:
    """A network game's rolls come from its stored commitment, so the process that takes
    a room over rolls exactly what the dead owner would have; a rematch asked of a process
    that does not own the old room still reveals its seed (records.md §6)."""
    a, b = cluster.servers
    seats = {"red": {"kind": "human"}, "blue": {"kind": "open"}}
    created = api(a.url, "/api/games", {"players": ["red", "blue"], "seats": seats})
    game_id, commitment = created["id"], created["game"]["dice"]["commitment"]
    page = Page([a.url, b.url], game_id, created["host_token"])
    assert page.socket is not None
    for message in (
        {"type": "contribute", "value": "cluster-share-01"},
        {"type": "seat", "colour": "blue", "kind": "human"},
        {"type": "start"},
    ):
        page.socket.send(json.dumps(message))
    deadline = time.monotonic() + 20
    while not page.sync()["started"]:
        assert time.monotonic() < deadline
    for _ in range(12):
        page.play_once()
    before = page.sync()["actions"]
    a.kill()
    started = time.monotonic()
    while page.play_once() is None:  # b takes the room over
        assert time.monotonic() - started < 20
    for _ in range(12):
        page.play_once()
    hidden = api(b.url, f"/api/games/{game_id}/record")
    assert "seed" not in hidden["dice"] and hidden["dice"]["commitment"] == commitment
    third = cluster.start(3)  # a process that owns nothing is asked for the rematch
    cluster.servers.append(third)
    api(third.url, f"/api/games/{game_id}/rematch", {}, headers={"X-Host-Token": created["host_token"]})
    deadline = time.monotonic() + 20
    while page.sync()["dice"]["seed"] is None:
        assert time.monotonic() < deadline
    record = api(b.url, f"/api/games/{game_id}/record")
    assert record["dice"]["contributions"] == ["cluster-share-01"]
    rolls = [action["roll"] for action in record["actions"]]
    assert 0 < before < len(rolls)  # rolled by both processes
    assert verify_rolls(record["dice"], rolls, record["players"]).rolls == len(rolls)
    page.close()


def bots_game(url: str, speed: str = "fast") -> dict[str, Any]:
    """Four bots that play on by themselves while a page watches."""
    seats = {colour: {"kind": "bot", "bot": "heuristic"} for colour in ("red", "yellow", "blue", "green")}
    return api(url, "/api/games", {"players": list(seats), "seats": seats, "speed": speed})


def test_a_frozen_redis_stops_every_room_at_its_lease_and_play_resumes(tmp_path: Path) -> None:
    """Redis frozen (SIGSTOP: no error, no answer): each owner stops acting for its rooms
    when the lease it last renewed runs out on its own clock, not when Redis answers. The
    pages keep their connections meanwhile, and when Redis is back every room goes on
    within 2 s, on those same connections."""
    require("postgres", "redis")
    postgres, redis = Postgres(), Redis()
    lease = 3.0
    cluster = Cluster(tmp_path, (postgres, redis), lease_seconds=lease)
    try:
        a, b = cluster.servers
        # owned by a or b, and watched through the same process or the other one
        games = [bots_game(server.url)["id"] for server in (a, b, a, b)]
        watchers = [
            connect(server.url.replace("http", "ws", 1) + f"/ws/{game}", open_timeout=5, close_timeout=0.2)
            for server, game in zip((a, b, b, a), games)
        ]
        time.sleep(1.5)  # the bots are playing
        os.kill(redis.process.pid, signal.SIGSTOP)
        frozen_at = time.monotonic()
        last_action = {game: 0.0 for game in games}
        back: dict[str, float] = {}
        thawed_at = None
        try:
            deadline = frozen_at + 10
            while time.monotonic() < deadline or (thawed_at is not None and len(back) < len(games)):
                if thawed_at is None and time.monotonic() > frozen_at + lease + 4:
                    os.kill(redis.process.pid, signal.SIGCONT)
                    thawed_at = time.monotonic()
                    deadline = thawed_at + 5
                for game, socket in zip(games, watchers):
                    with contextlib.suppress(TimeoutError):
                        message = json.loads(socket.recv(timeout=0.02))  # a closed connection fails the test
                        if message.get("type") == "update" and message.get("events"):
                            if thawed_at is None:
                                last_action[game] = time.monotonic() - frozen_at
                            else:
                                back.setdefault(game, time.monotonic() - thawed_at)
                if thawed_at is not None and time.monotonic() > deadline:
                    break
        finally:
            os.kill(redis.process.pid, signal.SIGCONT)
        # the bounds leave room for a busy machine; benchmarks/load.py --disrupt freeze-redis measures
        assert max(last_action.values()) < lease + 1.5, last_action  # it went on for 6 s before
        assert min(last_action.values()) > 0  # they did play while Redis was frozen, up to their lease
        assert len(back) == len(games) and max(back.values()) < 4, back  # on the same connections
        for socket in watchers:
            socket.close()
    finally:
        cluster.stop()
        redis.stop()
        postgres.stop()


def open_transactions(postgres: Postgres, pid: int) -> list[int]:
    """The backends of the server process `pid` inside an open transaction that has
    written (so holds rows) right now, found by the process's own TCP connections."""
    import psutil
    import psycopg

    ports = [
        connection.laddr.port
        for connection in psutil.Process(pid).net_connections(kind="tcp")
        if connection.raddr and connection.raddr.port == postgres.port
    ]
    if not ports:
        return []
    with psycopg.connect(postgres.url, autocommit=True) as connection:
        rows = connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE client_port = ANY(%s) AND backend_xid IS NOT NULL", (ports,)
        ).fetchall()
    return [int(row[0]) for row in rows]


def test_an_owner_frozen_inside_a_write_transaction_holds_up_no_room(tmp_path: Path) -> None:
    """The owner is frozen (SIGSTOP) while one of its group commits is open, holding its
    games' rows: PostgreSQL ends that transaction (the servers' sessions bound every
    wait), so the other process takes every room over well within 5 s, and the frozen
    process's commit, sent when it wakes, stores nothing."""
    require("postgres", "redis")
    postgres, redis = Postgres(), Redis()
    cluster = Cluster(tmp_path, (postgres, redis), lease_seconds=3)
    try:
        a, b = cluster.servers
        games = [bots_game(a.url, speed="instant")["id"] for _ in range(12)]
        watchers = [
            connect(a.url.replace("http", "ws", 1) + f"/ws/{game}", open_timeout=5, close_timeout=0.2) for game in games
        ]
        caught: list[int] = []
        for _ in range(1000):  # freeze it until it is caught inside a transaction
            os.kill(a.process.pid, signal.SIGSTOP)
            time.sleep(0.02)
            caught = open_transactions(postgres, a.process.pid)
            if caught:
                break
            os.kill(a.process.pid, signal.SIGCONT)
            time.sleep(0.01)
        assert caught, "the owner was never caught inside a transaction"
        frozen_at = time.monotonic()
        try:
            acknowledged: dict[str, float] = {}
            pages = {
                game: connect(b.url.replace("http", "ws", 1) + f"/ws/{game}", open_timeout=10, close_timeout=0.2)
                for game in games
            }
            deadline = frozen_at + 12
            while len(acknowledged) < len(games) and time.monotonic() < deadline:
                for game, page in list(pages.items()):
                    try:
                        message = json.loads(page.recv(timeout=0.02))
                    except TimeoutError:
                        continue
                    except ConnectionClosed:  # hung up on ("reconnecting"): reconnect, as a page does
                        pages[game] = connect(
                            b.url.replace("http", "ws", 1) + f"/ws/{game}", open_timeout=10, close_timeout=0.2
                        )
                        continue
                    if message.get("type") == "update" and message.get("events") and game not in acknowledged:
                        acknowledged[game] = time.monotonic() - frozen_at
            still_open = set(caught) & set(open_transactions(postgres, a.process.pid))
        finally:
            os.kill(a.process.pid, signal.SIGCONT)
        assert len(acknowledged) == len(games), f"rooms that did not move: {set(games) - set(acknowledged)}"
        # rooms behind the frozen transaction waited for the whole freeze before; the bound
        # leaves room for a busy machine (benchmarks/load.py --disrupt freeze-in-transaction measures)
        assert max(acknowledged.values()) < 8, acknowledged
        assert not still_open, "the frozen transaction was still open: its commit could land after waking"
        time.sleep(1)  # a wakes: its commit fails, whatever it sends is refused
        for socket in [*watchers, *pages.values()]:
            socket.close()
        store = open_database(cluster.database)
        try:
            for game in games:  # every game as stored replays: no action twice, none forked
                stored = store.load(game)
                assert stored is not None and len(load(stored).players) == 4
        finally:
            store.close()
    finally:
        cluster.stop()
        redis.stop()
        postgres.stop()


def test_the_nginx_configuration_the_tests_run_is_the_documented_one() -> None:
    """docs/deploy.md and deploy/nginx.conf hold the very lines flyingchess.server.launch.loopback
    runs nginx with."""
    from flyingchess.server.launch.loopback import (
        NGINX_MAP,
        NGINX_PROXY,
        NGINX_SOCKET_SERVER,
        NGINX_SOCKET_ZONE,
        NGINX_UPSTREAM_SERVER,
        NGINX_ZONE,
    )

    root = Path(__file__).parent.parent
    documented = [line.strip() for line in (root / "docs" / "deploy.md").open()]
    shipped = [line.split("#")[0].strip() for line in (root / "deploy" / "nginx.conf").open()]
    upstreams = [server.format(address="127.0.0.1:8001") for server in (NGINX_UPSTREAM_SERVER, NGINX_SOCKET_SERVER)]
    for line in [NGINX_MAP, NGINX_ZONE, NGINX_SOCKET_ZONE, *upstreams, *NGINX_PROXY.splitlines()]:
        assert line.strip() in documented, line
        assert line.strip().replace("127.0.0.1:8001", "server1:8000") in shipped, line


def test_behind_nginx_new_visitors_are_served_within_2_s_while_a_process_is_frozen(cluster: Cluster) -> None:
    """A frozen process still accepts connections (the kernel does) but answers nothing:
    through the documented nginx configuration every page, API answer and WebSocket of a
    new visitor still comes within 2 s, from the other process."""
    require("nginx")
    a, b = cluster.servers
    nginx = Nginx([a.port, b.port])
    try:
        game = api(nginx.url, "/api/games", {"players": ["red", "blue"]})["id"]
        os.kill(a.process.pid, signal.SIGSTOP)
        slowest = 0.0
        for _ in range(4):  # each visitor: the page, the API, the game's WebSocket
            for path in ("/", "/api/meta", f"/api/games/{game}"):
                started = time.monotonic()
                with urllib.request.urlopen(nginx.url + path, timeout=10) as response:
                    assert response.status == 200
                slowest = max(slowest, time.monotonic() - started)
            started = time.monotonic()
            with connect(nginx.url.replace("http", "ws", 1) + f"/ws/{game}", open_timeout=10) as socket:
                assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"
            slowest = max(slowest, time.monotonic() - started)
        # a WebSocket hung until the client gave up before; the bound leaves room for a busy
        # machine (benchmarks/load.py --disrupt freeze measures new visitors' waits)
        assert slowest < 4, f"a visitor waited {slowest:.1f} s"
    finally:
        os.kill(a.process.pid, signal.SIGCONT)
        nginx.stop()


def test_behind_nginx_a_quiet_connection_stays_open(cluster: Cluster) -> None:
    """nginx gives up on a WebSocket that hears nothing for 1.5 s; the server's pings (each
    second) keep a quiet one open."""
    require("nginx")
    a, b = cluster.servers
    nginx = Nginx([a.port, b.port])
    try:
        game = api(nginx.url, "/api/games", {"players": ["red", "blue"]})["id"]
        with connect(nginx.url.replace("http", "ws", 1) + f"/ws/{game}", open_timeout=10) as socket:
            assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"
            time.sleep(5)  # nothing happens in the game
            socket.send(json.dumps({"type": "sync"}))
            assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"
    finally:
        nginx.stop()


def test_a_rolling_restart_during_play_loses_nothing_and_shows_no_error(
    tmp_path: Path, services: tuple[Postgres, Redis]
) -> None:
    """Each process in turn is stopped (SIGTERM) and started again on its port, behind the
    documented nginx, while pages play: it hands its rooms over before it exits, so no
    page is shown an error, nothing acknowledged is lost and nothing is applied twice."""
    import threading

    require("nginx")
    ports = [free_port(), free_port()]
    cluster = Cluster(tmp_path, services, count=0)
    cluster.servers = [cluster.start(n, port) for n, port in enumerate(ports)]
    nginx = Nginx(ports)
    stop = threading.Event()
    pages: list[Page] = []
    acknowledged: dict[str, int] = {}

    def play(page: Page) -> None:
        while not stop.is_set():
            time.sleep(0.05)  # a person's pace, more or less: a page is not a flood
            reply = page.play_once()
            if reply is not None:
                acknowledged[page.game_id] = max(acknowledged.get(page.game_id, 0), reply["game"]["actions"])

    try:
        games = [two_seat_game(nginx.url) for _ in range(6)]
        pages = [Page([nginx.url], game["id"], game["host_token"]) for game in games]
        players = [threading.Thread(target=play, args=(page,)) for page in pages]
        for player in players:
            player.start()
        for n, port in enumerate(ports):
            time.sleep(2)
            before = sum(acknowledged.values())
            server = cluster.servers[n]
            server.process.terminate()  # SIGTERM
            assert server.process.wait(timeout=20) == 0, server.log()
            assert "Traceback" not in server.log(), server.log()
            cluster.servers[n] = cluster.start(n, port)
            assert api(cluster.servers[n].url, "/api/health")["ready"] is True
            time.sleep(2.5)  # as docs/deploy.md says: nginx tries a failed process again after 2 s
            assert sum(acknowledged.values()) > before  # play went on
        stop.set()
        for player in players:
            player.join(timeout=30)
        for page in pages:
            assert page.errors == [], page.errors
            stored = len(stored_actions(cluster.database, page.game_id))
            assert page.sync()["actions"] == stored >= acknowledged[page.game_id]
    finally:
        stop.set()
        for page in pages:
            page.close()
        nginx.stop()
        cluster.stop()


def test_an_owner_stopped_with_sigterm_hands_its_rooms_over_at_once(
    tmp_path: Path, services: tuple[Postgres, Redis]
) -> None:
    """SIGTERM: the owner finishes what it started, gives its leases up and tells the
    processes forwarding to it, which take the rooms over at once (not after a lease, a
    minute here) and keep their pages' connections; it says so and exits 0."""
    cluster = Cluster(tmp_path, services, lease_seconds=60)
    try:
        a, b = cluster.servers
        created = two_seat_game(a.url)
        owner_page = Page([a.url, b.url], created["id"], created["host_token"])  # a owns the room
        forwarded_page = Page([b.url], created["id"], created["host_token"])  # b forwards to a
        owner_page.play_once()
        a.process.terminate()
        assert a.process.wait(timeout=20) == 0
        assert "flyingchess: handed 1 room over in " in a.log()
        assert "flyingchess stopped: every change is saved" in a.log()
        started = time.monotonic()
        while forwarded_page.play_once() is None:
            assert time.monotonic() - started < 5, "the room was not handed over"
        assert forwarded_page.reconnects == 0 and forwarded_page.errors == []
        assert open_redis_owner(cluster.redis, created["id"]) == b.node
        assert forwarded_page.sync()["actions"] == len(stored_actions(cluster.database, created["id"]))
        owner_page.close()
        forwarded_page.close()
    finally:
        cluster.stop()
