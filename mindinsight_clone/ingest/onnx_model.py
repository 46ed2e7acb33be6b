"""ONNX models (`mindspore.export(..., file_format="ONNX")`, `mindspore.onnx.export`, any ONNX exporter): one
serialized `onnx.ModelProto`, read with our compiled copy of ONNX's onnx.proto (proto/onnx.proto).

* Graph: `graph.node` in file order. A node's inputs and outputs are *value* names (`"1"`, `"conv1.weight"`); for
  the graph views each input is replaced by the node that produces it (initializers and graph inputs stay as they
  are: they are the graph's parameters). The value names are kept too (`OnnxModel.tensor_edges`). Nodes without a
  name get `<op_type>_<index>`; a `/` in a name (`/layer1/conv/Conv`, PyTorch's exporter) makes scopes.
  Subgraphs (the GRAPH / GRAPHS attributes of If, Loop, Scan) are drawn inside a scope `<node>.<attribute>`; their
  initializers join the parameters.
* Weights: `graph.initializer` (and the subgraphs'), inline (`raw_data`, little endian, or the typed repeated
  fields) or external (`data_location: EXTERNAL`, `external_data` {location, offset, length}: a file relative to the
  model's folder). The location must be a plain relative path inside that folder (no `..`, no absolute path, no
  symlink: the storage seam's `confine`), else that tensor's values are refused with the reason. Values are read
  lazily, by byte range for external data.
* Not read, and said so (`facts["not_read"]`, a parameter's error): sparse initializers, string tensors, the 8-, 6-,
  4- and 2-bit types, complex values; `metadata_props`, `functions` and `training_info` are listed, not drawn.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.model_graph import (
    MAX_MODEL_BYTES,
    ModelFormatError,
    ModelGraph,
    ModelNode,
    ModelParameter,
)
from mindinsight_clone.ingest.storage import Location
from mindinsight_clone.proto import onnx_pb2

CHUNK_BYTES = 32 * 1024 * 1024
MAX_ATTRIBUTE_VALUES = 16  # a list attribute or small tensor attribute shows at most this many values
MAX_SUBGRAPH_DEPTH = 8

TensorProto = onnx_pb2.TensorProto
AttributeProto = onnx_pb2.AttributeProto
# ONNX TensorProto.DataType -> numpy dtype name; the types without one are listed, not read (ONNX_ONLY_TYPES)
NUMPY_TYPES: dict[int, str] = {TensorProto.FLOAT: "float32", TensorProto.UINT8: "uint8", TensorProto.INT8: "int8",
               TensorProto.UINT16: "uint16", TensorProto.INT16: "int16", TensorProto.INT32: "int32",
               TensorProto.INT64: "int64", TensorProto.BOOL: "bool", TensorProto.FLOAT16: "float16",
               TensorProto.DOUBLE: "float64", TensorProto.UINT32: "uint32", TensorProto.UINT64: "uint64",
               TensorProto.BFLOAT16: "bfloat16", TensorProto.COMPLEX64: "complex64",
               TensorProto.COMPLEX128: "complex128"}
_INT32_FIELD_TYPES = {"int32", "int16", "int8", "uint16", "uint8", "bool"}  # stored in int32_data (ONNX spec)


def type_name(data_type: int) -> str:
    """numpy's name of an ONNX element type, else ONNX's own in lower case (`float8e4m3fn`, `string`)."""
    if data_type in NUMPY_TYPES:
        return NUMPY_TYPES[data_type]
    try:
        return str(TensorProto.DataType.Name(data_type)).lower()
    except ValueError:
        return f"type {data_type}"


@dataclass(frozen=True, slots=True)
class OnnxWeight:
    """Where one initializer's values are: inline (the TensorProto) or a byte range of an external file."""

    name: str
    data_type: int
    shape: tuple[int, ...]
    tensor: Any = None  # the TensorProto when the values are in the .onnx
    external: Location | None = None
    offset: int = 0
    length: int = -1  # -1: up to what shape x dtype needs
    problem: str = ""  # why the values cannot be read ("" when they can)

    @property
    def dtype(self) -> str:
        return type_name(self.data_type)


@dataclass(slots=True)
class OnnxModel:
    graph: ModelGraph
    weights: dict[str, OnnxWeight]
    tensor_edges: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)  # node -> value names


