"""Write MindSpore debugging files without MindSpore, with our own protos: a synchronous dump (the layout of
MindSpore 2.x's `MINDSPORE_DUMP_CONFIG` Dump), a MindIR (optionally with its weights in `<name>_variables/`),
a checkpoint, an `.ir` text graph and a `.dot` file. Used by scripts/make_demo_data, tests and benchmarks.

`write_lenet_debug_files` writes a small LeNet-like network's files; its dump holds one graph over several
iterations, with a NaN planted in a kernel's output from a chosen iteration on (the debugger's demo).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mindinsight_clone.proto import anf_ir_pb2, checkpoint_pb2, mind_ir_pb2

MS_TYPES = {"float32": "Float32", "float16": "Float16", "float64": "Float64", "int32": "Int32", "int64": "Int64",
            "bool": "Bool", "int8": "Int8", "uint8": "UInt8", "int16": "Int16"}
MINDIR_TYPES = {"float32": 1, "uint8": 2, "int8": 3, "int16": 5, "int32": 6, "int64": 7, "bool": 9, "float16": 10,
                "float64": 11}
ANF_TYPES = {"float32": anf_ir_pb2.DT_FLOAT32, "int32": anf_ir_pb2.DT_INT32, "int64": anf_ir_pb2.DT_INT64,
             "bool": anf_ir_pb2.DT_BOOL, "float16": anf_ir_pb2.DT_FLOAT16, "float64": anf_ir_pb2.DT_FLOAT64}


def write_checkpoint(path: Path, params: Mapping[str, np.ndarray]) -> None:
    """A `.ckpt` as `mindspore.save_checkpoint` writes it (entries in the given order)."""
    ckpt = checkpoint_pb2.Checkpoint()
    for tag, array in params.items():
        value = ckpt.value.add(tag=tag)
        value.tensor.dims.extend(array.shape)
        value.tensor.tensor_type = MS_TYPES[str(array.dtype)]
        value.tensor.tensor_content = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(ckpt.SerializeToString())


@dataclass
class Op:
    """One operator of a small network: its type, full scope name, inputs (op names or parameter names) and output
    shape."""

    op_type: str
    full_name: str
    inputs: list[str]
    shape: tuple[int, ...]
    dtype: str = "float32"


@dataclass
class Network:
    name: str
    ops: list[Op]
    params: dict[str, np.ndarray]
    inputs: dict[str, tuple[int, ...]] = field(default_factory=dict)


def lenet(rng: np.random.Generator, batch: int = 2) -> Network:
    """A LeNet-like network (conv-relu-pool x2, flatten, 3 dense layers) with random weights."""
    scope = "Default/network-WithLossCell/_backbone-LeNet5"
    def weight(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * (2.0 / np.prod(shape[1:])) ** 0.5).astype(np.float32)
    params = {"conv1.weight": weight(6, 1, 5, 5), "conv2.weight": weight(16, 6, 5, 5),
              "fc1.weight": weight(120, 400), "fc1.bias": np.zeros(120, np.float32), "fc2.weight": weight(84, 120),
              "fc2.bias": np.zeros(84, np.float32), "fc3.weight": weight(10, 84), "fc3.bias": np.zeros(10, np.float32)}
    ops = [
        Op("Conv2D", f"{scope}/conv1-Conv2d/Conv2D-op0", ["x", "conv1.weight"], (batch, 6, 28, 28)),
        Op("ReLU", f"{scope}/relu-ReLU/ReLU-op0", [f"{scope}/conv1-Conv2d/Conv2D-op0"], (batch, 6, 28, 28)),
        Op("MaxPool", f"{scope}/max_pool2d-MaxPool2d/MaxPool-op0", [f"{scope}/relu-ReLU/ReLU-op0"], (batch, 6, 14, 14)),
        Op("Conv2D", f"{scope}/conv2-Conv2d/Conv2D-op1", [f"{scope}/max_pool2d-MaxPool2d/MaxPool-op0", "conv2.weight"],
           (batch, 16, 10, 10)),
        Op("ReLU", f"{scope}/relu-ReLU/ReLU-op1", [f"{scope}/conv2-Conv2d/Conv2D-op1"], (batch, 16, 10, 10)),
        Op("MaxPool", f"{scope}/max_pool2d-MaxPool2d/MaxPool-op1", [f"{scope}/relu-ReLU/ReLU-op1"], (batch, 16, 5, 5)),
        Op("Flatten", f"{scope}/flatten-Flatten/Flatten-op0", [f"{scope}/max_pool2d-MaxPool2d/MaxPool-op1"],
           (batch, 400)),
    ]
    previous = f"{scope}/flatten-Flatten/Flatten-op0"
    for i, (layer, width) in enumerate((("fc1", 120), ("fc2", 84), ("fc3", 10))):
        ops.append(Op("MatMul", f"{scope}/{layer}-Dense/MatMul-op{i}", [previous, f"{layer}.weight"], (batch, width)))
        ops.append(Op("BiasAdd", f"{scope}/{layer}-Dense/BiasAdd-op{i}", [ops[-1].full_name, f"{layer}.bias"],
                      (batch, width)))
        previous = ops[-1].full_name
        if layer != "fc3":
            ops.append(Op("ReLU", f"{scope}/relu-ReLU/ReLU-op{i + 2}", [previous], (batch, width)))
            previous = ops[-1].full_name
    return Network("LeNet5", ops, params, {"x": (batch, 1, 32, 32)})


def forward(net: Network, x: np.ndarray, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Plausible outputs for each op (random, with the op's shape and a ReLU's sign), keyed by full name."""
    out: dict[str, np.ndarray] = {"x": x}
    for op in net.ops:
        value = rng.standard_normal(op.shape).astype(np.float32)
        out[op.full_name] = np.maximum(value, 0) if op.op_type == "ReLU" else value
    return out


