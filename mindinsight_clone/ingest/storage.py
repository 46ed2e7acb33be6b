"""The storage seam: every read of the summary base dir (listing, stat, open, range reads) goes through here.

A *location* is either a local `pathlib.Path` or a `upath.UPath` for a remote URL (`s3://bucket/prefix`,
`hdfs://...`, `gs://...`; universal_pathlib over fsspec). Both join with `/` and have `.name` and `.parent`,
so callers build locations as they build paths, and call this module's functions to touch them. Local paths
take the `os` fast path (scandir, fstat, no fsspec in the way); remote ones go through the location's fsspec
file system. Callers never need to know which.

Rules that hold for every backend:

* Listings are bounded (`limit`) and never follow symlinks (object stores have none).
* `stat` and `list_dir` raise `OSError` subclasses, as `os` does, whatever the backend raised, so one
  `except OSError` handles a missing file, a permission error and a failing store alike.
* `confine` is the one check that a client-supplied relative path stays inside a base location.
* Local files are opened without following a final symlink, non-blocking (a FIFO never hangs a thread), and must
  be regular files (no FIFO, device or socket). Under a base dir registered with `confine_reads_to` (the server
  registers its summary base dir), what was actually opened must lie inside it: a file or directory swapped for
  a symlink after discovery is refused, with no race (the check looks at the open descriptor). Errors name the
  file (its last component), never an absolute path, never its contents.
* Remote reads are range reads: `open_binary` returns a seekable file whose reads fetch only the bytes asked
  for (plus a read-ahead block), so a growing object is read from the last offset on.

Writing (workspace: logs, caches, notes) stays local and does not go through here.
"""

from __future__ import annotations

import contextlib
import copy
import errno
import io
import logging
import os
import re
import stat as stat_module
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeAlias

from mindinsight_clone.config import is_url

if TYPE_CHECKING:
    from upath import UPath

logger = logging.getLogger(__name__)

# upath (and fsspec under it) is imported only when a URL is opened: a local base dir never needs it, and
# every process of the server (the CLI, the loading worker) starts faster without it
Location: TypeAlias = "Path | UPath"


def is_location(value: object) -> bool:
    """A local `Path` or a remote `UPath` (no UPath exists unless upath was imported to make one)."""
    if isinstance(value, Path):
        return True
    upath = sys.modules.get("upath")
    return upath is not None and isinstance(value, upath.UPath)


def as_location(value: str | os.PathLike[str] | Location) -> Location:
    """`value` itself when it is a location, else a local path."""
    return value if is_location(value) else Path(value)  # type: ignore[arg-type,return-value]

# scheme -> the extra that installs its fsspec backend (`pip install mindinsight-clone[<extra>]`)
BACKEND_EXTRAS: dict[str, str] = {
    "s3": "s3", "s3a": "s3", "obs": "s3",
    "gs": "gcs", "gcs": "gcs",
    "hdfs": "hdfs", "webhdfs": "hdfs",
    "abfs": "azure", "az": "azure", "abfss": "azure",
}
REMOTE_BLOCK_BYTES = 4 * 1024 * 1024  # read-ahead of a remote file: one range request per 4 MiB read
# botocore settings for s3:// (and OBS through its S3 API) when `--storage-options` does not set them: a dead or
# slow endpoint costs seconds, not botocore's 60 s per attempt, so a failing store shows up as a problem promptly.
# Given `config_kwargs` keys win, key by key.
S3_CONFIG_DEFAULTS: dict[str, Any] = {"connect_timeout": 5, "read_timeout": 30,
                                      "retries": {"max_attempts": 3, "mode": "standard"}}


class StorageConfigError(ValueError):
    """The base location cannot be used as given (unknown scheme, backend not installed, bad options)."""


class UnsafeFileError(OSError):
    """A local file this module will not read; `str()` is the reason alone (no errno, no path)."""

    def __str__(self) -> str:
        return str(self.strerror)


