"""Load a Chrome trace (`trace_view.json`) into columns, without holding one dict per event.

The file is read streaming, in ~8 MB blocks: each block is cut at its last event boundary (a slice is accepted
only when it parses as whole events), parsed with orjson and turned into numpy columns before the next block is
read, so neither the file nor its events are ever held whole (a several-hundred-MB trace costs its columns plus
one block). A truncated file keeps every complete event before the damage; `TraceColumns.problems` says so.
Strings (names, categories, args) are interned, so a million events cost a few tens of MB instead of a million dicts.
`ts`/`dur` are microseconds (numbers or numeric strings in the file) kept as float64 (~0.25 µs resolution at
today's epoch values).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import orjson

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

if TYPE_CHECKING:
    import pyarrow as pa

log = logging.getLogger(__name__)
CHUNK_BYTES = 8 << 20
_CORE = frozenset({"ph", "name", "pid", "tid", "ts", "dur", "cat", "args"})
_WS = b" \t\r\n,"
_BOUNDARY = re.compile(rb"\}\s*,\s*(?=\{)")  # `}, {` between two events (also matches inside strings: checked)
_TRIES = 16  # candidate boundaries tried per block before reading more
_MAX_UNCUT_BLOCKS = 8  # a block that cannot be cut after this many reads is a corrupt file


@dataclass(frozen=True)
class TraceColumns:
    ph: np.ndarray  # integer ids (int8..int32) into `strings`
    name: np.ndarray  # integer ids into `strings`
    cat: np.ndarray  # integer ids into `strings`
    pid: np.ndarray  # integer ids into `values` (pid/tid may be ints or strings)
    tid: np.ndarray
    ts: np.ndarray  # float64 µs, NaN when absent
    dur: np.ndarray  # float64 µs, NaN when absent
    args: np.ndarray  # int32 ids into `blobs` (orjson bytes of `args`), -1 when absent
    extra: np.ndarray  # int32 ids into `blobs` (other keys), -1 when none
    strings: tuple[str, ...]
    values: tuple[Any, ...]
    blobs: Sequence[bytes]  # a tuple, or a BlobArray (one Arrow buffer, no Python object per blob)
    problems: tuple[str, ...] = ()

    def __len__(self) -> int:
        return int(self.ts.shape[0])

    @property
    def nbytes(self) -> int:
        arrays = (self.ph, self.name, self.cat, self.pid, self.tid, self.ts, self.dur, self.args, self.extra)
        blobs = self.blobs.nbytes if isinstance(self.blobs, BlobArray) else sum(len(b) for b in self.blobs)
        return sum(a.nbytes for a in arrays) + blobs

    def string_id(self, text: str) -> int:
        try:
            return self.strings.index(text)
        except ValueError:
            return -1


class BlobArray(Sequence[bytes]):
    """JSON blobs (event args) in one Arrow binary array: a million distinct args cost their bytes and offsets,
    not a million Python objects."""

    def __init__(self, array: pa.Array) -> None:
        self.array = array

    def __len__(self) -> int:
        return len(self.array)

    @overload
    def __getitem__(self, index: int) -> bytes: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[bytes]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return BlobArray(self.array[index])
        if index < 0:
            index += len(self.array)
        return self.array[index].as_py()

    @property
    def nbytes(self) -> int:
        return int(self.array.nbytes)

    def take(self, ids: np.ndarray) -> list[bytes]:
        import pyarrow as pa

        return self.array.take(pa.array(ids, type=pa.int32())).to_pylist()  # type: ignore[no-any-return]


def blobs_at(blobs: Sequence[bytes], ids: np.ndarray) -> list[bytes | None]:
    """The blobs of `ids` (None where -1), in one call for a BlobArray."""
    present = ids >= 0
    found = blobs.take(ids[present]) if isinstance(blobs, BlobArray) else [blobs[i] for i in ids[present].tolist()]
    out: list[bytes | None] = [None] * len(ids)
    for slot, blob in zip(np.flatnonzero(present).tolist(), found, strict=True):
        out[slot] = blob
    return out


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
            found = [setdefault(hashable(v), len(ids)) for v in values]
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


def hashable(value: Any) -> Any:
    """`value`, or its repr when it cannot be a dict key (a list as pid...)."""
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


def _cut(buf: bytes, start: int, tries: int = _TRIES) -> tuple[int, list[Any]] | None:
    """The last boundary at or after `start` whose prefix parses as whole events: (end of prefix, events)."""
    candidates = [m.start() + 1 for m in _BOUNDARY.finditer(buf, start)]
    for end in reversed(candidates[-tries:]):
        try:
            items = orjson.loads(b"[" + buf[:end] + b"]")
        except orjson.JSONDecodeError:
            continue
        return end, items
    return None


def iter_file_slices(path: Location, problems: list[str], chunk: int = CHUNK_BYTES) -> Generator[list[Any], None, None]:
    """Yield lists of events from a JSON array file, reading `chunk` bytes at a time (see the module doc).

    An object document (`{"traceEvents": [...]}`) is parsed whole. A truncated array yields its complete events
    and appends a note to `problems`; a block that cannot be cut at all raises ValueError.
    """
    with storage.open_binary(path, chunk) as handle:  # remote: one range request per chunk
        head = handle.read(4096)
        stripped = head.lstrip()
        if not stripped.startswith(b"["):
            yield from iter_event_slices(head + handle.read())
            return
        buf = stripped[1:]
        done, offset, uncut = False, len(head) - len(stripped) + 1, 0
        while not done:
            more = handle.read(chunk)
            done = not more
            buf += more
            if not done:
                if len(buf) < chunk:
                    continue
                found = _cut(buf, max(0, len(buf) - chunk))
                if found is None:
                    uncut += 1
                    if uncut > _MAX_UNCUT_BLOCKS:
                        raise ValueError(f"{path.name}: no event boundary parses near byte {offset}")
                    continue
                end, items = found
                uncut = 0
                yield items
                rest = buf[end:].lstrip(_WS)
                offset += len(buf) - len(rest)
                buf = rest
                continue
            tail = buf.rstrip()
            complete = tail.endswith(b"]")
            body = (tail[:-1] if complete else tail).strip(_WS)
            if not body:
                if not complete:
                    problems.append(f"{path.name} is truncated (no closing bracket)")
                return
            try:
                yield orjson.loads(b"[" + body + b"]")
                if not complete:
                    problems.append(f"{path.name} is truncated (no closing bracket)")
                return
            except orjson.JSONDecodeError:
                pass
            found = _cut(body, 0, tries=1 << 20)
            lost = len(body)
            if found is not None:
                end, items = found
                lost = len(body) - end
                yield items
            problems.append(f"{path.name} is truncated or damaged: the last {lost} bytes (from byte "
                            f"{offset + len(body) - lost}) hold no complete event and are not shown")


def load_trace(path: Location) -> TraceColumns:
    strings, values, blobs = _Interner(), _Interner(), _BlobInterner()
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("ph", "name", "cat", "pid", "tid", "ts", "dur", "args",
                                                         "extra")}
    problems: list[str] = []
    for items in iter_file_slices(path, problems):
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
    for problem in problems:
        log.warning("%s", problem)
    merged = {k: (np.concatenate(v) if v else np.empty(0, dtype=np.float64 if k in ("ts", "dur") else np.int32))
              for k, v in cols.items()}
    return TraceColumns(**merged, strings=tuple(strings.items), values=tuple(values.items),
                        blobs=tuple(blobs.items), problems=tuple(problems))
