"""`flyingchess backup` and `flyingchess restore` with real processes: a backup taken while
a server plays restores to a server on which every game loads, replays and plays on; a
restore never runs under a server, never loses the games it replaces, and takes only a
flyingchess database this version can read; a newer database is refused at start."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flyingchess.records.record import loads_record

from servers import Server, refused_start

pytestmark = [pytest.mark.server, pytest.mark.slow]


def cli(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flyingchess", *arguments], capture_output=True, text=True, timeout=120
    )


def refused(finished: subprocess.CompletedProcess[str], words: str) -> None:
    assert finished.returncode == 2, finished
    assert len(finished.stderr.strip().splitlines()) == 1 and "Traceback" not in finished.stderr, finished.stderr
    assert words in finished.stderr, finished.stderr


def test_a_backup_taken_during_play_restores_to_a_server_that_plays_on(tmp_path: Path) -> None:
    playing = tmp_path / "playing"
    server = Server(playing)
    try:
        bots = {colour: {"kind": "bot", "bot": "heuristic"} for colour in ("red", "blue")}
        watched = server.api("/api/games", {"players": ["red", "blue"], "seats": bots, "speed": "fast"})["id"]
        human = server.api("/api/games", {"players": ["red", "blue"]})
        with server.socket(human["id"]) as socket:
            socket.recv(timeout=10)
            socket.send(json.dumps({"type": "roll"}))
            before = json.loads(socket.recv(timeout=10))["game"]  # a roll stored (a 6 waits for its move)
        with server.socket(watched) as watcher:  # the bots play while the backup is taken
            watcher.recv(timeout=10)
            time.sleep(0.6)
            finished = cli("backup", str(tmp_path / "games.backup"), "--data", str(playing))
            watcher.recv(timeout=10)  # still playing (a fast game lasts a minute or so)
        assert finished.returncode == 0, finished.stderr
        assert finished.stdout.startswith("backed up 2 games, ")
        refused(cli("backup", str(tmp_path / "games.backup"), "--data", str(playing)), "exists already")
        refused(cli("restore", str(tmp_path / "games.backup"), "--data", str(playing)), "stop it first")
    finally:
        server.stop()
    restored_folder = tmp_path / "restored"
    finished = cli("restore", str(tmp_path / "games.backup"), "--data", str(restored_folder))
    assert finished.returncode == 0 and finished.stdout.startswith("restored 2 games, "), finished
    restored = Server(restored_folder)
    try:
        for game_id in (watched, human["id"]):
            record = loads_record(json.dumps(restored.api(f"/api/games/{game_id}/record")))
            assert record.final_state().players == ("red", "blue")  # every stored action replays
        with restored.socket(human["id"]) as socket:  # and the game plays on where it was
            game = json.loads(socket.recv(timeout=10))["game"]
            assert (game["actions"], game["phase"], game["state"]) == (
                before["actions"],
                before["phase"],
                before["state"],
            )
            socket.send(json.dumps({"type": "hello", "token": human["host_token"]}))
            action = (
                {"type": "roll"} if game["phase"] == "roll" else {"type": "move", "plane": game["moves"][0]["plane"]}
            )
            socket.send(json.dumps(action))
            replies = [json.loads(socket.recv(timeout=10)) for _ in range(2)]  # welcome, then the action
            assert replies[1]["type"] == "update" and replies[1]["events"], replies
    finally:
        restored.stop()
    # restoring over a folder with games keeps those games aside
    finished = cli("restore", str(tmp_path / "games.backup"), "--data", str(playing))
    assert finished.returncode == 0, finished.stderr
    kept = finished.stdout.splitlines()[1].split("kept in ", 1)[1]
    with sqlite3.connect(kept) as aside:
        assert aside.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2


def test_restore_takes_only_a_flyingchess_database_it_can_read(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    (tmp_path / "notes.txt").write_text("not a database")
    refused(cli("restore", str(tmp_path / "notes.txt"), "--data", str(folder)), "is not a SQLite database")
    refused(cli("restore", str(tmp_path / "missing.backup"), "--data", str(folder)), "no file")
    with sqlite3.connect(tmp_path / "other.sqlite3") as other:
        other.execute("CREATE TABLE things (x)")
    refused(cli("restore", str(tmp_path / "other.sqlite3"), "--data", str(folder)), "not a flyingchess games database")
    newer = tmp_path / "newer.backup"
    with sqlite3.connect(newer) as database:
        for table in ("games", "actions", "chat"):
            database.execute(f"CREATE TABLE {table} (x)")
        database.execute("PRAGMA user_version = 99")
    refused(cli("restore", str(newer), "--data", str(folder)), "newer flyingchess (schema 99")
    assert not (folder / "games.sqlite3").exists()
    refused(cli("backup", str(tmp_path / "out.backup"), "--data", str(tmp_path / "empty")), "no games database")


def test_a_server_refuses_a_database_written_by_a_newer_version(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    with sqlite3.connect(folder / "games.sqlite3") as database:
        database.execute("CREATE TABLE games (id TEXT)")
        database.execute("PRAGMA user_version = 99")
    before = (folder / "games.sqlite3").read_bytes()
    finished = refused_start(folder)
    assert "written by a newer flyingchess (schema 99); upgrade flyingchess" in finished.stderr
    assert (folder / "games.sqlite3").read_bytes() == before  # untouched


def test_pg_dump_and_pg_restore_as_documented_keep_every_game_playable(tmp_path: Path) -> None:
    """docs/deploy.md, Backups: pg_dump while a server plays, pg_restore into a new
    database, a server on it: every game loads, replays and plays on."""
    import psycopg

    from flyingchess.server.launch.loopback import postgres_binary
    from services import Postgres, require

    require("postgres")
    postgres = Postgres()
    try:
        server = Server(tmp_path / "a", network=True, options=["--database", postgres.url])
        try:
            bots = {colour: {"kind": "bot", "bot": "heuristic"} for colour in ("red", "blue")}
            game = server.api("/api/games", {"players": ["red", "blue"], "seats": bots, "speed": "fast"})["id"]
            with server.socket(game) as watcher:  # the bots play while the dump is taken
                watcher.recv(timeout=10)
                time.sleep(1)
                dumped = subprocess.run(
                    [postgres_binary("pg_dump"), "--format=custom", f"--file={tmp_path / 'games.dump'}", postgres.url],
                    capture_output=True,
                    text=True,
                    timeout=60,
                )
                assert dumped.returncode == 0, dumped.stderr
        finally:
            server.stop()
        restored_url = postgres.url.rsplit("/", 1)[0] + "/restored"
        with psycopg.connect(postgres.url, autocommit=True) as connection:
            connection.execute("CREATE DATABASE restored")
        loaded = subprocess.run(
            [postgres_binary("pg_restore"), "--no-owner", f"--dbname={restored_url}", str(tmp_path / "games.dump")],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert loaded.returncode == 0, loaded.stderr
        restored = Server(tmp_path / "b", network=True, options=["--database", restored_url])
        try:
            record = loads_record(json.dumps(restored.api(f"/api/games/{game}/record")))
            assert len(record.actions) > 0 and record.final_state().players == ("red", "blue")
            with restored.socket(game) as watcher:  # it plays on from there
                first = json.loads(watcher.recv(timeout=10))["game"]["actions"]
                deadline = time.monotonic() + 10
                while json.loads(watcher.recv(timeout=10)).get("game", {}).get("actions", 0) <= first:
                    assert time.monotonic() < deadline
        finally:
            restored.stop()
    finally:
        postgres.stop()