# ---------------------------------------------------------------------- MindIR
def write_mindir(path: Path, net: Network, external: bool = False) -> None:
    """A `.mindir` of `net` (ModelProto, primitives referenced by nodes); with `external`, the weights go to
    `<stem>_variables/data_0` as MindSpore does for models over 1 GB (64-byte aligned, offset/length per weight)."""
    model = mind_ir_pb2.ModelProto(ir_version="1.1", producer_name="MindSpore", model_version="2.10.0",
                                   little_endian=True, mind_ir_version=3)
    graph = model.graph
    graph.name = f"1_{net.name}_construct_1"
    prefix = graph.name + ":"
    primitives: dict[str, str] = {}
    for name, shape in net.inputs.items():
        graph.input.add(name=prefix + name).tensor.add(dims=shape, data_type=MINDIR_TYPES["float32"])
    blob = bytearray()
    for name, array in net.params.items():
        tensor = graph.parameter.add(name=prefix + name, dims=array.shape, data_type=MINDIR_TYPES[str(array.dtype)])
        raw = np.ascontiguousarray(array).tobytes()
        if external:
            tensor.external_data.location = f"{path.stem}_variables/data_0"
            tensor.external_data.offset = len(blob)
            tensor.external_data.length = len(raw)
            blob += raw + bytes(-len(raw) % 64)
        else:
            tensor.raw_data = raw
    names = {op.full_name: f"{prefix}CNode_{i}" for i, op in enumerate(net.ops)}
    for op in net.ops:
        primitive = primitives.setdefault(op.op_type, f"{op.op_type}:{len(primitives) + 1}")
        node = graph.node.add(name=names[op.full_name], op_type=f"REF::{primitive}", domain=op.full_name,
                              input=[names.get(i, prefix + i) for i in op.inputs], output=[names[op.full_name]])
        attr = node.attribute.add(name="shape", type=mind_ir_pb2.AttributeProto.TENSORS)
        attr.tensors.add(dims=op.shape, data_type=MINDIR_TYPES[op.dtype])
    for op_type, name in primitives.items():
        model.primitives.add(name=name, op_type=op_type)
    graph.output.add(name=names[net.ops[-1].full_name]).tensor.add(dims=net.ops[-1].shape, data_type=1)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(model.SerializeToString())
    if external:
        folder = path.parent / f"{path.stem}_variables"
        folder.mkdir(exist_ok=True)
        (folder / "data_0").write_bytes(bytes(blob))