class NotRegularFileError(UnsafeFileError):
    """A FIFO, device or socket where a file was to be read (opening or reading it could block or never end)."""


class SymlinkRefusedError(UnsafeFileError):
    """The file is a symbolic link: reads never follow one (it may have been swapped in after discovery)."""


class OutsideBaseError(UnsafeFileError, PermissionError):
    """What was opened lies outside the registered base dir (a symlinked directory on the way)."""


class FileTooLargeError(UnsafeFileError):
    """A file larger than the caller's bound for a whole-file read."""


class Entry:
    """One directory entry or the answer of `stat`. `is_symlink` entries are neither files nor dirs here.

    Fields: name, location, is_dir, is_file, is_symlink, size, mtime (seconds since the epoch; 0.0 where
    the store does not say, e.g. directories on S3), identity (local: (st_dev, st_ino); remote: (), an
    object is its name). Read-only by convention. A local listing builds `location` only when asked for
    (making a Path per entry would cost more than the listing itself).
    """

    __slots__ = ("_location", "_parent", "identity", "is_dir", "is_file", "is_symlink", "mtime", "name", "size")

    def __init__(self, name: str, location: Location | None, is_dir: bool, is_file: bool, is_symlink: bool,
                 size: int, mtime: float, identity: tuple[Any, ...] = (), parent: Location | None = None) -> None:
        self.name = name
        self._location = location
        self._parent = parent  # with location None: the location is parent / name
        self.is_dir = is_dir
        self.is_file = is_file
        self.is_symlink = is_symlink
        self.size = size
        self.mtime = mtime
        self.identity = identity

    @property
    def location(self) -> Location:
        if self._location is None:
            assert self._parent is not None
            self._location = self._parent / self.name
        return self._location

    @property
    def location_text(self) -> str:
        """`str(self.location)`, without making the location object when the listing did not (cheaper per entry)."""
        if self._location is None and self._parent is not None:
            parent = str(self._parent)
            return parent + self.name if parent.endswith("/") else f"{parent}/{self.name}"
        return str(self.location)

    def _key(self) -> tuple[Any, ...]:
        return (self.name, str(self.location), self.is_dir, self.is_file, self.is_symlink, self.size, self.mtime,
                self.identity)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Entry) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Entry(name={self.name!r}, location={str(self.location)!r}, is_dir={self.is_dir}, "
                f"is_file={self.is_file}, is_symlink={self.is_symlink}, size={self.size}, mtime={self.mtime})")


# ---------------------------------------------------------------------- making locations
def base_location(value: str | os.PathLike[str], options: Mapping[str, Any] | None = None) -> Location:
    """The location of a base dir given as a local path or a URL. `options` are passed to the fsspec
    backend (endpoint URL, region, anonymous access...). `file://` URLs become local paths.

    Raises StorageConfigError when the scheme is unknown or its backend is not installed (naming the extra).
    """
    text = os.fspath(value)
    if not is_url(text):
        return Path(text)
    scheme = text.split("://", 1)[0].lower()
    if scheme == "file":
        return Path(text[len("file://"):] or "/")
    import fsspec  # only for remote URLs

    try:
        fsspec.get_filesystem_class(scheme)
    except ValueError:
        raise StorageConfigError(f"unknown storage scheme {scheme!r} in {text!r}") from None
    except ImportError as exc:
        extra = BACKEND_EXTRAS.get(scheme, scheme)
        raise StorageConfigError(
            f"reading {scheme}:// needs its fsspec backend: pip install 'mindinsight-clone[{extra}]' ({exc})"
        ) from None
    from upath import UPath

    try:
        return UPath(text.rstrip("/"), **with_defaults(scheme, options))
    except (TypeError, ValueError) as exc:
        raise StorageConfigError(f"cannot use {text!r} with storage options {dict(options or {})}: {exc}") from None


