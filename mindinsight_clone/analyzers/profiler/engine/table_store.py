"""Parse once: the tables a rank's big files parse into, kept as Parquet files in `<workspace>/cache/profiler/`.

A restart, or a second replica on the same workspace, reads the Parquet file (a fraction of a second for a
million rows) instead of parsing `kernel_details.csv` / `trace_view.json` again (seconds).

* **Key**: the file's identity from `storage.stat` — its location (URL for remote ones, without credentials), size,
  mtime and, locally, (device, inode) — plus the kind of table and its codec's version. A changed file has another
  key and is parsed again; the entry of its old version is dropped when the new one is written.
* **Bounded** by `profiler_cache_mb` (config.py): after each write the least recently used files (by mtime, which a
  hit refreshes) are deleted until the rest fit; each drop is logged. A table larger than the whole budget is not
  kept. 0 keeps nothing.
* **Atomic**: a file is written (by a background thread, after the request that parsed it has its answer) under a
  temporary name in the same directory and renamed into place, so a reader (this process or another replica) sees
  a whole file or none. Builders of one key in several processes take an exclusive lock (`fcntl.flock`) on a lock
  file beside it, held until the file is in place: the first parses, the others wait and read its result.
* **Corrupt** files (truncated, bit flips: Parquet page checksums are written and verified, or written for another
  source) are deleted, logged and rebuilt.

Codecs (`Codec`) turn a parsed value into an Arrow table plus JSON metadata and back; each table kind has its own
(kernel_table.KERNELS_CODEC, trace_engine.TRACE_CODEC).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from mindinsight_clone.analyzers.profiler.engine.arrow_columns import release_unused_memory
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Entry, Location

log = logging.getLogger(__name__)
T = TypeVar("T")
MB = 1 << 20
SUFFIX = ".parquet"
ROW_GROUP_ROWS = 1 << 16  # rows per Parquet row group: the unit read back, so a file is never decoded whole
STALE_TEMP_SECONDS = 3600  # a temporary file this old was left by a writer that died
_META_KEY = b"mindinsight_clone"

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Linux/macOS: builders in other processes may parse twice
    fcntl = None  # type: ignore[assignment]


class Codec(Protocol[T]):
    """Turns a parsed value into an Arrow table and JSON-able metadata, and back from the file's record batches
    (read one row group at a time: `num_rows` and `schema` let the decoder allocate its columns once)."""

    version: str

    def encode(self, value: T) -> tuple[Any, dict[str, Any]]: ...

    def decode(self, batches: Iterable[Any], num_rows: int, schema: Any, meta: dict[str, Any]) -> T: ...


@dataclass
class StoreStats:
    """What the store did since it was made (tests count parses and reads with these, not with time)."""

    hits: int = 0
    builds: int = 0
    writes: int = 0
    evictions: int = 0
    corrupt: int = 0
    too_big: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, name: str, n: int = 1) -> None:
        with self.lock:
            setattr(self, name, getattr(self, name) + n)


@dataclass(frozen=True)
class _Key:
    kind: str
    version: str
    source: str
    size: int
    mtime: float
    identity: tuple[Any, ...]

    def file_name(self) -> str:
        """`<hash of kind+source>-<hash of the whole key>.parquet`: the first part finds older versions of a file."""
        head = _digest(f"{self.kind}\0{self.source}")
        whole = _digest(json.dumps([self.kind, self.version, self.source, self.size, self.mtime,
                                    [str(i) for i in self.identity]]))
        return f"{head}-{whole}{SUFFIX}"

    def as_meta(self) -> dict[str, Any]:
        return {"kind": self.kind, "version": self.version, "source": self.source, "size": self.size,
                "mtime": self.mtime}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]


class TableStore:
    def __init__(self, root: Path, max_bytes: int, name: str = "profiler") -> None:
        self.root = root
        self.name = name  # what its log lines say it is: "profiler cache: ...", "msprobe cache: ..."
        self.max_bytes = max_bytes
        self.stats = StoreStats()
        self._disabled = max_bytes <= 0
        self._evict_lock = threading.Lock()
        self._pending: set[threading.Thread] = set()
        self._pending_lock = threading.Lock()
        self._exit_hook = False

    @classmethod
    def in_workspace(cls, workspace: str, max_mb: int) -> TableStore:
        return cls(Path(workspace) / "cache" / "profiler", max_mb * MB)

    def get(self, kind: str, path: Location, stat: Entry, codec: Codec[T], parse: Callable[[Location], T]) -> T:
        """The value of `path` from its Parquet file, else parsed; a parsed value is written for the next time by a
        background thread (the request that parsed it answers at once), which holds the file's lock until the
        file is in place, so another replica waits for it rather than parsing too."""
        if self._disabled:
            return parse(path)
        key = _Key(kind, codec.version, storage.describe(path), stat.size, stat.mtime, tuple(stat.identity))
        target = self.root / key.file_name()
        found = self._read(target, key, codec)
        if found is not None:
            return found[0]
        lock = self._lock(target)  # another process may be writing it: wait, then read its result
        try:
            found = self._read(target, key, codec)
            if found is not None:
                return found[0]
            self.stats.add("builds")
            log.info("%s cache: parsing %s (%s): no kept table", self.name, key.source, kind)  # replicas: counted
            value = parse(path)
        except BaseException:
            _unlock(lock)
            raise
        writer = threading.Thread(target=self._write_and_unlock, args=(target, key, codec, value, lock),
                                  name="profiler-table-store", daemon=True)
        with self._pending_lock:
            if not self._exit_hook:  # a stopping server finishes its writes (a restart then finds them)
                atexit.register(self.flush)
                self._exit_hook = True
            self._pending.add(writer)
        writer.start()
        return value

    def flush(self, timeout: float = 60.0) -> None:
        """Wait for the writes under way (tests; an orderly stop)."""
        with self._pending_lock:
            pending = list(self._pending)
        for thread in pending:
            thread.join(timeout)

    def _write_and_unlock(self, target: Path, key: _Key, codec: Codec[T], value: T, lock: Any) -> None:
        _lowest_priority()  # the answer that parsed it (and every other request) goes first
        try:
            self._write(target, key, codec, value)
        finally:
            _unlock(lock)
            with self._pending_lock:
                self._pending.discard(threading.current_thread())
            release_unused_memory()

    # ------------------------------------------------------------------------------------------ reading
    def _read(self, target: Path, key: _Key, codec: Codec[T]) -> tuple[T] | None:
        if not target.exists():
            return None
        import pyarrow.parquet as pq

        try:
            with pq.ParquetFile(target, page_checksum_verification=True) as parquet:
                schema = parquet.schema_arrow
                meta = json.loads((schema.metadata or {}).get(_META_KEY, b"{}"))
                if meta.get("key") != key.as_meta():
                    raise ValueError(f"written for {meta.get('key')}, not for this file")
                batches = parquet.iter_batches(batch_size=ROW_GROUP_ROWS, use_threads=False)
                value = codec.decode(batches, parquet.metadata.num_rows, schema, meta.get("value", {}))
        except FileNotFoundError:  # dropped by another replica meanwhile
            return None
        except Exception as err:  # pyarrow raises its own errors for damaged files
            self.stats.add("corrupt")
            log.warning("%s cache: %s is unusable (%s); it is deleted and %s parsed again", self.name, target.name,
                        str(err).splitlines()[0][:200] if str(err) else type(err).__name__, key.source)
            with contextlib.suppress(OSError):
                target.unlink()
            return None
        self.stats.add("hits")
        with contextlib.suppress(OSError):
            os.utime(target)  # least recently *used* is dropped first
        return (value,)

    # ------------------------------------------------------------------------------------------ writing
    def _write(self, target: Path, key: _Key, codec: Codec[T], value: T) -> None:
        import pyarrow.parquet as pq

        if self._disabled:
            return
        temp = target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            table, meta = codec.encode(value)
            schema_meta = dict(table.schema.metadata or {})
            schema_meta[_META_KEY] = json.dumps({"key": key.as_meta(), "value": meta}).encode()
            table = table.replace_schema_metadata(schema_meta)
            pq.write_table(table, temp, row_group_size=ROW_GROUP_ROWS, compression="zstd", write_page_checksum=True)
            size = temp.stat().st_size
            if size > self.max_bytes:
                self.stats.add("too_big")
                log.info("%s cache: the table of %s (%.1f MB) exceeds profiler_cache_mb (%.0f MB): not kept", self.name,
                         key.source, size / MB, self.max_bytes / MB)
                temp.unlink()
                return
            os.replace(temp, target)
        except Exception as err:  # a full or read-only disk must not fail the request that parsed the file
            log.warning("%s cache: cannot write %s for %s: %s", self.name, target.name, key.source, err)
            with contextlib.suppress(OSError):
                temp.unlink()
            return
        self.stats.add("writes")
        log.info("%s cache: kept %s as %s (%.1f MB)", self.name, key.source, target.name, size / MB)
        self._evict(keep=target)

    def _evict(self, keep: Path) -> None:
        """Drop other versions of `keep`'s file, stale temporaries, then the least recently used files over budget."""
        with self._evict_lock:
            head = keep.name.split("-", 1)[0]
            files: list[tuple[float, int, Path]] = []
            now = time.time()
            for entry in _scan(self.root):
                name = entry.name
                try:
                    st = entry.stat()
                except OSError:
                    continue
                if name.endswith(".tmp"):
                    if now - st.st_mtime > STALE_TEMP_SECONDS:
                        _unlink(Path(entry.path))
                    continue
                if not name.endswith(SUFFIX) or name == keep.name:
                    continue
                if name.split("-", 1)[0] == head:  # an older version of the same file
                    self._drop(Path(entry.path), st.st_size, "its source file changed")
                    continue
                files.append((st.st_mtime, st.st_size, Path(entry.path)))
            try:
                total = keep.stat().st_size + sum(size for _, size, _ in files)
            except OSError:
                return
            for _, size, path in sorted(files):
                if total <= self.max_bytes:
                    break
                self._drop(path, size, f"over profiler_cache_mb ({self.max_bytes / MB:.0f} MB), least recently used")
                total -= size

    def _drop(self, path: Path, size: int, why: str) -> None:
        if _unlink(path):
            _unlink(path.with_name(path.name + ".lock"))
            self.stats.add("evictions")
            log.info("%s cache: dropped %s (%.1f MB): %s", self.name, path.name, size / MB, why)

    def _lock(self, target: Path) -> Any:
        """An exclusive lock on `target`'s lock file across processes (threads of one process are already
        serialised per file by ParsedFileCache); None when the store cannot be written (then it is turned off)."""
        try:
            self.root.mkdir(parents=True, exist_ok=True, mode=0o700)  # as the workspace's log/ and run/
            handle = open(target.with_name(target.name + ".lock"), "a+b")  # noqa: SIM115 - closed by _unlock
        except OSError as err:
            log.warning("%s cache: %s is not writable (%s); parsed tables are not kept", self.name, self.root, err)
            self._disabled = True
            return None
        if fcntl is not None:
            with contextlib.suppress(OSError):  # a file system without locks: other replicas may parse it too
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        return handle


def _lowest_priority() -> None:
    """Run this thread at nice 19 (Linux schedules threads one by one: setpriority on the thread id)."""
    with contextlib.suppress(AttributeError, OSError):  # not Linux, or not permitted: the default priority
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)


def _unlock(handle: Any) -> None:
    if handle is not None:
        handle.close()  # releases the flock


def _scan(root: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(root) as it:
            return list(it)
    except OSError:
        return []


def _unlink(path: Path) -> bool:
    try:
        path.unlink()
    except OSError:
        return False
    return True

