"""Tag and remark per run (`PUT lineagemgr/lineages`), kept in `<workspace>/lineage/added_info.json`.

MindInsight keeps them in memory only; here they survive restarts. The file maps the real path of the
summary base dir to {train_id: {"tag": int, "remark": str}}, so two base dirs never share notes. Writes
are atomic (temp file + fsync + os.replace) and serialised across processes with an flock on a side
file; a change made by another worker is picked up on the next read (the file's size/mtime changed).
A write that fails (full disk, quota, file-size limit, read-only workspace) changes nothing, on disk or in
memory, and is refused with a clear error (507 for a full disk) instead of a 500.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

from mindinsight_clone.config import is_url
from mindinsight_clone.errors import FileSystemPermissionError, InsufficientStorageError, LineageParamValueError

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

FILE_NAME = "added_info.json"
KEYS = ("tag", "remark")
FORMAT_VERSION = 1
NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})  # full disk, quota, RLIMIT_FSIZE


def validate_added_info(added_info: Mapping[str, Any]) -> None:
    """MindInsight's rules and messages (50542081)."""
    if not set(added_info).issubset(KEYS):
        raise LineageParamValueError(f"ValueError. Keys of added_info must be in {list(KEYS)}.")
    for key, value in added_info.items():
        if key == "tag":
            if isinstance(value, bool) or not isinstance(value, int):
                raise LineageParamValueError("ValueError. 'tag' must be int.")
            if not 0 <= value <= 10:
                raise LineageParamValueError("ValueError. The tag should in [0, 10].")
        elif key == "remark":
            if not isinstance(value, str):
                raise LineageParamValueError("ValueError. 'remark' must be str.")
            if len(value) > 128:
                raise LineageParamValueError("ValueError. The length of remark should in [0, 128].")


class AddedInfoStore:
    """Thread- and process-safe tag/remark store for one summary base dir."""

    def __init__(self, directory: str | os.PathLike[str], base_dir: str) -> None:
        """`directory` is in the workspace (local); `base_dir` keys the notes: a local path (made real) or a
        URL (kept as given)."""
        self.directory = Path(directory)
        self.path = self.directory / FILE_NAME
        self.base_key = base_dir if is_url(base_dir) else os.path.realpath(base_dir)
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._all: dict[str, dict[str, dict[str, Any]]] = {}

    def get_all(self) -> dict[str, dict[str, Any]]:
        """train_id -> added info (copies), for this base dir."""
        with self._lock:
            self._reload_if_changed()
            return {k: dict(v) for k, v in self._all.get(self.base_key, {}).items()}

    def update(self, train_id: str, added_info: Mapping[str, Any]) -> dict[str, Any]:
        """Merge the given keys into the run's info and persist; returns the new info. Nothing changes (on disk
        or in memory) when the write fails."""
        try:
            with self._lock, self._file_lock():
                self._stamp = None
                self._reload_if_changed()
                merged = {**self._all.get(self.base_key, {}).get(train_id, {}), **added_info}
                updated = {**self._all, self.base_key: {**self._all.get(self.base_key, {}), train_id: merged}}
                self._write(updated)
                self._all = updated  # only once it is on disk
                return dict(merged)
        except OSError as exc:
            raise _write_error(exc, self.path) from None

    # ------------------------------------------------------------------ internals
    def _reload_if_changed(self) -> None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._all, self._stamp = {}, None
            return
        stamp = (st.st_size, st.st_mtime_ns)
        if stamp == self._stamp:
            return
        self._stamp = stamp
        try:
            data = orjson.loads(self.path.read_bytes())
            self._all = {str(base): {str(t): dict(info) for t, info in runs.items()}
                         for base, runs in data.get("base_dirs", {}).items()}
        except (OSError, orjson.JSONDecodeError, AttributeError, TypeError, ValueError) as exc:
            log.warning("ignoring unreadable lineage notes %s: %s", self.path, exc)
            self._all = {}

    def _write(self, notes: dict[str, dict[str, dict[str, Any]]]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        body = orjson.dumps({"version": FORMAT_VERSION, "base_dirs": notes},
                            option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2)
        fd, tmp = tempfile.mkstemp(prefix=".added_info.", suffix=".tmp", dir=self.directory)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(body)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        st = os.stat(self.path)
        self._stamp = (st.st_size, st.st_mtime_ns)

    @contextlib.contextmanager
    def _file_lock(self) -> Iterator[None]:
        if fcntl is None:
            yield
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        with open(self.directory / ".added_info.lock", "a+b") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def _write_error(exc: OSError, path: Path) -> Exception:
    """The client's error for a notes file that could not be written (the log has the path; the answer not)."""
    log.warning("lineage notes not written to %s: %s", path, exc)
    reason = os.strerror(exc.errno) if exc.errno else str(exc)
    if exc.errno in NO_SPACE:
        return InsufficientStorageError(f"The tag/remark was not saved ({reason}).")
    return FileSystemPermissionError(f"The workspace cannot be written; the tag/remark was not saved ({reason}).")
