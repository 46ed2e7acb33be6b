"""msprobe dumps (issue 35): the files of one `step<N>/<rank dir>/` folder, read as msprobe writes them.

msprobe (PyPI `mindstudio-probe`) writes, per dumped step and process,

    <dump root>/step<N>/rank<R>|proc<pid>/dump.json        every recorded API / Cell call, in execution order
                                         /construct.json   {node: parent node | null}: the Cell / Module tree
                                         /stack.json       {"<i>": [[node, ...], [frame, ...]]} (or {node: frames})
                                         /dump_tensor_data/<data_name>   task "tensor": .npy (MindSpore), .pt (PyTorch)

`dump.json` is `{"task", "level", "framework", "dump_data_dir", "data": {node: entry}}` with Python json's bare
`NaN` / `Infinity` tokens where a statistic is not finite: orjson parses the (usual) files without them, the
standard parser the others. It is complete only after msprobe's
`stop()`: a file cut while being written (or by a crash) is read up to its last complete entry and marked
incomplete, not refused. Facts from ../shared/fixtures/msprobe/README.md and msprobe's dump writer.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

import orjson

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.gc_pause import gc_paused
from mindinsight_clone.ingest.storage import Location

DUMP_JSON = "dump.json"
CONSTRUCT_JSON = "construct.json"
STACK_JSON = "stack.json"
TENSOR_DIR = "dump_tensor_data"
STEP_DIR = re.compile(r"step(\d+)")
RANK_DIR = re.compile(r"(rank|proc)(\d+)")
MAX_JSON_BYTES = 1 << 30  # a dump.json above this is refused (said in the answer), not read
MAX_ENTRY_BYTES = 64 << 20  # one node's entry read alone (read_entry) is at most this
SCAN_BLOCK_BYTES = 8 << 20  # block size of the byte scans (read_entry, may_hold_non_finite)
STAT_KEYS = (("Max", "max"), ("Min", "min"), ("Mean", "mean"), ("Norm", "norm"))
_HEADER_KEYS = ("task", "level", "framework", "dump_data_dir")


def step_of(name: str) -> int | None:
    m = STEP_DIR.fullmatch(name)
    return int(m.group(1)) if m else None


def is_rank_dir(name: str) -> bool:
    return RANK_DIR.fullmatch(name) is not None


def rank_sort_key(name: str) -> tuple[int, int, str]:
    """rank0 < rank1 < ... < proc<pid> (a single process is one 'rank')."""
    m = RANK_DIR.fullmatch(name)
    return (0 if m.group(1) == "rank" else 1, int(m.group(2)), name) if m else (2, 0, name)


@dataclass(slots=True)
class Slot:
    """One argument, output or parameter of a node: a tensor's statistics, or a plain value."""

    io: str  # input | output | parameters
    index: str  # "0", a kwarg name ("dim.1" for the second of a list), or a parameter name
    leaf: dict[str, Any] | None  # msprobe's leaf as written

    @property
    def is_tensor(self) -> bool:
        return isinstance(self.leaf, dict) and "dtype" in self.leaf and "shape" in self.leaf

    def stats(self) -> dict[str, float | None]:
        leaf = self.leaf if isinstance(self.leaf, dict) else {}
        return {ours: stat_number(leaf.get(theirs)) for theirs, ours in STAT_KEYS}

    def non_finite(self) -> bool:
        """Whether any of Max/Min/Mean/Norm is NaN or ±Inf (MindSpore's Max/Min skip NaN elements: all four
        are looked at, README "NaN / ±inf")."""
        return self.is_tensor and any(v is not None and not math.isfinite(v) for v in self.stats().values())


@dataclass(slots=True)
class Node:
    name: str
    slots: list[Slot] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def phase(self) -> str:
        for phase in ("parameters_grad", "backward", "forward"):
            if f".{phase}" in self.name:
                return phase
        return ""


@dataclass(slots=True)
class DumpFile:
    """One dump.json: its header and its nodes in execution order."""

    task: str | None
    level: str | None
    framework: str | None
    dump_data_dir: str | None
    nodes: list[Node]
    complete: bool  # False: cut (being written, or a crash); `nodes` holds every complete entry before the cut
    size: int

    def weight(self) -> int:
        return self.size * 4 + 1024


