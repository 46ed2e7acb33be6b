"""What every resumable record reader shares, whatever its framing: `record_reader.RecordReader` (MindSpore
and TensorBoard: length + CRCs) and `vdl_record_reader.VdlRecordReader` (VisualDL: length only).

One reader per file, owned by one loader. `read()` opens the file through the storage seam, notices a file that
shrank below the offset or was replaced (reported; reading starts again from 0 within the same call,
`ReadResult.reset`), lets the subclass parse frames from `offset` on (`_read_from`), and reports the bytes after
the last complete record (`pending_bytes`) or a file that cannot be read (`unreadable`), never raising on
damage. What a frame is, how damage is found and how the reader resynchronises is the subclass's.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import IO, Any, Literal

from mindinsight_clone.ingest import storage

DEFAULT_MAX_RECORD_BYTES = 500_000_000  # MindInsight's MAX_EVENT_STRING
DEFAULT_CHUNK_BYTES = 64 * 1024 * 1024  # bytes of records one read() call parses before returning `more`
READ_CHUNK_BYTES = 1024 * 1024  # bytes read from the file at a time; longer records are checked in chunks

ProblemKind = Literal["payload_crc", "length_crc", "too_large", "shrunk", "replaced", "unreadable",
                      "bad_payload"]


@dataclass(frozen=True, slots=True)
class ReadProblem:
    """Something wrong in a file: which file (name), where (byte offset of the record), what."""

    file: str
    offset: int
    kind: ProblemKind
    message: str


@dataclass(slots=True)
class ReadResult:
    records: list[bytes] = field(default_factory=list)  # payloads, in file order
    offsets: list[int] = field(default_factory=list)  # byte offset of each record's header
    offset: int = 0  # resume here next time (just past the last complete record)
    problems: list[ReadProblem] = field(default_factory=list)
    reset: bool = False  # the file shrank or was replaced: drop earlier data; records start at 0
    stopped: bool = False  # the file is damaged at `offset`; nothing more will be read from it
    more: bool = False  # a size budget was hit: call read() again right away for the rest
    pending_bytes: int = 0  # bytes after `offset` that do not yet form a whole record (0 if stopped)


class FramedReader:
    """Resumable reader of one framed record file. Not thread-safe; one loader owns it.

    Subclasses implement `_read_from` (parse frames from `self.offset`, advance it, append to the result),
    `resyncing` and `_forget_damage` (drop any resynchronisation state when the file is read again from 0)."""

    MIN_CHUNK_BYTES = 1  # the smallest `chunk_bytes` that still lets a call read one whole frame header

    def __init__(self, path: str | os.PathLike[str] | storage.Location, offset: int = 0,
                 max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES, chunk_bytes: int = DEFAULT_CHUNK_BYTES) -> None:
        self.path: storage.Location = storage.as_location(path)
        self.name = self.path.name
        self.offset = offset
        self.max_record_bytes = max_record_bytes
        self.chunk_bytes = max(chunk_bytes, self.MIN_CHUNK_BYTES)  # soft budget, checked between file reads
        self.stopped = False  # set by unrecoverable damage; cleared only when the file is reset
        self._identity: tuple[Any, ...] | None = None  # storage.file_identity of the file we read

    @property
    def resyncing(self) -> bool:
        """Damage was met and reported; the next good record has not been found yet."""
        raise NotImplementedError

    def read(self) -> ReadResult:
        """Read the complete records that follow `self.offset`; never raises on file damage."""
        result = ReadResult(offset=self.offset)
        try:
            with storage.open_binary(self.path) as f:
                size = storage.file_size(f)
                self._check_identity(size, storage.file_identity(f), result)
                if not self.stopped:
                    self._read_from(f, size, result)
                    if not (self.stopped or result.more or self.resyncing):
                        result.pending_bytes = max(0, size - self.offset)
        except OSError as exc:
            self._problem(result, self.offset, "unreadable", f"cannot read file: {exc.strerror or exc}")
        result.offset = self.offset
        result.stopped = self.stopped
        return result

    def _read_from(self, f: IO[bytes], size: int, result: ReadResult) -> None:
        raise NotImplementedError

    def _forget_damage(self) -> None:
        raise NotImplementedError

    def _check_identity(self, size: int, identity: tuple[Any, ...], result: ReadResult) -> None:
        kind: ProblemKind | None = None
        if self._identity is not None and identity != self._identity:
            kind, why = "replaced", "file was replaced"
        elif size < self.offset:
            kind, why = "shrunk", f"file shrank to {size} bytes, below offset {self.offset}"
        self._identity = identity
        if kind is not None:
            self._problem(result, self.offset, kind, f"{why}; reading it again from the start")
            self.offset = 0
            self.stopped = False
            self._forget_damage()
            result.reset = True

    def _stop(self, result: ReadResult, offset: int, kind: ProblemKind, message: str) -> None:
        self.stopped = True
        self._problem(result, offset, kind, message)

    def _problem(self, result: ReadResult, offset: int, kind: ProblemKind, message: str) -> None:
        result.problems.append(ReadProblem(self.name, offset, kind, message))
        # logged under the subclass's module, as before the base was extracted
        logging.getLogger(type(self).__module__).warning("%s at byte %d: %s", storage.describe(self.path), offset,
                                                         message)
