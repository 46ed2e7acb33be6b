"""From request parameters to a profiler dir, with MindInsight's error codes but never an absolute path.

Two addressing styles exist (API.md §10):

* **A** `train_id=./job&profile=profiler`: the profiler sub-dir is named by the client.
* **B** `dir=./job` (or `train_id=./job`): the last sub-dir, by name, that starts with `profiler` is used.

The job dir always comes from `ingest.train_id.resolve_train_dir` (the one central check); the profiler sub-dir
name must be a single plain path component, and `ingest.storage.confine` (the one path check of every storage
backend) keeps it inside the job dir: no symlinks, real path inside. The base dir is a storage Location (a local
path or a remote URL such as `s3://bucket/prefix`).
"""

from __future__ import annotations

from urllib.parse import unquote

from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir, is_profiler_dir, list_entries, scan_profiler_dir
from mindinsight_clone.errors import (
    ParamValueError,
    ProfilerDirNotFoundError,
    ProfilerParamValueError,
    TrainJobNotExistError,
)
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location
from mindinsight_clone.ingest.summary_watcher import is_profiler_dir_name
from mindinsight_clone.ingest.train_id import (
    BaseRouter,
    InvalidTrainId,
    fits_name_max,
    normalize_train_id,
    resolve_train_dir,
)


def _display(train_id: str, name: str) -> str:
    job = normalize_train_id(train_id)
    return f"{job.rstrip('/')}/{name}" if job != "./" else f"./{name}"


def _plain_component(name: str) -> bool:
    return (bool(name) and name not in (".", "..") and not any(c in name for c in "/\\\x00") and ":" not in name[:2]
            and fits_name_max(name))


def style_a(base_dir: Location | BaseRouter, train_id: str | None, profile: str | None, *, dot: bool = False,
            cache: ParsedFileCache | None = None) -> ProfilerDir:
    """`?train_id=./job&profile=profiler`. `dot` adds the final period some MindInsight messages have; `cache` (the
    app's parse cache) keeps the profiler_info files the scan reads."""
    if not profile or not train_id:
        raise ParamValueError("No profiler_dir or train_id.")
    invalid = "Invalid profiler dir." if dot else "Invalid profiler dir"
    if not _plain_component(profile):
        raise ParamValueError(invalid)
    display = f"<{_display(train_id, profile)}>" if train_id.startswith("./") else "<profiler>"
    try:
        job_dir = resolve_train_dir(base_dir, train_id)
    except InvalidTrainId:
        raise ParamValueError(invalid) from None
    except TrainJobNotExistError:
        raise ProfilerDirNotFoundError(display) from None
    candidate = storage.confine(job_dir, profile)  # None for a symlink or a path leaving the job dir
    if candidate is None or not storage.is_dir(candidate):  # is_dir: False on any OSError (ELOOP, EACCES...)
        raise ProfilerDirNotFoundError(display)
    return scan_profiler_dir(candidate, _display(train_id, profile), cache)


def style_b(base_dir: Location | BaseRouter, job: str | None, cache: ParsedFileCache | None = None) -> ProfilerDir:
    """`?dir=./job`: the job's last `profiler*` sub-dir by name (preferring ones that hold data)."""
    if not job:
        raise ProfilerParamValueError("The file dir does not exist.")
    try:
        train_id = unquote(job, errors="strict")
    except UnicodeDecodeError:
        raise ProfilerParamValueError("Unquote error with strict mode") from None
    try:
        job_dir = resolve_train_dir(base_dir, train_id)
    except InvalidTrainId:
        raise ProfilerParamValueError("train_job dir is invalid.") from None
    names = [e.name for e in list_entries(job_dir)
             if is_profiler_dir_name(e.name) and e.is_dir]  # a symlink is never a dir here
    with_data = [n for n in names if is_profiler_dir(job_dir / n)]
    chosen = (with_data or names)[-1:] if names else []
    if not chosen:
        # MindInsight answers 500 here (IndexError on an empty list); a missing dir is a client-side 4xx.
        raise ProfilerDirNotFoundError(f"<{_display(train_id, 'profiler*')}>")
    return scan_profiler_dir(job_dir / chosen[0], _display(train_id, chosen[0]), cache)
