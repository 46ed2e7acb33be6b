"""Run registry, LRU of cached runs, reload thread, load status and progress.

* Every `reload_interval` seconds (0 = once) a background thread started by `start()` rescans the base
  dir (summary_watcher, down to `max_depth`) and refreshes the detail cache: the runs with the newest
  `max(update_time, last manual access)` that fit the `cache_memory_mb` budget (and, when it is > 0,
  the `max_cached_runs` count) are kept in memory (LRU, see cache_budget.py); the others are listed with
  metadata only. File-change notifications from the watcher wake the thread early, so a flushed step shows up
  within about half a second.
* Loading is incremental (per-file byte offsets, see loader.py); `train-job-caches` and
  `plugins?manual_update=true` stamp a run (LRU) and wake the thread.
* Thread-safe: request threads read snapshots under a lock; only the reload thread writes.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from mindinsight_clone.config import Settings, storage_options
from mindinsight_clone.errors import MindInsightError, TrainJobNotExistError
from mindinsight_clone.ingest import event_parser, formats, projector, storage
from mindinsight_clone.ingest.bases import Bases
from mindinsight_clone.ingest.debug_discovery import DebugFinds
from mindinsight_clone.ingest.decode_helper import DecodeHelper
from mindinsight_clone.ingest.train_id import check_train_id_syntax, normalize_train_id
from mindinsight_clone.ingest.values import SummaryValue
from mindinsight_clone.store import cache_budget, discovery, run_groups
from mindinsight_clone.store.discovery import RunInfo
from mindinsight_clone.store.load_queue import LoadQueue
from mindinsight_clone.store.loader import CacheStatus, Problem, RunLoader
from mindinsight_clone.store.point_store import PointRoot
from mindinsight_clone.store.run_cache import RunCache
from mindinsight_clone.store.run_index import RunIndex

log = logging.getLogger(__name__)

LoadStatus = Literal["init", "loading", "loaded"]
NOT_IN_CACHE: CacheStatus = "NOT_IN_CACHE"
WAKE_DEBOUNCE_S = 0.05
# runs loaded at the same time (one loader per run, each used by one thread at a time). Four, not two: with a
# client polling a thousand runs while they load, request threads and loader threads share the GIL, and two
# loader threads got about a fifth of it (W under the readiness probes: 13.4 -> 9.2 s, medians of 5, load ~20)
LOAD_THREADS = 4
RUN_WAIT_S = 0.5  # most a single-run data request waits for its run's first load (run_cache(wait_s=...))


def parse_event(payload: bytes, file_name: str) -> list[SummaryValue]:
    return formats.parse_event(payload, file_name)  # MindSpore summary or TensorBoard event file, by name


def parse_records(records: Sequence[bytes], file_name: str, offsets: Sequence[int]) -> Any:
    return event_parser.parse_summary_columns(records, file_name, offsets)


def parse_pb(path: storage.Location) -> list[SummaryValue]:
    data = storage.read_bytes(path)
    return [event_parser.parse_pb_graph(data, path.name, storage.stat(path).mtime)]


@dataclass(frozen=True)
class RunStatus:
    """What the listing shows about one run's detail cache."""

    cache_status: CacheStatus
    is_integrity: bool
    problems: list[Problem]
    bytes_read: int
    bytes_total: int
    plugins: dict[str, list[str]] | None  # None when not in the detail cache
    text_tags: list[str] = field(default_factory=list)  # TensorBoard text tags (also plugins["text"])
    dropped_tags: int = 0  # tags evicted by the tag limits (max_tags_per_run, max_tensor_tags, max_graph_tags)
    data_version: str | None = None  # changes whenever the cached data changes (None: not in the detail cache)
    display_name: str = ""  # VisualDL: the writer's display name ("" if none)


def _keep_members(run: RunInfo, old: RunInfo) -> None:
    """Add to `run` the sub-folders (and their files) `old` had and this scan could not see."""
    seen = {m.rel for m in run.members}
    run.members += [m for m in old.members if m.rel not in seen]
    names = {f.name for f in run.member_files}
    run.member_files += [f for f in old.member_files if f.name not in names]


