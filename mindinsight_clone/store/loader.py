"""The only writer into run caches: reads a run's files incrementally and feeds the parsed values in.

Per file it keeps a resumable `RecordReader` (byte offset of the last complete record), so a pass reads
only what was appended since the last one. Summary files are read in MindInsight's order (timestamp in
the name ascending, then name descending); `.pb` graph files after them. A file that shrank, was replaced
or was deleted resets the whole run (read again from scratch, as MindInsight does).

When writes to the point store failed (a full disk), the run is read again into a fresh cache once the store
can write again (`_refill_points`), so zoomed windows are served at full resolution again.
"""

from __future__ import annotations

import logging
import posixpath
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from mindinsight_clone.config import Settings
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.record_reader import DEFAULT_CHUNK_BYTES, FRAME_BYTES, ReadProblem, RecordReader
from mindinsight_clone.ingest.storage import Entry, Location
from mindinsight_clone.ingest.tfevents_parser import tfevents_timestamp
from mindinsight_clone.ingest.values import SummaryValue
from mindinsight_clone.ingest.vdl_parser import is_vdlrecords_file, vdl_timestamp
from mindinsight_clone.ingest.vdl_record_reader import VdlRecordReader
from mindinsight_clone.store.point_store import PointRoot
from mindinsight_clone.store.run_cache import RunCache

log = logging.getLogger(__name__)

CacheStatus = Literal["NOT_IN_CACHE", "CACHING", "CACHED"]
_TS = re.compile(r"summary\.(\d+)")

# payload bytes + summary file name -> values (ingest.event_parser)
EventParser = Callable[[bytes, str], list[SummaryValue]]
# payloads of one file + its name + their offsets -> object with .problems and either .values
# (event_parser.ParsedRecords) or scalar columns (event_parser.ParsedColumns, for RunCache.add_parsed)
RecordsParser = Callable[[Sequence[bytes], str, Sequence[int]], Any]
# .pb file location -> values (a graph file is one tag of its own)
PbParser = Callable[[Location], list[SummaryValue]]
# (location, offset, size, max record bytes, max bytes[, name=<relative name of a sub-folder's file>]) -> (new offset,
# scalar columns) (ingest.formats.RecordsParser.read_scalars: scalar_batch, tfevents_batch or vdl_batch by name)
ScalarReader = Callable[..., tuple[int, Any]]
# run folder -> the projector config's embeddings and problems (ingest.projector.read_projector)
ProjectorParser = Callable[[Location], Any]
PROJECTOR_CONFIG = "projector_config.pbtxt"
# With a scalar reader, the general reader takes small steps (it returns after about this much) while the
# scalar reader takes the bulk; each time the scalar reader takes nothing, the general one's step grows 4x.
# The smallest step is one record: a MindSpore file starts with its version event, then scalar steps that the
# scalar reader takes whole (a larger first step decoded a dozen steps one by one, per file: 1,000 small runs).
SLOW_CHUNK_BYTES = FRAME_BYTES
FAST_PROBE_BYTES = 64 * 1024  # the scalar reader's first read; doubles while it takes what it reads
# bounds the transient memory of a decode (a few times this, per loader thread: data_manager.LOAD_THREADS); with
# four threads at 512 KB a load of corpus L peaks where two at 1 MB did
FAST_MAX_BYTES = 512 * 1024
WIDE_MAX_BYTES = 64 * 1024 * 1024  # most bytes read at once when one step's records need more than FAST_MAX_BYTES
PROBE_MAX_BYTES = 16 * 1024 * 1024  # the most a "can the point store write again?" probe writes
REFILL_WAIT_S = 5.0  # after a refill that failed again, the next one waits this long, doubling up to the max
REFILL_MAX_WAIT_S = 300.0


def summary_file_order(names: Sequence[str]) -> list[str]:
    """MindInsight's `_SummaryParser.sort_files`: timestamp ascending, equal timestamps by name descending.
    A TensorBoard event file's timestamp is the one after `events.out.tfevents.`, a VisualDL log's the one after
    `vdlrecords.` (oldest first: every file of a run is read, where VisualDL reads only the newest)."""
    def key(name: str) -> tuple[int, str]:
        base = posixpath.basename(name)  # a sub-folder's file: `expert_load/layer_3/ep_0/events.out.tfevents...`
        m = _TS.search(base)
        ts = int(m.group(1)) if m else tfevents_timestamp(base)
        if ts is None:
            ts = vdl_timestamp(base)
        return (-ts if ts is not None else 0, name)

    return sorted(names, key=key, reverse=True)


