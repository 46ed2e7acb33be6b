"""Graph figures: parse, build, memory and query latency on generated MindSpore-like graphs.

    python benchmarks/graph.py                  # 1k, 10k and 100k operator nodes
    python benchmarks/graph.py --sizes 100000   # one size
    python benchmarks/graph.py --smoke          # 1k only, few repeats (CI)

Each graph looks like a MindSpore training graph: a backbone of blocks (Load, Conv2D, BiasAdd, ReLU per
block, in `Default/network-WithLossCell/_backbone-Net/stage<i>-Stage/block<j>-Block/...` scopes), the
matching `Gradients/...` operators, and one ApplyMomentum per weight in `Default/optimizer-Momentum`
(so that scope has N/8 same-type children: it becomes one aggregation scope with thousands of children).

Printed per size: serialized size, protobuf parse time, build time of the normal and the optimized view,
Python heap held by the built normal view (tracemalloc), and p50/p95 of the queries as the server runs
them (query + orjson serialization): root listing, a block scope, the big aggregation scope (whole and
one 1000-node page), search (4 patterns, first page of 100), single-node, nodes/all once.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson

from mindinsight_clone.plugins.graphs.build import build_graph
from mindinsight_clone.plugins.graphs.query import GraphQuery
from mindinsight_clone.proto import anf_ir_pb2

OPS_PER_BLOCK = 8  # Load, Conv2D, BiasAdd, ReLU, Conv2DBackpropFilter, ReluGrad, ApplyMomentum, Depend
BLOCKS_PER_STAGE = 50


class _Gen:
    def __init__(self) -> None:
        self.graph = anf_ir_pb2.GraphProto(name="bench")
        self.counter: dict[tuple[str, str], int] = {}

    def op(self, op_type: str, scope: str, inputs: list[str], shape: tuple[int, ...]) -> str:
        node = self.graph.node.add()
        node.name = str(len(self.graph.node))
        node.op_type = op_type
        node.scope = scope
        k = self.counter.get((scope, op_type), 0)
        self.counter[(scope, op_type)] = k + 1
        node.full_name = f"{scope}/{op_type}-op{k}"
        for name in inputs:
            node.input.add().name = name
        node.output_type.data_type = 14
        node.output_type.tensor_type.elem_type = 11
        for size in shape:
            node.output_type.tensor_type.shape.dim.add().size = size
        attr = node.attribute.add()
        attr.name = "format"
        attr.value.dtype = 13
        attr.value.str_val = "NCHW"
        return node.name

    def param(self, name: str, shape: tuple[int, ...]) -> str:
        p = self.graph.parameters.add()
        p.name = name
        p.type.data_type = 14
        p.type.tensor_type.elem_type = 11
        for size in shape:
            p.type.tensor_type.shape.dim.add().size = size
        return name


def make_graph(n_ops: int) -> anf_ir_pb2.GraphProto:
    gen = _Gen()
    blocks = max(1, n_ops // OPS_PER_BLOCK)
    x = gen.param("inputs0", (32, 16, 32, 32))
    u = gen.graph.const_vals.add()
    u.key = "cst1"
    u.value.str_val = "U"
    prev = x
    backbone = "Default/network-WithLossCell/_backbone-Net"
    outs = []
    for b in range(blocks):
        scope = f"{backbone}/stage{b // BLOCKS_PER_STAGE}-Stage/block{b}-Block"
        w = gen.param(f"stage{b // BLOCKS_PER_STAGE}.block{b}.conv.weight", (16, 16, 3, 3))
        load = gen.op("Load", scope, [w, "cst1"], (16, 16, 3, 3))
        conv = gen.op("Conv2D", f"{scope}/conv-Conv2d", [prev, load], (32, 16, 32, 32))
        bias = gen.op("BiasAdd", f"{scope}/conv-Conv2d", [conv], (32, 16, 32, 32))
        prev = gen.op("ReLU", f"{scope}/relu-ReLU", [bias], (32, 16, 32, 32))
        outs.append((scope, w, conv, prev))
    grad = prev
    for scope, w, conv, relu in reversed(outs):
        gscope = f"Gradients/{scope}"
        grad = gen.op("ReluGrad", f"{gscope}/relu-ReLU/Grad_ReLU", [grad, relu], (32, 16, 32, 32))
        dw = gen.op("Conv2DBackpropFilter", f"{gscope}/conv-Conv2d/Grad_Conv2D", [grad, conv], (16, 16, 3, 3))
        upd = gen.op("ApplyMomentum", "Default/optimizer-Momentum", [w, dw], (16, 16, 3, 3))
        gen.op("Depend", "Default", [upd, "cst1"], (1,))
    return gen.graph


def _timed(fn: Callable[[], Any], repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        orjson.dumps(fn(), option=orjson.OPT_SORT_KEYS)
        times.append((time.perf_counter() - t0) * 1000)
    return times


def _p(times: list[float], q: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(n_ops: int, repeats: int) -> None:
    proto = make_graph(n_ops)
    data = proto.SerializeToString()
    t0 = time.perf_counter()
    parsed = anf_ir_pb2.GraphProto.FromString(data)
    parse_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    model = build_graph(parsed)
    query = GraphQuery(model)
    build_s = time.perf_counter() - t0
    del model, query
    tracemalloc.start()  # a second build, traced (tracing slows it down, so it is not timed)
    model = build_graph(parsed)
    query = GraphQuery(model)
    held, _peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    t0 = time.perf_counter()
    GraphQuery(build_graph(parsed, optimized=True))
    opt_s = time.perf_counter() - t0
    agg = max((n for n in model.nodes.values() if n.type == "aggregation_scope"),
              key=lambda n: n.subnode_count).name
    block = "Default/network-WithLossCell/_backbone-Net/stage0-Stage/block0-Block"
    leaf = f"{block}/relu-ReLU/ReLU-op0"
    print(f"\n== {len(proto.node):,} operator nodes ({len(model.nodes):,} displayed nodes), "
          f"{len(data) / 1e6:.1f} MB serialized")
    print(f"parse {parse_s * 1000:8.1f} ms   build normal {build_s:6.2f} s   build optimize {opt_s:6.2f} s   "
          f"heap held by the normal view {held / 1e6:7.1f} MB")
    print(f"largest scope: {agg} ({len(query.children(agg)):,} children)")
    cases: list[tuple[str, Callable[[], Any]]] = [
        ("nodes (root)", lambda: query.list_nodes("")),
        ("nodes (a block)", lambda: query.list_nodes(block)),
        ("nodes (largest, page 1000)", lambda: query.list_nodes(agg, 0, 1000)),
        ("nodes (largest, whole)", lambda: query.list_nodes(agg)),
        ("search 'relu' (100)", lambda: query.search("relu", 0, 100)),
        ("search 'conv2d-op' (100)", lambda: query.search("conv2d-op", 0, 100)),
        ("search 'block9' (100)", lambda: query.search("block9", 0, 100)),
        ("search 'nomatch' (100)", lambda: query.search("nomatch", 0, 100)),
        ("single-node", lambda: query.single_node(leaf)),
    ]
    for name, fn in cases:
        times = _timed(fn, repeats)
        print(f"  {name:28s} p50 {statistics.median(times):8.2f} ms   p95 {_p(times, 0.95):8.2f} ms")
    times = _timed(lambda: query.all_nodes(), 1)
    print(f"  {'nodes/all (once)':28s}      {times[0]:8.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1_000, 10_000, 100_000])
    parser.add_argument("--repeats", type=int, default=40)
    parser.add_argument("--smoke", action="store_true", help="1k nodes, 5 repeats")
    args = parser.parse_args()
    sizes, repeats = ([1_000], 5) if args.smoke else (args.sizes, args.repeats)
    for n in sizes:
        run(n, repeats)


if __name__ == "__main__":
    main()
