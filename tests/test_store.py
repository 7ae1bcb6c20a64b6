"""The games database, the same tests on both engines: SQLite (the default) and a real
PostgreSQL started for the test session. Writes are fenced by the owner's epoch, an
action number is written once, and a lost database is a clear StoreError."""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from flyingchess.server.errors import DamagedGame, LostGame, StoreError
from flyingchess.server.limits import Limits
from flyingchess.server.storage.databases import open_database
from flyingchess.server.storage.store import SqliteStore, SqlStore, StoredGame
from flyingchess.server.transport.app import create_app
from services import Postgres, require

from asgi import LocalClient, expect, hello
from servers import refused_start

SEATS = {"red": {"kind": "human"}, "blue": {"kind": "open"}}
_databases = itertools.count()


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    require("postgres")
    server = Postgres()
    yield server
    server.stop()


def fresh_postgres_url(server: Postgres) -> str:
    """A new empty database on the session's PostgreSQL."""
    import psycopg

    name = f"test_{next(_databases)}"
    with psycopg.connect(server.url, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    return server.url.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.slow)])  # PostgreSQL starts a server
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqlStore]:
    if request.param == "sqlite":
        store: SqlStore = SqliteStore(tmp_path / "games.sqlite3")
    else:
        store = open_database(fresh_postgres_url(request.getfixturevalue("postgres")))
    yield store
    store.close()


def make(store: SqlStore, game_id: str = "g1", seats: dict[str, dict[str, str]] | None = None) -> None:
    store.create(
        StoredGame.new(
            game_id,
            "classic",
            ["red", "blue"],
            seats or SEATS,
            extra={"timer": 30},
            actions=[(6, 0), (3, 0)],
            host_token="h",
            started=False,
        )
    )


pytestmark = pytest.mark.server


def test_a_game_round_trips(database: SqlStore) -> None:
    make(database)
    database.set_pending_roll("g1", 4)
    stored = database.load("g1")
    assert stored is not None and stored.actions == [(6, 0), (3, 0)] and stored.pending_roll == 4
    assert stored.extra == {"timer": 30} and stored.host_token == "h" and not stored.started
    database.append_action("g1", 2, 4, None, False, None, [])
    database.set_seats("g1", {"red": {"kind": "human"}, "blue": {"kind": "bot", "bot": "heuristic"}}, True)
    database.set_speed("g1", "fast")
    database.set_extra("g1", {"timer": 30, "dice": {"commitment": "c", "contributions": ["é-and-x"]}})
    again = database.load("g1")
    assert again is not None and again.actions[-1] == (4, None) and again.pending_roll is None
    assert again.seats["blue"]["kind"] == "bot" and again.started and again.speed == "fast"
    assert again.extra == {"timer": 30, "dice": {"commitment": "c", "contributions": ["é-and-x"]}}
    assert database.host_token("g1") == (True, "h") and database.host_token("nope") == (False, None)
    assert database.load("nope") is None


def test_an_action_number_is_written_once(database: SqlStore) -> None:
    make(database)
    database.append_action("g1", 2, 4, None, False, None, [])
    with pytest.raises(StoreError):
        database.append_action("g1", 2, 5, None, False, None, [])
    stored = database.load("g1")
    assert stored is not None and stored.actions[2] == (4, None) and len(stored.actions) == 3


def test_writes_are_fenced_by_the_latest_claim(database: SqlStore) -> None:
    make(database)
    first = database.claim("g1")
    second = database.claim("g1")
    assert first is not None and second == first + 1
    with pytest.raises(LostGame):  # the first owner lost the game: nothing it writes lands
        database.append_action("g1", 2, 4, None, False, None, [], epoch=first)
    with pytest.raises(LostGame):
        database.set_seats("g1", SEATS, False, epoch=first)
    with pytest.raises(LostGame):
        database.add_chat("g1", 1.0, None, "host", "hi", epoch=first)
    with pytest.raises(LostGame):
        database.set_extra("g1", {"dice": {}}, epoch=first)
    database.append_action("g1", 2, 4, None, False, None, [], epoch=second)
    stored = database.load("g1")
    assert stored is not None and len(stored.actions) == 3 and stored.epoch == second
    assert database.chat("g1", 10) == []
    assert database.claim("nope") is None