def with_defaults(scheme: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """`options` with this project's defaults for the scheme's backend added (s3: timeouts and retries)."""
    out = dict(options or {})
    if BACKEND_EXTRAS.get(scheme) == "s3":
        given = out.get("config_kwargs")
        # deep copies: botocore rewrites the retries dict it is given (max_attempts -> total_max_attempts)
        config = copy.deepcopy(dict(given)) if isinstance(given, Mapping) else {}
        for key, value in S3_CONFIG_DEFAULTS.items():
            config.setdefault(key, copy.deepcopy(value))
        out["config_kwargs"] = config
    return out


def is_remote(location: Location) -> bool:
    return not isinstance(location, Path)


def describe(location: Location) -> str:
    """How to name a location in logs and messages (URL for remote ones, no credentials)."""
    return redact(str(location)) if is_remote(location) else str(location)


def redact(text: str) -> str:
    """A URL without the `user:password@` part some schemes allow (`s3://key:secret@bucket/...`)."""
    if "://" not in text:
        return text
    scheme, _, rest = text.partition("://")
    netloc, slash, path = rest.partition("/")
    return f"{scheme}://{netloc.rsplit('@', 1)[-1]}{slash}{path}"


# ---------------------------------------------------------------------- confinement
def plain_parts(relative: str) -> list[str] | None:
    """The `/`-separated components of a client-supplied relative path, or None when it is not a plain
    relative path (empty or `.`/`..` components, backslashes, NUL, absolute, drive letters, URLs)."""
    if not relative or "\x00" in relative or "\\" in relative or relative.startswith("/") or ":" in relative[:2]:
        return None
    if "://" in relative:
        return None
    parts = relative.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return None
    return parts


def confine(base: Location, relative: str) -> Location | None:
    """`base / relative` when that stays inside `base`, else None. The one path check for every backend:
    `relative` must be plain (see `plain_parts`); locally no component may be a symlink and the real path
    must be inside the real base; remotely (no symlinks, no `..` resolution by the store) plain parts suffice.
    Existence is not checked; a local lookup that fails (EACCES, ENAMETOOLONG...) refuses too."""
    try:
        return confine_or_raise(base, relative)
    except (OSError, ValueError):
        return None


def confine_or_raise(base: Location, relative: str) -> Location | None:
    """`confine`, except that an OSError of the local symlink/realpath lookup is raised rather than
    answered with None (for callers that tell "refused" from "cannot be looked at")."""
    parts = plain_parts(relative)
    if parts is None:
        return None
    target = base.joinpath(*parts)
    if is_remote(base):
        return target
    assert isinstance(base, Path) and isinstance(target, Path)
    current = base
    for part in parts:
        current = current / part
        if current.is_symlink():
            return None
    real_base = Path(os.path.realpath(base))
    real = Path(os.path.realpath(target))
    if real != real_base and real_base not in real.parents:
        return None
    return target


# the local base dirs every read under which must stay inside: lexical absolute path -> real path (see
# `confine_reads_to`). Paths under none of them (library use, the workspace) are not checked.
_read_roots: dict[str, str] = {}
_read_roots_lock = threading.Lock()
_OPEN_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK | os.O_CLOEXEC
_KINDS = ((stat_module.S_ISFIFO, "a FIFO"), (stat_module.S_ISCHR, "a character device"),
          (stat_module.S_ISBLK, "a block device"), (stat_module.S_ISSOCK, "a socket"))


def confine_reads_to(base: Location) -> None:
    """Register a local base dir: from now on a local read of a path under it (as written, or under its real
    path) must open something whose real path lies inside the base dir's real path, else OutsideBaseError.
    Remote stores have no symlinks: nothing to register. Registering again is harmless; several base dirs (named
    ones, `ingest.bases`) are each registered."""
    if not isinstance(base, Path):
        return
    real = os.path.realpath(base)
    with _read_roots_lock:
        _read_roots[os.path.abspath(base)] = real
        _read_roots[real] = real


def _root_of(path: str) -> str | None:
    """The real path of the registered base dir `path` (absolute, as written) claims to be under, if any (the
    innermost one when named base dirs nest)."""
    found: tuple[int, str] | None = None
    for lexical, real in list(_read_roots.items()):
        if (path == lexical or path.startswith(lexical.rstrip("/") + "/")) and (found is None
                                                                               or len(lexical) > found[0]):
            found = (len(lexical), real)
    return found[1] if found else None


def _check_inside(fd: int, location: Path) -> None:
    """OutsideBaseError when `location` is under a registered base dir but what `fd` opened is not."""
    if not _read_roots:
        return
    root = _root_of(str(location.absolute()))
    if root is None:
        return
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")  # what was opened, whatever the path went through
    except OSError:  # no /proc (macOS...): the path as it resolves now
        real = os.path.realpath(location)
    if real != root and not real.startswith(root.rstrip("/") + "/"):
        raise OutsideBaseError(errno.EACCES, f"{location.name} lies outside the summary base dir "
                                             "(a symbolic link on its path); not read")


def _open_local(location: Path, directory: bool = False) -> int:
    """A descriptor of the local regular file (or directory) at `location`: a final symlink is not followed
    (files), a FIFO does not block, anything but a regular file (directory) is refused, and under a registered
    base dir what was opened must lie inside it. Raises OSError naming only `location.name`."""
    try:
        fd = os.open(location, _OPEN_DIR if directory else _OPEN_FILE)
    except OSError as exc:
        raise _local_error(exc, location) from None
    try:
        mode = os.fstat(fd).st_mode
        if not directory and not stat_module.S_ISREG(mode):
            if stat_module.S_ISDIR(mode):
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
            kind = next((name for test, name in _KINDS if test(mode)), "not a file")
            raise NotRegularFileError(errno.EINVAL, f"{location.name} is not a regular file ({kind}); not read")
        _check_inside(fd, location)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _local_error(exc: OSError, location: Path) -> OSError:
    """`exc` without the absolute path `os.open` put in it (a final symlink says so)."""
    if exc.errno == errno.ELOOP and os.path.islink(location):
        return SymlinkRefusedError(errno.ELOOP, f"{location.name} is a symbolic link; symbolic links are not followed")
    return type(exc)(exc.errno, exc.strerror)


# ---------------------------------------------------------------------- reading
def list_dir(location: Location, limit: int | None = None, *,
             details: bool | Callable[[str], bool] = True) -> tuple[list[Entry], bool]:
    """The entries of a directory (at most `limit`) and whether the limit cut the listing.

    `details=False` lets a local listing skip the per-entry lstat: entries then carry only their kind
    (from the directory itself), size -1 and mtime 0.0; `stat` the ones you need. A callable takes the name
    of a regular file and says whether that file gets its size and mtime (the files a caller keeps).
    Remote listings always carry sizes and times (the store sends them anyway).
    Raises OSError (FileNotFoundError, NotADirectoryError, PermissionError...) when it cannot be listed.
    """
    if isinstance(location, Path):
        return _list_local(location, limit, details)
    return _list_remote(location, limit)


def iter_dir(location: Location, limit: int | None = None, *,
             details: bool | Callable[[str], bool] = True) -> Iterator[Entry]:
    """`list_dir` that gives nothing for a directory that cannot be listed."""
    try:
        entries, _ = list_dir(location, limit, details=details)
    except OSError as exc:
        logger.debug("cannot list %s: %s", describe(location), exc)
        return iter(())
    return iter(entries)


def stat(location: Location) -> Entry:
    """What `location` is (never following a symlink); raises OSError when it does not exist."""
    if isinstance(location, Path):
        st = os.lstat(location)
        return _entry_from_stat(location.name, location, st)
    fs, path = _fs(location)
    try:
        info = fs.info(path)
    except OSError:
        raise
    except Exception as exc:  # backends raise their own errors for a failing store
        raise _as_oserror(exc, location) from exc
    return _entry_from_info(location, info)


def exists(location: Location) -> bool:
    try:
        stat(location)
    except OSError:
        return False
    return True


def is_dir(location: Location, follow_symlinks: bool = False) -> bool:
    """A real directory (not a symlink to one, unless `follow_symlinks`: local only, stores have none)."""
    try:
        if follow_symlinks and isinstance(location, Path):
            return stat_module.S_ISDIR(os.stat(location).st_mode)
        return stat(location).is_dir
    except (OSError, ValueError):
        return False


def is_file(location: Location) -> bool:
    """A real regular file (not a symlink to one)."""
    try:
        return stat(location).is_file
    except OSError:
        return False


def open_binary(location: Location, block_bytes: int = REMOTE_BLOCK_BYTES) -> IO[bytes]:
    """A seekable binary file. Remote files fetch byte ranges on demand (`block_bytes` read-ahead).
    Raises OSError when it cannot be opened."""
    if isinstance(location, Path):
        return os.fdopen(_open_local(location), "rb")
    fs, path = _fs(location)
    try:
        _invalidate(fs, path)
        remote = _RemoteFile(fs.open(path, "rb", block_size=block_bytes, cache_type="readahead"), location)
        return remote  # type: ignore[return-value]  # an io.RawIOBase: read/seek/tell/close as IO[bytes]
    except OSError:
        raise
    except Exception as exc:
        raise _as_oserror(exc, location) from exc


def open_text(location: Location, encoding: str = "utf-8", errors: str = "replace",
              newline: str | None = None) -> IO[str]:
    """A text file over `open_binary` (CSV readers want `newline=""`)."""
    handle = open_binary(location)
    if isinstance(handle, _RemoteFile):
        handle = io.BufferedReader(handle, buffer_size=1024 * 1024)  # type: ignore[assignment]
    return io.TextIOWrapper(handle, encoding=encoding, errors=errors, newline=newline)  # type: ignore[arg-type]


def read_bytes(location: Location, limit: int | None = None, *, max_size: int | None = None) -> bytes:
    """The whole file as big as it was when opened, or its first `limit` bytes. With `max_size`, a file larger
    than that is refused (FileTooLargeError, saying both sizes) rather than read. Raises OSError."""
    with open_binary(location) as handle:
        try:
            size = file_size(handle)
            if max_size is not None and size > max_size:
                raise FileTooLargeError(errno.EFBIG, f"{location.name} has {size} bytes, above the {max_size} "
                                                     "bytes allowed; not read")
            return handle.read(size if limit is None else min(limit, size))
        except OSError:
            raise
        except Exception as exc:
            raise _as_oserror(exc, location) from exc


def read_text(location: Location, encoding: str = "utf-8", errors: str = "strict", *,
              max_size: int | None = None) -> str:
    return read_bytes(location, max_size=max_size).decode(encoding, errors)


def read_range(location: Location, offset: int, length: int) -> bytes:
    """`length` bytes from `offset` (fewer at the end of the file). Remote: one ranged GET (`cat_file`; a file object
    would ask the store for the object's metadata first). Raises OSError."""
    if isinstance(location, Path):
        fd = _open_local(location)
        try:
            return os.pread(fd, max(length, 0), offset)
        finally:
            os.close(fd)
    if length <= 0:
        return b""
    fs, path = _fs(location)
    try:
        data = fs.cat_file(path, start=offset, end=offset + length)
    except OSError:
        raise
    except Exception as exc:
        raise _as_oserror(exc, location) from exc
    return bytes(data)


def file_size(handle: IO[bytes]) -> int:
    """Size of an open file as it is now (local: fstat; remote: the size the store reported at open)."""
    try:
        return os.fstat(handle.fileno()).st_size
    except (AttributeError, io.UnsupportedOperation, OSError):
        size = getattr(handle, "size", None)
        if size is None:  # a buffered remote file: the raw file knows
            size = getattr(getattr(handle, "raw", None), "size", None)
        if size is None:
            raise OSError("cannot tell the size of the file") from None
        return int(size)


def file_identity(handle: IO[bytes]) -> tuple[Any, ...]:
    """What tells a replaced local file from the same one grown: (st_dev, st_ino). Remote objects have
    no identity beyond their name: a longer object is read as appended, a shorter one as a reset."""
    try:
        st = os.fstat(handle.fileno())
    except (AttributeError, io.UnsupportedOperation, OSError):
        return ()
    return (st.st_dev, st.st_ino)


# ---------------------------------------------------------------------- internals
def _list_local(location: Path, limit: int | None,
                details: bool | Callable[[str], bool] = True) -> tuple[list[Entry], bool]:
    out: list[Entry] = []
    truncated = False
    with _scandir(location) as it:
        for entry in it:
            if limit is not None and len(out) >= limit:
                truncated = True
                break
            try:
                if details is True:
                    st = entry.stat(follow_symlinks=False)
                    out.append(_entry_from_stat(entry.name, None, st, location))
                    continue
                # the kind comes from the directory listing (d_type): no syscall per entry
                link = entry.is_symlink()
                is_file = not link and entry.is_file(follow_symlinks=False)
                if is_file and details is not False and details(entry.name):
                    out.append(_entry_from_stat(entry.name, None, entry.stat(follow_symlinks=False), location))
                    continue
                out.append(Entry(entry.name, None, not link and entry.is_dir(follow_symlinks=False), is_file, link,
                                 -1, 0.0, (), location))
            except OSError:  # vanished while we looked
                continue
    return out, truncated


@contextlib.contextmanager
def _scandir(location: Path) -> Iterator[Iterator[os.DirEntry[str]]]:
    """`os.scandir(location)`; under a registered base dir, of a descriptor checked to lie inside it (a directory
    swapped for a symlink out of the base dir after discovery is not listed)."""
    if not _read_roots or _root_of(str(location.absolute())) is None:
        with os.scandir(location) as it:
            yield it
        return
    fd = _open_local(location, directory=True)
    try:
        with os.scandir(fd) as it:
            yield it
    finally:
        os.close(fd)


def _entry_from_stat(name: str, location: Path | None, st: os.stat_result, parent: Path | None = None) -> Entry:
    mode = st.st_mode
    return Entry(name, location, stat_module.S_ISDIR(mode), stat_module.S_ISREG(mode), stat_module.S_ISLNK(mode),
                 st.st_size, st.st_mtime, (st.st_dev, st.st_ino), parent)


def _fs(location: UPath) -> tuple[Any, str]:
    return location.fs, location.path


_invalidate_lock = threading.Lock()


def _invalidate(fs: Any, path: str) -> None:
    """Drop fsspec's cached listing of `path`'s directory, so sizes and new files are seen fresh."""
    with _invalidate_lock, contextlib.suppress(Exception):  # a backend without a listing cache has nothing to drop
        fs.invalidate_cache(path)


class _RemoteFile(io.RawIOBase):
    """A remote file whose every failure is an OSError (a dead endpoint raises botocore's own errors).
    `size` is the object's size when it was opened."""

    def __init__(self, inner: Any, location: Location) -> None:
        super().__init__()
        self._inner = inner
        self._location = location
        self.size = int(inner.size)

    def _guard(self, call: Any, *args: Any) -> Any:
        try:
            return call(*args)
        except OSError:
            raise
        except Exception as exc:
            raise _as_oserror(exc, self._location) from exc

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        return self._guard(self._inner.read, -1 if size is None else size)  # type: ignore[no-any-return]

    def readall(self) -> bytes:
        return self.read(-1)

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._guard(self._inner.seek, offset, whence)  # type: ignore[no-any-return]

    def tell(self) -> int:
        return self._guard(self._inner.tell)  # type: ignore[no-any-return]

    def close(self) -> None:
        if not self.closed:
            with contextlib.suppress(Exception):
                self._inner.close()
        super().close()


def _list_remote(location: UPath, limit: int | None) -> tuple[list[Entry], bool]:
    fs, path = _fs(location)
    _invalidate(fs, path)
    try:
        infos = _ls_bounded(fs, path, limit)
    except OSError:
        raise
    except Exception as exc:
        raise _as_oserror(exc, location) from exc
    base = path.rstrip("/")
    out: list[Entry] = []
    truncated = False
    for info in sorted(infos, key=lambda i: str(i.get("name", ""))):
        name = str(info.get("name", "")).rstrip("/")
        if not name or name == base:
            continue  # some stores list the directory itself
        leaf = name.rsplit("/", 1)[-1]
        if plain_parts(leaf) is None:  # keys with `.`/`..` segments (e.g. planted in the bucket) are no entries
            logger.warning("%s: skipped an entry named %r (not a plain name)", describe(location), leaf)
            continue
        if limit is not None and len(out) >= limit:
            truncated = True
            break
        out.append(_entry_from_info(location / leaf, info))
    return out, truncated


def _ls_bounded(fs: Any, path: str, limit: int | None) -> list[dict[str, Any]]:
    """`fs.ls(path, detail=True)`, but on S3 (s3fs) at most about `limit` + 1 files are fetched: the listing
    pages stop there, so a prefix of a million objects costs a few requests, not a thousand. A cut listing
    is not left in s3fs's directory cache (it would hide the objects past the cut)."""
    lsdir = getattr(fs, "_lsdir", None)
    if limit is None or lsdir is None or getattr(fs, "loop", None) is None or type(fs).__name__ != "S3FileSystem":
        return list(fs.ls(path, detail=True))
    from fsspec.asyn import sync

    infos = list(sync(fs.loop, lsdir, fs._strip_protocol(path), refresh=True, max_items=limit + 1))
    if not infos:  # an empty listing: no prefix (s3fs says FileNotFoundError), or a bucket with nothing in it
        return list(fs.ls(path, detail=True))
    if len(infos) > limit:
        _invalidate(fs, path)
    return infos


def _entry_from_info(location: UPath, info: Mapping[str, Any]) -> Entry:
    kind = info.get("type")
    mtime = _info_mtime(info)
    size = int(info.get("size") or 0)
    return Entry(location.name, location, kind == "directory", kind == "file", False, size, mtime)


def _info_mtime(info: Mapping[str, Any]) -> float:
    for key in ("LastModified", "mtime", "last_modified", "modificationTime", "updated", "created"):
        value = info.get(key)
        if value is None:
            continue
        if hasattr(value, "timestamp"):
            return float(value.timestamp())
        try:
            number = float(value)
        except (TypeError, ValueError):
            continue
        return number / 1000.0 if number > 1e11 else number  # HDFS gives milliseconds
    return 0.0


_NOT_FOUND = re.compile(r"\b(?:NoSuchKey|Not Found|404)\b")
_DENIED = re.compile(r"\b(?:AccessDenied|Forbidden|403)\b")
_URL = re.compile(r"\w+://\S+")


def _as_oserror(exc: Exception, location: Location) -> OSError:
    """A backend's own exception as the OSError a caller handles (FileNotFoundError when it says so). The codes
    are looked for in the exception's words, never inside a URL: a store on port 40404 that cannot be reached is
    a failing store (its runs are kept), not a missing prefix (its runs would be dropped)."""
    text = f"{describe(location)}: {type(exc).__name__}: {exc}"
    words = _URL.sub(" ", f"{type(exc).__name__}: {exc}")
    if isinstance(exc, FileNotFoundError) or _NOT_FOUND.search(words):
        return FileNotFoundError(text)
    if isinstance(exc, PermissionError) or _DENIED.search(words):
        return PermissionError(text)
    return OSError(text)