def parse_model(data: bytes, name: str) -> Any:
    """The ModelProto of an .onnx file's bytes; ModelFormatError saying why not."""
    model = onnx_pb2.ModelProto()
    try:
        model.ParseFromString(data)
    except (DecodeError, ValueError, RuntimeError) as exc:
        raise ModelFormatError(f"{name} is not an ONNX model (protobuf onnx.ModelProto): {exc} (truncated or "
                               "another format)") from None
    if not model.HasField("graph") or not model.ir_version:
        raise ModelFormatError(f"{name} holds no ONNX graph (no ir_version or graph: an empty or foreign protobuf)")
    return model


def read_onnx(location: Location, size: int) -> OnnxModel:
    """Read and parse an .onnx file (ModelFormatError when it cannot be used, OSError when it cannot be read)."""
    if size > MAX_MODEL_BYTES:
        raise ModelFormatError(f"{location.name} has {size} bytes, more than the {MAX_MODEL_BYTES} parsed; export "
                               "large models with their weights as external data")
    model = parse_model(storage.read_bytes(location), location.name)
    return _Builder(model, location).build()


class _Builder:
    """One pass over the main graph and its subgraphs into a ModelGraph, the weights and the value edges."""

    def __init__(self, model: Any, location: Location) -> None:
        self.model = model
        self.location = location
        self.graph = ModelGraph(model.graph.name)
        self.weights: dict[str, OnnxWeight] = {}
        self.edges: dict[str, tuple[list[str], list[str]]] = {}
        self.names: set[str] = set()
        self.not_read: list[str] = []
        self.externals: set[str] = set()

    def build(self) -> OnnxModel:
        model, graph = self.model, self.model.graph
        shapes = {v.name: _value_type(v) for v in (*graph.value_info, *graph.output, *graph.input)}
        # node and value names are separate namespaces in ONNX, not in the graph views: a node named like an
        # initializer or graph input gets a suffix
        self.names.update(t.name for t in graph.initializer)
        self.names.update(v.name for v in graph.input)
        self._add_graph(graph, "", {}, shapes, 0)
        initializers = {t.name for t in graph.initializer}
        self.graph.inputs = [_parameter(v) for v in graph.input if v.name not in initializers]
        self.graph.outputs = [_parameter(v) for v in graph.output]
        if graph.sparse_initializer:
            self.not_read.append(f"{len(graph.sparse_initializer)} sparse initializers "
                                 f"({', '.join(_sparse_name(s) for s in graph.sparse_initializer[:5])})")
        self.graph.facts = {
            "ir_version": int(model.ir_version),
            "opset_import": {(o.domain or "ai.onnx"): int(o.version) for o in model.opset_import},
            "producer_name": model.producer_name, "producer_version": model.producer_version,
            "domain": model.domain, "model_version": int(model.model_version), "doc_string": model.doc_string[:2000],
            "metadata_props": {p.key: p.value for p in model.metadata_props},
            "functions": [f"{f.domain}:{f.name}" if f.domain else f.name for f in model.functions],
            "training_info": len(model.training_info), "initializer_count": len(graph.initializer),
            "value_info_count": len(graph.value_info), "external_data_files": sorted(self.externals),
            "not_read": self.not_read,
        }
        return OnnxModel(self.graph, self.weights, self.edges)

    def _unique(self, name: str) -> str:
        out, n = name, 1
        while out in self.names:
            n += 1
            out = f"{name}_{n}"
        self.names.add(out)
        return out

    def _add_graph(self, graph: Any, scope: str, outer: dict[str, str], shapes: dict[str, tuple[list[int], str]],
                   depth: int) -> None:
        """Nodes of one (sub)graph; `outer` maps the enclosing graphs' values to their producer nodes."""
        for tensor in graph.initializer:
            self._add_weight(tensor, scope)
        producers = dict(outer)
        shapes = {**shapes, **{v.name: _value_type(v) for v in (*graph.value_info, *graph.output)}}
        for index, node in enumerate(graph.node):
            base = node.name or f"{node.op_type}_{index}"
            name = self._unique(f"{scope}/{base}" if scope else base)
            inputs = [producers.get(v, v) for v in node.input if v]
            shape, dtype = shapes.get(node.output[0], ([], "")) if node.output else ([], "")
            attributes = {a.name: _attribute_text(a) for a in node.attribute}
            if node.domain:
                attributes = {"domain": node.domain, **attributes}
            self.graph.nodes.append(ModelNode(name, node.op_type, scope_path(name), inputs,
                                              [shape] if shape else [], dtype, graph.name, attributes))
            self.edges[name] = (list(node.input), list(node.output))
            for value in node.output:
                if value:
                    producers[value] = name
            for attr in node.attribute:
                subgraphs = [attr.g] if attr.HasField("g") else list(attr.graphs)
                for i, sub in enumerate(subgraphs):
                    if depth >= MAX_SUBGRAPH_DEPTH:
                        self.not_read.append(f"subgraphs deeper than {MAX_SUBGRAPH_DEPTH} levels (in {name})")
                        continue
                    label = attr.name if len(subgraphs) == 1 else f"{attr.name}[{i}]"
                    self._add_graph(sub, f"{name}.{label}", producers, shapes, depth + 1)

    def _add_weight(self, tensor: Any, scope: str) -> None:
        name = tensor.name if tensor.name not in self.weights else f"{scope}/{tensor.name}"
        shape = tuple(int(d) for d in tensor.dims)
        self.graph.parameters.append(ModelParameter(name, list(shape), type_name(tensor.data_type)))
        if tensor.data_location != TensorProto.EXTERNAL:
            self.weights[name] = OnnxWeight(name, tensor.data_type, shape, tensor)
            return
        info = {e.key: e.value for e in tensor.external_data}
        where = info.get("location", "")
        self.externals.add(where)
        try:
            offset, length = int(info.get("offset", "0")), int(info.get("length", "-1"))
        except ValueError:
            self.weights[name] = OnnxWeight(name, tensor.data_type, shape,
                                            problem=f"external data offset/length {info} are not integers")
            return
        target = storage.confine(self.location.parent, where) if where else None
        problem = "" if target is not None else (f"external data location {where!r} is not a file inside the "
                                                 "model's folder: refused")
        self.weights[name] = OnnxWeight(name, tensor.data_type, shape, None, target, offset, length, problem)


