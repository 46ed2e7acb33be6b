"""A bounded spool of remote database files in the workspace (SQLite reads a local file; it cannot range-read
through fsspec).

A remote `.db` is copied once through the storage seam (`storage.open_binary`, 8 MiB range reads) to
`<spool>/<sha256 of location, size, mtime>.db`: a replaced object has another size or mtime, hence another name,
and is fetched again. The copy is written to a `.part` file and renamed into place, so a reader never sees half a
file (also across gunicorn workers). The spool is bounded in bytes: before a copy, the least recently used
copies are deleted until it fits (a copy in use stays readable: unlinking does not close it); a file larger than
the whole bound is refused with an error that names the setting. The spool never holds a local file.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from mindinsight_clone.errors import ProfilerRawFileError
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

log = logging.getLogger(__name__)
COPY_BLOCK_BYTES = 8 << 20
SPOOL_SETTING = "profiler_db_spool_mb"


class DbSpool:
    def __init__(self, folder: Path, max_bytes: int) -> None:
        self.folder = folder
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._loading: dict[str, threading.Lock] = {}

    def _target(self, location: Location, size: int, mtime: float) -> Path:
        key = hashlib.sha256(f"{location}\0{size}\0{mtime!r}".encode()).hexdigest()[:40]
        return self.folder / f"{key}.db"

    def local_copy(self, location: Location, label: str) -> Path:
        """The spooled copy of the remote file `location` (fetched when absent or changed)."""
        try:
            entry = storage.stat(location)
        except OSError as err:
            raise ProfilerRawFileError(f"<{label}> cannot be read: {err.strerror or type(err).__name__}") from None
        target = self._target(location, entry.size, entry.mtime)
        with self._lock:
            key_lock = self._loading.setdefault(target.name, threading.Lock())
        with key_lock:
            if target.is_file() and target.stat().st_size == entry.size:
                os.utime(target)  # most recently used
                return target
            if entry.size > self.max_bytes:
                raise ProfilerRawFileError(
                    f"<{label}> is {entry.size / 2**20:.0f} MB, more than the database spool holds "
                    f"({self.max_bytes / 2**20:.0f} MB, setting {SPOOL_SETTING}).")
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._make_room(entry.size)
            self._fetch(location, target, label)
        return target

    def _fetch(self, location: Location, target: Path, label: str) -> None:
        part = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.part")
        started = time.perf_counter()
        try:
            with storage.open_binary(location, COPY_BLOCK_BYTES) as src, part.open("wb") as dst:
                shutil.copyfileobj(src, dst, COPY_BLOCK_BYTES)
            os.replace(part, target)
        except OSError as err:
            part.unlink(missing_ok=True)
            raise ProfilerRawFileError(f"<{label}> cannot be read: {err.strerror or type(err).__name__}") from None
        log.info("spooled %s (%d bytes) in %.2f s", storage.describe(location), target.stat().st_size,
                 time.perf_counter() - started)

    def _make_room(self, need: int) -> None:
        copies = []
        for path in self.folder.glob("*.db"):
            try:
                st = path.stat()
            except OSError:
                continue
            copies.append((st.st_mtime, st.st_size, path))
        total = sum(size for _, size, _ in copies)
        for _, size, path in sorted(copies):
            if total + need <= self.max_bytes:
                break
            path.unlink(missing_ok=True)
            total -= size
            log.info("database spool: dropped %s (%d bytes) to make room", path.name, size)

    @property
    def nbytes(self) -> int:
        return sum(p.stat().st_size for p in self.folder.glob("*.db")) if self.folder.is_dir() else 0


@dataclass
class TemporarySpool:
    path: Path

    def cleanup(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def temporary_spool() -> TemporarySpool:
    """A private spool folder (for a direct call without the app's workspace spool)."""
    return TemporarySpool(Path(tempfile.mkdtemp(prefix="mic-db-spool-")))
