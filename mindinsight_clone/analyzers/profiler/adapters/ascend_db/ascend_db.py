"""Open the Ascend profiler's database export (SQLite) strictly read-only, and read its tables into numpy columns.

torch_npu and MindSpore (`export_type` db) write `ASCEND_PROFILER_OUTPUT/ascend_{pytorch,mindspore}_profiler_<rank>.db`
and `analysis.db` / `communication_analyzer.db`. The adapters beside this module (ascend_db_kernels, ascend_db_tables,
ascend_db_trace) turn their tables into the same in-memory tables the text export's readers produce, so the views
never know which export a table came from. Schema facts (checked in ../shared/fixtures/ascend_db): every name /
type / shape column is an id into `STRING_IDS(id, value)` (ids are sparse); times are ns (local Unix epoch).

**Never written to.** A local file is opened in place with the URI `file:<path>?mode=ro&nofollow=1` (SQLite's
read-only mode: no journal, no write, shared locks only; a symlink is not opened) and `PRAGMA query_only`; the path
is also checked with lstat before and after SQLite opens it, and must be the same regular file both times. The header
is checked first through the storage seam: not SQLite, or shorter than its own page count says (truncated), is
a clear error before SQLite sees it. A rollback-journal database (what the profiler writes) is read with locks, so
a database being written answers "locked" instead of half-written pages; a WAL database is opened `immutable=1`
when no `-wal` file is beside it (a read-only WAL connection would otherwise create `-shm`/`-wal` files), and
refused while one is. A remote (s3://...) file is first copied through the storage seam into the workspace spool
(db_spool.py; SQLite cannot range-read through fsspec), then opened `immutable=1` (the copy is ours and never
changes).

**Columns.** Big tables are read with `int_columns` (every selected value an integer, NULL as `INT_NULL`): through
ADBC's SQLite driver into Arrow when `adbc-driver-sqlite` is installed (extra `ascend-db`; 1.7-2x faster on a
1,000,000-kernel table, see benchmarks/ascend_db.py), else through the standard library's sqlite3 in batches.
Both give the same arrays; small tables are read with `rows`.

**Bounded work.** A user's file is not trusted to be what its schema promises (issue 29: a 524 KB database whose
join keys were not unique made operator-details join 56-66 s at 1.16 GB). Every query runs under a deadline
(QUERY_SECONDS, checked by SQLite's progress handler every PROGRESS_STEPS instructions and by the ADBC reader
between batches) and SQLite's process-wide `hard_heap_limit` (HEAP_LIMIT_BYTES); a query past either is stopped and
answers a clear error. `PRAGMA trusted_schema = OFF`: the file's schema cannot make a read call unsafe functions.
A view that joins checks its keys first (`require_unique`).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from mindinsight_clone.analyzers.profiler.engine import ascend_csv
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache, cached
from mindinsight_clone.errors import ProfilerFileNotFoundError, ProfilerRawFileError
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

if TYPE_CHECKING:
    from mindinsight_clone.analyzers.profiler.engine.db_spool import DbSpool

log = logging.getLogger(__name__)

MAGIC = b"SQLite format 3\x00"
HEADER_BYTES = 100
BUSY_TIMEOUT_S = 2.0  # wait this long for a writer's lock before answering "locked"
BATCH_ROWS = 65_536  # rows fetched at once (ADBC's default is 1,024)
INT_NULL = np.iinfo(np.int64).min  # NULL in an integer column read by int_columns
QUERY_SECONDS = 30.0  # longest one query may run (wall time) before it is stopped
PROGRESS_STEPS = 20_000  # SQLite VM instructions between two deadline checks (~0.1 ms)
HEAP_LIMIT_BYTES = 512 << 20  # SQLite's hard heap limit (process-wide, only ever lowered; 200,000 kernels need 16 MB)
T = TypeVar("T")


@functools.cache
def _adbc_module() -> Any:
    """ADBC's SQLite driver, the faster column reader (optional extra `ascend-db`), or None. Imported by the first
    database read, not with the app: it brings pyarrow (~0.1 s and tens of MB a server never showing a database
    export would pay in every worker)."""
    try:
        import adbc_driver_sqlite.dbapi as adbc
    except ImportError:  # pragma: no cover - depends on the installed extras
        return None
    return adbc


def adbc_available() -> bool:
    return _adbc_module() is not None


def _is_db_error(err: Exception) -> bool:
    adbc = sys.modules.get("adbc_driver_sqlite.dbapi")  # only an imported driver can have raised
    return isinstance(err, sqlite3.Error) or (adbc is not None and isinstance(err, adbc.Error))


@dataclass(frozen=True)
class DbRef:
    """One database file of one rank, as discovered (never a path from a request)."""

    path: Location
    rank: str  # "" for a file of the whole job (cluster_analysis.db)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def label(self) -> str:
        return ascend_csv.label(self.name, self.rank) if self.rank else self.name


@dataclass(frozen=True)
class Header:
    page_size: int
    page_count: int
    wal: bool
    identity: tuple[Any, ...] = ()  # local: (st_dev, st_ino) of the file checked


def read_header(ref: DbRef) -> Header:
    """The SQLite header of `ref`, checked against the file's size; ProfilerRawFileError when it is not a whole
    SQLite database."""
    try:
        entry = storage.stat(ref.path)  # never follows a symlink
        if entry.is_symlink or not entry.is_file:
            raise ProfilerRawFileError(f"<{ref.label}> is not a regular file (a symbolic link is not followed).")
        head = storage.read_bytes(ref.path, HEADER_BYTES)
        size = entry.size
    except OSError as err:
        raise ProfilerRawFileError(f"<{ref.label}> cannot be read: {ascend_csv.reason(err)}") from None
    if len(head) < HEADER_BYTES or not head.startswith(MAGIC):
        what = "is empty" if not head else "is not a SQLite database"
        raise ProfilerRawFileError(f"<{ref.label}> {what} (no SQLite header).")
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    page_count = int.from_bytes(head[28:32], "big")
    if page_size < 512 or page_size & (page_size - 1):
        raise ProfilerRawFileError(f"<{ref.label}> has a damaged SQLite header (page size {page_size}).")
    if page_count and size < page_size * page_count:
        raise ProfilerRawFileError(f"<{ref.label}> is truncated: {size} of {page_size * page_count} bytes.")
    return Header(page_size, page_count, head[18] == 2 or head[19] == 2, entry.identity)


def _explain(err: sqlite3.Error | Exception, label: str) -> ProfilerRawFileError:
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__  # ADBC adds the query
    log.warning("profiler database %s: %s", label, text)
    lowered = text.lower()
    if "locked" in lowered or "busy" in lowered:
        return ProfilerRawFileError(f"<{label}> is locked by a writer (the profiler may still be writing it); "
                                    "try again when it has finished.")
    if "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
        return ProfilerRawFileError(f"<{label}> is damaged: {text.removeprefix('IO: ')}.")
    if "symbolic link" in lowered or "unable to open" in lowered or "failed to open" in lowered:
        return ProfilerRawFileError(f"<{label}> cannot be opened read-only.")
    return ProfilerRawFileError(f"<{label}> cannot be read: {text.removeprefix('IO: ')}.")


@contextlib.contextmanager
def explained(label: str) -> Iterator[None]:
    """Turn a SQLite (or ADBC) error raised inside into a ProfilerRawFileError naming the file and the rank."""
    try:
        yield
    except (ProfilerRawFileError, ProfilerFileNotFoundError):
        raise
    except Exception as err:
        if not _is_db_error(err):
            raise
        raise _explain(err, label) from None


def _uri(path: Path, immutable: bool) -> str:
    return path.absolute().as_uri() + "?mode=ro&nofollow=1" + ("&immutable=1" if immutable else "")


def _limits(pragma: Callable[[str], Any]) -> None:
    """The PRAGMAs bounding what a user's file can make a connection do (see the module doc)."""
    pragma(f"PRAGMA hard_heap_limit = {HEAP_LIMIT_BYTES}")
    pragma("PRAGMA trusted_schema = OFF")
    pragma("PRAGMA query_only = ON")


