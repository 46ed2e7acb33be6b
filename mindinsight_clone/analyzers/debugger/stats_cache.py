"""Tensor statistics computed once and kept in the workspace (`<workspace>/debugger/stats.sqlite3`).

Keyed by the file's identity: its location and the size, mtime and (local) device/inode its listing gave, so a
rewritten or replaced file (a dump rerun into the same folder) is computed again, and an unchanged one is never
read twice, across restarts too. SQLite (Python's standard library) because the store must survive restarts,
be shared by the threads of a worker, and answer a few thousand keys per request without loading the rest.

Bounded: past MAX_ROWS rows the least recently written quarter is deleted (logged). When the workspace cannot be
written, statistics are kept in memory for the process only (logged once).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

log = logging.getLogger(__name__)

MAX_ROWS = 5_000_000
FILE_NAME = "stats.sqlite3"
SCHEMA_VERSION = 1
FileKey = tuple[str, int, float, str]  # location, size, mtime, identity


def file_key(location: str, size: int, mtime: float, identity: tuple[Any, ...]) -> FileKey:
    return (location, int(size), float(mtime), ",".join(str(i) for i in identity))


class StatsCache:
    def __init__(self, workspace: str | None, file_name: str = FILE_NAME) -> None:
        self._lock = threading.Lock()
        self._writes = 0
        self._conn = self._open(workspace, file_name)

    def _open(self, workspace: str | None, file_name: str) -> sqlite3.Connection:
        path = ":memory:"
        if workspace:
            folder = Path(workspace) / "debugger"
            try:
                folder.mkdir(parents=True, exist_ok=True, mode=0o700)
                path = str(folder / file_name)
            except OSError as exc:
                log.warning("cannot write %s (%s): tensor statistics are kept in memory only", folder, exc)
        try:
            conn = self._connect(path)
        except sqlite3.Error as exc:
            log.warning("cannot use %s (%s): tensor statistics are kept in memory only", path, exc)
            conn = self._connect(":memory:")
        return conn

    @staticmethod
    def _connect(path: str) -> sqlite3.Connection:
        conn = sqlite3.connect(path, check_same_thread=False, timeout=30, isolation_level=None)
        if path != ":memory:":
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            conn.execute("DROP TABLE IF EXISTS stats")
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.execute("CREATE TABLE IF NOT EXISTS stats (location TEXT PRIMARY KEY, size INTEGER, mtime REAL, "
                     "identity TEXT, payload TEXT, written REAL)")
        conn.execute("CREATE INDEX IF NOT EXISTS stats_written ON stats(written)")
        return conn

    def get_many(self, keys: Iterable[FileKey]) -> dict[FileKey, dict[str, Any]]:
        """The cached facts (shape, dtype, statistics; JSON) of those `keys` whose file is unchanged."""
        wanted = {k[0]: k for k in keys}
        found: dict[FileKey, dict[str, Any]] = {}
        names = list(wanted)
        with self._lock:
            for start in range(0, len(names), 500):
                part = names[start:start + 500]
                rows = self._conn.execute(
                    f"SELECT location, size, mtime, identity, payload FROM stats WHERE location IN "  # noqa: S608
                    f"({','.join('?' * len(part))})", part).fetchall()
                for location, size, mtime, identity, payload in rows:
                    key = wanted[location]
                    if (size, mtime, identity) == key[1:]:
                        found[key] = orjson.loads(payload)
        return found

    def put_many(self, items: Iterable[tuple[FileKey, dict[str, Any]]]) -> None:
        now = time.time()
        rows = [(k[0], k[1], k[2], k[3], orjson.dumps(facts).decode(), now) for k, facts in items]
        if not rows:
            return
        with self._lock:
            self._conn.execute("BEGIN")
            self._conn.executemany("INSERT OR REPLACE INTO stats VALUES (?, ?, ?, ?, ?, ?)", rows)
            self._conn.execute("COMMIT")
            self._writes += len(rows)
            if self._writes >= 100_000:
                self._writes = 0
                self._prune()

    def _prune(self) -> None:
        count = self._conn.execute("SELECT COUNT(*) FROM stats").fetchone()[0]
        if count <= MAX_ROWS:
            return
        drop = count - MAX_ROWS * 3 // 4
        self._conn.execute("DELETE FROM stats WHERE location IN (SELECT location FROM stats ORDER BY written "
                           "LIMIT ?)", (drop,))
        log.info("tensor statistics cache over %d entries: dropped the %d oldest", MAX_ROWS, drop)

    def close(self) -> None:
        with self._lock:
            self._conn.close()
