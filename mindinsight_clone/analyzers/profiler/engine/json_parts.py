"""A JSON array file (trace_view.json) shown to DuckDB as N smaller arrays, read through the storage seam.

DuckDB parses one JSON-array file on one thread (its parallel reader needs newline-delimited records, and profilers
write the trace as one line); several files it reads on several threads. So the file is cut at N-1 event
boundaries into parts, each served as `[` + its bytes + `]` by an fsspec file system (`json_parts_fs`, imported with
fsspec only when DuckDB reads a trace) whose reads are `storage.open_binary` range reads (local files, remote objects
alike): no byte is copied beforehand.

A boundary is a `},{` (whitespace allowed) after which the next bytes parse as whole events; a `},{` inside a
string fails that check. Where no boundary is found near a cut point (an event larger than the search window),
there are fewer parts. Parts are read in order, so DuckDB keeps the file's event order.
"""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass
from typing import Any

import orjson

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

log = logging.getLogger(__name__)
WINDOW_BYTES = 1 << 18  # searched after each cut point for an event boundary
MIN_PART_BYTES = 8 << 20  # smaller files stay one part
READ_AHEAD = 4 << 20  # remote read-ahead per part
_BOUNDARY = re.compile(rb"\}\s*,\s*(?=\{)")
_TRIES = 8


@dataclass(frozen=True)
class Part:
    start: int  # first byte of the part's first event
    end: int  # one past its last event's `}`

    @property
    def size(self) -> int:
        return self.end - self.start + 2  # with `[` and `]`


def split(path: Location, parts: int) -> list[Part]:
    """The array's events as up to `parts` byte ranges, cut at verified event boundaries. Raises ValueError when the
    file is not one closed array (the caller then reads it otherwise)."""
    with storage.open_binary(path, WINDOW_BYTES) as handle:
        size = storage.file_size(handle)
        head = handle.read(4096)
        if not head.lstrip().startswith(b"["):
            raise ValueError("not a JSON array")
        tail_at = max(0, size - 4096)
        handle.seek(tail_at)
        tail = handle.read().rstrip()
        if not tail.endswith(b"]"):
            raise ValueError("the array is not closed (truncated file?)")
        last = tail_at + len(tail) - 1  # the closing `]`
        bounds = [(len(head) - len(head.lstrip()) + 1, -1)]  # (start of a part, end of the part before)
        if parts > 1 and size >= MIN_PART_BYTES:
            for i in range(1, parts):
                found = _boundary(handle, size * i // parts, last)
                if found is not None and found[0] > bounds[-1][0]:
                    bounds.append((found[1], found[0]))
    ends = [end for _, end in bounds[1:]] + [last]
    return [Part(start, end) for (start, _), end in zip(bounds, ends, strict=True)]


def _boundary(handle: Any, position: int, last: int) -> tuple[int, int] | None:
    """(end of the event before, start of the event after) of the first verified `},{` at or after `position`."""
    handle.seek(position)
    window = handle.read(min(WINDOW_BYTES, max(0, last - position)))
    matches = list(_BOUNDARY.finditer(window))
    for n, match in enumerate(matches):
        begin = match.end()
        for later in matches[n + 1: n + 1 + _TRIES]:  # `},{` inside strings: try a few ends for the next events
            try:
                events = orjson.loads(b"[" + window[begin:later.start() + 1] + b"]")
            except orjson.JSONDecodeError:
                continue
            if events and all(isinstance(e, dict) for e in events):
                return position + match.start() + 1, position + begin
    return None


class PartFile(io.RawIOBase):
    """`[` + bytes [start, end) of the file + `]`, seekable, read through the storage seam."""

    def __init__(self, location: Location, part: Part) -> None:
        super().__init__()
        self._inner = storage.open_binary(location, READ_AHEAD)
        self._part = part
        self._pos = 0
        self.size = part.size

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self._pos, 2: self.size}[whence]
        self._pos = max(0, min(self.size, base + offset))
        return self._pos

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            size = self.size - self._pos
        size = min(size, self.size - self._pos)
        if size <= 0:
            return b""
        body = self._part.end - self._part.start  # virtual bytes: `[` at 0, the body at 1..body, `]` at body + 1
        pieces: list[bytes] = []
        pos, want = self._pos, size
        if pos == 0:
            pieces.append(b"[")
            pos, want = 1, want - 1
        if want > 0 and pos <= body:
            take = min(want, body - (pos - 1))
            self._inner.seek(self._part.start + pos - 1)
            pieces.append(self._inner.read(take))  # the bulk: handed on as read, not copied again
            pos, want = pos + take, want - take
        if want > 0 and pos == body + 1:
            pieces.append(b"]")
        data = pieces[0] if len(pieces) == 1 else b"".join(pieces)
        self._pos += len(data)
        return data

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._inner.close()
        super().close()
