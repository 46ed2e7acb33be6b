"""Read framed records from a summary or lineage file, CRC-checked and resumable at a byte offset.

Framing (little endian), as MindSpore writes it:

    u64 length | u32 masked_crc32c(length bytes) | payload | u32 masked_crc32c(payload)

One `RecordReader` per file (the open / identity / result skeleton is `framed_reader.FramedReader`'s, shared
with VisualDL's reader). `read()` returns every complete record that is on disk now and the
offset just past the last one; a record still being written at EOF is left for the next call.
Damage is reported as `ReadProblem`s (and logged), never raised:

* payload CRC mismatch (length CRC good): that record is skipped, reading goes on;
* length CRC mismatch: the reader resynchronises, scanning forward (at most `RESYNC_SCAN_BYTES`) for
  the next offset whose length and length CRC check out, and reports the damaged offset and the bytes
  skipped; if the scan reaches the end of a file that may still grow, it resumes there on the next call;
  past the bound the file stops for good;
* a length above `max_record_bytes`: the file stops there for good (the length is never allocated);
* a record longer than `READ_CHUNK_BYTES` is CRC-checked in bounded chunks before it is read whole, so
  a bogus length just under the limit costs one chunk, not ~3x the length;
* the file shrank below the offset or was replaced (new inode): reported, and the reader starts
  again from 0 within the same call (`ReadResult.reset`), so the caller drops what it had;
* the file cannot be opened or read: reported, no exception.

The file is a storage location (`ingest.storage`): a local path, or a remote object read with range
requests from the offset on. A remote object has no identity but its name: one replaced by a longer one
reads as appended, by a shorter one as shrunk (a reset).
"""

from __future__ import annotations

import os
import struct
from typing import IO

import numpy as np
from crc32c import crc32c

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.framed_reader import (
    DEFAULT_CHUNK_BYTES,
    DEFAULT_MAX_RECORD_BYTES,
    READ_CHUNK_BYTES,
    FramedReader,
    ProblemKind,
    ReadProblem,
    ReadResult,
)

__all__ = ["DEFAULT_CHUNK_BYTES", "DEFAULT_MAX_RECORD_BYTES", "FOOTER_BYTES", "FRAME_BYTES", "HEADER_BYTES",
           "READ_CHUNK_BYTES", "ProblemKind", "ReadProblem", "ReadResult", "RecordReader", "frame_record",
           "masked_crc32c", "read_all"]

HEADER_BYTES = 12  # u64 length + u32 length crc
FOOTER_BYTES = 4  # u32 payload crc
FRAME_BYTES = HEADER_BYTES + FOOTER_BYTES
RESYNC_SCAN_BYTES = 64 * 1024 * 1024  # most bytes scanned for the next valid header after a damaged one
SCAN_WINDOW_BYTES = 256 * 1024  # bytes examined at a time while resynchronising

_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")
_HEADER = struct.Struct("<QI")
_MASK_DELTA = 0xA282EAD8


