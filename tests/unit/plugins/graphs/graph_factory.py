"""Small GraphProtos built in code, for the graph model tests."""

from __future__ import annotations

from collections.abc import Sequence

from mindinsight_clone.proto import anf_ir_pb2

DT_TENSOR = 14
DT_FLOAT32 = 11


def tensor_type(target: anf_ir_pb2.TypeProto, shape: Sequence[int]) -> None:
    target.data_type = DT_TENSOR
    target.tensor_type.elem_type = DT_FLOAT32
    for size in shape:
        target.tensor_type.shape.dim.add().size = size


class GraphBuilder:
    """`op("Conv2D", "Default/conv", ["x", "1"])` adds node `<n>` named `Default/conv/Conv2D-op<k>`."""

    def __init__(self) -> None:
        self.proto = anf_ir_pb2.GraphProto(name="test_graph")
        self._counter: dict[tuple[str, str], int] = {}

    def op(self, op_type: str, scope: str, inputs: Sequence[str] = (), shape: Sequence[int] = (2, 2),
           full_name: str | None = None, instance_name: str = "") -> str:
        node = self.proto.node.add()
        node.name = str(len(self.proto.node))
        node.op_type = op_type
        node.scope = scope
        k = self._counter.get((scope, op_type), 0)
        self._counter[(scope, op_type)] = k + 1
        node.full_name = f"{scope}/{op_type}-op{k}" if full_name is None else full_name
        node.instance_name = instance_name
        for name in inputs:
            node.input.add().name = name
        tensor_type(node.output_type, shape)
        attr = node.attribute.add()
        attr.name = "pad"
        attr.value.dtype = 11
        attr.value.float_val = 1.0
        return node.name

    def param(self, name: str, shape: Sequence[int] = (2, 2)) -> str:
        param = self.proto.parameters.add()
        param.name = name
        tensor_type(param.type, shape)
        return name

    def const(self, key: str, value: int = 1) -> str:
        const = self.proto.const_vals.add()
        const.key = key
        const.value.dtype = 5
        const.value.int_val = value
        return key
