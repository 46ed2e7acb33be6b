"""Read framed records from a summary or lineage file, CRC-checked and resumable at a byte offset.

Framing (little endian), as MindSpore writes it:

    u64 length | u32 masked_crc32c(length bytes) | payload | u32 masked_crc32c(payload)

One `RecordReader` per file. `read()` returns every complete record that is on disk now and the
offset just past the last one; a record still being written at EOF is left for the next call.
Damage is reported as `ReadProblem`s (and logged), never raised:

* payload CRC mismatch (length CRC good): that record is skipped, reading goes on;
* length CRC mismatch, or a length above `max_record_bytes`: the file stops there for good
  (no resync, and the bogus length is never allocated);
* the file shrank below the offset or was replaced (new inode): reported, and the reader starts
  again from 0 within the same call (`ReadResult.reset`), so the caller drops what it had;
* the file cannot be opened or read: reported, no exception.
"""

from __future__ import annotations

import io
import logging
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from crc32c import crc32c

logger = logging.getLogger(__name__)

HEADER_BYTES = 12  # u64 length + u32 length crc
FOOTER_BYTES = 4  # u32 payload crc
FRAME_BYTES = HEADER_BYTES + FOOTER_BYTES
DEFAULT_MAX_RECORD_BYTES = 500_000_000  # MindInsight's MAX_EVENT_STRING
DEFAULT_CHUNK_BYTES = 64 * 1024 * 1024  # bytes of records one read() call parses before returning `more`
READ_CHUNK_BYTES = 1024 * 1024  # bytes read from the file at a time

_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")
_HEADER = struct.Struct("<QI")
_MASK_DELTA = 0xA282EAD8

ProblemKind = Literal["payload_crc", "length_crc", "too_large", "shrunk", "replaced", "unreadable",
                      "bad_payload"]


