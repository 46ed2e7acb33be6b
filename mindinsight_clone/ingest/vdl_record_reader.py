"""Read the records of a VisualDL log (`vdlrecords.<ts>.log`), resumable at a byte offset on a growing file.

Framing, as VisualDL's `RecordWriter` writes it (no file header, no checksum):

    u64 little-endian length | payload (one serialized `visualdl.Record`)

With no CRC, a frame is checked by its payload: it must start with a `Record.values` field (0x0A; an empty
payload is an empty Record) and decode as a `Record` (upb, ~1 us per record). While resynchronising, a candidate
frame must also have a `Record`'s exact shape (`is_record_shaped`: each value a run of `Value` fields with their
wire types, ending at the frame's end). The same interface as `record_reader.RecordReader` (both are
`framed_reader.FramedReader`s; the loader holds either):

* a record whose bytes are not all on disk yet (cut inside its length or its payload, at the end) waits for
  the next call: a live file grows;
* a frame whose payload is not a Record, or whose length is above `max_record_bytes` (never allocated): a
  record cut in the middle of the file, garbage. It is reported (`bad_payload`, logged) and skipped: the reader
  scans on (at most `RESYNC_SCAN_BYTES`) for the next offset that frames a well-shaped record, and resumes
  there; past the bound the file stops;
* a file that shrank or was replaced is read again from 0 (`ReadResult.reset`).
"""

from __future__ import annotations

import logging
import os
import struct
from typing import IO

from google.protobuf.message import DecodeError

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.framed_reader import (
    DEFAULT_CHUNK_BYTES,
    DEFAULT_MAX_RECORD_BYTES,
    READ_CHUNK_BYTES,
    FramedReader,
    ReadResult,
)
from mindinsight_clone.proto import vdl_record_pb2

logger = logging.getLogger(__name__)

LENGTH_BYTES = 8
RESYNC_SCAN_BYTES = 16 * 1024 * 1024  # most bytes scanned for the next well-framed record after a bad one
_U64 = struct.Struct("<Q")
_VALUES_KEY = 0x0A  # field 1 (Record.values), wire type 2


def _varint(data: bytes | memoryview, i: int, end: int) -> tuple[int, int] | None:
    """(value, next index) of the varint at `data[i:end]`, None if it does not end there."""
    value = shift = 0
    while i < end and shift < 64:
        byte = data[i]
        value |= (byte & 0x7F) << shift
        i += 1
        if not byte & 0x80:
            return value, i
        shift += 7
    return None


def is_record_shaped(payload: bytes | memoryview, start: int = 0, end: int | None = None) -> bool:
    """Whether `payload[start:end]` is a run of `Record.values` fields ending exactly at `end`, each value a run
    of `Value` fields with their wire types (a record cut short and followed by the next frame fails this)."""
    end = len(payload) if end is None else end
    i = start
    while i < end:
        if payload[i] != _VALUES_KEY:
            return False
        parsed = _varint(payload, i + 1, end)
        if parsed is None:
            return False
        length, i = parsed
        if i + length > end or not _is_value_shaped(payload, i, i + length):
            return False
        i += length
    return i == end


def _is_value_shaped(data: bytes | memoryview, i: int, end: int) -> bool:
    """`data[i:end]` is `Value` fields: 1, 3 varints; 4 a fixed32; 2 and 5-14 length-delimited."""
    while i < end:
        key = data[i]
        if key & 0x80:  # Value's field numbers fit one key byte
            return False
        field, wire = key >> 3, key & 7
        i += 1
        if field in (1, 3) and wire == 0:
            parsed = _varint(data, i, end)
            if parsed is None:
                return False
            i = parsed[1]
        elif field == 4 and wire == 5:
            i += 4
        elif (field == 2 or 5 <= field <= 14) and wire == 2:
            parsed = _varint(data, i, end)
            if parsed is None:
                return False
            i = parsed[1] + parsed[0]
        else:
            return False
    return i == end