def test_many_games_are_claimed_and_read_at_once_as_one_by_one(database: SqlStore) -> None:
    """What a process does with hundreds of rooms coming back together (Redis returning):
    each claimed as `claim` would (the old epoch fenced), each read as `load` reads it, a
    missing game left out and a damaged one named without keeping the others back."""
    for game_id in ("g1", "g2", "g3"):
        make(database, game_id)
    before = database.claim("g2")
    assert before is not None
    with database._transaction() as sql:
        sql.execute("UPDATE games SET seats = ? WHERE id = ?", ("[1, 2]", "g3"))
    epochs = database.claim_all(["g1", "g2", "g3", "nope"])
    assert sorted(epochs) == ["g1", "g2", "g3"] and epochs["g2"] == before + 1
    with pytest.raises(LostGame):
        database.append_action("g2", 2, 4, None, False, None, [], epoch=before)
    read = database.load_all(["g1", "g2", "g3", "nope"])
    assert sorted(read) == ["g1", "g2", "g3"]
    assert read["g1"] == database.load("g1") and read["g2"] == database.load("g2")
    assert isinstance(read["g3"], DamagedGame) and "g3" in str(read["g3"])
    assert database.claim_all([]) == {} and database.load_all([]) == {}


def test_a_batch_commits_together_and_a_failed_write_undoes_only_itself(database: SqlStore) -> None:
    make(database, "g1")
    make(database, "g2")
    epoch = database.claim("g2")
    assert epoch is not None
    append, speed = SqlStore.append_action.body, SqlStore.set_speed.body  # type: ignore[attr-defined]
    outcomes = database.write_batch(
        [
            (append, ("g1", 2, 4, None, False, None, []), {}),
            (append, ("g1", 2, 5, None, False, None, []), {}),  # the same action number again
            (speed, ("g2", "fast"), {"epoch": epoch - 1}),  # an owner that lost the game
            (append, ("g2", 2, 6, 1, False, None, []), {"epoch": epoch}),
        ]
    )
    assert isinstance(outcomes[0], float) and isinstance(outcomes[3], float)
    assert isinstance(outcomes[1], StoreError) and isinstance(outcomes[2], LostGame)
    first, second = database.load("g1"), database.load("g2")
    assert first is not None and first.actions == [(6, 0), (3, 0), (4, None)]
    assert second is not None and second.actions == [(6, 0), (3, 0), (6, 1)] and second.speed == "normal"


def test_a_write_whose_lease_ran_out_before_the_commit_is_rolled_back_alone(database: SqlStore) -> None:
    """`valid=` is asked just before the commit: a writer whose lease ran out meanwhile
    (frozen inside the transaction, say) stores nothing; the rest of its batch does."""
    make(database, "g1")
    make(database, "g2")
    append = SqlStore.append_action.body  # type: ignore[attr-defined]
    outcomes = database.write_batch(
        [
            (append, ("g1", 2, 4, None, False, None, []), {"valid": lambda: False}),
            (append, ("g2", 2, 5, None, False, None, []), {"valid": lambda: True}),
        ]
    )
    assert isinstance(outcomes[0], LostGame) and isinstance(outcomes[1], float)
    with pytest.raises(LostGame):
        database.set_speed("g2", "fast", valid=lambda: False)
    first, second = database.load("g1"), database.load("g2")
    assert first is not None and first.actions == [(6, 0), (3, 0)]
    assert second is not None and second.actions == [(6, 0), (3, 0), (5, None)] and second.speed == "normal"


def test_the_event_loop_store_commits_concurrent_writes_in_batches(database: SqlStore) -> None:
    """Writes asked for together are committed together, each caller hears its own
    outcome, and they land in the order they were asked for."""
    from flyingchess.server.storage.async_store import AsyncStore

    for n in range(20):
        make(database, f"g{n}")
    store = AsyncStore(database)

    async def play() -> list[object]:
        writes = [
            store.append_action(f"g{n}", 2 + turn, turn + 1, None, False, None, [])
            for turn in range(5)
            for n in range(20)
        ]
        writes.append(store.append_action("g0", 2, 6, None, False, None, []))  # taken already
        return await asyncio.gather(*writes, return_exceptions=True)

    outcomes = asyncio.run(play())
    store.close()
    assert all(isinstance(outcome, float) for outcome in outcomes[:-1]) and isinstance(outcomes[-1], StoreError)
    assert store.writer.writes == 101 and store.writer.batches < 101
    for n in range(20):
        stored = database.load(f"g{n}")
        assert stored is not None and stored.actions[2:] == [(turn + 1, None) for turn in range(5)]