class DataManager:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        # the base dirs (one unnamed, or several named: train ids ./<name>/<run>), each a local Path or a remote
        # UPath: every read of them goes through ingest.storage, every train id through bases.split
        self.bases = Bases.from_setting(settings.summary_base_dir, storage_options(settings.storage_options))
        for base in self.bases:
            storage.confine_reads_to(base.location)  # reads under it never leave it (symlinks swapped in later)
        if self.bases.named:
            log.info("summary base dirs: %s", self.bases.describe())
        self.load_status: str = "init"  # LoadStatus values; str so protocols in other areas match
        self._lock = threading.RLock()
        self._runs: dict[str, RunInfo] = {}
        self._order: list[str] = []  # listing order: update_time descending
        self._loaders: dict[str, RunLoader] = {}
        self._stamps: dict[str, float] = {}
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._watch_setup: threading.Thread | None = None
        self._queue: LoadQueue | None = None  # the runs the current cycle still has to load
        self._notifier: Any = None
        self._load_lock = threading.Lock()  # one reload at a time
        self._scanned = False  # the base dir has been listed at least once
        self._points: PointRoot | None = None  # every scalar point on disk, made on first use
        self._index = RunIndex()
        self._sizes: dict[str, int] = {}  # estimated bytes of each run, measured after its last load
        self._used = 0  # estimated bytes of the cached runs: sum of _size over _loaders
        self.runs_found = 0  # runs discovered (and matched by run_filter) before the max_run_count cut
        self.runs_filtered = 0  # runs the run_filter setting left out of the last scan
        self.scan_truncated = False  # a bounded listing stopped early
        # (runs not listed, runs over the budget, runs the run filter left out) last logged
        self._left_out: tuple[int, int, int] = (0, 0, 0)
        # remote: runs kept although their directory could not be listed (failing store) -> the problem
        self._listing_problems: dict[str, Problem] = {}
        self._scan_failed: dict[str, str] = {}  # the failures last logged
        self._debug = DebugFinds()  # dump roots and model files seen by the last scan (debug_discovery)
        # called on the reload thread after each cycle (e.g. the lineage service reads remote lineage files
        # there, so no request thread waits for the store)
        self.after_reload: list[Callable[[], None]] = []
        # decodes scalar blocks on another core during a load with much to read (ingest/decode_helper.py)
        # (at most LOAD_THREADS - 1 calls queued there: one loading thread always decodes here. Corpus L, 8 files of
        # 25 MB, ready in 2.09-2.14 s so, 2.26-2.68 s with every thread queueing for the helper; W 3.9 vs 4.1-4.6 s)
        self.decode_helper = DecodeHelper(max_in_flight=LOAD_THREADS - 1)

    @property
    def base_dir(self) -> storage.Location:
        """The (first) base dir: the one base dir when it is unnamed. Train ids map to locations via `bases`."""
        return self.bases.primary

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Start the background reload thread (called by create_app, never at import)."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="mi-reload", daemon=True)
        self._thread.start()
        # arming the watch (one per directory: a thousand for many runs) runs beside the first load, not before
        self._watch_setup = threading.Thread(target=self._start_notifier, name="mi-watch-setup", daemon=True)
        self._watch_setup.start()
        for base in self.bases:
            if storage.is_remote(base.location):
                log.info("summary base dir %s is remote: it is polled every %ss (--reload-interval); no change "
                         "notifications", base.describe(), self.settings.reload_interval)

    def stop(self) -> None:
        """Stop background work (thread and file notifier)."""
        self._stop.set()
        self._wake.set()
        for thread in (self._thread, self._watch_setup):
            if thread is not None:
                thread.join(timeout=10)
        self._thread = self._watch_setup = None
        with self._lock:
            notifier, self._notifier = self._notifier, None
        if notifier is not None:
            discovery.stop_notifier(notifier)
        self.decode_helper.close()
        with self._lock:
            loaders, self._loaders = list(self._loaders.values()), {}
            points, self._points = self._points, None
        for loader in loaders:
            loader.close()
        if points is not None:
            points.close()

    @contextlib.contextmanager
    def reloads_held(self) -> Iterator[None]:
        """Hold off reload passes while the block runs (a pass under way finishes first). Requests are served
        as usual; what the store sees meanwhile comes from request threads only."""
        with self._load_lock:
            yield

    @property
    def points(self) -> PointRoot:
        """The process's full-resolution point store (made on first use); tests reach its fault hook here."""
        if self._points is None:
            self._points = PointRoot(self.settings.workspace, self.settings.point_memory_mb << 20)
        return self._points

    def _new_loader(self, run: RunInfo) -> RunLoader:
        points = self.points  # made on the reload thread, before any loader uses it
        # one per run: it keeps per-file tfevents state
        parser = formats.RecordsParser(parse_records, text_max_chars=self.settings.text_max_chars)
        # remote runs skip the vectorised scalar readers: their many small reads would each be a request (the
        # demo data over loopback S3: 124 requests and 2.2 s for the first load with it, 28 and 1.1 s without)
        fast = None if storage.is_remote(run.path) else parser.read_scalars
        parser.helper = self.decode_helper
        return RunLoader(run.train_id, run.path, self.settings, parse_event, parse_pb,
                         parse_records=parser, points_root=points, read_scalars=fast,
                         parse_projector=projector.read_projector)

    def wake(self) -> None:
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.reload()
            except Exception:  # keep serving what we have; log and retry next cycle
                log.exception("reload failed")
            interval = self.settings.reload_interval
            if interval <= 0 and self._notifier is None:
                # load once; afterwards only explicit requests (train-job-caches) wake us
                self._wake.wait()
            else:
                self._wake.wait(timeout=interval if interval > 0 else None)
            if self._stop.is_set():
                break
            self._wake.clear()
            time.sleep(WAKE_DEBOUNCE_S)  # coalesce bursts of file events

    def _start_notifier(self) -> None:
        """Watch a local base dir for changes (no-op for a remote one: the reload loop polls it). Runs on a
        thread of its own beside the first load: neither the server's start nor the first load waits for the
        watches; a change seen meanwhile wakes the loop for one more cycle, as always."""
        notifier = discovery.start_notifier(self.bases, self.wake)
        if notifier is None:
            return
        with self._lock:
            if not self._stop.is_set():
                self._notifier, notifier = notifier, None
        if notifier is not None:  # stopped meanwhile
            discovery.stop_notifier(notifier)

    # ------------------------------------------------------------------ reload
    def reload(self) -> None:
        """One cycle: rescan, choose the cached runs, read what is new. Safe to call from tests."""
        with self._load_lock:
            if self.load_status == "init":
                self.load_status = "loading"
            result = discovery.scan_result(self.bases, self.settings.max_run_count, self.settings.max_depth,
                                           self.settings.run_filter)
            runs = self._keep_unlisted(result)
            debug = self._keep_unlisted_debug(result)
            with self._lock:
                self._debug = debug
                self._runs = {r.train_id: r for r in runs}
                self._order = [r.train_id for r in runs]
                self._scanned = True
                self._index = RunIndex.build(runs)  # O(runs), once per rescan
                self.runs_found, self.scan_truncated = result.total_runs, result.truncated
                self.runs_filtered = result.filtered
                self._choose_pool()
                loaders = list(self._loaders.values())
            queue = LoadQueue(sorted(loaders, key=lambda ld: -self._recency(ld.train_id)))
            self._queue = queue  # still_loading() moves a run asked for meanwhile to the front
            helped = self._start_helper(loaders)
            try:
                workers = min(LOAD_THREADS, len(loaders))
                if workers > 1:
                    # runs load side by side: decoding (numpy), reads and writes release the GIL
                    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mi-load") as pool:
                        for future in [pool.submit(self._drain, queue) for _ in range(workers)]:
                            future.result()
                else:
                    self._drain(queue)
            finally:
                self._queue = None
                if helped:
                    self.decode_helper.close()  # its memory back once the load is read
            if self._stop.is_set():
                return
            self.load_status = "loaded"
            self._log_left_out()
            for hook in list(self.after_reload):
                try:
                    hook()
                except Exception:  # a hook's failure never stops reloading
                    log.exception("after-reload hook %r failed", hook)
            if self._notifier is not None:
                self._notifier.refresh()  # bounded watches: follow the number of directories

    def _start_helper(self, loaders: list[RunLoader]) -> bool:
        """Start the decode helper when this cycle has at least decode_helper_mb of local summary bytes that the
        helper would decode (formats.helper_bytes: a big MindSpore file decodes in the worker, so a few long
        MindSpore runs do not start it: 20 MB of PSS for no gain)."""
        threshold = self.settings.decode_helper_mb << 20
        if threshold <= 0:
            return False
        helped = 0
        for loader in loaders:
            run = self._runs.get(loader.train_id)
            if run is not None and not storage.is_remote(run.path):  # local files only
                helped += sum(formats.helper_bytes(f.name, max(0, f.size - loader.file_offset(f.name)))
                              for f in (*run.summary_files, *run.member_files))
        if helped < threshold:
            return False
        log.info("%.0f MB to decode: decoding in a helper process beside the worker", helped / 2**20)
        return self.decode_helper.start()

    def _keep_unlisted(self, result: discovery.ScanResult) -> list[RunInfo]:
        """The scanned runs plus, when listings failed (a failing store is not an empty one), the runs known
        before under the directories that could not be listed; each of those carries an `unreadable`
        problem until a listing works again. A change in the failures is logged once."""
        failed = result.failed
        if failed != self._scan_failed:
            for tid, why in sorted(failed.items()):
                if self._scan_failed.get(tid) != why:
                    log.warning("listing failed, keeping what was known (%s): %s", tid, why)
            if not failed:
                log.info("listing %s works again", self.bases.describe())
            self._scan_failed = dict(failed)
        problems: dict[str, Problem] = {}
        runs = result.runs
        if failed:
            found = {r.train_id for r in runs}
            with self._lock:
                known = list(self._runs.values())
                before = dict(self._runs)
            for run in runs:  # a run listed, but a sub-folder of it (add_scalars keys) could not be: keep those
                cause = failed.get(run.train_id)
                old = before.get(run.train_id)
                if cause is not None and old is not None and old.members:
                    _keep_members(run, old)
                    problems[run.train_id] = Problem("", 0, "unreadable", cause)
            kept = []
            for run in known:
                tid = run.train_id
                cause = next((why for f, why in failed.items()
                              if f == "./" or tid == f or tid.startswith(f + "/")), None)
                if cause is not None and tid not in found:
                    kept.append(run)
                    problems[tid] = Problem("", 0, "unreadable", cause)
            if kept:
                runs = sorted(runs + kept, key=lambda r: (-r.update_time, r.train_id))[:self.settings.max_run_count]
                result.total_runs += len(kept)
        with self._lock:
            self._listing_problems = problems
        return runs

    def _keep_unlisted_debug(self, result: discovery.ScanResult) -> DebugFinds:
        """The dump roots and model files of the scan plus, under directories whose listing failed, the ones
        known before (a failing store is not an empty one)."""
        found = result.debug
        if not result.failed:
            return found
        def under_failed(item_id: str) -> bool:
            return any(f == "./" or item_id == f or item_id.startswith(f + "/") for f in result.failed)
        with self._lock:
            old = self._debug
        dump_ids = {d.dump_id for d in found.dumps}
        model_ids = {m.model_id for m in found.models}
        found.dumps += [d for d in old.dumps if d.dump_id not in dump_ids and under_failed(d.dump_id)]
        found.models += [m for m in old.models if m.model_id not in model_ids and under_failed(m.model_id)]
        probe_ids = {d.dump_id for d in found.msprobe_dumps}
        file_ids = {f.file_id for f in found.msprobe_files}
        found.msprobe_dumps += [d for d in old.msprobe_dumps if d.dump_id not in probe_ids and under_failed(d.dump_id)]
        found.msprobe_files += [f for f in old.msprobe_files if f.file_id not in file_ids and under_failed(f.file_id)]
        return found

    def _drain(self, queue: LoadQueue) -> None:
        while not self._stop.is_set() and (loader := queue.take()) is not None:
            try:
                self._load_unless_stopping(loader)
            finally:
                queue.done(loader.train_id)

    def _load_unless_stopping(self, loader: RunLoader) -> None:
        if self._stop.is_set() or self.loader(loader.train_id) is not loader:
            return  # stopping, or evicted meanwhile (budget)
        self._load(loader)
        self._measure(loader)

    def _recency(self, train_id: str) -> float:
        run = self._runs.get(train_id)
        return max(run.update_time if run else 0.0, self._stamps.get(train_id, 0.0))

    def _size(self, train_id: str) -> int:
        """Estimated bytes of a run: measured after its last load, else a stand-in from its file size."""
        size = self._sizes.get(train_id)
        if size is not None:
            return size
        run = self._runs.get(train_id)
        return cache_budget.provisional_bytes(run.total_bytes if run else 0)

    def _measure(self, loader: RunLoader) -> None:
        """Record a loaded run's estimated size; when the cached runs outgrow the budget, evict."""
        size = cache_budget.run_bytes(loader.cache)
        with self._lock:
            if self._loaders.get(loader.train_id) is not loader:
                return
            self._used += size - self._size(loader.train_id)
            self._sizes[loader.train_id] = size
            if self._used > self.budget_bytes:
                self._choose_pool()

    @property
    def budget_bytes(self) -> int:
        return self.settings.cache_memory_mb * cache_budget.MB

    def cached_bytes(self) -> int:
        """Estimated bytes of the runs in the detail cache (kept as a running total: O(1))."""
        return self._used

    def _add_loader(self, tid: str) -> None:
        """Put a run in the detail cache (caller holds the lock)."""
        self._loaders[tid] = self._new_loader(self._runs[tid])
        self._used += self._size(tid)

    def _drop_loader(self, tid: str, why: str) -> None:
        """Take a run out of the detail cache (caller holds the lock)."""
        log.info("run %s %s", tid, why)
        self._loaders.pop(tid).close()
        self._used -= self._size(tid)

    def _choose_pool(self) -> None:
        """Keep the most recent cacheable runs that fit the budget (and max_cached_runs when > 0);
        the caller holds the lock."""
        cacheable = [tid for tid, r in self._runs.items() if r.summary_files or r.pb_files]
        cacheable.sort(key=self._recency, reverse=True)
        kept, _left = cache_budget.choose_within_budget(cacheable, self._size, self.budget_bytes,
                                                        self.settings.max_cached_runs)
        keep = set(kept)
        for tid in list(self._loaders):
            if tid not in keep:
                self._drop_loader(tid, "leaves the cache")
        for tid in kept:
            if tid not in self._loaders:
                self._add_loader(tid)
        self._used = sum(self._size(tid) for tid in self._loaders)  # re-sync (sizes of gone runs)

    def _load(self, loader: RunLoader) -> None:
        run = self._runs.get(loader.train_id)
        if run is None:
            return
        parser = loader.parse_records
        if isinstance(parser, formats.RecordsParser):
            parser.set_members(run.member_keys())  # add_scalars sub-folders: their files are the run's too
        try:
            loader.load_pass([f.name for f in run.summary_files] + [f.name for f in run.member_files],
                             [f.name for f in run.pb_files], projector=run.projector)
        except Exception:
            log.exception("loading %s failed", loader.train_id)

    # ------------------------------------------------------------------ public interface
    def runs(self) -> list[RunInfo]:
        """All discovered runs, in listing order (update_time descending)."""
        with self._lock:
            return [self._runs[t] for t in self._order]

    def groups(self) -> dict[str, run_groups.GroupMember]:
        """train_id -> its rank group, for the listed runs that belong to one (run_groups.py)."""
        return self._index.groups

    def index(self) -> RunIndex:
        """The listing, search keys and rank groups of the current run list (rebuilt on every rescan)."""
        return self._index

    def debug_files(self) -> DebugFinds:
        """The MindSpore dump roots and model files the last scan found (read-only; replaced on each rescan)."""
        with self._lock:
            return self._debug

    def run(self, train_id: str) -> RunInfo | None:
        with self._lock:
            return self._runs.get(train_id)

    def run_cache(self, train_id: str, wait_s: float = 0.0) -> RunCache:
        """The detail cache of a run; TrainJobNotExistError if it is not cached (any status).

        `wait_s` > 0: a run the current cycle has yet to load (or is loading) is loaded next, and this waits up
        to `wait_s` for its first pass, so a request for one run during a big load answers with its data, not
        "loading" (and a client polling many runs does not spend the loader's time on answers it will retry)."""
        with self._lock:
            loader = self._loaders.get(normalize_train_id(train_id)) if train_id else None
        if loader is None:
            raise TrainJobNotExistError("Can not find the given train job in cache.")
        queue = self._queue
        if wait_s > 0 and not loader.loaded_once and queue is not None and queue.ask(loader.train_id):
            loader.wait_loaded(wait_s)
        return loader.cache

    def loader(self, train_id: str) -> RunLoader | None:
        with self._lock:
            return self._loaders.get(train_id)

    def still_loading(self, train_id: str) -> str | None:
        """Why data of `train_id` may be missing only because it is not loaded yet, or None.

        Right after start (a new gunicorn worker) until the first reload is done: 'INIT' before the base
        dir was listed, 'LOADING' for a listed run; later, 'CACHING' for a run whose first load pass has
        not finished (just added to the cache). A run that is listed and loaded gives None.
        """
        with self._lock:
            listed = train_id in self._runs
            loader = self._loaders.get(train_id)
            scanned = self._scanned
        if not scanned:
            return "INIT"
        if loader is not None and not loader.loaded_once:
            queue = self._queue
            if queue is not None:
                queue.ask(train_id)  # somebody waits for this run: it is loaded next
            return "CACHING"
        if listed and self.load_status != "loaded":
            return "LOADING"
        return None

    def cache_status(self, train_id: str) -> CacheStatus:
        with self._lock:
            loader = self._loaders.get(train_id)
        return loader.status if loader is not None else NOT_IN_CACHE

    def run_status(self, train_id: str) -> RunStatus:
        loader = self.loader(train_id)
        with self._lock:
            unlisted = self._listing_problems.get(train_id)
        listing = [unlisted] if unlisted is not None else []
        if loader is None:
            return RunStatus(NOT_IN_CACHE, not listing, listing, 0, 0, None)
        cache = loader.cache
        problems = loader.problems + listing
        tags = cache.all_tags()
        return RunStatus(loader.status, not problems, problems, loader.progress.bytes_read,
                         loader.progress.bytes_total, tags, tags.get("text", []), cache.dropped_tags,
                         f"{loader.generation}.{cache.version}", loader.display_name)

    def cache_runs(self, train_ids: Iterable[str]) -> list[dict[str, str]]:
        """Stamp known runs as recently used and make sure they get cached (asynchronously).

        The status of each is taken *before* the load runs (as MindInsight): a run just added to the
        cache reports NOT_IN_CACHE. Unknown or invalid ids are skipped silently.
        """
        result = []
        now = time.time()
        with self._lock:
            for tid in train_ids:
                try:
                    check_train_id_syntax(tid)
                except MindInsightError:
                    continue
                tid = normalize_train_id(tid)
                if tid not in self._runs:
                    continue
                result.append({"train_id": tid, "cache_status": self.cache_status(tid)})
                self._stamps[tid] = now
                run = self._runs[tid]
                if (run.summary_files or run.pb_files) and tid not in self._loaders:
                    self._add_loader(tid)
                    self._evict_over_limit()
        if result:
            self.wake()
        return result

    def _evict_over_limit(self) -> None:
        """Drop the least recently used cached runs until the rest fit the budget and the count."""
        limit = self.settings.max_cached_runs
        while len(self._loaders) > 1 and (
                (limit > 0 and len(self._loaders) > limit) or self._used > self.budget_bytes):
            victim = min(self._loaders, key=self._recency)
            self._drop_loader(victim, "evicted from the cache (LRU)")

    def cache_summary(self) -> dict[str, Any]:
        """The cache against its budget and the run list limit (for /health)."""
        with self._lock:
            cacheable = sum(1 for r in self._runs.values() if r.summary_files or r.pb_files)
            return {
                "budget_mb": self.settings.cache_memory_mb,
                "used_mb": round(self.cached_bytes() / cache_budget.MB, 1),
                "max_cached_runs": self.settings.max_cached_runs,
                "cached_runs": len(self._loaders),
                "cacheable_runs": cacheable,
                "listed_runs": len(self._runs),
                "found_runs": self.runs_found,
            }

    def _log_left_out(self) -> None:
        """Say once (per change) how many runs the run list limit and the memory budget leave out."""
        with self._lock:
            cacheable = sum(1 for r in self._runs.values() if r.summary_files or r.pb_files)
            left_out = (self.runs_found - len(self._runs), cacheable - len(self._loaders), self.runs_filtered)
        if left_out == self._left_out:
            return
        self._left_out = left_out
        if left_out[0] > 0:
            log.warning("%d runs found under %s; the %d least recently updated are not listed (max_run_count=%d)",
                        self.runs_found, self.bases.describe(), left_out[0], self.settings.max_run_count)
        if left_out[2] > 0:
            log.info("%d runs do not match run_filter %r: not listed, not loaded", left_out[2],
                     self.settings.run_filter)
        if left_out[1] > 0:
            log.info("%d runs are not kept in memory (cache_memory_mb=%d, max_cached_runs=%d, %.1f MB cached); "
                     "they load when opened", left_out[1], self.settings.cache_memory_mb,
                     self.settings.max_cached_runs, self.cached_bytes() / cache_budget.MB)

    def wait_until_loaded(self, timeout: float = 30.0) -> bool:
        """Block until load_status is loaded and every cached run is CACHED (tests, benchmarks)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                statuses = [ld.status for ld in self._loaders.values()]
            if self.load_status == "loaded" and all(s == "CACHED" for s in statuses):
                return True
            time.sleep(0.02)
        return False