def masked_crc32c(data: bytes | bytearray | memoryview) -> int:
    """TFRecord/MindSpore masked CRC32C: rotate right by 15 bits, then add a constant (mod 2**32)."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def frame_record(payload: bytes) -> bytes:
    """One record framed as MindSpore writes it (used by the writer and the tests)."""
    header = _U64.pack(len(payload))
    return b"".join((header, _U32.pack(masked_crc32c(header)), payload, _U32.pack(masked_crc32c(payload))))


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


class RecordReader:
    """Resumable reader of one record file. Not thread-safe; one loader owns it."""

    def __init__(self, path: str | os.PathLike[str], offset: int = 0,
                 max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
                 chunk_bytes: int = DEFAULT_CHUNK_BYTES) -> None:
        self.path = Path(path)
        self.name = self.path.name
        self.offset = offset
        self.max_record_bytes = max_record_bytes
        self.chunk_bytes = max(chunk_bytes, FRAME_BYTES)  # soft budget, checked between file reads
        self.stopped = False  # set by length damage; cleared only when the file is reset
        self._identity: tuple[int, int] | None = None  # (st_dev, st_ino) of the file we read

    def read(self) -> ReadResult:
        """Read the complete records that follow `self.offset`; never raises on file damage."""
        result = ReadResult(offset=self.offset)
        try:
            with self.path.open("rb") as f:
                st = os.fstat(f.fileno())
                self._check_identity(st, result)
                if not self.stopped:
                    self._read_from(f, st.st_size, result)
                    if not (self.stopped or result.more):
                        result.pending_bytes = max(0, st.st_size - self.offset)
        except OSError as exc:
            self._problem(result, self.offset, "unreadable", f"cannot read file: {exc.strerror or exc}")
        result.offset = self.offset
        result.stopped = self.stopped
        return result

    # ------------------------------------------------------------------ internals
    def _check_identity(self, st: os.stat_result, result: ReadResult) -> None:
        identity = (st.st_dev, st.st_ino)
        kind: ProblemKind | None = None
        if self._identity is not None and identity != self._identity:
            kind, why = "replaced", "file was replaced"
        elif st.st_size < self.offset:
            kind, why = "shrunk", f"file shrank to {st.st_size} bytes, below offset {self.offset}"
        self._identity = identity
        if kind is not None:
            self._problem(result, self.offset, kind, f"{why}; reading it again from the start")
            self.offset = 0
            self.stopped = False
            result.reset = True

    def _read_from(self, f: io.BufferedReader, size: int, result: ReadResult) -> None:
        """Parse records from `self.offset` on, reading READ_CHUNK_BYTES at a time."""
        start = pos = self.offset
        records, offsets = result.records, result.offsets
        max_len = self.max_record_bytes
        f.seek(pos)
        data = b""  # unparsed bytes starting at `pos`
        while True:
            if len(data) < HEADER_BYTES or not self._whole_record_in(data):
                if pos + len(data) >= size:
                    break  # nothing more on disk now; a partial record waits for the next call
                if pos - start >= self.chunk_bytes:
                    result.more = True  # budget of this call used up
                    break
                on_disk = size - pos - len(data)  # never ask for more than the file holds
                need = self._bytes_needed(data) - len(data)
                chunk = f.read(min(on_disk, max(min(READ_CHUNK_BYTES, self.chunk_bytes), need)))
                if not chunk:
                    break  # the file shrank meanwhile; the next call notices
                data = data + chunk if data else chunk
                continue
            length, length_crc = _HEADER.unpack_from(data, 0)
            if masked_crc32c(data[:8]) != length_crc:
                self._stop(result, pos, "length_crc", "length header CRC mismatch; file not read further")
                break
            if length > max_len:
                self._stop(result, pos, "too_large",
                           f"record length {length} exceeds the limit of {max_len} bytes; file not read further")
                break
            # parse every whole record in `data` without re-slicing it each time
            i, end = 0, len(data)
            while end - i >= HEADER_BYTES:
                length, length_crc = _HEADER.unpack_from(data, i)
                if length > max_len or masked_crc32c(data[i:i + 8]) != length_crc:
                    break  # handled (and reported) at the top of the outer loop
                body_end = i + HEADER_BYTES + length
                if body_end + FOOTER_BYTES > end:
                    break
                payload = data[i + HEADER_BYTES:body_end]
                if masked_crc32c(payload) == _U32.unpack_from(data, body_end)[0]:
                    records.append(payload)
                    offsets.append(pos + i)
                else:
                    self._problem(result, pos + i, "payload_crc", "payload CRC mismatch; record skipped")
                i = body_end + FOOTER_BYTES
            pos += i
            data = data[i:]
        self.offset = pos

    def _whole_record_in(self, data: bytes) -> bool:
        """Whether `data` starts with a whole record, or with a header we must reject anyway."""
        length, length_crc = _HEADER.unpack_from(data, 0)
        if length > self.max_record_bytes or masked_crc32c(data[:8]) != length_crc:
            return True  # bad header: let the caller report it without reading the "record"
        return len(data) >= HEADER_BYTES + length + FOOTER_BYTES

    def _bytes_needed(self, data: bytes) -> int:
        if len(data) < HEADER_BYTES:
            return HEADER_BYTES
        return HEADER_BYTES + int(_U64.unpack_from(data, 0)[0]) + FOOTER_BYTES

    def _stop(self, result: ReadResult, offset: int, kind: ProblemKind, message: str) -> None:
        self.stopped = True
        self._problem(result, offset, kind, message)

    def _problem(self, result: ReadResult, offset: int, kind: ProblemKind, message: str) -> None:
        problem = ReadProblem(self.name, offset, kind, message)
        result.problems.append(problem)
        logger.warning("%s at byte %d: %s", self.path, offset, message)


def read_all(path: str | os.PathLike[str], max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
             ) -> ReadResult:
    """Every readable record of a file, in one result (loops over `more`)."""
    reader = RecordReader(path, max_record_bytes=max_record_bytes)
    total = reader.read()
    while total.more and not total.stopped:
        nxt = reader.read()
        total.records += nxt.records
        total.offsets += nxt.offsets
        total.problems += nxt.problems
        total.offset, total.stopped, total.more = nxt.offset, nxt.stopped, nxt.more
        total.pending_bytes = nxt.pending_bytes
        if nxt.reset:  # replaced while we read: keep only the fresh pass
            total.records, total.offsets, total.reset = nxt.records, nxt.offsets, True
    return total