# ---------------------------------------------------------------------- graphs (anf_ir .pb, .ir, .dot)
def graph_proto(net: Network, name: str) -> anf_ir_pb2.GraphProto:
    graph = anf_ir_pb2.GraphProto(name=name)
    for i, op in enumerate(net.ops):
        scope = op.full_name.rsplit("/", 1)[0]
        node = graph.node.add(name=str(i + 1), op_type=op.op_type, scope=scope, full_name=op.full_name)
        ids = {o.full_name: str(j + 1) for j, o in enumerate(net.ops)}
        for source in op.inputs:
            node.input.add(name=ids.get(source, source))
        node.output_type.data_type = anf_ir_pb2.DT_TENSOR
        node.output_type.tensor_type.elem_type = ANF_TYPES[op.dtype]
        node.output_type.tensor_type.shape.dim.extend([anf_ir_pb2.TensorShapeProto.Dimension(size=d)
                                                       for d in op.shape])
    for pname, shape in [*net.inputs.items(), *((n, a.shape) for n, a in net.params.items())]:
        param = graph.parameters.add(name=pname)
        param.type.data_type = anf_ir_pb2.DT_TENSOR
        param.type.tensor_type.elem_type = anf_ir_pb2.DT_FLOAT32
        param.type.tensor_type.shape.dim.extend([anf_ir_pb2.TensorShapeProto.Dimension(size=d) for d in shape])
    return graph


def write_graph_pb(path: Path, net: Network, name: str) -> None:
    model = anf_ir_pb2.ModelProto(ir_version=1, graph=graph_proto(net, name))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(model.SerializeToString())


def ir_text(net: Network, name: str) -> str:
    """The graph in MindSpore's `.ir` text form (header, params, one subgraph)."""
    params = [*net.inputs.items(), *((n, a.shape) for n, a in net.params.items())]
    lines = [f"# IR entry: @{name}", "# Total subgraphs: 1", "", f"# Total params: {len(params)}", "# Params:"]
    for i, (pname, shape) in enumerate(params):
        lines.append(f"%para{i + 1}_{pname}: <Tensor[Float32], ({', '.join(map(str, shape))})>")
    lines += ["", "Node counting information:", f"Total number of nodes: {len(net.ops) + len(params) + 1}",
              f"Total number of cnodes: {len(net.ops) + 1}", "", f"subgraph @{name}() {{"]
    ids: dict[str, str] = {pname: f"%para{i + 1}_{pname}" for i, (pname, _) in enumerate(params)}
    for i, op in enumerate(net.ops):
        args = ", ".join(ids.get(source, source) for source in op.inputs)
        lines.append(f"  %{i}(CNode_{i}) = {op.op_type}({args})")
        lines.append(f"      : (...) -> (<Tensor[Float32], ({', '.join(map(str, op.shape))})>)")
        lines.append(f"      # Fullname with scope: ({op.full_name})")
        ids[op.full_name] = f"%{i}"
    lines += [f"  Return(%{len(net.ops) - 1})", "      # Fullname with scope: (Default/Return-op0)", "}", ""]
    return "\n".join(lines)


