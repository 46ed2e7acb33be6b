"""MindIR files (`mindspore.export(..., file_format="MINDIR")`): one serialized `mind_ir.ModelProto`, read with our
compiled copy of MindSpore's mind_ir.proto (proto/mind_ir.proto).

* Graph: `graph.node` (operators, and `Constant` value nodes), `graph.parameter` (weights with values),
  `graph.input` / `graph.output`. A node's `op_type` is a primitive type, or `REF::<name>` naming an entry of
  `ModelProto.primitives` (`REF::Conv2D:4` -> primitive `Conv2D:4` of op type `Conv2D`); `domain` carries its full
  scope name; the attribute `shape` (TENSORS) its inferred output shape. Every name is prefixed with the graph's
  name and a colon (`407_338___main___LeNet5_construct_43:conv1.weight`); the prefix is dropped for display.
* Weights: `raw_data` (little endian, C order) or the typed repeated fields; models over 1 GB keep them in
  `<name>_variables/data_<n>` (`external_data`: location relative to the .mindir's folder, offset, length). The
  location must stay inside that folder (no `..`, no absolute path: MindSpore itself has had path-traversal bugs
  here), and offset + length inside the file.
* An encrypted MindIR (`export(..., enc_key=...)`) starts with MindSpore's cipher magic number: it is named as such
  rather than reported as a broken protobuf.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
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
from mindinsight_clone.proto import mind_ir_pb2

# MindSpore's crypto.h: the first 4 bytes (little endian) of an encrypted model
CIPHER_MAGIC = {0x7F3A5ED8: "AES-GCM", 0x7F3A5ED9: "AES-CBC", 0x7F3A5EDA: "SM4-CBC"}
DATA_TYPES = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 9: "bool",
              10: "float16", 11: "float64", 12: "uint32", 13: "uint64", 14: "complex64", 15: "complex128",
              16: "bfloat16", 17: "float64", 8: "string", 0: "undefined"}


def encryption_of(head: bytes) -> str | None:
    """The cipher mode MindSpore's magic number at the start of `head` names, else None."""
    if len(head) < 4:
        return None
    return CIPHER_MAGIC.get(struct.unpack("<I", head[:4])[0])


def parse_model(data: bytes, name: str) -> Any:
    """The ModelProto of a .mindir's bytes; ModelFormatError saying why not (encrypted, not a MindIR)."""
    cipher = encryption_of(data)
    if cipher is not None:
        raise ModelFormatError(f"{name} is an encrypted MindIR ({cipher}, exported with enc_key): its graph and "
                               "weights cannot be shown without the key; export it again without encryption")
    model = mind_ir_pb2.ModelProto()
    try:
        model.ParseFromString(data)
    except (DecodeError, ValueError, RuntimeError) as exc:
        raise ModelFormatError(f"{name} is not a MindIR file (protobuf mind_ir.ModelProto): {exc}") from None
    if not model.HasField("graph") and not model.ir_version:
        raise ModelFormatError(f"{name} holds no MindIR graph (an empty or foreign protobuf)")
    return model


@dataclass(frozen=True, slots=True)
class WeightSource:
    """Where one parameter's values are: inline, or a byte range of an external file (already confined)."""

    dtype: str
    shape: tuple[int, ...]
    inline: Any  # the TensorProto (raw_data or typed fields) when the values are in the .mindir
    external: Location | None = None
    offset: int = 0
    length: int = 0
    problem: str = ""  # why the values cannot be read ("" when they can)


@dataclass(slots=True)
class Mindir:
    graph: ModelGraph
    weights: dict[str, WeightSource]


def read_mindir(location: Location, size: int) -> Mindir:
    """Read and parse a .mindir (ModelFormatError when it cannot be used, OSError when it cannot be read)."""
    if size > MAX_MODEL_BYTES:
        raise ModelFormatError(f"{location.name} has {size} bytes, more than the {MAX_MODEL_BYTES} parsed; MindSpore "
                               "keeps the weights of such models in <name>_variables/")
    model = parse_model(storage.read_bytes(location), location.name)
    return Mindir(_graph(model), _weights(model, location))


def _strip(name: str, prefix: str) -> str:
    return name[len(prefix):] if prefix and name.startswith(prefix) else name