def masked_crc32c(data: bytes | bytearray | memoryview) -> int:
    """TFRecord/MindSpore masked CRC32C: rotate right by 15 bits, then add a constant (mod 2**32)."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def frame_record(payload: bytes) -> bytes:
    """One record framed as MindSpore writes it (used by the writer and the tests)."""
    header = _U64.pack(len(payload))
    return b"".join((header, _U32.pack(masked_crc32c(header)), payload, _U32.pack(masked_crc32c(payload))))


class RecordReader(FramedReader):
    """Resumable reader of one record file (MindSpore / TFRecord framing). Not thread-safe; one loader owns it."""

    MIN_CHUNK_BYTES = FRAME_BYTES

    def __init__(self, path: str | os.PathLike[str] | storage.Location, offset: int = 0,
                 max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
                 chunk_bytes: int = DEFAULT_CHUNK_BYTES) -> None:
        super().__init__(path, offset, max_record_bytes, chunk_bytes)
        # while resynchronising: (offset of the damaged header, offset to scan on from, damage reported yet)
        self._resync: tuple[int, int, bool] | None = None

    @property
    def resyncing(self) -> bool:
        """A damaged header was met and reported; the next valid record has not been found yet."""
        return self._resync is not None

    def _forget_damage(self) -> None:
        self._resync = None

    # ------------------------------------------------------------------ internals
    def _read_from(self, f: IO[bytes], size: int, result: ReadResult) -> None:
        """Parse records from `self.offset` on, reading READ_CHUNK_BYTES at a time."""
        start = pos = self.offset
        if self._resync is not None:  # a damaged header earlier: go on looking for the next record
            found = self._resynchronise(f, size, result)
            if found is None:
                return
            start = pos = self.offset = found
        records, offsets = result.records, result.offsets
        max_len = self.max_record_bytes
        f.seek(pos)
        data = b""  # unparsed bytes starting at `pos`
        while True:
            if len(data) >= HEADER_BYTES:
                length, length_crc = _HEADER.unpack_from(data, 0)
                if masked_crc32c(data[:8]) != length_crc:
                    self.offset = pos
                    self._resync = (pos, pos + 1, False)
                    found = self._resynchronise(f, size, result)
                    if found is None:
                        return
                    pos, data = found, b""
                    f.seek(pos)
                    continue
                if length > max_len:
                    self._stop(result, pos, "too_large",
                               f"record length {length} exceeds the limit of {max_len} bytes; file not read further")
                    break
                if length > READ_CHUNK_BYTES:
                    if size - pos < HEADER_BYTES + length + FOOTER_BYTES:
                        break  # still being written (or truncated): wait, without reading it
                    if pos > start and pos - start >= self.chunk_bytes:
                        result.more = True
                        break
                    self._read_large_record(f, pos, length, result)
                    pos += HEADER_BYTES + length + FOOTER_BYTES
                    data = b""
                    f.seek(pos)
                    continue
            if len(data) < HEADER_BYTES or len(data) < self._bytes_needed(data):
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
            # parse every whole small record in `data` without re-slicing it each time
            i, end = 0, len(data)
            while end - i >= HEADER_BYTES:
                length, length_crc = _HEADER.unpack_from(data, i)
                if length > READ_CHUNK_BYTES or masked_crc32c(data[i:i + 8]) != length_crc:
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

    def _read_large_record(self, f: IO[bytes], pos: int, length: int, result: ReadResult) -> None:
        """A record longer than READ_CHUNK_BYTES, wholly on disk: check its CRC chunk by chunk, and only
        then read the payload in one allocation (a bogus length costs one chunk of memory)."""
        f.seek(pos + HEADER_BYTES)
        crc, left = 0, length
        while left:
            chunk = f.read(min(READ_CHUNK_BYTES, left))
            if not chunk:
                return  # shrank meanwhile; the next call notices
            crc = crc32c(chunk, crc)
            left -= len(chunk)
        footer = f.read(FOOTER_BYTES)
        masked = (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF
        if len(footer) < FOOTER_BYTES or masked != _U32.unpack(footer)[0]:
            self._problem(result, pos, "payload_crc", "payload CRC mismatch; record skipped")
            return
        f.seek(pos + HEADER_BYTES)
        payload = f.read(length)
        if len(payload) == length:
            result.records.append(payload)
            result.offsets.append(pos)

    def _resynchronise(self, f: IO[bytes], size: int, result: ReadResult) -> int | None:
        """After a damaged header at `self._resync[0]`: the offset of the next plausible header (its length
        within the limit and its length CRC right), scanning on from where the last call stopped.

        Returns None while nothing is found yet (the file may grow; `self.offset` stays at the damage),
        or when the scan bound is used up (the file stops for good). Reports the damage once when it is
        found, and again with the bytes skipped once the reader is back in step.
        """
        assert self._resync is not None
        damaged, scan_from, reported = self._resync
        bound = damaged + 1 + RESYNC_SCAN_BYTES
        found = _find_header(f, scan_from, min(size, bound), self.max_record_bytes)
        if found is not None:
            self._resync = None
            skipped = found - damaged
            why = "resynchronised after the damaged header" if reported else "length header CRC mismatch"
            self._problem(result, damaged, "length_crc",
                          f"{why}; skipped {skipped} bytes to the next valid record at byte {found}")
            return found
        scanned_to = max(scan_from, min(size, bound) - HEADER_BYTES + 1)
        if size >= bound:
            self._resync = None
            self._stop(result, damaged, "length_crc",
                       f"length header CRC mismatch; no valid record in the {RESYNC_SCAN_BYTES} bytes after it; "
                       "file not read further")
            return None
        self._resync = (damaged, scanned_to, True)
        if not reported:
            self._problem(result, damaged, "length_crc",
                          f"length header CRC mismatch; no valid record in the {size - damaged} bytes after it "
                          "yet (reading resumes if one is appended)")
        return None

    def _bytes_needed(self, data: bytes) -> int:
        if len(data) < HEADER_BYTES:
            return HEADER_BYTES
        return HEADER_BYTES + int(_U64.unpack_from(data, 0)[0]) + FOOTER_BYTES


def _find_header(f: IO[bytes], start: int, end: int, max_len: int) -> int | None:
    """First offset in [start, end - HEADER_BYTES] holding a header whose length is at most `max_len` and
    whose length CRC matches. Reads SCAN_WINDOW_BYTES windows; numpy rules out most offsets at once (the
    high bytes of the length must be zero, and an all-zero header is never a real one)."""
    high_zero = 8 - (max(max_len.bit_length(), 1) + 7) // 8  # high bytes of the u64 that must be 0
    pos = start
    while end - pos >= HEADER_BYTES:
        f.seek(pos)
        window = f.read(min(SCAN_WINDOW_BYTES + HEADER_BYTES - 1, end - pos))
        count = len(window) - HEADER_BYTES + 1
        if count <= 0:
            return None
        nonzero = np.concatenate(([0], np.cumsum(np.frombuffer(window, dtype=np.uint8) != 0, dtype=np.int32)))
        j = np.arange(count, dtype=np.int32)
        plausible = nonzero[j + HEADER_BYTES] > nonzero[j]
        if high_zero:
            plausible &= nonzero[j + 8] == nonzero[j + 8 - high_zero]
        for k in np.flatnonzero(plausible).tolist():
            length, length_crc = _HEADER.unpack_from(window, k)
            if length <= max_len and masked_crc32c(window[k:k + 8]) == length_crc:
                return pos + k
        pos += count
    return None


def read_all(path: str | os.PathLike[str] | storage.Location, max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
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