def read_dump_json(location: Location) -> DumpFile:
    """Parse one dump.json (OSError when unreadable; ValueError when it is not msprobe's)."""
    raw = storage.read_bytes(location, max_size=MAX_JSON_BYTES)
    with gc_paused():  # millions of acyclic objects: the collector's passes over them were half the time
        try:
            doc = orjson.loads(raw)  # 3-6x the standard parser; it refuses the bare NaN / Infinity tokens ...
        except orjson.JSONDecodeError:
            text = raw.decode("utf-8", errors="replace")
            try:
                doc = json.loads(text)  # ... which the standard one reads (a file holding a NaN), or a cut file
            except ValueError:
                header, entries = _salvage(text)
                return _dump_file(header, entries, complete=False, size=len(raw))
        if not isinstance(doc, dict) or not isinstance(doc.get("data"), dict):
            raise ValueError(f"{location.name} is not an msprobe dump.json (no 'data' object)")
        return _dump_file(doc, list(doc["data"].items()), complete=True, size=len(raw))


def may_hold_non_finite(location: Location) -> bool:
    """False only when a dump.json cannot hold a NaN/±Inf statistic: its bytes have neither `nan` nor `inf` in any
    case (msprobe writes bare `NaN`/`Infinity` tokens, some versions "nan"/"inf" strings). A name such as
    `Functional.isnan` makes it True; the statistics decide then. Lets the first-anomaly search skip parsing the
    clean files of a big dump (a 100,000-node dump.json is ~50 MB: lowering and searching it is ~0.2 s here,
    parsing it ~2 s). Read in blocks: any size, bounded memory."""
    tail = b""
    with storage.open_binary(location) as handle:
        while block := handle.read(SCAN_BLOCK_BYTES):
            low = tail + block.lower()
            if b"nan" in low or b"inf" in low:
                return True
            tail = low[-2:]
    return False


def read_entry(location: Location, name: str) -> Node | None:
    """One node of a dump.json without parsing the rest: its key is found by a byte search in blocks, and only its
    entry is decoded (a node across 100 steps of 100,000-node files reads 100 x 50 MB at disk speed instead of
    parsing 5 GB of JSON). None when the file has no complete entry of that name (absent, or still being written).
    Memory: one block and the entry (at most MAX_ENTRY_BYTES)."""
    keys = {('"' + json.dumps(name, ensure_ascii=ascii)[1:-1] + '"').encode() for ascii in (True, False)}
    with storage.open_binary(location) as handle:
        buffer = b""
        while True:
            block = handle.read(SCAN_BLOCK_BYTES)
            buffer += block
            for key in keys:
                start = _value_after(buffer, key)
                if start is not None:
                    entry = _decode_value(handle, buffer[start:])
                    return Node(name, _slots(entry)) if isinstance(entry, dict) else None
            if not block:
                return None
            buffer = buffer[-(max(map(len, keys)) + 64):]  # a key cut by the block boundary is found next time


def _value_after(buffer: bytes, key: bytes) -> int | None:
    """Where the value of an object member `key` starts in `buffer` (a key followed by `:`), else None."""
    at = buffer.find(key)
    while at >= 0:
        rest = buffer[at + len(key):at + len(key) + 64].lstrip()
        if rest.startswith(b":"):
            colon = buffer.index(b":", at + len(key))
            return colon + 1
        at = buffer.find(key, at + 1)
    return None


def _decode_value(handle: Any, head: bytes) -> Any:
    """The JSON value starting in `head`, reading on from `handle` until it is complete (None when the file ends
    first, or the value passes MAX_ENTRY_BYTES)."""
    decoder = json.JSONDecoder()
    while True:
        text = head.decode("utf-8", errors="replace").lstrip()
        try:
            return decoder.raw_decode(text)[0]
        except ValueError:
            block = handle.read(SCAN_BLOCK_BYTES)
            if not block or len(head) > MAX_ENTRY_BYTES:
                return None
            head += block


def read_header(location: Location, prefix_bytes: int = 4096) -> dict[str, Any]:
    """task / level / framework / dump_data_dir from the start of a dump.json, without reading the rest."""
    text = storage.read_bytes(location, limit=prefix_bytes).decode("utf-8", errors="replace")
    return _header(text)


def read_construct(location: Location) -> dict[str, str | None]:
    doc = json.loads(storage.read_bytes(location, max_size=MAX_JSON_BYTES))
    if not isinstance(doc, dict):
        raise ValueError("construct.json is not an object")
    return {str(k): (v if isinstance(v, str) else None) for k, v in doc.items()}


