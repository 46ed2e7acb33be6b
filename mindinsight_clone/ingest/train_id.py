"""Turn a client-supplied `train_id` into a directory inside the summary base dir, or refuse it.

This is the one place where path-like request parameters are checked. A train_id is `./` (the base
dir itself) or `./<name>` for a direct subdirectory, or `./<dir>/.../<name>` for a run found deeper
(`--max-depth`): no null bytes, no `..` or `.` or empty components, no backslashes, no absolute paths,
no symlinked component, and after resolving symlinks the directory must still be inside the base dir.
"""

from __future__ import annotations

import os
from pathlib import Path

from mindinsight_clone.errors import (
    ParamMissError,
    QueryStringContainsNullByteError,
    TrainJobNotExistError,
)

NAME_MAX = 255  # longest file name (bytes) on Linux, macOS and Windows file systems


class InvalidTrainId(TrainJobNotExistError):
    """The id is malformed or points outside the base dir (never says where)."""


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


def resolve_train_dir(base_dir: str | Path, train_id: str | None) -> Path:
    """The real directory of `train_id` inside `base_dir`; raise if it is invalid or missing.

    A name no file system can hold (longer than NAME_MAX) or any OS error while looking it up
    (ENAMETOOLONG, ELOOP, EACCES...) means the train job does not exist, never an exception.
    """
    train_id = check_train_id_syntax(train_id)
    base = Path(os.path.realpath(base_dir))
    name = train_id[2:].rstrip("/")
    candidate = base / name if name else base
    if name and not fits_name_max(name):
        raise InvalidTrainId("Can not find the train job in data manager.")
    try:
        if name and candidate.is_symlink():
            raise InvalidTrainId("Can not find the train job in data manager.")
        real = Path(os.path.realpath(candidate))
        if real != base and base not in real.parents:
            raise InvalidTrainId("Can not find the train job in data manager.")
        if not real.is_dir():
            raise TrainJobNotExistError("Can not find the train job in data manager.")
        if "/" in name and _symlinked_parent(base, name):  # nested ids: symlinks handled as for the last part
            raise InvalidTrainId("Can not find the train job in data manager.")
    except OSError:
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


def _symlinked_parent(base: Path, name: str) -> bool:
    """Whether a directory on the way from `base` to `base/name` (excluding the last) is a symlink."""
    current = base
    for part in name.split("/")[:-1]:
        current = current / part
        if current.is_symlink():
            return True
    return False


def normalize_train_id(train_id: str) -> str:
    """`./name/` -> `./name` (the form the run registry uses)."""
    return "./" if train_id == "./" else train_id.rstrip("/")
