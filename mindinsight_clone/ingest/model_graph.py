"""The typed value every model-file reader yields (MindIR, IR text, anf_ir `.pb`): a flat graph, and its form as an
anf_ir `GraphProto`, so the graph views (`plugins/graphs`: scope tree, aggregation, search) draw it as they draw a
summary graph. Readers: `mindir.py`, `ir_text.py`, `anf_graph.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mindinsight_clone.proto import anf_ir_pb2

MAX_MODEL_BYTES = 1 << 30  # a protobuf model (.mindir, .pb) larger than this is not parsed (MindSpore moves the
# weights of models over 1 GB into <name>_variables/, so the graph file itself stays small)

# MindSpore type names (checkpoints, dump file names, IR text) -> numpy dtype names
MS_TO_NUMPY = {
    "float16": "float16", "float32": "float32", "float64": "float64", "double": "float64", "bool": "bool",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8", "uint16": "uint16",
    "uint32": "uint32", "uint64": "uint64", "complex64": "complex64", "complex128": "complex128",
    "bfloat16": "bfloat16",  # not a numpy type: read as uint16 and widened to float32 (ingest/checkpoint.py)
}
ANF_TYPES = {"bool": "DT_BOOL", "int8": "DT_INT8", "int16": "DT_INT16", "int32": "DT_INT32", "int64": "DT_INT64",
             "uint8": "DT_UINT8", "uint16": "DT_UINT16", "uint32": "DT_UINT32", "uint64": "DT_UINT64",
             "float16": "DT_FLOAT16", "float32": "DT_FLOAT32", "float64": "DT_FLOAT64", "bfloat16": "DT_FLOAT16",
             "complex64": "DT_COMPLEX64", "complex128": "DT_COMPLEX128"}


class ModelFormatError(ValueError):
    """The file is not the format its name says, is truncated, encrypted or too large."""


@dataclass(slots=True)
class ModelNode:
    name: str  # unique within the graph
    op_type: str
    full_name: str = ""  # the scope name MindSpore gives the node (`Default/.../Conv2D-op0`), "" when none
    inputs: list[str] = field(default_factory=list)  # names of nodes, parameters or constants
    output_shapes: list[list[int]] = field(default_factory=list)
    output_dtype: str = ""  # numpy dtype name of the (first) output, "" when unknown
    subgraph: str = ""
    attributes: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "op_type": self.op_type, "full_name": self.full_name, "inputs": self.inputs,
                "output_shapes": self.output_shapes, "output_dtype": self.output_dtype, "subgraph": self.subgraph,
                "attributes": self.attributes}


@dataclass(slots=True)
class ModelParameter:
    name: str
    shape: list[int]
    dtype: str  # numpy dtype name ("float32"), or the file's own name when numpy has none

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "shape": self.shape, "dtype": self.dtype}


@dataclass(slots=True)
class ModelGraph:
    graph_name: str
    nodes: list[ModelNode] = field(default_factory=list)
    parameters: list[ModelParameter] = field(default_factory=list)
    inputs: list[ModelParameter] = field(default_factory=list)
    outputs: list[ModelParameter] = field(default_factory=list)
    constants: list[str] = field(default_factory=list)  # names of value nodes (not in `nodes` of a GraphProto)
    facts: dict[str, Any] = field(default_factory=dict)  # format-specific: versions, header counts...

    def to_proto(self) -> Any:
        """The graph as an anf_ir GraphProto (operators, parameters and inputs, constants), for the graph views."""
        proto = anf_ir_pb2.GraphProto(name=self.graph_name)
        constants = set(self.constants)
        for node in self.nodes:
            if node.name in constants:
                proto.const_vals.add(key=node.name).value.str_val = node.op_type
                continue
            scope, _, _ = node.full_name.rpartition("/")
            item = proto.node.add(name=node.name, op_type=node.op_type, scope=scope, full_name=node.full_name)
            for name in node.inputs:
                item.input.add(name=name)
            _set_type(item.output_type, node.output_shapes[0] if node.output_shapes else None, node.output_dtype)
            for key, value in list(node.attributes.items())[:32]:
                item.attribute.add(name=key).value.str_val = value[:256]
        for param in (*self.inputs, *self.parameters):
            _set_type(proto.parameters.add(name=param.name).type, param.shape, param.dtype)
        return proto


def _set_type(type_proto: Any, shape: list[int] | None, dtype: str) -> None:
    type_proto.data_type = anf_ir_pb2.DT_TENSOR
    elem = ANF_TYPES.get(dtype.lower(), "DT_UNDEFINED")
    type_proto.tensor_type.elem_type = anf_ir_pb2.DataType.Value(elem)
    for size in shape or []:
        type_proto.tensor_type.shape.dim.add(size=size)


def numpy_dtype_name(mindspore_name: str) -> str:
    """`Float32` -> `float32`; unknown names are kept as given."""
    return MS_TO_NUMPY.get(mindspore_name.lower(), mindspore_name)