def dot_text(net: Network) -> str:
    """A Graphviz digraph of the network (MindSpore's .dot files are the same kind of file)."""
    lines = ["digraph mindspore {", "compound=true", "subgraph cluster_0{", 'label="' + net.name + '"']
    index = {op.full_name: i for i, op in enumerate(net.ops)}
    for i, op in enumerate(net.ops):
        lines.append(f'node{i}[shape=box,label="{op.op_type}\\n{op.full_name.rsplit("/", 1)[-1]}"]')
    for i, op in enumerate(net.ops):
        for source in op.inputs:
            if source in index:
                lines.append(f"node{index[source]} -> node{i}")
    lines += ["}", "}", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------- dump
def tensor_file_name(op_type: str, full_name: str, timestamp: int, io: str, slot: int, dtype: str) -> str:
    return (f"{op_type}.{full_name.replace('/', '_')}.0.0.{timestamp}.{io}.{slot}.DefaultFormat."
            f"{MS_TYPES[dtype]}.npy")


def write_dump(root: Path, net: Network, iterations: Sequence[int], rng: np.random.Generator, ranks: int = 1,
               nan_from: int | None = None, nan_op: int = 8, graph_id: int = 0, stamp: int = 1_790_000_000_000_000,
               ) -> None:
    """A synchronous dump of `net` (graph `graph_id`) at `iterations`, as MindSpore 2.x lays it out: per rank
    `.dump_metadata/`, `<net>/<graph>/<iteration>/*.npy` (every op's inputs and outputs, then the `Parameter`
    files), `graphs/ms_output_trace_code_graph_<g>.pb|.ir`, `execution_order/*.csv`. From iteration `nan_from` on,
    op number `nan_op`'s output holds a NaN (and so do its consumers' inputs)."""
    config = {"common_dump_settings": {"op_debug_mode": 0, "dump_mode": 0, "path": str(root), "net_name": net.name,
                                       "iteration": "|".join(map(str, iterations)), "saved_data": "tensor",
                                       "input_output": 0, "kernels": [], "support_device": list(range(8))},
              "e2e_dump_settings": {"enable": True, "trans_flag": True}}
    for rank in range(ranks):
        params = {name: array.copy() for name, array in net.params.items()}
        rank_dir = root / f"rank_{rank}"
        (rank_dir / ".dump_metadata").mkdir(parents=True, exist_ok=True)
        (rank_dir / ".dump_metadata" / "data_dump.json").write_text(json.dumps(config))
        (rank_dir / ".dump_metadata" / "config.json").write_text(json.dumps({"device_target": "CPU",
                                                                              "ms_version": "2.10.0"}))
        graph_name = f"kernel_graph{graph_id}"
        write_graph_pb(rank_dir / "graphs" / f"ms_output_trace_code_graph_{graph_id}.pb", net, graph_name)
        (rank_dir / "graphs" / f"ms_output_trace_code_graph_{graph_id}.ir").write_text(ir_text(net, graph_name))
        order = rank_dir / "execution_order"
        order.mkdir(exist_ok=True)
        (order / f"ms_execution_order_graph_{graph_id}.csv").write_text(
            "NodeExecutionOrder-FullNameWithScope\n" + "".join(op.full_name + "\n" for op in net.ops))
        (order / f"ms_global_execution_order_graph_{graph_id}.csv").write_text(
            "".join(f"{i}\n" for i in iterations))
        for iteration in iterations:
            folder = rank_dir / net.name / str(graph_id) / str(iteration)
            folder.mkdir(parents=True, exist_ok=True)
            x = rng.standard_normal(net.inputs["x"]).astype(np.float32)
            values = forward(net, x, rng)
            values.update(params)
            if nan_from is not None and iteration >= nan_from:
                _plant_nan(net, values, nan_op)
            tick = stamp + iteration * 1_000_000
            for op in net.ops:
                for slot, source in enumerate(op.inputs):
                    tick += 1
                    np.save(folder / tensor_file_name(op.op_type, op.full_name, tick, "input", slot, "float32"),
                            values[source])
                tick += 1
                np.save(folder / tensor_file_name(op.op_type, op.full_name, tick, "output", 0, op.dtype),
                        values[op.full_name])
            for name, array in params.items():
                tick += 1
                np.save(folder / tensor_file_name("Parameter", name.replace(".", "_"), tick, "output", 0,
                                                  str(array.dtype)), array)
                array -= 0.01 * rng.standard_normal(array.shape).astype(np.float32)  # a training step


def _plant_nan(net: Network, values: dict[str, np.ndarray], first: int) -> None:
    """NaN in op `first`'s output, and in the output of every later op that reads a NaN (as NaN spreads)."""
    values[net.ops[first].full_name].reshape(-1)[::7] = np.nan
    for op in net.ops[first + 1:]:
        if any(np.isnan(values[source]).any() for source in op.inputs):
            values[op.full_name].reshape(-1)[::3] = np.nan


def write_lenet_debug_files(dump_root: Path, models_dir: Path, seed: int = 0, iterations: int = 6,
                            nan_from: int = 4) -> None:
    """The demo's debugging files: a LeNet dump (NaN from iteration `nan_from` on) and its model files."""
    rng = np.random.default_rng(seed)
    net = lenet(rng)
    write_dump(dump_root, net, list(range(iterations)), rng, nan_from=nan_from)
    write_mindir(models_dir / "lenet.mindir", net)
    write_mindir(models_dir / "lenet_big.mindir", net, external=True)
    write_checkpoint(models_dir / "lenet.ckpt", net.params)
    trained = {name: (array - 0.05 * rng.standard_normal(array.shape)).astype(np.float32)
               for name, array in net.params.items()}
    write_checkpoint(models_dir / "lenet_trained.ckpt", trained)
    (models_dir / "lenet_graph.ir").write_text(ir_text(net, "kernel_graph0"))
    (models_dir / "lenet_graph.dot").write_text(dot_text(net))
