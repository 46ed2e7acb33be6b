"""Turn a client-supplied `train_id` into a directory inside the summary base dir, or refuse it.

This is the one place where path-like request parameters are checked. A train_id is `./` (the base
dir itself) or `./<name>` for a direct subdirectory, or `./<dir>/.../<name>` for a run found deeper
(`--max-depth`): no null bytes, no `..` or `.` or empty components, no backslashes, no absolute paths,
no symlinked component, and after resolving symlinks the directory must still be inside the base dir.
The base dir may be remote (`s3://bucket/prefix`); the check is `storage.confine`, the same for every backend.
With several named base dirs (`ingest.bases`) an id is `./<name>/<run path>`: `Bases.split` picks the base by
name (an unknown one is refused like any bad id) and the rest is checked here below that base.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, overload

if TYPE_CHECKING:
    from upath import UPath

from mindinsight_clone.errors import (
    ParamMissError,
    QueryStringContainsNullByteError,
    TrainJobNotExistError,
)
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

NAME_MAX = 255  # longest file name (bytes) on Linux, macOS and Windows file systems


class InvalidTrainId(TrainJobNotExistError):
    """The id is malformed or points outside the base dir (never says where)."""


class BaseRouter(Protocol):
    """Several base dirs (`ingest.bases.Bases`): which one a train id is under, and the id relative to it."""

    def split(self, train_id: str | None) -> tuple[Location, str]: ...


def check_train_id_syntax(train_id: str | None) -> str:
    """Validate the form of `train_id` without touching the file system; return it."""
    if train_id is None or train_id == "":
        raise ParamMissError("train_id")
    if "\x00" in train_id:
        raise QueryStringContainsNullByteError(f"Detail: train job id: {train_id!r} contains null byte.")
    if train_id == "./":
        return train_id
    name = train_id[2:] if train_id.startswith("./") else None
    if (
        not name
        or not _plain_components(name.rstrip("/"))
        or "\\" in name
        or os.path.isabs(name)
        or ":" in name[:2]
    ):
        raise InvalidTrainId("Can not find the train job in data manager.")
    return train_id


@overload
def resolve_train_dir(base_dir: Path | str, train_id: str | None) -> Path: ...
@overload
def resolve_train_dir(base_dir: UPath, train_id: str | None) -> UPath: ...
@overload
def resolve_train_dir(base_dir: Location, train_id: str | None) -> Location: ...
@overload
def resolve_train_dir(base_dir: BaseRouter, train_id: str | None) -> Location: ...


def resolve_train_dir(base_dir: Location | str | BaseRouter, train_id: str | None) -> Location:
    """The directory of `train_id` inside `base_dir` (local: its real path); raise if invalid or missing.

    `base_dir` is a storage location, a `str` naming a local directory, or the server's base dirs
    (`DataManager.bases`: a named base's ids are `./<name>/<run>`, checked the same way below that base).
    Built on `storage.confine`, the one path check of every backend: a local base keeps the symlink and
    realpath rules above; a remote base (`s3://bucket/prefix`...) takes plain components only, so an id
    never leaves the prefix. A name no file system can hold (longer than NAME_MAX) or any error while
    looking it up (ENAMETOOLONG, ELOOP, EACCES, a failing store...) means the train job does not exist,
    never an exception.
    """
    base: Location
    if isinstance(base_dir, str):
        base = Path(base_dir)
    elif storage.is_location(base_dir):
        base = base_dir  # type: ignore[assignment]
    else:  # several base dirs: the one the id names, and the id below it
        base, train_id = base_dir.split(train_id)  # type: ignore[union-attr]
    train_id = check_train_id_syntax(train_id)
    name = train_id[2:].rstrip("/")
    if name and not fits_name_max(name):
        raise InvalidTrainId("Can not find the train job in data manager.")
    if not isinstance(base, Path):
        target = storage.confine(base, name) if name else base
        if target is None:
            raise InvalidTrainId("Can not find the train job in data manager.")
        if not storage.is_dir(target):  # a failing store answers False: as good as missing
            raise TrainJobNotExistError("Can not find the train job in data manager.")
        return target
    real_base = Path(os.path.realpath(base))
    try:
        target = storage.confine_or_raise(real_base, name) if name else real_base
        if target is None:
            raise InvalidTrainId("Can not find the train job in data manager.")
        real = Path(os.path.realpath(str(target)))
        if not storage.is_dir(real):
            raise TrainJobNotExistError("Can not find the train job in data manager.")
    except (OSError, ValueError):
        raise TrainJobNotExistError("Can not find the train job in data manager.") from None
    return real


def fits_name_max(name: str) -> bool:
    """Whether every `/`-separated component of `name` fits NAME_MAX (255) bytes once encoded."""
    try:
        return all(len(os.fsencode(part)) <= NAME_MAX for part in name.split("/"))
    except UnicodeError:  # lone surrogates that the file system encoding cannot carry
        return False


def _plain_components(name: str) -> bool:
    """Every `/`-separated component is a plain name (not empty, `.` or `..`)."""
    return all(part not in ("", ".", "..") for part in name.split("/"))


def normalize_train_id(train_id: str) -> str:
    """`./name/` -> `./name` (the form the run registry uses)."""
    return "./" if train_id == "./" else train_id.rstrip("/")
