"""GraphProto (anf_ir) -> Node objects: names, types, attributes, shapes and data types.

Names follow MindInsight 2.3.1: an operator is called by its `full_name`
(`Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/Conv2D-op5`) unless it has none or is a
summary operator (`...[:Scalar]`), then `<scope>/<op_type><proto name>`. Inputs refer to the proto
`name` of the source node (its id), or to a Parameter / Const by name.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from google.protobuf import text_format

from mindinsight_clone.plugins.graphs.limits import NameBounds, bound_name
from mindinsight_clone.plugins.graphs.node import CONST, PARAMETER, Edge, Node, node_name

MAX_ATTRIBUTE_VALUE_BYTES = 1024  # larger attribute values are left out, as MindInsight does
_SUMMARY_SUFFIXES = tuple(f"[:{p}]" for p in (
    "image", "scalar", "graph", "optimized_graph", "histogram", "tensor", "loss_landscape"))

DT_TENSOR = 14
DT_TUPLE = 31


# float/double fields whose integral values protobuf >= 4 prints as `1` where MindInsight's pinned
# pure-Python protobuf 3.20 printed `1.0`
_INTEGRAL_FLOAT = re.compile(
    r"^(\s*(?:float_val|double_val|float_vals|double_vals|float_data|double_data): -?)(\d+)$", re.M)


def value_text(value: Any) -> str:
    """A ValueProto in protobuf text format, byte-for-byte as MindInsight 2.3.1 prints it."""
    text = str(value)
    if not text.isascii():  # non-ASCII string bytes are octal-escaped by the old printer
        text = text_format.MessageToString(value, as_utf8=False)
    if "float" in text or "double" in text:
        text = _INTEGRAL_FLOAT.sub(r"\1\2.0", text)
    return text


def _enum_name(message: Any, field: str, value: int) -> str:
    enum = message.DESCRIPTOR.fields_by_name[field].enum_type
    item = enum.values_by_number.get(value)
    return item.name if item is not None else str(value)


def output_shapes(type_proto: Any) -> list[Any]:
    """A list of shapes (one per output); `[[]]` for a non-tensor value."""
    if type_proto.HasField("data_type") and type_proto.data_type not in (DT_TENSOR, DT_TUPLE):
        return [[]]
    shapes: list[Any] = []
    if type_proto.HasField("tensor_type"):
        shapes.append([dim.size for dim in type_proto.tensor_type.shape.dim])
    if type_proto.HasField("sequence_type"):
        for elem in type_proto.sequence_type.elem_types:
            shapes.extend(output_shapes(elem))
    return shapes


def data_type_name(type_proto: Any) -> str:
    """`DT_TENSOR[DT_FLOAT32]`, `DT_TUPLE['DT_TENSOR[DT_FLOAT32]', ...]` or a plain `DT_...` name."""
    name = _enum_name(type_proto, "data_type", type_proto.data_type)
    if type_proto.data_type == DT_TENSOR:
        tensor = type_proto.tensor_type
        return f"{name}[{_enum_name(tensor, 'elem_type', tensor.elem_type)}]"
    if type_proto.data_type == DT_TUPLE:
        return f"{name}{[data_type_name(e) for e in type_proto.sequence_type.elem_types]!s}"
    return name


def op_node_name(proto: Any) -> str:
    full_name: str = proto.full_name
    if not full_name or full_name.lower().endswith(_SUMMARY_SUFFIXES):
        return node_name(proto.scope, f"{proto.op_type}{proto.name}")
    return full_name


def parse_op_node(index: int, proto: Any, bounds: NameBounds) -> Node:
    """The operator node; its name, id, scope and input references bounded (limits.py)."""
    full = op_node_name(proto)
    name = bounds.bound(full)
    scope = bound_name(proto.scope) if name is full else name.rpartition("/")[0]
    node = Node(name, bound_name(proto.name), proto.op_type, scope, index)
    node.full_name = proto.full_name
    for attribute in proto.attribute:
        value = attribute.value
        if value.ByteSize() > MAX_ATTRIBUTE_VALUE_BYTES:
            continue
        if (attribute.name in ("input_is_dynamic_shape", "output_is_dynamic_shape")
                and value.bool_val):
            node.is_dynamic_shape_node = True
        node.attr[attribute.name] = value_text(value)
    for inp in proto.input:
        if inp.name:
            node.inputs[bound_name(inp.name)] = Edge([], "control" if inp.type else "data")
    node.output_i = proto.output_i
    node.output_shape = output_shapes(proto.output_type)
    node.output_data_type = data_type_name(proto.output_type)
    return node


def parse_parameter(proto: Any, bounds: NameBounds) -> Node:
    name = bounds.bound(proto.name)
    node = Node(name, name, PARAMETER)
    node.output_shape = output_shapes(proto.type)
    node.output_data_type = data_type_name(proto.type)
    node.attr = {"type": node.output_data_type, "shape": str(node.output_shape)}
    return node


def parse_const(proto: Any, bounds: NameBounds) -> Node:
    key = bounds.bound(proto.key)
    node = Node(key, key, CONST)
    value = proto.value
    if value.ByteSize() > MAX_ATTRIBUTE_VALUE_BYTES:
        node.attr = {key: "dtype: " + _enum_name(value, "dtype", value.dtype)}
    else:
        node.attr = {key: value_text(value)}
    node.output_shape = [list(value.tensor_val.dims)] if value.dtype == DT_TENSOR else [[]]
    return node


def parse_graph(proto: Any, cache: Callable[[Node], None],
                keep_op: Callable[[Any], bool] | None = None) -> NameBounds:
    """Create every operator, parameter and const node of `proto` (in that order) through `cache`; the answer says
    which names were bounded."""
    bounds = NameBounds()
    for index, op in enumerate(proto.node):
        if not op.name or (keep_op is not None and not keep_op(op)):
            continue
        cache(parse_op_node(index, op, bounds))
    for param in proto.parameters:
        if param.name:
            cache(parse_parameter(param, bounds))
    for const in proto.const_vals:
        if const.key:
            cache(parse_const(const, bounds))
    return bounds