class VdlRecordReader(FramedReader):
    """Resumable reader of one VisualDL log. Not thread-safe; one loader owns it."""

    MIN_CHUNK_BYTES = LENGTH_BYTES

    def __init__(self, path: str | os.PathLike[str] | storage.Location, offset: int = 0,
                 max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES, chunk_bytes: int = DEFAULT_CHUNK_BYTES) -> None:
        super().__init__(path, offset, max_record_bytes, chunk_bytes)
        self._resync_from: int | None = None  # damaged frame at `offset`: scan on from here
        self._record = vdl_record_pb2.Record()  # reused by `_decodes`

    @property
    def resyncing(self) -> bool:
        return self._resync_from is not None

    def _forget_damage(self) -> None:
        self._resync_from = None

    def _read_from(self, f: IO[bytes], size: int, result: ReadResult) -> None:
        while not self.stopped:
            if self._resync_from is not None and not self._resynchronise(f, size, result):
                return
            if not self._read_frames(f, size, result):
                return

    def _read_frames(self, f: IO[bytes], size: int, result: ReadResult) -> bool:
        """Frames from `self.offset` on; True when a damaged one was met (resynchronise, then go on)."""
        start = pos = self.offset
        f.seek(pos)
        data = b""  # unparsed bytes starting at `pos`
        while True:
            if len(data) < LENGTH_BYTES or len(data) < LENGTH_BYTES + _U64.unpack_from(data, 0)[0]:
                length = _U64.unpack_from(data, 0)[0] if len(data) >= LENGTH_BYTES else 0
                if length > self.max_record_bytes:  # no CRC: a misframed (or damaged) length; never allocated
                    self.offset, self._resync_from = pos, pos + 1
                    self._problem(result, pos, "bad_payload", f"record length {length} exceeds the limit of "
                                  f"{self.max_record_bytes} bytes (damaged or misframed); skipped")
                    return True
                if pos + LENGTH_BYTES + length > size or pos + len(data) >= size:
                    break  # not all on disk yet: waits for the next call
                if pos - start >= self.chunk_bytes:
                    result.more = True
                    break
                need = LENGTH_BYTES + length - len(data)
                chunk = f.read(min(size - pos - len(data), max(min(READ_CHUNK_BYTES, self.chunk_bytes), need)))
                if not chunk:
                    break  # shrank meanwhile; the next call notices
                data = data + chunk if data else chunk
                continue
            i, end = 0, len(data)
            while end - i >= LENGTH_BYTES:
                length = _U64.unpack_from(data, i)[0]
                body_end = i + LENGTH_BYTES + length
                if body_end > end:
                    break
                payload = data[i + LENGTH_BYTES:body_end]
                if not self._decodes(payload):
                    self.offset, self._resync_from = pos + i, pos + i + 1
                    self._problem(result, pos + i, "bad_payload", f"a record of {length} bytes does not frame as "
                                  "a VisualDL Record (cut or damaged); skipped")
                    return True
                result.records.append(payload)
                result.offsets.append(pos + i)
                i = body_end
            pos += i
            data = data[i:]
        self.offset = pos
        return False

    def _resynchronise(self, f: IO[bytes], size: int, result: ReadResult) -> bool:
        """Scan on for the next offset that frames a well-shaped record; True (offset moved there) if found."""
        assert self._resync_from is not None
        damaged, scan = self.offset, self._resync_from
        bound = min(size, damaged + RESYNC_SCAN_BYTES)
        f.seek(scan)
        window = f.read(max(0, bound - scan))
        j = window.find(b"\x0a", LENGTH_BYTES)
        while j >= 0:  # a non-empty Record's first byte is 0x0A: only those offsets can start a frame
            k, j = j - LENGTH_BYTES, window.find(b"\x0a", j + 1)
            length = _U64.unpack_from(window, k)[0]
            body_end = k + LENGTH_BYTES + length
            if 0 < length <= self.max_record_bytes and body_end <= len(window) and is_record_shaped(
                    window, k + LENGTH_BYTES, body_end) and self._decodes(window[k + LENGTH_BYTES:body_end]):
                self.offset, self._resync_from = scan + k, None
                logger.info("%s: resumed at byte %d after %d damaged bytes", storage.describe(self.path),
                            scan + k, scan + k - damaged)
                return True
        if size >= damaged + RESYNC_SCAN_BYTES:
            self._resync_from, self.stopped = None, True
            self._problem(result, damaged, "bad_payload", f"no well-framed record in the {RESYNC_SCAN_BYTES} "
                          "bytes after a damaged one; file not read further")
        else:
            self._resync_from = scan  # scanned again next call: a record may yet be completed or appended
        return False

    def _decodes(self, payload: bytes) -> bool:
        """A frame's payload is a Record: starts with a `values` field (or is empty) and decodes (in C: ~1 us)."""
        if payload and payload[0] != _VALUES_KEY:
            return False
        try:
            self._record.ParseFromString(payload)
        except DecodeError:
            return False
        return True