def _same_file(ref: DbRef, header: Header) -> bool:
    """Whether `ref` is still the regular file (not a symlink) read_header checked: SQLite follows symlinks, so a
    file swapped for one between the check and the open is refused."""
    try:
        entry = storage.stat(ref.path)
    except OSError:
        return False
    return entry.is_file and not entry.is_symlink and entry.identity == header.identity


def _wal_beside(ref: DbRef) -> bool:
    return storage.exists(ref.path.parent / f"{ref.name}-wal")


class Db:
    """A read-only connection to one database file (use `open_db`)."""

    def __init__(self, ref: DbRef, uri: str) -> None:
        self.ref = ref
        self.label = ref.label
        self._uri = uri
        self._deadline: float | None = None  # of the query under way
        self._stopped = False  # whether the progress handler stopped it
        with explained(self.label):
            self._con = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
            _limits(self._con.execute)
            self._con.execute("PRAGMA temp_store = MEMORY")  # a join's automatic index: never a temp file
            self._con.set_progress_handler(self._past_deadline, PROGRESS_STEPS)
        self._tables: dict[str, frozenset[str]] | None = None

    def _past_deadline(self) -> bool:
        """SQLite's progress handler: True stops the query under way (it raises "interrupted")."""
        self._stopped = self._deadline is not None and time.monotonic() > self._deadline
        return self._stopped

    def _check_deadline(self) -> None:
        if self._deadline is not None and time.monotonic() > self._deadline:
            self._stopped = True
            raise sqlite3.OperationalError("interrupted")

    @contextlib.contextmanager
    def _query(self) -> Iterator[None]:
        """One query (or a reader's batches) under the deadline and the heap limit: past either, a clear
        ProfilerRawFileError, logged; other SQLite errors as `explained` says."""
        self._deadline, self._stopped = time.monotonic() + QUERY_SECONDS, False
        started = time.monotonic()
        try:
            with explained(self.label):
                try:
                    yield
                except MemoryError:
                    log.warning("profiler database %s: a query stopped at the heap limit (%d MB) after %.1f s",
                                self.label, HEAP_LIMIT_BYTES >> 20, time.monotonic() - started)
                    raise ProfilerRawFileError(
                        f"<{self.label}> is too costly to read: a query needed more than {HEAP_LIMIT_BYTES >> 20} MB "
                        "and was stopped (a damaged or crafted database?).") from None
                except Exception as err:
                    if not (self._stopped and _is_db_error(err)):
                        raise
                    log.warning("profiler database %s: a query stopped at the deadline (%g s)", self.label,
                                QUERY_SECONDS)
                    raise ProfilerRawFileError(
                        f"<{self.label}> is too costly to read: a query ran longer than {QUERY_SECONDS:g} s and was "
                        "stopped (a damaged or crafted database?).") from None
        finally:
            self._deadline = None

    def close(self) -> None:
        self._con.close()

    def tables(self) -> dict[str, frozenset[str]]:
        """Table name -> its column names."""
        if self._tables is None:
            with self._query():
                names = [r[0] for r in self._con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
                self._tables = {n: frozenset(r[1] for r in self._con.execute(f'PRAGMA table_info("{n}")'))
                                for n in names if '"' not in n}
        return self._tables

    def has(self, table: str) -> bool:
        return table in self.tables()

    def require(self, table: str, columns: tuple[str, ...], why: str = "") -> None:
        """A missing table is a missing file of the text export (50546084, `why` says when it is written); a table
        without a needed column is a broken file (50546087)."""
        found = self.tables().get(table)
        if found is None:
            raise ProfilerFileNotFoundError(f"<{table} in {self.label}>" + (f" ({why})" if why else ""))
        missing = [c for c in columns if c not in found]
        if missing:
            raise ProfilerRawFileError(f"<{self.label}> lacks the column(s) {', '.join(missing)} of table {table}.")

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._query():
            return self._con.execute(sql, params).fetchall()

    def require_unique(self, table: str, column: str, why: str) -> None:
        """A damaged file (ProfilerRawFileError) when two rows of `table` share a `column` value: a join on a key
        the file only claims is unique costs the product of the rows sharing it. One GROUP BY, stopped at the
        first duplicate (a walk of the table when `column` is its INTEGER PRIMARY KEY)."""
        found = self.rows(f'SELECT COUNT(*) FROM "{table}" WHERE "{column}" IS NOT NULL '  # noqa: S608
                          f'GROUP BY "{column}" HAVING COUNT(*) > 1 LIMIT 1')
        if found:
            log.warning("profiler database %s: %s.%s is not unique", self.label, table, column)
            raise ProfilerRawFileError(f"<{self.label}> is damaged: column {column} of table {table} is not unique "
                                       f"({found[0][0]} rows share one value), so {why}.")

    def int_columns(self, select: dict[str, str], tail: str, *, adbc: bool | None = None) -> dict[str, np.ndarray]:
        """`SELECT "<column>" AS <name>, ... <tail>` as int64 arrays (NULL -> INT_NULL; TEXT numbers are cast);
        through ADBC when installed (`adbc` False: the standard library's sqlite3). The arrays are allocated once (a
        COUNT first) and filled batch by batch, so a read costs its result plus one batch."""
        exprs = ", ".join(f'IFNULL(CAST("{column}" AS INTEGER), {INT_NULL}) AS "{name}"'
                          for name, column in select.items())
        sql = f"SELECT {exprs} {tail}"  # column names and expressions are our constants
        names = list(select)
        with self._query():
            total = int(self._con.execute(f"SELECT COUNT(*) {tail}").fetchone()[0])
            columns = _Columns(names, total)
            driver = _adbc_module() if adbc is not False else None
            if driver is not None:
                with driver.connect(self._uri) as con, con.cursor() as cursor:
                    _limits(lambda pragma: cursor.execute(pragma) or cursor.fetchall())  # its own SQLite library
                    cursor.adbc_statement.set_options(**{"adbc.sqlite.query.batch_rows": str(BATCH_ROWS)})
                    cursor.execute(sql)
                    for batch in cursor.fetch_record_batch():
                        self._check_deadline()  # no progress handler through ADBC: between batches
                        columns.add([_arrow_ints(batch.column(i)) for i in range(len(names))])
            else:
                cursor = self._con.execute(sql)
                while rows := cursor.fetchmany(BATCH_ROWS):
                    block = np.array(rows, dtype=np.int64).reshape(len(rows), len(names))
                    columns.add([block[:, i] for i in range(len(names))])
        return columns.result()


def _arrow_ints(column: Any) -> np.ndarray:
    values = column.to_numpy() if column.null_count == 0 else column.fill_null(INT_NULL).to_numpy()
    return values.astype(np.int64, copy=False)


class _Columns:
    """int64 columns of a known row count filled batch by batch (grown or cut should the count have changed)."""

    def __init__(self, names: list[str], total: int) -> None:
        self.arrays = {name: np.empty(total, dtype=np.int64) for name in names}
        self.size = 0

    def add(self, parts: list[np.ndarray]) -> None:
        n = parts[0].size if parts else 0
        for (name, array), part in zip(self.arrays.items(), parts, strict=True):
            if self.size + n > array.size:
                array = self.arrays[name] = np.concatenate([array, np.empty(self.size + n - array.size, np.int64)])
            array[self.size:self.size + n] = part
        self.size += n

    def result(self) -> dict[str, np.ndarray]:
        return {name: array[:self.size] for name, array in self.arrays.items()}


@contextlib.contextmanager
def open_db(ref: DbRef, cache: ParsedFileCache | None) -> Iterator[Db]:
    """A read-only connection to `ref` (see the module doc for how each case is opened)."""
    header = read_header(ref)
    spool_dir = None
    if storage.is_remote(ref.path):
        spool: DbSpool | None = getattr(cache, "spool", None)
        if spool is None:  # no workspace spool given (a direct call): a private one, removed after use
            from mindinsight_clone.analyzers.profiler.engine.db_spool import DbSpool, temporary_spool
            spool_dir = temporary_spool()
            spool = DbSpool(spool_dir.path, max_bytes=1 << 62)
        local, immutable = spool.local_copy(ref.path, ref.label), True
    else:
        assert isinstance(ref.path, Path)
        local = ref.path
        immutable = False
        if header.wal:
            if _wal_beside(ref):
                raise ProfilerRawFileError(f"<{ref.label}> is being written (a -wal file is beside it); try again "
                                           "when the profiler has finished.")
            immutable = True  # a finished WAL database: read as it is, without creating -shm / -wal files
    db = Db(ref, _uri(local, immutable))
    if local is ref.path and not _same_file(ref, header):
        db.close()
        raise ProfilerRawFileError(f"<{ref.label}> was replaced while it was opened; try again.")
    try:
        yield db
    finally:
        db.close()
        if spool_dir is not None:
            spool_dir.cleanup()


@dataclass(frozen=True)
class _Sized:
    """A parsed value with its estimated size, so the parse cache weighs it by what it holds, not by the size of
    the (possibly multi-GB) database it came from."""

    value: Any
    nbytes: int


SAMPLE = 1000  # a longer list is weighed by this many of its items, evenly spaced, scaled to its length


def _estimate(value: Any, depth: int = 0) -> int:
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if depth > 4:
        return 64
    if isinstance(value, dict):
        return sum(64 + _estimate(v, depth + 1) for v in value.values())
    if isinstance(value, (list, tuple)):
        if len(value) > SAMPLE:  # rows of a big table: a sample, so weighing costs nothing next to parsing
            step = len(value) / SAMPLE
            sampled = sum(8 + _estimate(value[int(i * step)], depth + 1) for i in range(SAMPLE))
            return int(sampled * step)
        return sum(8 + _estimate(v, depth + 1) for v in value)
    return len(value) + 49 if isinstance(value, str) else 32


def read_parsed(ref: DbRef, cache: ParsedFileCache | None, kind: str, parse: Callable[[Db], T]) -> T:
    """`parse` over an open read-only connection to `ref`, parsed once per file (cached by kind)."""
    def run(_path: Any) -> _Sized:
        with open_db(ref, cache) as db:
            value = parse(db)
        return _Sized(value, _estimate(value))
    found: T = cached(cache, kind, ref.path, run).value
    return found


def has_table(ref: DbRef, table: str, cache: ParsedFileCache | None) -> bool:
    """Whether `ref` holds `table` (the table names read once per file). A database that cannot be read counts as
    holding it, so the view that reads it names the error instead of calling the table absent."""
    try:
        names: frozenset[str] = read_parsed(ref, cache, "ascend_db_table_names", lambda db: frozenset(db.tables()))
    except (ProfilerFileNotFoundError, ProfilerRawFileError):
        return True
    return table in names


@dataclass(frozen=True)
class StringIds:
    """STRING_IDS: `ids` sorted (int64), `values[i]` the text of `ids[i]`."""

    ids: np.ndarray
    values: tuple[str, ...]

    @property
    def nbytes(self) -> int:
        return int(self.ids.nbytes) + sum(len(v) for v in self.values)

    def text(self, string_id: int | None) -> str:
        if string_id is None:
            return ""
        pos = int(np.searchsorted(self.ids, string_id))
        return self.values[pos] if pos < self.ids.size and self.ids[pos] == string_id else ""

    def column(self, ids: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
        """(dense int32 ids, their strings) for a column of STRING_IDS ids, as the text readers intern a column:
        only the strings the column uses; an id that is NULL or not in STRING_IDS is ""."""
        pos = np.searchsorted(self.ids, ids) if self.ids.size else np.zeros(ids.shape, dtype=np.intp)
        inside = pos < self.ids.size
        found = inside.copy()
        found[inside] = self.ids[pos[inside]] == ids[inside]
        slot = np.where(found, pos, self.ids.size)  # self.ids.size: the "" slot
        used = np.zeros(self.ids.size + 1, dtype=bool)
        used[slot] = True
        dense = (np.cumsum(used) - 1).astype(np.int32)
        texts = tuple(self.values[i].strip() if i < self.ids.size else "" for i in np.flatnonzero(used).tolist())
        return dense[slot], texts


def _load_strings(db: Db) -> StringIds:
    db.require("STRING_IDS", ("id", "value"))
    pairs = sorted((int(i), "" if v is None else str(v)) for i, v in db.rows("SELECT id, value FROM STRING_IDS")
                   if i is not None)
    return StringIds(np.array([p[0] for p in pairs], dtype=np.int64), tuple(p[1] for p in pairs))


def strings(db: Db, cache: ParsedFileCache | None) -> StringIds:
    """STRING_IDS of `db`, parsed once per file (cached like any parsed file)."""
    return cached(cache, "ascend_db_strings", db.ref.path, lambda _p: _load_strings(db))


def profiler_db(device: Any) -> DbRef:
    """The database export of a rank (DeviceFiles with `export == "db"`)."""
    path = device.profiler_db
    if path is None:
        raise ProfilerFileNotFoundError(f"<ascend_*_profiler_{device.device_id}.db of rank {device.device_id}>")
    return DbRef(path, device.device_id)


def dense_ids(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct values, each value's index in them): np.unique's answer by one sort and a binary search,
    several times faster than np.unique(return_inverse=True) on millions of int64."""
    if values.size == 0:
        return values[:0], np.empty(0, dtype=np.intp)
    ordered = np.sort(values)
    uniques = ordered[np.r_[True, ordered[1:] != ordered[:-1]]]
    return uniques, np.searchsorted(uniques, values)


def ns_to_us(values: np.ndarray) -> np.ndarray:
    """int64 ns (INT_NULL = absent) -> float64 µs (NaN = absent), split so the µs keep their ns decimals."""
    out = (values // 1000).astype(np.float64) + (values % 1000) / 1000.0
    out[values == INT_NULL] = np.nan
    return out


def span_us(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """end - start in µs computed on the ints (exact), NaN where either is absent."""
    out = (end - start) / 1000.0
    out[(start == INT_NULL) | (end == INT_NULL)] = np.nan
    return out
