"""anf_ir `.pb` graph files (`MS_DEV_SAVE_GRAPHS`' `ms_output_*.pb`, a dump's `graphs/*.pb`): the GraphProto, read as
the summary loader reads them (`event_parser.parse_pb_graph`), flattened into a ModelGraph for the node list."""

from __future__ import annotations

from typing import Any

from mindinsight_clone.ingest import event_parser, storage
from mindinsight_clone.ingest.model_graph import (
    MAX_MODEL_BYTES,
    ModelFormatError,
    ModelGraph,
    ModelNode,
    ModelParameter,
)
from mindinsight_clone.ingest.storage import Location
from mindinsight_clone.proto import anf_ir_pb2


def read_graph_proto(location: Location, size: int) -> Any:
    """The GraphProto of a `.pb` (ModelFormatError when it is not one or is too large)."""
    if size > MAX_MODEL_BYTES:
        raise ModelFormatError(f"{location.name} has {size} bytes, more than the {MAX_MODEL_BYTES} parsed")
    try:
        return event_parser.parse_pb_graph(storage.read_bytes(location), location.name).value
    except event_parser.PayloadError as exc:
        raise ModelFormatError(f"{location.name} is not an anf_ir graph (mindspore.irpb.ModelProto): {exc}") from None


def _type(type_proto: Any) -> tuple[str, list[int]]:
    if not type_proto.HasField("tensor_type"):
        return "", []
    tensor = type_proto.tensor_type
    elem = anf_ir_pb2.DataType.Name(tensor.elem_type) if tensor.elem_type in anf_ir_pb2.DataType.values() else ""
    return elem.removeprefix("DT_").lower(), [int(d.size) for d in tensor.shape.dim]


def flatten(proto: Any) -> ModelGraph:
    """The nodes (named as the graph views name them: full name, else `<scope>/<op_type><id>`) and parameters."""
    graph = ModelGraph(proto.name, facts={"nodes": len(proto.node), "parameters": len(proto.parameters),
                                          "constants": len(proto.const_vals), "outputs": len(proto.outputs)})
    names = {n.name: (n.full_name or f"{n.scope}/{n.op_type}{n.name}".lstrip("/")) for n in proto.node}
    for node in proto.node:
        dtype, shape = _type(node.output_type)
        graph.nodes.append(ModelNode(names[node.name], node.op_type, node.full_name,
                                     [names.get(i.name, i.name) for i in node.input], [shape] if shape else [],
                                     dtype, proto.name))
    for param in proto.parameters:
        dtype, shape = _type(param.type)
        graph.parameters.append(ModelParameter(param.name, shape, dtype))
    graph.constants = [c.key for c in proto.const_vals]
    return graph
