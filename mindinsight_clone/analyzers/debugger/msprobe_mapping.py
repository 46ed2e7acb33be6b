"""Cross-framework matching for msprobe compare (issue 35): which bench row each target row is compared with when a
MindSpore target meets a PyTorch bench, as `msprobe compare` (mindstudio-probe 26.2) does it with its mapping
options. Facts from its msprobe/core/compare/acc_compare.py and layer_mapping/ (read for the rules; our code).

* api (`-am`): `Mint.x` -> `Torch.x`, `MintFunctional.x` -> `Functional.x`, and msprobe's built-in table
  (msprobe_api_mapping.yaml) for `Functional.x` / `Tensor.x`; with a user yaml (`-am file`) the APIs it lists then
  meet the bench API it names, argument slot to argument slot:
  `[{ms_api, pt_api, ms_args, pt_args, ms_outputs, pt_outputs, ms_parameters, pt_parameters}]` (a slot of a listed
  API that the lists do not name is unmatched; `Primitive.*` names, three parts long, cannot be listed).
* cell (`-cm file`, `{target fragment: bench fragment}`): `Cell` -> `Module`, then the cell path (between the kind
  and `.forward.` / `.backward.` / `.parameters_grad.`) replaced whole when it is a key, else each key found in it
  replaced by its value, in the file's order. Rows of APIs keep their names.
* layer (`-lm file`): by position inside each layer (msprobe_layers.py), then as data mapping.
* data (`-dm file`, `{target row: bench row}`): as written (what `-lm` writes).

What every mapping shares (msprobe's): a target row is looked up under its mapped name; a bench row is found under
its name with a backward node's call number replaced by its rank among the backward calls of the same node
(msprobe renumbers the bench's backward calls, not the target's: the target's first relu backward,
`Cell.relu.ReLU.backward.2`, meets the bench's third, `Module.relu.ReLU.backward.0`; kept, to agree with msprobe).
With api and cell mapping a pair whose dtypes differ is unmatched, unless both are floating point (across
frameworks `Float32` and `torch.float32` are the same dtype here).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

from mindinsight_clone.analyzers.debugger.msprobe_compare import named_slots
from mindinsight_clone.analyzers.debugger.msprobe_layers import GRAD, layer_pairs
from mindinsight_clone.errors import ParamValueError
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.bases import Bases
from mindinsight_clone.ingest.msprobe_dump import DumpFile, Node, Slot
from mindinsight_clone.ingest.storage import Location

KINDS = ("api", "cell", "layer", "data")
API_TABLE = "msprobe_api_mapping.yaml"  # msprobe's built-in table, as data (its header says whence)
MAX_YAML_BYTES = 16 << 20  # a mapping file above this is refused, not parsed
Parents = tuple[Mapping[str, str | None], Mapping[str, str | None]]  # construct.json of target and bench
# msprobe's dtype rules (core/compare/check.py cross_dtype_mapping, CompareConst.DTYPE_MATCH_GROUPS)
_FLOATS = (frozenset({"Float16", "Float32", "Float64", "BFloat16"}),
           frozenset({"torch.float16", "torch.float32", "torch.float64", "torch.bfloat16"}))
_ACROSS = {**{t: "int" for t in ("Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64")},
           **{f"torch.{t.lower()}": "int" for t in ("Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64",
                                                     "UInt64")},
           **{t: "float" for t in ("Float16", "Float32", "Float64", "BFloat16")},
           **{f"torch.{t}": "float" for t in ("float16", "float32", "float64", "bfloat16")},
           "Bool": "bool", "torch.bool": "bool", "Complex64": "complex", "torch.complex64": "complex",
           "Complex128": "complex", "torch.complex128": "complex"}
_TYPE_AS_DTYPE = ("torch.Size", "slice", "ellipsis", "torch.ProcessGroup")
# a user api yaml: the lists of each slot kind (msprobe checks the plural output keys' lengths but maps outputs
# with `ms_output` / `pt_output`, and fails without them; either is read here, the singular first)
_LISTS = (("ms_args", "pt_args"), ("ms_outputs", "pt_outputs"), ("ms_parameters", "pt_parameters"),
          ("ms_parameters_grad", "pt_parameters_grad"))
_SLOT_LISTS = {"input": (".input.", "args"), "output": (".output.", "output"), "parameters": (".parameters.",
               "parameters"), GRAD: (".parameters_grad.", "parameters_grad")}
_PHASE = re.compile(r"\.(forward|backward)\.")
_CELL_PATH_END = re.compile(r"\.(?:forward|backward|parameters_grad)\.")
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parses a big data mapping ~10x faster


@dataclass(frozen=True)
class MappingSpec:
    kind: str  # one of KINDS
    doc: Any = None  # the user's yaml, checked (None: api with the built-in table alone)
    ident: str = "api"  # what the comparison cache keys on: the kind and the file's sha256


def read_spec(bases: Bases, kind: str, path: str) -> MappingSpec:
    """The mapping file `path` (relative to the summary base dir; with named base dirs its first part is the base
    name, as in a train id), read through the storage seam and checked; ParamValueError saying why not."""
    where = f"'mapping.{kind}'"
    location = _locate(bases, path)
    if location is None:
        raise ParamValueError(f"{where}: {path!r} is not a file path inside the summary base dir.")
    try:
        raw = storage.read_bytes(location, max_size=MAX_YAML_BYTES)
    except OSError as exc:
        raise ParamValueError(f"{where}: {path} cannot be read: {exc}") from None
    try:
        doc = yaml.load(raw, Loader=_SAFE_LOADER)  # noqa: S506 (a safe loader: libyaml's when built with it)
    except (yaml.YAMLError, ValueError, RecursionError):
        raise ParamValueError(f"{where}: {path} is not YAML.") from None
    problem = _problem(kind, doc)
    if problem:
        raise ParamValueError(f"{where}: {path} is not a valid {kind} mapping file ({problem}).")
    return MappingSpec(kind, doc, f"{kind}:{hashlib.sha256(raw).hexdigest()}")


def _locate(bases: Bases, path: str) -> Location | None:
    relative = path[2:] if path.startswith("./") else path
    base: Location | None = bases.primary
    if bases.named:
        name, _, relative = relative.partition("/")
        base = next((b.location for b in bases if b.name == name), None)
    return storage.confine(base, relative) if base is not None and relative else None


def _problem(kind: str, doc: Any) -> str | None:
    """Why `doc` is not a `kind` mapping file, or None."""
    if kind == "api":
        if not isinstance(doc, list) or not all(isinstance(e, dict) for e in doc):
            return "a list of {ms_api, pt_api, ms_args, pt_args, ...} is expected"
        for entry in doc:
            if not isinstance(entry.get("ms_api"), str) or not isinstance(entry.get("pt_api"), str):
                return "every entry needs ms_api and pt_api"
            if any(not isinstance(k, str) or (k[:3] in ("ms_", "pt_") and k[3:] != "api" and not isinstance(v, list))
                   for k, v in entry.items()):
                return f"{entry['ms_api']}: the keys are names, and the ms_* / pt_* slot keys take lists"
        return None
    if not isinstance(doc, dict):
        return "a YAML mapping is expected"
    if kind == "layer":
        if not all(isinstance(k, str) and isinstance(v, dict) and _strings(v) for k, v in doc.items()):
            return "{layer type: {target child path: bench child path}} is expected, all strings"
        return None
    return None if _strings(doc) else "{name: name} is expected, all strings"


def _strings(doc: dict[Any, Any]) -> bool:
    return all(isinstance(k, str) and isinstance(v, str) for k, v in doc.items())


def pair_rows(target: DumpFile, bench: DumpFile, spec: MappingSpec, parents: Parents | None = None) -> dict[str, str]:
    """Target row name -> the bench row name it is compared with, for every target row that has one (module
    docstring). `parents` (construct.json of both sides) is what layer mapping needs."""
    key = _keys(target, bench, spec, parents)
    rows = _bench_rows(bench)
    judge_dtype = spec.kind in ("api", "cell")
    across = None not in (target.framework, bench.framework) and target.framework != bench.framework
    out: dict[str, str] = {}
    for node in target.nodes:
        for name, slot in named_slots(node):
            found = rows.get(key(name))
            if found is not None and (not judge_dtype or _alike(name, slot, *found, across)):
                out[name] = found[0]
    return out


def _keys(target: DumpFile, bench: DumpFile, spec: MappingSpec, parents: Parents | None) -> Callable[[str], str]:
    """The name each target row is looked up under in the bench."""
    if spec.kind == "api":
        table = _api_table()
        given = _user_api_keys(target, bench, spec.doc) if spec.doc is not None else {}
        return lambda name: given.get(name) or _api_key(name, table)
    if spec.kind == "cell":
        return lambda name: _cell_key(name, spec.doc)
    if spec.kind == "layer":
        mine, theirs = parents if parents is not None else ({}, {})
        data = layer_pairs(target, bench, mine, theirs, spec.doc)
    else:
        data = spec.doc
    return lambda name: data.get(name, name)


def _bench_rows(bench: DumpFile) -> dict[str, tuple[str, Slot]]:
    """Each bench row under msprobe's key: a backward node's call number replaced by its rank among the backward
    calls of that node (`Module.relu.ReLU.backward.2`, the first relu backward, is `...backward.0`); a node named
    neither `<...>.<forward|backward>.<n>`, `<...>.<n>.<forward|backward>` nor `...parameters_grad...` has none."""
    seen: dict[str, int] = {}
    out: dict[str, tuple[str, Slot]] = {}
    for node in bench.nodes:
        parts = node.name.split(".")
        if GRAD in parts[-2:]:
            key = node.name
        elif len(parts) > 2 and ("forward" in parts[-2:] or "backward" in parts[-2:]):
            key = node.name
            if "backward" in parts[-2:] and "forward" not in parts[-2:]:
                head = ".".join(parts[:-2])
                rank = str(seen.get(head, 0))
                seen[head] = int(rank) + 1
                key = ".".join([head, *(rank if p.isdigit() else p for p in parts[-2:])])
        else:
            continue
        for name, slot in named_slots(node):
            out.setdefault(key + name[len(node.name):], (name, slot))
    return out


@cache
def _api_table() -> dict[str, str]:
    text = resources.files(__name__.rpartition(".")[0]).joinpath(API_TABLE).read_text(encoding="utf-8")
    table: dict[str, str] = yaml.safe_load(text)
    return table


def _api_key(name: str, table: Mapping[str, str]) -> str:
    parts = name.split(".", 2)
    if len(parts) < 2:
        return name
    if parts[0] == "Mint":
        return name.replace("Mint", "Torch")
    if parts[0] == "MintFunctional":
        return name.replace("MintFunctional", "Functional")
    api = f"{parts[0]}.{parts[1]}"
    theirs = table.get(api)
    return name.replace(api, theirs) if theirs else name


def _user_api_keys(target: DumpFile, bench: DumpFile, entries: list[dict[str, Any]]) -> dict[str, str]:
    """The rows of the APIs a user api yaml lists, slot to slot; a slot it does not list gets a key no bench row
    has. A later entry for the same API wins."""
    nodes: dict[str, list[Node]] = {}
    for node in target.nodes:
        nodes.setdefault(".".join(node.name.split(".", 2)[:2]), []).append(node)
    theirs = {".".join(n.name.split(".", 2)[:2]) for n in bench.nodes}
    out: dict[str, str] = {}
    for entry in entries:
        if any(len(entry.get(a, [])) != len(entry.get(b, [])) for a, b in _LISTS):
            continue  # msprobe skips (and warns about) an entry whose lists differ in length
        ms_api, pt_api = entry["ms_api"], entry["pt_api"]
        if ms_api not in nodes or pt_api not in theirs:
            continue
        for node in nodes[ms_api]:
            origin = node.name.replace(ms_api, pt_api, 1)
            grad = GRAD in node.name.split(".")[-2:]
            for name, slot in named_slots(node):
                pattern, term = _SLOT_LISTS[GRAD if grad else slot.io]
                mine, bench_slots = (entry.get(f"{side}_{term}", entry.get(f"{side}_{term}s", []))
                                     for side in ("ms", "pt"))
                moved = name.replace(ms_api, pt_api, 1)
                rest = moved[len(origin + pattern):] if moved.startswith(origin + pattern) else moved
                key = moved + "abandoned"
                for i, index in enumerate(mine):
                    if rest == str(index) and i < len(bench_slots):
                        key = moved.replace(pattern + str(index), pattern + str(bench_slots[i]))
                out[name] = key
    return out


def _cell_key(name: str, table: Mapping[str, str]) -> str:
    if GRAD not in name.split(".") and not _PHASE.search(name):
        return ""  # no bench row has this key
    name = name.replace("Cell", "Module", 1)
    if not table:
        return name
    path = _CELL_PATH_END.split(name.split(".", 1)[-1])[0]
    new = table.get(path)
    if new is None:
        new = path
        for mine, theirs in table.items():
            if mine in new:
                new = new.replace(mine, theirs, 1)
    return name.replace(path, new, 1) if new != path else name


def _alike(name: str, slot: Slot, bench_name: str, other: Slot, across: bool) -> bool:
    """msprobe's dtype condition for a pair (its dtype strings; across frameworks mapped to int / float / ...)."""
    a, b = _dtype(name, slot), _dtype(bench_name, other)
    if across:
        a, b = _ACROSS.get(a, a), _ACROSS.get(b, b)
    return a == b or any(a in group and b in group for group in _FLOATS)


def _dtype(name: str, slot: Slot) -> str:
    """A row's dtype as msprobe writes it: a tensor's dtype, a plain argument's Python type (`<class 'int'>`)."""
    leaf = slot.leaf
    if leaf is None:
        return "None"
    if leaf.get("dtype"):
        return str(leaf["dtype"])
    kind = leaf.get("type")
    if kind in _TYPE_AS_DTYPE or name.rsplit(".", 1)[-1] in ("src", "dst", "group_src", "group_dst"):
        return str(kind)
    return str(type(leaf.get("value")))