def test_chat_keeps_the_last_lines_and_delete_takes_everything(database: SqlStore) -> None:
    make(database)
    for n in range(8):
        database.add_chat("g1", 100.0 + n, "red", "Ann", f"line {n}", keep=5)
    assert [line["text"] for line in database.chat("g1", 10)] == [f"line {n}" for n in range(3, 8)]
    assert database.delete("g1") and not database.delete("g1")
    assert database.counts() == {"games": 0, "actions": 0, "chat": 0}


def test_lists_come_a_page_at_a_time(database: SqlStore) -> None:
    for n in range(5):
        make(database, f"g{n}")
    assert len(database.summaries(2)) == 2 and len(database.summaries(10, 4)) == 1
    assert {game["id"] for game in database.summaries(10, 0, ["g1", "g3", "zz"])} == {"g1", "g3"}
    assert database.summaries(10, 0, []) == []
    lobby = database.lobby(10)
    assert len(lobby) == 5 and lobby[0]["open_seats"] == 1


def test_a_database_that_cannot_be_reached_is_one_clear_line() -> None:
    require("postgres")
    from services import free_port

    with pytest.raises(StoreError, match=r"cannot reach the games database postgresql://nobody@127\.0\.0\.1"):
        open_database(f"postgresql://nobody:secret@127.0.0.1:{free_port()}/games")


@pytest.mark.slow  # starts PostgreSQL
def test_the_server_plays_over_postgresql(postgres: Postgres) -> None:
    database = open_database(fresh_postgres_url(postgres))
    app = create_app(database, dice=lambda: random.Random(4), limits=Limits.unlimited(), local=False)
    with LocalClient(app) as client:
        created = client.post("/api/games", json={"players": ["red", "blue"]}).json()
        with client.websocket_connect(f"/ws/{created['id']}") as page:
            expect(page, "snapshot")
            hello(page, created["host_token"])
            for _ in range(30):
                page.send_json({"type": "sync"})
                game = expect(page, "snapshot")["game"]
                if game["phase"] == "move":
                    page.send_json({"type": "move", "plane": game["moves"][0]["plane"]})
                else:
                    page.send_json({"type": "roll"})
                expect(page, "update")
        listed = client.get("/api/games", params={"ids": created["id"]}).json()["games"]
    stored = database.load(created["id"])
    assert stored is not None and listed[0]["actions"] == len(stored.actions) > 0
    database.close()


@pytest.mark.slow  # starts PostgreSQL
def test_migrate_moves_every_game_from_sqlite_to_postgresql(postgres: Postgres, tmp_path: Path) -> None:
    import subprocess
    import sys

    source = SqliteStore(tmp_path / "games.sqlite3")
    for n in range(4):
        make(source, f"g{n}")
        source.add_chat(f"g{n}", 10.0 + n, "red", "Ann", f"hello {n}")
    source.append_action("g2", 2, 4, None, False, None, [])
    source.close()
    url = fresh_postgres_url(postgres)
    command = [sys.executable, "-m", "flyingchess", "migrate", "--data", str(tmp_path), "--to", url]
    first = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("4 games copied, 0 already there; the target now holds 4 games, 9 actions, 4 chat")
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert again.stdout.startswith("0 games copied, 4 already there")
    before, after = SqliteStore(tmp_path / "games.sqlite3"), open_database(url)
    for n in range(4):
        assert before.load(f"g{n}") == after.load(f"g{n}")
        assert before.chat(f"g{n}", 10) == after.chat(f"g{n}", 10)
    before.close()
    after.close()
    refused = subprocess.run(
        [sys.executable, "-m", "flyingchess", "migrate", "--data", str(tmp_path / "none"), "--to", url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2 and refused.stderr.startswith("migrate: no games database in")
    assert len(refused.stderr.splitlines()) == 1


def test_serve_with_an_unreachable_database_is_one_line_and_status_2(tmp_path: Path) -> None:
    require("postgres")
    from services import free_port

    url = f"postgresql://flyingchess:hidden@127.0.0.1:{free_port()}/games"
    finished = refused_start(tmp_path, "--database", url)
    assert finished.returncode == 2 and len(finished.stderr.strip().splitlines()) == 1
    assert "cannot reach the games database" in finished.stderr and "hidden" not in finished.stderr


def test_a_database_url_of_an_unknown_engine_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"mysql:// is not a database this server can use \(postgresql://"):
        open_database("mysql://games@db/flyingchess")
    assert not Path("mysql:").exists()  # not taken for a SQLite file's path
    assert isinstance(open_database(str(tmp_path / "games.sqlite3")), SqliteStore)