def _graph(model: Any) -> ModelGraph:
    graph = model.graph
    prefix = graph.name + ":" if graph.name else ""
    primitives = {p.name: p for p in model.primitives}
    out = ModelGraph(graph.name, facts={
        "ir_version": model.ir_version, "producer_name": model.producer_name,
        "model_version": model.model_version, "mind_ir_version": int(model.mind_ir_version),
        "little_endian": bool(model.little_endian), "functions": [f.name for f in model.functions],
        "primitives": len(model.primitives)})
    for node in graph.node:
        op_type = node.op_type
        attributes = {}
        if op_type.startswith("REF::"):
            primitive = primitives.get(op_type[5:])
            op_type = primitive.op_type if primitive is not None and primitive.op_type else op_type[5:].split(":")[0]
            if primitive is not None:
                attributes = {a.name: _attribute_text(a) for a in primitive.attribute}
        shapes, dtype = [], ""
        for attr in node.attribute:
            if attr.name == "shape" and attr.tensors:
                shapes = [list(t.dims) for t in attr.tensors]
                dtype = DATA_TYPES.get(attr.tensors[0].data_type, "")
        name = _strip(node.name, prefix)
        out.nodes.append(ModelNode(name, op_type, node.domain, [_strip(i, prefix) for i in node.input], shapes,
                                   dtype, graph.name, attributes))
        if node.op_type == "Constant":
            out.constants.append(name)
    out.parameters = [ModelParameter(_strip(p.name, prefix), list(p.dims), DATA_TYPES.get(p.data_type, "undefined"))
                      for p in graph.parameter]
    out.inputs = [_value_info(v, prefix) for v in graph.input]
    out.outputs = [_value_info(v, prefix) for v in graph.output]
    return out


def _value_info(value: Any, prefix: str) -> ModelParameter:
    tensor = value.tensor[0] if value.tensor else None
    return ModelParameter(_strip(value.name, prefix), list(tensor.dims) if tensor is not None else [],
                          DATA_TYPES.get(tensor.data_type, "undefined") if tensor is not None else "undefined")


def _attribute_text(attr: Any) -> str:
    for field in ("s", "i", "f", "d"):
        if attr.HasField(field):
            value = getattr(attr, field)
            return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    if attr.ints:
        return str(list(attr.ints))
    if attr.floats:
        return str(list(attr.floats))
    return str(attr.type)


def _weights(model: Any, location: Location) -> dict[str, WeightSource]:
    prefix = model.graph.name + ":" if model.graph.name else ""
    out: dict[str, WeightSource] = {}
    for param in model.graph.parameter:
        name = _strip(param.name, prefix)
        dtype = DATA_TYPES.get(param.data_type, "undefined")
        shape = tuple(int(d) for d in param.dims)
        if not param.HasField("external_data"):
            out[name] = WeightSource(dtype, shape, param)
            continue
        ext = param.external_data
        target = storage.confine(location.parent, ext.location) if ext.location else None
        problem = "" if target is not None else (f"external data location {ext.location!r} is not a file inside "
                                                 "the model's folder")
        out[name] = WeightSource(dtype, shape, None, target, int(ext.offset), int(ext.length), problem)
    return out


def weight_values(source: WeightSource, read: Callable[[Location, int, int], bytes] = storage.read_range) -> np.ndarray:
    """The values of one parameter (ModelFormatError when they cannot be read)."""
    if source.problem:
        raise ModelFormatError(source.problem)
    count = int(np.prod(source.shape, dtype=np.int64)) if source.shape else 1
    if source.external is not None:
        dtype = _numpy_dtype(source.dtype)
        if source.offset < 0 or source.length < count * dtype.itemsize:
            raise ModelFormatError(f"external data of {count} {source.dtype} values announces {source.length} bytes")
        try:
            data = read(source.external, source.offset, count * dtype.itemsize)
        except OSError as exc:
            raise ModelFormatError(f"cannot read the external data {source.external.name}: {exc}") from None
        if len(data) < count * dtype.itemsize:
            raise ModelFormatError(f"{source.external.name} ends before offset {source.offset} + {source.length}")
        return _widen(np.frombuffer(data, dtype, count), source.dtype).reshape(source.shape)
    tensor = source.inline
    if tensor.raw_data:
        dtype = _numpy_dtype(source.dtype)
        if len(tensor.raw_data) < count * dtype.itemsize:
            raise ModelFormatError(f"raw_data holds {len(tensor.raw_data)} bytes for {count} {source.dtype} values")
        return _widen(np.frombuffer(tensor.raw_data, dtype, count), source.dtype).reshape(source.shape)
    for field in ("float_data", "double_data", "int32_data", "int64_data", "uint64_data"):
        values = getattr(tensor, field)
        if len(values) == count:
            return np.asarray(values).reshape(source.shape)
    raise ModelFormatError("the parameter has no values in the file")


def _numpy_dtype(name: str) -> np.dtype:
    if name == "bfloat16":
        return np.dtype("<u2")
    try:
        return np.dtype(name).newbyteorder("<")
    except TypeError:
        raise ModelFormatError(f"values of type {name} are not read") from None


def _widen(values: np.ndarray, name: str) -> np.ndarray:
    """bfloat16 (stored as its 16 high bits of a float32) -> float32; other types unchanged."""
    if name == "bfloat16":
        return (values.astype(np.uint32) << 16).view(np.float32)
    return values