@dataclass(frozen=True)
class Problem:
    file: str
    offset: int
    kind: str
    message: str

    def as_dict(self) -> dict[str, object]:
        return {"file": self.file, "offset": self.offset, "kind": self.kind, "message": self.message}


@dataclass
class _FileState:
    reader: RecordReader | VdlRecordReader
    size: int = 0
    mtime: float = 0.0
    unreadable: Problem | None = None  # the last read could not open/read the file (cleared when one can)


@dataclass
class LoadProgress:
    bytes_read: int = 0
    bytes_total: int = 0


@dataclass
class RunLoader:
    """Loads one run directory into its RunCache. `load_pass` is called by one thread at a time."""

    train_id: str
    path: Location  # the run's directory: local Path or remote UPath (ingest.storage)
    settings: Settings
    parse_event: EventParser
    parse_pb: PbParser | None = None
    parse_records: RecordsParser | None = None
    points_root: PointRoot | None = None  # where every scalar point is kept on disk (None: sample only)
    read_scalars: ScalarReader | None = None  # vectorised scalar-only records (None: general path only)
    parse_projector: ProjectorParser | None = None  # TensorBoard projector config (None: not read)
    cache: RunCache = field(init=False)
    status: CacheStatus = "CACHING"
    generation: int = 0  # grows when the run is reset (cache replaced)
    _files: dict[str, _FileState] = field(default_factory=dict)
    _pb_mtimes: dict[str, float] = field(default_factory=dict)
    _pb_problems: dict[str, Problem] = field(default_factory=dict)  # per .pb file, as it is now
    _projector_mtime: float | None = None  # of the projector config last read
    _projector_problems: list[Problem] = field(default_factory=list)  # as it is now
    _problems: list[Problem] = field(default_factory=list)
    _tails: dict[str, Problem] = field(default_factory=dict)
    _stat_problems: dict[str, Problem] = field(default_factory=dict)  # files the store cannot stat right now
    progress: LoadProgress = field(default_factory=LoadProgress)
    _dropped_logged: int = 0  # dropped-tag count last written to the log
    loaded_once: bool = False  # a whole load pass has finished (until then a missing tag may still come)
    display_name: str = ""  # VisualDL: the newest non-empty `LogWriter(display_name=...)` read from the run's files
    _refill_failures: int = 0  # refills of the point store that failed again in a row
    _refill_after: float = 0.0  # monotonic time before which no refill is tried
    _first_pass: threading.Event | None = None  # made by the first waiter (wait_loaded), set with loaded_once
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.cache = self._new_cache()

    def _new_cache(self) -> RunCache:
        points = self.points_root.run_store(self.train_id) if self.points_root is not None else None
        return RunCache(self.train_id, self.settings, points)

    def close(self) -> None:
        """The run left the cache: delete what it kept on disk."""
        self.cache.close()

    # ------------------------------------------------------------------ state
    @property
    def problems(self) -> list[Problem]:
        """Damage found in the bytes read so far, files unreadable right now, incomplete tails."""
        with self._lock:
            unreadable = [s.unreadable for s in self._files.values() if s.unreadable is not None]
            return (list(self._problems) + unreadable + list(self._stat_problems.values())
                    + list(self._pb_problems.values()) + self._projector_problems + list(self._tails.values()))

    @property
    def is_integrity(self) -> bool:
        return not self.problems

    def reset(self, why: str) -> None:
        log.info("run %s: %s; reloading it from scratch", self.train_id, why)
        with self._lock:
            self._files.clear()
            self._pb_mtimes.clear()
            self._pb_problems.clear()
            self._projector_mtime = None
            self._projector_problems = []
            self._problems.clear()
            self._tails.clear()
            self._stat_problems.clear()
            old, self.cache = self.cache, self._new_cache()
            old.close()
            self.generation += 1
            self._dropped_logged = 0
            self.progress = LoadProgress()

    def _refill_points(self, summary_files: Sequence[str], pb_files: Sequence[str], projector: bool) -> bool:
        """Point-store writes of this run failed (disk full) and the store can write again: read the run again
        into a fresh cache and take it once complete, so requests keep their (sampled) answers meanwhile.
        True if the fresh cache replaced the old one."""
        root = self.points_root
        need = self.cache.failed_point_bytes()
        if root is None or not need or time.monotonic() < self._refill_after:
            return False
        if not root.probe(min(need, PROBE_MAX_BYTES)):
            return False  # still full: one failed write, tried again next pass
        log.info("run %s: the point store can write again; reading the run again for full-resolution windows",
                 self.train_id)
        fresh = RunLoader(self.train_id, self.path, self.settings, self.parse_event, self.parse_pb,
                          self.parse_records, root, self.read_scalars, self.parse_projector)
        fresh.load_pass(summary_files, pb_files, projector)
        if fresh.cache.failed_point_bytes():
            fresh.close()
            self._refill_failures += 1
            wait = min(REFILL_MAX_WAIT_S, REFILL_WAIT_S * 2 ** (self._refill_failures - 1))
            self._refill_after = time.monotonic() + wait
            log.warning("run %s: the point store failed again while refilling; next try in %.0f s", self.train_id,
                        wait)
            return False
        self._refill_failures = 0
        with self._lock:
            old, self.cache = self.cache, fresh.cache
            self._files, self._pb_mtimes, self._pb_problems = fresh._files, fresh._pb_mtimes, fresh._pb_problems
            self._problems, self._tails, self._stat_problems = fresh._problems, fresh._tails, fresh._stat_problems
            self._projector_mtime, self._projector_problems = fresh._projector_mtime, fresh._projector_problems
            self.progress, self._dropped_logged = fresh.progress, fresh._dropped_logged
            self.generation += 1
        old.close()
        log.info("run %s: full-resolution windows are served again", self.train_id)
        return True

    # ------------------------------------------------------------------ loading
    def load_pass(self, summary_files: Sequence[str], pb_files: Sequence[str] = (), projector: bool = False) -> bool:
        """Read whatever is new; return True if anything changed. Sets status CACHING/CACHED. `projector`: the
        run folder holds a projector config (read when it changed)."""
        refilled = self._refill_points(summary_files, pb_files, projector)
        ordered = summary_file_order(summary_files)
        gone = set(self._files) - set(ordered)
        if gone:
            self.reset(f"file(s) deleted: {sorted(gone)}")
        stats: dict[str, Entry] = {}
        failed: dict[str, Problem] = {}
        for name in ordered:
            try:
                stats[name] = storage.stat(self.path / name)
            except FileNotFoundError:
                continue
            except OSError as exc:  # e.g. a failing store: a problem while it lasts, what was read is kept
                failed[name] = Problem(name, self.file_offset(name), "unreadable", f"cannot stat file: {exc}")
        self._note_stat_problems(failed)
        sizes = {name: st.size for name, st in stats.items()}
        self.progress.bytes_total = sum(sizes.values())
        pending = [n for n in ordered if n in stats and self._needs_read(n, stats[n])]
        if pending:
            self.status = "CACHING"
        changed = False
        generation = self.generation
        for name in pending:
            changed |= self._read_file(name, stats[name])
        if self.generation != generation:  # reset mid-pass: read everything again once
            for name in ordered:
                if name in stats:
                    self._read_file(name, stats[name])
        changed |= self._read_pb_files(pb_files)
        if projector:
            changed |= self._read_projector()
        self.progress.bytes_read = sum(min(s.reader.offset, sizes.get(n, 0)) for n, s in self._files.items())
        self._update_tails(sizes)
        self._log_dropped_tags()
        self.status = "CACHED"
        with self._lock:
            self.loaded_once = True
            waiting = self._first_pass
        if waiting is not None:
            waiting.set()
        return changed or refilled

    def wait_loaded(self, timeout: float) -> bool:
        """Wait (at most `timeout` s) until the first load pass is done; True if it is. (The Event is made only
        when somebody waits: a thousand runs would otherwise make a thousand of them, at ~0.1 ms each.)"""
        with self._lock:
            if self.loaded_once:
                return True
            if self._first_pass is None:
                self._first_pass = threading.Event()
            waiting = self._first_pass
        return waiting.wait(timeout)

    def _log_dropped_tags(self) -> None:
        dropped = self.cache.dropped_tags
        if dropped > self._dropped_logged:
            s = self.settings
            log.warning("run %s: %d tags dropped so far by the tag limits (max_tags_per_run=%d, max_tensor_tags=%d, "
                        "max_graph_tags=%d, max_text_tags=%d); the oldest-seen tags go first, as in MindInsight",
                        self.train_id, dropped, s.max_tags_per_run, s.max_tensor_tags, s.max_graph_tags,
                        s.max_text_tags)
            self._dropped_logged = dropped

    def _needs_read(self, name: str, st: Entry) -> bool:
        state = self._files.get(name)
        return (state is None or state.unreadable is not None  # retried every pass until it reads
                or state.size != st.size or state.mtime != st.mtime)

    def file_offset(self, name: str) -> int:
        """How far `name` (a summary file of this run) has been read."""
        state = self._files.get(name)
        return state.reader.offset if state is not None else 0

    def _note_stat_problems(self, failed: dict[str, Problem]) -> None:
        """Files that cannot be stat'ed now (not missing: the store fails); logged once when that starts."""
        for name in failed.keys() - self._stat_problems.keys():
            log.warning("run %s: %s", self.train_id, failed[name].message)
        with self._lock:
            self._stat_problems = failed

    def _read_file(self, name: str, before: Entry) -> bool:
        state = self._files.get(name)
        vdl = is_vdlrecords_file(posixpath.basename(name))  # VisualDL's framing
        fast = self.read_scalars is not None  # it picks the vectorised reader of the file's format
        if state is None:
            chunk = {"chunk_bytes": SLOW_CHUNK_BYTES} if fast else {}
            reader = VdlRecordReader if vdl else RecordReader
            state = self._files[name] = _FileState(
                reader(self.path / name, max_record_bytes=self.settings.max_record_bytes, **chunk))
        changed = False
        while True:
            result = state.reader.read()
            if result.reset:
                self._record(result.problems)
                self.reset(f"{name} shrank or was replaced")
                return True
            self._note_readable(state, result.problems)
            self._record([p for p in result.problems if p.kind != "unreadable"])
            values: list[SummaryValue] = []
            if self.parse_records is not None:
                parsed = self.parse_records(result.records, name, result.offsets)
                self._record(parsed.problems)
                self.display_name = getattr(parsed, "display_name", "") or self.display_name
                if hasattr(parsed, "scalars"):  # columnar scalars (event_parser.ParsedColumns)
                    if parsed.items:
                        self.cache.add_parsed(parsed)
                        changed = True
                else:
                    values = parsed.values
            else:
                for payload, offset in zip(result.records, result.offsets, strict=True):
                    try:
                        values.extend(self.parse_event(payload, name))
                    except Exception as exc:  # a record that decodes to garbage: drop it, note it
                        self._record([ReadProblem(name, offset, "bad_payload", f"cannot parse event: {exc}")])
            if values:
                self.cache.add_values(values)
                changed = True
            if result.stopped:
                break
            if fast:
                if self._read_fast(state.reader, before.size, name):
                    state.reader.chunk_bytes = SLOW_CHUNK_BYTES
                    changed = True
                    if state.reader.offset >= before.size:
                        break  # every record the stat saw is read: no need to open the file once more
                    continue
                state.reader.chunk_bytes = min(state.reader.chunk_bytes * 4, DEFAULT_CHUNK_BYTES)
            if not result.more:
                break
        # the stat taken before reading: if the file grew meanwhile, the next pass reads the rest
        state.size, state.mtime = before.size, before.mtime
        return changed

    def _read_fast(self, reader: RecordReader | VdlRecordReader, size: int, name: str) -> bool:
        """Take what the vectorised scalar reader can from the reader's offset on; True if it took any."""
        assert self.read_scalars is not None
        took = False
        budget = FAST_PROBE_BYTES
        named = {} if name == reader.path.name else {"name": name}  # a sub-folder's file: its relative name
        while reader.offset < size:
            start = reader.offset
            end, parsed = self.read_scalars(reader.path, start, size, self.settings.max_record_bytes, budget,
                                            **named)
            wanted = min(getattr(parsed, "wants_bytes", 0), WIDE_MAX_BYTES)
            if end <= start and budget < wanted and start + budget < size:
                budget = wanted  # a step of many tags did not fit: read enough for several of them
                continue
            if end <= start:
                break
            reader.offset = end
            if parsed.items:
                self.cache.add_parsed(parsed)
            took = True
            if end - start >= budget // 2:
                budget = max(budget, min(budget * 2, FAST_MAX_BYTES))
        return took

    def _read_pb_files(self, pb_files: Sequence[str]) -> bool:
        if self.parse_pb is None:
            return False
        changed = False
        limit = self.settings.max_record_bytes
        with self._lock:
            for gone in set(self._pb_problems) - set(pb_files):
                del self._pb_problems[gone]
        for name in sorted(pb_files):
            path = self.path / name
            try:
                st = storage.stat(path)
            except OSError:
                continue
            if self._pb_mtimes.get(name) == st.mtime:
                continue
            self._pb_mtimes[name] = st.mtime
            with self._lock:
                self._pb_problems.pop(name, None)
            if st.size > limit:  # checked before reading: a 2 GB file is a problem, not a 2 GB allocation
                self._pb_problem(name, "too_large", f"graph file of {st.size} bytes exceeds the limit of "
                                 f"{limit} bytes (max_record_bytes); not read")
                continue
            try:
                values = self.parse_pb(path)
            except OSError as exc:  # cannot be read now (e.g. a failing store): retried next pass
                self._pb_mtimes.pop(name, None)
                self._pb_problem(name, "unreadable", f"cannot read graph file: {exc}")
                continue
            except Exception as exc:
                self._pb_problem(name, "bad_payload", f"cannot parse graph file: {exc}")
                continue
            if values:
                self.cache.add_values(values)
                changed = True
        return changed

    def _read_projector(self) -> bool:
        """Read the TensorBoard projector config when it changed (its embeddings are values of the run)."""
        if self.parse_projector is None:
            return False
        try:
            mtime = storage.stat(self.path / PROJECTOR_CONFIG).mtime
            if mtime == self._projector_mtime:
                return False
            read = self.parse_projector(self.path)
        except OSError as exc:  # gone, or cannot be read now: retried next pass
            self._projector_mtime = None
            if isinstance(exc, FileNotFoundError):
                return False
            problems = [Problem(PROJECTOR_CONFIG, 0, "unreadable", f"cannot read projector config: {exc}")]
        else:
            self._projector_mtime = mtime
            problems = [Problem(p.file, p.offset, p.kind, p.message) for p in read.problems]
            if read.values:
                self.cache.add_values(read.values)
        with self._lock:
            self._projector_problems = problems
        return True

    def _pb_problem(self, name: str, kind: str, message: str) -> None:
        log.warning("run %s: %s: %s", self.train_id, name, message)
        with self._lock:
            self._pb_problems[name] = Problem(name, 0, kind, message)

    def _note_readable(self, state: _FileState, problems: Sequence[ReadProblem]) -> None:
        """A file that cannot be opened or read is a problem only while that lasts (chmod 000, then 644)."""
        failed = next((p for p in problems if p.kind == "unreadable"), None)
        with self._lock:
            state.unreadable = Problem(failed.file, failed.offset, failed.kind, failed.message) if failed else None

    def _record(self, problems: Sequence[ReadProblem]) -> None:
        if not problems:
            return
        with self._lock:
            for p in problems:
                if p.kind in ("shrunk", "replaced"):
                    continue  # the reset that follows starts clean
                self._problems.append(Problem(p.file, p.offset, p.kind, p.message))

    def _update_tails(self, sizes: dict[str, int]) -> None:
        """A file whose last bytes are not a complete record (truncated, or being written right now)."""
        tails: dict[str, Problem] = {}
        now = time.time()
        for name, state in self._files.items():
            size = sizes.get(name)
            if size is None or state.reader.stopped or state.reader.resyncing or state.unreadable is not None:
                continue  # reported as what it is (damaged, unreadable), not as an incomplete tail
            if state.reader.offset < size:
                age = now - state.mtime
                tails[name] = Problem(name, state.reader.offset, "truncated",
                                      f"{size - state.reader.offset} trailing bytes are not a complete record "
                                      f"(file last modified {age:.0f} s ago)")
        with self._lock:
            self._tails = tails
