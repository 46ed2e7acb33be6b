"""Full-resolution scalar points on disk: one columnar file per (run, scalar tag), read by window.

What it is for: the reservoir keeps 1,000 points per tag (MindInsight's answer); this store keeps every
point, so `scalar/metadata?start_step=&end_step=&points=N` can answer any window exactly (M4, see
`downsample.py`) while memory stays flat in the number of steps.

Layout: `<workspace>/cache/points/<pid>-<random>/<run key>-<n>-<tag key>.pts`, fixed 24-byte rows
(`<i8` step, `<f8` wall_time, `<f8` value), steps strictly increasing. Appends go through `write()`
(page cache, not the process's memory); a window is found by binary search over a memory map and copied
out (two small reads for the search, one read of the window), so serving a window costs O(window).
A step that is not above the last stored one (a restart) truncates the rows from that step on first:
the store holds what the files say now, the last write of each step winning.

In memory per series: the row count, the last step, and the source file of each appended segment. A short
series (at most SPILL_ROWS rows, while the process's memory for them lasts: `point_memory_mb`) keeps its rows in
memory instead: creating thousands of tiny files (1,000 runs x 4 tags) costs more than their content, and
memory stays bounded (per series and in total), so it is still flat in the number of steps.
A directory is per server process; directories of processes that are gone are removed at start.
Writers: the run's loader (one thread). Readers: request threads (copies, under the series' lock).

A failed write (a full disk, ENOSPC) marks the series failed with the reason; its windows are then answered
from the sample and say why (`plugins/scalars.scalar_window`). `PointRoot.probe` tells the loader when the
store can write again, and the loader reads the run again to refill it (`store/loader.py`).
"""

from __future__ import annotations

import bisect
import contextlib
import errno
import hashlib
import logging
import os
import shutil
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mindinsight_clone.store.downsample import m4_indices

log = logging.getLogger(__name__)

ROW = np.dtype([("step", "<i8"), ("wall_time", "<f8"), ("value", "<f8")])
SPILL_ROWS = 8192  # a series longer than this lives in its file (196 KB in memory at most before that)
MEMORY_BUDGET_BYTES = 512 * 1024 * 1024  # all short series of a process together (the point_memory_mb default)
SUFFIX = ".pts"
OPEN_FILES_MAX = 8192  # series files kept open per process (see OpenFiles)
PROBE_CHUNK_BYTES = 1024 * 1024  # a probe writes its bytes in pieces this big (no large buffer)


@dataclass(frozen=True)
class StoreFailure:
    """Why a series (or a whole run's store) holds no full-resolution points: `reason` is `disk_full`
    (ENOSPC, EDQUOT), `write_failed` (another OSError) or `no_store` (no directory could be made)."""

    reason: str
    detail: str

    @classmethod
    def of(cls, exc: OSError, no_store: bool = False) -> StoreFailure:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return cls("disk_full", str(exc))
        return cls("no_store" if no_store else "write_failed", str(exc))


class WriteFault:
    """The store's fault hook for tests: while `PointRoot.write_fault` holds an OSError, every write of that root
    (series rows and probes) raises it before touching the disk, as a full disk does. The server never sets it."""

    def __init__(self) -> None:
        self.error: OSError | None = None

    def check(self) -> None:
        if self.error is not None:
            raise self.error


@dataclass(frozen=True)
class Window:
    """The points of a step window (ascending steps): all of them, or their M4 reduction."""

    steps: np.ndarray
    wall_times: np.ndarray
    values: np.ndarray
    total: int  # points of the series inside the window (before reduction)


def _first(item: tuple[int, str]) -> int:
    return item[0]


class MemoryBudget:
    """Bytes of series rows a process may keep in memory before series spill to their files."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self._lock = threading.Lock()

    def take(self, n: int) -> bool:
        with self._lock:
            if self.used + n > self.limit:
                return False
            self.used += n
            return True

    def give(self, n: int) -> None:
        with self._lock:
            self.used = max(0, self.used - n)


class OpenFiles:
    """Append descriptors of the series files written lately, at most `limit` open (the least recently written
    closed first). Opening and closing a file around each append cost ~40 us on ext4: a run of a thousand tags
    appends to a thousand files per block, and that was most of its load (corpus T: 80,000 appends).

    A file is written only by its series, under the series' lock; its descriptor is taken out of the table while
    it is written, so no other thread closes it meanwhile."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._fds: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def append(self, path: str, data: bytes, fault: WriteFault | None = None) -> None:
        """As `append_bytes`, through a kept descriptor."""
        if fault is not None:
            fault.check()
        with self._lock:
            fd = self._fds.pop(path, None)
        if fd is None:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            _write_all(fd, data)
        except OSError:
            os.close(fd)
            raise
        evicted = []
        with self._lock:
            self._fds[path] = fd
            while len(self._fds) > self.limit:
                evicted.append(self._fds.popitem(last=False)[1])
        for old in evicted:
            os.close(old)

    def forget(self, path: str) -> None:
        """Close `path`'s descriptor, if kept (before the file is removed)."""
        with self._lock:
            fd = self._fds.pop(path, None)
        if fd is not None:
            os.close(fd)

    def close(self) -> None:
        with self._lock:
            fds, self._fds = list(self._fds.values()), OrderedDict()
        for fd in fds:
            os.close(fd)