def read_stack(location: Location) -> dict[str, list[str]]:
    """node -> its call stack (frames, outermost last as msprobe writes them). Two layouts: the grouped
    `{"<i>": [[nodes], [frames]]}` (msprobe >= 8) and the older `{node: [frames]}`."""
    doc = json.loads(storage.read_bytes(location, max_size=MAX_JSON_BYTES))
    out: dict[str, list[str]] = {}
    if not isinstance(doc, dict):
        return out
    for key, value in doc.items():
        if (isinstance(value, list) and len(value) == 2 and isinstance(value[0], list)
                and isinstance(value[1], list)):
            frames = [str(f) for f in value[1]]
            for name in value[0]:
                out[str(name)] = frames
        elif isinstance(value, list):
            out[str(key)] = [str(f) for f in value]
    return out


# ---------------------------------------------------------------------------------------------- parsing
def _dump_file(header: dict[str, Any], entries: list[tuple[str, Any]], complete: bool, size: int) -> DumpFile:
    def text(key: str) -> str | None:
        value = header.get(key)
        return value if isinstance(value, str) else None

    nodes = [Node(str(name), _slots(entry)) for name, entry in entries]
    return DumpFile(text("task"), text("level"), text("framework"), text("dump_data_dir"), nodes, complete, size)


def _slots(entry: Any) -> list[Slot]:
    """An entry's leaves: forward `input_args` / `input_kwargs` / `output` / `parameters`, backward `input` /
    `output`, `parameters_grad` `{param: [tensor]}`."""
    slots: list[Slot] = []
    if not isinstance(entry, dict):
        return slots
    for key, io in (("input_args", "input"), ("input", "input")):
        for i, leaf in enumerate(_as_list(entry.get(key))):
            _add(slots, io, str(i), leaf)
    kwargs = entry.get("input_kwargs")
    if isinstance(kwargs, dict):
        for name, leaf in kwargs.items():
            _add(slots, "input", str(name), leaf)
    for i, leaf in enumerate(_as_list(entry.get("output"))):
        _add(slots, "output", str(i), leaf)
    params = entry.get("parameters")
    if isinstance(params, dict):
        for name, leaf in params.items():
            _add(slots, "parameters", str(name), leaf)
    known = {"input_args", "input", "input_kwargs", "output", "parameters"}
    for name, value in entry.items():  # parameters_grad: {weight: [tensor], bias: [tensor]}
        if name not in known and isinstance(value, list):
            for leaf in value:  # msprobe names a gradient by its parameter alone (no list index)
                _add(slots, "output", str(name), leaf)
    return slots


def _add(slots: list[Slot], io: str, index: str, leaf: Any) -> None:
    if isinstance(leaf, list):  # nested arguments (a tuple of tensors, a list kwarg): `.<i>` each, as msprobe names
        for i, item in enumerate(leaf):
            _add(slots, io, f"{index}.{i}", item)
        return
    slots.append(Slot(io, index, leaf if isinstance(leaf, dict) else None))


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def stat_number(value: Any) -> float | None:
    """A statistic as msprobe writes it (a number, or \"inf\"/\"nan\" text in some versions) as a float."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):  # msprobe writes "inf"/"nan" strings in some versions
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _header(text: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key in _HEADER_KEYS:
        m = re.search(rf'"{key}"\s*:\s*("(?:[^"\\]|\\.)*"|null)', text)
        if m:
            found[key] = json.loads(m.group(1))
    return found


def _salvage(text: str) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    """The header and every complete entry of a cut dump.json (the rest is being written, or lost)."""
    header = _header(text[: max(text.find('"data"'), 0)])
    start = text.find('"data"')
    if start < 0:
        raise ValueError("not an msprobe dump.json (no 'data')")
    pos = text.find("{", start)
    if pos < 0:
        return header, []
    decoder = json.JSONDecoder()
    entries: list[tuple[str, Any]] = []
    pos += 1
    try:
        while True:
            pos = _skip(text, pos, " \t\r\n,")
            if pos >= len(text) or text[pos] == "}":
                break
            key, pos = decoder.raw_decode(text, pos)
            pos = _skip(text, pos, " \t\r\n")
            if text[pos] != ":":
                break
            value, pos = decoder.raw_decode(text, _skip(text, pos + 1, " \t\r\n"))
            entries.append((str(key), value))
    except (ValueError, IndexError):
        pass  # the cut: everything before it is kept
    return header, entries


def _skip(text: str, pos: int, chars: str) -> int:
    while pos < len(text) and text[pos] in chars:
        pos += 1
    return pos