def scope_path(name: str) -> str:
    """The node's full name for the graph views' scope tree: its name, `/` parts kept (exporters such as PyTorch's
    name nodes `/layer1/conv/Conv`: those become scopes), empty parts dropped."""
    return "/".join(part for part in name.split("/") if part) or name


def _sparse_name(sparse: Any) -> str:
    return str(sparse.values.name or "?")


def _value_type(value: Any) -> tuple[list[int], str]:
    """(shape, dtype) of a ValueInfoProto's tensor type; a symbolic or unknown dimension is -1."""
    if not value.type.HasField("tensor_type"):
        return [], ""
    tensor_type = value.type.tensor_type
    shape = [int(d.dim_value) if d.HasField("dim_value") else -1 for d in tensor_type.shape.dim]
    return shape, type_name(tensor_type.elem_type) if tensor_type.elem_type else ""


def _parameter(value: Any) -> ModelParameter:
    shape, dtype = _value_type(value)
    return ModelParameter(value.name, shape, dtype or "undefined")


def _tensor_text(tensor: Any) -> str:
    text = f"tensor {type_name(tensor.data_type)} {list(tensor.dims)}"
    count = math.prod(max(0, d) for d in tensor.dims)
    if tensor.data_location != TensorProto.EXTERNAL and count <= MAX_ATTRIBUTE_VALUES:
        try:
            values = inline_values(OnnxWeight(tensor.name, tensor.data_type, tuple(tensor.dims), tensor))
            text += f" = {values.reshape(-1).tolist()}"
        except ModelFormatError:
            pass
    return text


def _short_list(values: list[Any]) -> str:
    if len(values) <= MAX_ATTRIBUTE_VALUES:
        return str(values)
    return f"{str(values[:MAX_ATTRIBUTE_VALUES])[:-1]}, ... ({len(values)} values)]"


def _attribute_text(attr: Any) -> str:
    """An attribute's value as text (lists and tensors shortened, graphs named)."""
    if attr.ref_attr_name:
        return f"@{attr.ref_attr_name}"
    kind = attr.type
    if kind == AttributeProto.FLOAT or (not kind and attr.HasField("f")):
        return f"{attr.f:.7g}"
    if kind == AttributeProto.INT or (not kind and attr.HasField("i")):
        return str(attr.i)
    if kind == AttributeProto.STRING or (not kind and attr.HasField("s")):
        return attr.s.decode("utf-8", "replace")
    if kind == AttributeProto.TENSOR or attr.HasField("t"):
        return _tensor_text(attr.t)
    if kind == AttributeProto.GRAPH or attr.HasField("g"):
        return f"graph {attr.g.name or '?'} ({len(attr.g.node)} nodes)"
    if kind == AttributeProto.SPARSE_TENSOR or attr.HasField("sparse_tensor"):
        return f"sparse tensor {list(attr.sparse_tensor.dims)} (not read)"
    if attr.floats:
        return _short_list([float(f"{f:.7g}") for f in attr.floats])
    if attr.ints:
        return _short_list(list(attr.ints))
    if attr.strings:
        return _short_list([s.decode("utf-8", "replace") for s in attr.strings])
    if attr.tensors:
        return _short_list([_tensor_text(t) for t in attr.tensors])
    if attr.graphs:
        return _short_list([f"graph {g.name or '?'} ({len(g.node)} nodes)" for g in attr.graphs])
    return "[]" if kind in (AttributeProto.FLOATS, AttributeProto.INTS, AttributeProto.STRINGS) else ""


