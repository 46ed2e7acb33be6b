"""Load a Chrome trace (`trace_view.json`) into columns, without holding one dict per event.

The file is parsed with orjson in ~8 MB slices cut at event boundaries (a slice is accepted only when it parses
as whole events), and each slice is turned into numpy columns before the next one is read. Strings (names,
categories, args) are interned, so a million events cost a few tens of MB instead of a million dicts.
`ts`/`dur` are microseconds (numbers or numeric strings in the file) kept as float64 (~0.25 µs resolution at
today's epoch values).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson

CHUNK_BYTES = 8 << 20
_CORE = frozenset({"ph", "name", "pid", "tid", "ts", "dur", "cat", "args"})
_WS = b" \t\r\n,"


@dataclass(frozen=True)
class TraceColumns:
    ph: np.ndarray  # int32 ids into `strings`
    name: np.ndarray  # int32 ids into `strings`
    cat: np.ndarray  # int32 ids into `strings`
    pid: np.ndarray  # int32 ids into `values` (pid/tid may be ints or strings)
    tid: np.ndarray
    ts: np.ndarray  # float64 µs, NaN when absent
    dur: np.ndarray  # float64 µs, NaN when absent
    args: np.ndarray  # int32 ids into `blobs` (orjson bytes of `args`), -1 when absent
    extra: np.ndarray  # int32 ids into `blobs` (other keys), -1 when none
    strings: tuple[str, ...]
    values: tuple[Any, ...]
    blobs: tuple[bytes, ...]

    def __len__(self) -> int:
        return int(self.ts.shape[0])

    @property
    def nbytes(self) -> int:
        arrays = (self.ph, self.name, self.cat, self.pid, self.tid, self.ts, self.dur, self.args, self.extra)
        return sum(a.nbytes for a in arrays) + sum(len(b) for b in self.blobs)

    def string_id(self, text: str) -> int:
        try:
            return self.strings.index(text)
        except ValueError:
            return -1


class _Interner:
    """Maps values to dense ids; `items[id]` is the value. Ints and strings are their own keys (so 1, 1.0 and
    True share an id: pids/tids are ints or strings in practice)."""

    def __init__(self) -> None:
        self.ids: dict[Any, int] = {}

    @property
    def items(self) -> list[Any]:
        return list(self.ids)

    def ids_of(self, values: list[Any]) -> np.ndarray:
        ids = self.ids
        setdefault = ids.setdefault
        try:
            found = [setdefault(v, len(ids)) for v in values]
        except TypeError:  # an unhashable value (a list as pid...): intern its repr
            found = [setdefault(_hashable(v), len(ids)) for v in values]
        return np.fromiter(found, dtype=np.int32, count=len(found))


class _BlobInterner:
    """Interns small dicts as orjson bytes, serialising each distinct dict once (a dumps per event would be
    slow and, through allocator fragmentation, costly in memory)."""

    def __init__(self) -> None:
        self.ids: dict[Any, int] = {}
        self.items: list[bytes] = []

    def _id(self, key: Any, value: dict[str, Any]) -> int:
        idx = self.ids.get(key)
        if idx is None:
            blob = orjson.dumps(value)
            idx = self.ids.get(blob)
            if idx is None:
                idx = len(self.items)
                self.items.append(blob)
                self.ids[blob] = idx
            self.ids[key] = idx
        return idx

    def ids_of_dicts(self, values: list[Any]) -> np.ndarray:
        out = np.full(len(values), -1, dtype=np.int32)
        for i, value in enumerate(values):
            if not isinstance(value, dict):
                continue
            try:
                key: Any = tuple(value.items())
                hash(key)
            except TypeError:
                key = orjson.dumps(value)
            out[i] = self._id(key, value)
        return out


def _hashable(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


def _floats(values: list[Any]) -> np.ndarray:
    try:
        return np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        out = np.full(len(values), np.nan)
        for i, value in enumerate(values):
            try:
                out[i] = float(value)
            except (TypeError, ValueError):
                continue
        return out


def iter_event_slices(data: bytes, chunk: int = CHUNK_BYTES) -> Iterator[list[Any]]:
    """Yield lists of events from a JSON array (or `{"traceEvents": [...]}`) document."""
    start, end = data.find(b"["), data.rfind(b"]")
    head = data[:start].strip() if start >= 0 else data.strip()
    if start < 0 or end < start or head:  # an object (`{"traceEvents": ...}`), or not an array: parse whole
        doc = orjson.loads(data) if data.strip() else []
        events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
        yield events if isinstance(events, list) else []
        return
    pos = start + 1
    while pos < end:
        while pos < end and data[pos] in _WS:
            pos += 1
        if pos >= end:
            break
        cut = pos + chunk
        while True:
            stop = data.find(b"},", cut, end) if cut < end else -1
            piece_end = end if stop < 0 else stop + 1
            try:
                items = orjson.loads(b"[" + data[pos:piece_end] + b"]")
            except orjson.JSONDecodeError:
                if stop < 0:
                    raise
                cut = stop + 1  # the candidate was inside a nested object: try the next one
                continue
            break
        yield items
        pos = piece_end


def load_trace(path: Path) -> TraceColumns:
    strings, values, blobs = _Interner(), _Interner(), _BlobInterner()
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("ph", "name", "cat", "pid", "tid", "ts", "dur", "args",
                                                         "extra")}
    for items in iter_event_slices(path.read_bytes()):
        events = [e for e in items if isinstance(e, dict)]
        cols["ph"].append(strings.ids_of([e.get("ph", "") for e in events]))
        cols["name"].append(strings.ids_of([str(e.get("name", "")) for e in events]))
        cols["cat"].append(strings.ids_of([str(e.get("cat", "")) for e in events]))
        cols["pid"].append(values.ids_of([e.get("pid", 0) for e in events]))
        cols["tid"].append(values.ids_of([e.get("tid", 0) for e in events]))
        cols["ts"].append(_floats([e.get("ts", np.nan) for e in events]))
        cols["dur"].append(_floats([e.get("dur", np.nan) for e in events]))
        cols["args"].append(blobs.ids_of_dicts([e.get("args") for e in events]))
        cols["extra"].append(blobs.ids_of_dicts([{k: v for k, v in e.items() if k not in _CORE}
                                                 if not e.keys() <= _CORE else None for e in events]))
    merged = {k: (np.concatenate(v) if v else np.empty(0, dtype=np.float64 if k in ("ts", "dur") else np.int32))
              for k, v in cols.items()}
    return TraceColumns(**merged, strings=tuple(strings.items), values=tuple(values.items),
                        blobs=tuple(blobs.items))