def open_files_limit() -> int:
    """How many series files a process keeps open: a quarter of its descriptor limit, at most 8192 (raising the
    soft limit towards the hard one first, as servers do: the default 1024 would keep 256)."""
    try:
        import resource  # POSIX only

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
                soft = wanted
    except ImportError:
        soft = 512
    return max(16, min(OPEN_FILES_MAX, soft // 4))


class ScalarSeries:
    """One tag's points: in memory while short (within the budget), then in its file. `append` by the
    loader, `window`/`rows` by anyone."""

    def __init__(self, path: str | os.PathLike[str], budget: MemoryBudget | None = None,
                 fault: WriteFault | None = None, files: OpenFiles | None = None) -> None:
        self._path = os.fspath(path)  # a str: thousands of series are made while loading, most never touch it
        self._files = files  # None: each append opens and closes the file
        self.count = 0
        self.last_step: int | None = None
        self.failure: StoreFailure | None = None  # a write failed: the caller stops using this series
        self._fault = fault
        self._budget = budget
        # in memory: `_mem` is the first `count` rows of `_buf`, which grows by half (an append copies only
        # its own rows, not every row before it); None: on disk
        self._buf: np.ndarray | None = np.empty(0, dtype=ROW) if budget is not None else None
        self._mem: np.ndarray | None = self._buf
        self._sources: list[tuple[int, str]] = []  # (first row, source file) of each segment
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        return Path(self._path)

    @property
    def on_disk(self) -> bool:
        return self._mem is None

    @property
    def broken(self) -> bool:
        return self.failure is not None

    # ---------------------------------------------------------------- writing
    def append(self, steps: np.ndarray, wall_times: np.ndarray, values: np.ndarray, source: str) -> None:
        """Append points whose steps strictly increase; a first step <= the last stored truncates first.

        Raises OSError (and marks the series failed) when the write fails; what was stored stays.
        """
        n = int(steps.size)
        if not n:
            return
        with self._lock:
            if self.last_step is not None and int(steps[0]) <= self.last_step:
                self._truncate_from(int(steps[0]))
            before = self.count
            if self._buf is not None and before + n <= SPILL_ROWS and self._room(before + n):
                self._fill(self._buf, before, steps, wall_times, values)
                self._mem = self._buf[:before + n]
            else:
                self._to_file(before, steps, wall_times, values)
            if not self._sources or self._sources[-1][1] != source:
                self._sources.append((before, source))
            self.count = before + n
            self.last_step = int(steps[-1])

    @staticmethod
    def _fill(rows: np.ndarray, at: int, steps: np.ndarray, wall_times: np.ndarray, values: np.ndarray) -> None:
        """Rows [at, at + len(steps)) of `rows` from the three columns, through plain views: assigning structured
        arrays promotes their fields each time (~13 us a call, x tags x batches)."""
        flat = rows.view("<f8").reshape(rows.size, 3)
        end = at + steps.size
        flat.view("<i8")[at:end, 0] = steps
        flat[at:end, 1] = wall_times
        flat[at:end, 2] = values

    def _room(self, rows: int) -> bool:
        """Make the memory buffer hold `rows` rows (growing by half, at most SPILL_ROWS), within the budget."""
        buf = self._buf
        assert buf is not None and self._budget is not None
        if rows <= buf.size:
            return True
        grown = min(SPILL_ROWS, max(rows, buf.size * 3 // 2, 64))
        if not self._budget.take((grown - buf.size) * ROW.itemsize):
            return False
        self._buf = np.empty(grown, dtype=ROW)
        _copy_rows(self._buf, buf, self.count)
        return True

    def _to_file(self, before: int, steps: np.ndarray, wall_times: np.ndarray, values: np.ndarray) -> None:
        """Append the new rows to the file; a series still in memory moves there with them (its budget back)."""
        buf = self._buf
        kept = 0 if buf is None else before
        rows = np.empty(kept + steps.size, dtype=ROW)
        if buf is not None:
            _copy_rows(rows, buf, kept)
        self._fill(rows, kept, steps, wall_times, values)
        self._write(rows, before if buf is None else 0)
        if buf is not None and self._budget is not None:
            self._budget.give(buf.nbytes)
        self._buf = self._mem = None

    def _write(self, rows: np.ndarray, rows_in_file: int) -> None:
        try:
            if self._files is not None:
                self._files.append(self._path, rows.tobytes(), self._fault)
            else:
                append_bytes(self._path, rows.tobytes(), self._fault)
        except OSError as exc:
            self.failure = StoreFailure.of(exc)
            with contextlib.suppress(OSError):
                os.truncate(self._path, rows_in_file * ROW.itemsize)
            raise

    def _truncate_from(self, step: int) -> None:
        keep = self._search(step, "left")
        if self._buf is not None:
            self._mem = self._buf[:keep]  # the buffer (and its budget) stays for the rows that follow
        else:
            os.truncate(self._path, keep * ROW.itemsize)
        self.count = keep
        self.last_step = int(self._map()["step"][keep - 1]) if keep else None
        while self._sources and self._sources[-1][0] >= keep:
            self._sources.pop()

    # ---------------------------------------------------------------- reading
    def _map(self) -> np.ndarray:
        if self._mem is not None:
            return self._mem
        if not self.count:
            return np.empty(0, dtype=ROW)
        return np.memmap(self._path, dtype=ROW, mode="r", shape=(self.count,))

    def _search(self, step: int, side: str) -> int:
        steps = self._map()["step"]
        if side == "left":
            return bisect.bisect_left(steps, step)  # type: ignore[arg-type]
        return bisect.bisect_right(steps, step)  # type: ignore[arg-type]

    def rows(self, start: int, stop: int) -> np.ndarray:
        """Rows [start, stop) as an in-memory structured array."""
        with self._lock:
            stop = min(stop, self.count)
            if start >= stop:
                return np.empty(0, dtype=ROW)
            return np.array(self._map()[start:stop])

    def take(self, rows: np.ndarray) -> np.ndarray:
        """The rows at the given (ascending, stored) row numbers, as an in-memory structured array."""
        with self._lock:
            return np.array(self._map()[rows])

    def segments(self) -> list[tuple[int, str]]:
        """(first row, source file) of each appended segment, ascending."""
        with self._lock:
            return list(self._sources)

    def source_of(self, row: int) -> str:
        sources = self._sources
        if len(sources) == 1:  # the common case: one file
            return sources[0][1]
        i = bisect.bisect_right(sources, row, key=_first) - 1
        return sources[i][1] if i >= 0 else ""

    def window(self, start_step: int | None, end_step: int | None, points: int) -> Window:
        """Points with start_step <= step <= end_step (None: unbounded), reduced to at most `points`."""
        with self._lock:
            if not self.count:
                empty = np.empty(0)
                return Window(empty.astype(np.int64), empty, empty, 0)
            lo = 0 if start_step is None else self._search(start_step, "left")
            hi = self.count if end_step is None else self._search(end_step, "right")
            rows = np.array(self._map()[lo:max(lo, hi)])
        steps, values = rows["step"], rows["value"]
        if rows.size > points:
            keep = m4_indices(steps, values, points)
            rows = rows[keep]
        return Window(rows["step"].copy(), rows["wall_time"].copy(), rows["value"].copy(), int(hi - lo))

    def delete(self) -> None:
        with self._lock:
            self.count = 0
            self.last_step = None
            self._sources.clear()
            if self._buf is not None:
                if self._budget is not None:
                    self._budget.give(self._buf.nbytes)
                self._buf = self._mem = np.empty(0, dtype=ROW)
            if self._files is not None:
                self._files.forget(self._path)
            with contextlib.suppress(OSError):
                os.unlink(self._path)


def _copy_rows(dst: np.ndarray, src: np.ndarray, n: int) -> None:
    """dst[:n] = src[:n] as bytes (ROW arrays; a structured assignment would convert field by field)."""
    dst.view(np.uint8)[:n * ROW.itemsize] = src.view(np.uint8)[:n * ROW.itemsize]


def _pid_alive(pid: int) -> bool:
    """Whether process `pid` exists (signal 0: no signal is sent; psutil's own test, without importing psutil
    into the worker for it)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def append_bytes(path: str | os.PathLike[str], data: bytes, fault: WriteFault | None = None) -> None:
    """Append `data` to `path` (created 0600) with `write()`, all of it or OSError."""
    if fault is not None:
        fault.check()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class PointStore:
    """The series of one run (one directory). `None` directory: nothing is stored (see `enabled`); `failure`
    says why when the directory could not be made (else the store was not asked for)."""

    def __init__(self, directory: Path | None, prefix: str = "", budget: MemoryBudget | None = None,
                 fault: WriteFault | None = None, failure: StoreFailure | None = None,
                 files: OpenFiles | None = None) -> None:
        self.directory = directory
        self._files = files
        self._dir = os.fspath(directory) if directory is not None else ""
        self.budget = budget  # None: every series on disk from its first point
        self.prefix = prefix  # file name prefix of this run's series (one flat directory per process)
        self.failure = failure
        self._fault = fault
        self._series: dict[str, ScalarSeries] = {}
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.directory is not None

    def get(self, tag: str) -> ScalarSeries | None:
        with self._lock:
            return self._series.get(tag)

    def series(self, tag: str) -> ScalarSeries | None:
        """The series of `tag`, created empty if new; None when the store is disabled."""
        if self.directory is None:
            return None
        with self._lock:
            series = self._series.get(tag)
            if series is None:
                key = hashlib.blake2b(tag.encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()
                series = self._series[tag] = ScalarSeries(os.path.join(self._dir, f"{self.prefix}{key}{SUFFIX}"),
                                                             self.budget, self._fault, self._files)
            return series

    def failures(self) -> dict[str, StoreFailure]:
        """tag -> why its series holds no full-resolution points (failed writes), for the tags that have one."""
        with self._lock:
            return {tag: s.failure for tag, s in self._series.items() if s.failure is not None}

    def drop(self, tag: str) -> None:
        with self._lock:
            series = self._series.pop(tag, None)
        if series is not None:
            series.delete()

    def close(self) -> None:
        """Delete every series (the run left the cache or was reset)."""
        with self._lock:
            series, self._series = list(self._series.values()), {}
        for s in series:
            s.delete()


class PointRoot:
    """This process's directory of point stores under the workspace; one `PointStore` per cached run.

    `write_fault` is the store's fault hook for tests (see `WriteFault`)."""

    def __init__(self, workspace: str | os.PathLike[str], memory_budget: int = MEMORY_BUDGET_BYTES) -> None:
        self.base = Path(workspace) / "cache" / "points"
        self.directory: Path | None = None
        self.failure: StoreFailure | None = None  # why there is no directory (None: there is one)
        self.budget = MemoryBudget(memory_budget)
        self.files = OpenFiles(open_files_limit())
        self._fault = WriteFault()
        self._counter = 0
        self._lock = threading.Lock()
        self._make_directory()
        if self.directory is None:
            log.warning("full-resolution scalar store disabled: cannot create a directory in %s (%s); "
                        "scalar windows are answered from the sample only until it can", self.base,
                        self.failure.detail if self.failure else "")

    @property
    def write_fault(self) -> OSError | None:
        return self._fault.error

    @write_fault.setter
    def write_fault(self, error: OSError | None) -> None:
        self._fault.error = error

    def _make_directory(self) -> bool:
        try:
            self._fault.check()
            self.base.mkdir(parents=True, exist_ok=True)
            self._remove_stale()
            self.directory = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=self.base))
        except OSError as exc:
            self.failure = StoreFailure.of(exc, no_store=True)
            return False
        self.failure = None
        return True

    def _remove_stale(self) -> None:
        """Directories left by server processes that are gone (named `<pid>-<random>`)."""
        for child in self.base.iterdir():
            pid = child.name.split("-", 1)[0]
            if pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
                shutil.rmtree(child, ignore_errors=True)

    def run_store(self, train_id: str) -> PointStore:
        with self._lock:
            if self.directory is None:
                return PointStore(None, failure=self.failure)
            self._counter += 1
            n = self._counter
        key = hashlib.blake2b(train_id.encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()
        return PointStore(self.directory, f"{key}-{n}-", self.budget, self._fault, files=self.files)

    def probe(self, nbytes: int) -> bool:
        """Can `nbytes` be written to the store now? Writes them to a scratch file and removes it (making the
        directory first if it could not be made before). The loader asks this before re-reading a run whose
        series failed, so a disk that is still full costs one failed write, not a re-read."""
        with self._lock:
            if self.directory is None and not self._make_directory():
                return False
            assert self.directory is not None
            scratch = self.directory / f"probe-{threading.get_ident()}.tmp"
        chunk = bytes(min(max(0, nbytes), PROBE_CHUNK_BYTES))
        try:
            left = max(0, nbytes)
            while True:  # at least one write, even of 0 bytes: a store whose directory was made just now
                append_bytes(scratch, chunk[:left], self._fault)
                left -= len(chunk)
                if left <= 0:
                    break
        except OSError:
            return False
        finally:
            with contextlib.suppress(OSError):
                scratch.unlink()
        return True

    def close(self) -> None:
        self.files.close()
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