# ---------------------------------------------------------------- values
def _numpy_dtype(weight: OnnxWeight) -> np.dtype:
    name = weight.dtype
    if weight.data_type not in NUMPY_TYPES or name.startswith("complex"):
        raise ModelFormatError(f"values of type {name} are not read")
    return np.dtype("<u2") if name == "bfloat16" else np.dtype(name).newbyteorder("<")


def _widen(values: np.ndarray, name: str) -> np.ndarray:
    """bfloat16 (the high 16 bits of a float32) -> float32; other types unchanged."""
    if name == "bfloat16":
        return (values.astype(np.uint32) << 16).view(np.float32)
    return values


def element_count(name: str, dims: tuple[int, ...] | list[int]) -> int:
    """The number of values of a shape (Python ints: a crafted shape cannot overflow); negative dims refused."""
    count = 1
    for dim in dims:
        if dim < 0:
            raise ModelFormatError(f"{name}: a negative dimension in {list(dims)}")
        count *= int(dim)
    return count


def _count(weight: OnnxWeight) -> int:
    return element_count(weight.name, weight.shape)


def inline_values(weight: OnnxWeight) -> np.ndarray:
    """The values of an initializer stored in the .onnx (raw_data or the typed field the ONNX spec names)."""
    dtype, count, tensor = _numpy_dtype(weight), _count(weight), weight.tensor
    if tensor.HasField("raw_data"):
        if len(tensor.raw_data) != count * dtype.itemsize:
            raise ModelFormatError(f"{weight.name}: raw_data holds {len(tensor.raw_data)} bytes for {count} "
                                   f"{weight.dtype} values")
        return _widen(np.frombuffer(tensor.raw_data, dtype, count), weight.dtype)
    name = weight.dtype
    if name == "float32":
        values: Any = tensor.float_data
    elif name == "float64":
        values = tensor.double_data
    elif name == "int64":
        values = tensor.int64_data
    elif name in ("uint32", "uint64"):
        values = tensor.uint64_data
    else:  # int32 and narrower, bool, float16 / bfloat16 bits: int32_data
        values = tensor.int32_data
    if len(values) != count:
        raise ModelFormatError(f"{weight.name}: {len(values)} values in the file for shape {list(weight.shape)}")
    array = np.asarray(values)
    if name in ("float16", "bfloat16"):
        return _widen(array.astype(np.uint16).view(dtype), name)
    return array.astype(dtype) if name in _INT32_FIELD_TYPES else array


def value_chunks(weight: OnnxWeight, chunk_bytes: int = CHUNK_BYTES) -> Iterator[np.ndarray]:
    """One initializer's values as flat chunks (external data read by byte range; ModelFormatError why not)."""
    if weight.problem:
        raise ModelFormatError(weight.problem)
    if weight.external is None:
        yield inline_values(weight).reshape(-1)
        return
    dtype = _numpy_dtype(weight)
    need = _count(weight) * dtype.itemsize
    if weight.offset < 0 or (weight.length >= 0 and weight.length != need):
        raise ModelFormatError(f"{weight.name}: external data of {need} bytes announces offset {weight.offset}, "
                               f"length {weight.length}")
    step = max(1, chunk_bytes // dtype.itemsize) * dtype.itemsize
    for first in range(0, need, step):
        n = min(step, need - first)
        try:
            data = storage.read_range(weight.external, weight.offset + first, n)
        except OSError as exc:
            raise ModelFormatError(f"{weight.name}: cannot read the external data {weight.external.name}: "
                                   f"{exc}") from None
        if len(data) < n:
            raise ModelFormatError(f"{weight.name}: {weight.external.name} ends before offset "
                                   f"{weight.offset} + {need}")
        yield _widen(np.frombuffer(data, dtype), weight.dtype)
