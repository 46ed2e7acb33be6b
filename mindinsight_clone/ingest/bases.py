"""The summary base dirs of a server: one unnamed dir (MindInsight's `--summary-base-dir`), or several named ones
(`--summary-base-dir a=/x,b=s3://bucket/y`, TensorBoard's `--logdir_spec` idea).

`Bases` is the one seam that maps a train id to a location: with one unnamed base a train id is `./<run path>`
(`./` the base itself), exactly as always; with named bases it is `./<name>/<run path>` (`./<name>` the root of
that base). `split` checks the id (the errors `ingest.train_id` gives) and answers (base location, the id relative
to it); `ingest.train_id.resolve_train_dir` takes a `Bases` wherever it takes a location.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mindinsight_clone.config import base_dirs
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location
from mindinsight_clone.ingest.train_id import InvalidTrainId, check_train_id_syntax

NOT_FOUND = "Can not find the train job in data manager."


@dataclass(frozen=True)
class Base:
    name: str | None  # None: the one unnamed base dir
    location: Location

    def train_id(self, relative_id: str) -> str:
        """The server's train id of a run whose id relative to this base is `relative_id` (`./`, `./x/y`)."""
        if self.name is None:
            return relative_id
        rest = relative_id[2:].rstrip("/")
        return f"./{self.name}/{rest}" if rest else f"./{self.name}"

    def describe(self) -> str:
        shown = storage.describe(self.location)
        return shown if self.name is None else f"{self.name}={shown}"


class Bases:
    """The registered base dirs, in the order given."""

    def __init__(self, bases: Sequence[Base]) -> None:
        if not bases:
            raise ValueError("at least one base dir")
        self.bases: tuple[Base, ...] = tuple(bases)
        self._by_name = {b.name: b for b in self.bases if b.name is not None}

    @classmethod
    def from_setting(cls, value: str, options: Mapping[str, Any] | None = None) -> Bases:
        """From the `summary_base_dir` setting (`config.base_dirs`); `options` go to every URL base's backend."""
        return cls([Base(name, storage.base_location(path, options)) for name, path in base_dirs(value)])

    @classmethod
    def single(cls, location: Location) -> Bases:
        return cls([Base(None, location)])

    def __iter__(self) -> Iterator[Base]:
        return iter(self.bases)

    def __len__(self) -> int:
        return len(self.bases)

    @property
    def named(self) -> bool:
        return self.bases[0].name is not None

    @property
    def primary(self) -> Location:
        """The first base's location (the one base dir when unnamed): `DataManager.base_dir`."""
        return self.bases[0].location

    @property
    def remote(self) -> bool:
        """Whether any base is remote (URL)."""
        return any(storage.is_remote(b.location) for b in self.bases)

    def describe(self) -> str:
        """`/x` for one unnamed base, `a=/x, b=s3://bucket/y` for named ones (no credentials)."""
        return ", ".join(b.describe() for b in self.bases)

    def split(self, train_id: str | None) -> tuple[Location, str]:
        """(base location, train id relative to it) of a client's `train_id`; the train_id module's errors
        (missing, null byte, malformed, a name not registered: "can not find")."""
        train_id = check_train_id_syntax(train_id)
        if not self.named:
            return self.bases[0].location, train_id
        name, _, rest = train_id[2:].rstrip("/").partition("/")
        base = self._by_name.get(name)
        if base is None:
            raise InvalidTrainId(NOT_FOUND)
        return base.location, "./" + rest


def describe_setting(value: str) -> str:
    """How `start` shows the `summary_base_dir` setting without opening anything: `/x`, or for named base dirs
    `a=/x, b=s3://bucket/y` (URLs without credentials). For cli.py / lifecycle (`config.base_dirs` gives the
    (name, path) pairs each to check like one base dir)."""
    return ", ".join(storage.redact(path) if name is None else f"{name}={storage.redact(path)}"
                     for name, path in base_dirs(value))
