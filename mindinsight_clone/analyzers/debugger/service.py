"""DebuggerService: the facade the debugger routes call (dumps, tensor tables, values, graphs, watchpoints).

Dump roots come from the run discovery's walk (`DataManager.debug_files()`); a client's `dump_id` is only ever
looked up among them, never joined to a path, so nothing outside the base dir can be named. Side files of a dump
(execution order, graphs, statistic.csv, metadata) are parsed once per file version (`ParsedFileCache`); tensor
statistics are kept in the workspace (`StatsCache`).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol

from mindinsight_clone.analyzers.debugger import conditions, values, watchpoints
from mindinsight_clone.analyzers.debugger.dumps import DEFAULT_TTL, DumpTree, IterationFiles, Listings
from mindinsight_clone.analyzers.debugger.naming import KernelNames, match_kernels, match_parameters
from mindinsight_clone.analyzers.debugger.stats import TensorStats
from mindinsight_clone.analyzers.debugger.stats_cache import StatsCache
from mindinsight_clone.analyzers.debugger.tensors import FactsSource, TensorItem, items_of, order_key, row
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.errors import (
    DebuggerDumpNotExistError,
    DebuggerGraphNotExistError,
    DebuggerNodeNotInGraphError,
    DebuggerTensorNotExistError,
    DebuggerTensorUnreadableError,
    ParamValueError,
)
from mindinsight_clone.ingest import dump_layout, event_parser, ir_text, storage
from mindinsight_clone.ingest.debug_discovery import DebugFinds
from mindinsight_clone.ingest.dump_layout import StatisticRow
from mindinsight_clone.ingest.storage import Location
from mindinsight_clone.plugins.graphs.build import build_graph
from mindinsight_clone.plugins.graphs.cache import BuiltGraphs, cache_budget
from mindinsight_clone.plugins.graphs.model import DEFAULT_MAX_NODES
from mindinsight_clone.plugins.graphs.query import GraphQuery

MAX_ITERATIONS = 16  # iterations kept in execution order with their names, while their listing is unchanged
MAX_SIDE_FILE_BYTES = 512 * 1024 * 1024  # graphs/*.pb and csv files larger than this are not read


class DebugFilesRegistry(Protocol):
    """What the service needs from the data manager: the dump roots and model files of the last scan, and whether
    the first scan is done (`load_status`: init, loading, loaded)."""

    load_status: str

    def debug_files(self) -> DebugFinds: ...


class DebuggerService:
    def __init__(self, registry: DebugFilesRegistry, workspace: str | None, ttl: float = DEFAULT_TTL,
                 side_files: ParsedFileCache | None = None, max_graph_nodes: int = DEFAULT_MAX_NODES) -> None:
        self.registry = registry
        self.listings = Listings(ttl)
        self.stats = StatsCache(workspace)
        self.facts = FactsSource(self.stats)
        self.side_files = side_files if side_files is not None else ParsedFileCache(max_bytes=256 << 20)
        self._trees: dict[tuple[str, str], DumpTree] = {}
        self.max_graph_nodes = max_graph_nodes
        self._graphs: BuiltGraphs[tuple[str, int, int]] = BuiltGraphs(cache_budget(max_graph_nodes))
        self._iterations: OrderedDict[tuple[str, int, int, int], tuple[tuple[Any, ...], Any]] = OrderedDict()
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ dumps
    def trees(self) -> list[DumpTree]:
        roots = sorted(self.registry.debug_files().dumps, key=lambda d: d.dump_id)
        with self._lock:
            out = []
            for root in roots:
                key = (root.dump_id, str(root.location))
                tree = self._trees.get(key)
                if tree is None or tree.root.ranks != root.ranks:
                    tree = self._trees[key] = DumpTree(root, self.listings)
                out.append(tree)
            live = {(t.dump_id, str(t.root.location)) for t in out}
            for key in [k for k in self._trees if k not in live]:
                del self._trees[key]
        return out

    def tree(self, dump_id: str) -> DumpTree:
        for tree in self.trees():
            if tree.dump_id == dump_id:
                return tree
        raise DebuggerDumpNotExistError(f"dump_id: {dump_id}")

    def dumps(self, dump_id: str | None = None) -> dict[str, Any]:
        """`{"dumps": [{"dump_id", "net_name", "ranks", "graphs": [{"rank", "graph_id", "iterations"}], ...}]}`."""
        trees = [self.tree(dump_id)] if dump_id else self.trees()
        out = []
        for tree in trees:
            graphs = [{"rank": rank, "graph_id": g, "iterations": tree.iterations(rank, g)}
                      for rank in tree.root.ranks for g in tree.graph_ids(rank)]
            first = tree.root.ranks[0] if tree.root.ranks else None
            out.append({"dump_id": tree.dump_id, "net_name": tree.net_name(first) if first is not None else None,
                        "ranks": list(tree.root.ranks), "graphs": graphs, **self._metadata(tree, first)})
        finds = self.registry.debug_files()
        return {"dumps": out, "truncated": finds.dumps_truncated, "load_status": self.registry.load_status}

    def _metadata(self, tree: DumpTree, rank: int | None) -> dict[str, Any]:
        """device_target and ms_version from `.dump_metadata/config.json` (null when absent or unreadable)."""
        found: dict[str, Any] = {"device_target": None, "ms_version": None}
        location = None if rank is None else tree.side_file(rank, dump_layout.METADATA_DIR, "config.json")
        if location is None:
            return found
        try:
            data = self.side_files.get("dump-config", location, _read_json)
        except (OSError, ValueError):
            return found
        if isinstance(data, dict):
            found.update({k: data.get(k) for k in found if isinstance(data.get(k), str)})
        return found

    def check_graph(self, tree: DumpTree, rank: int, graph_id: int, iteration: int | None = None) -> None:
        if rank not in tree.root.ranks:
            raise DebuggerDumpNotExistError(f"rank {rank} is not in dump {tree.dump_id}")
        if graph_id not in tree.graph_ids(rank):
            raise DebuggerDumpNotExistError(f"graph {graph_id} is not in rank {rank} of dump {tree.dump_id}")
        if iteration is not None and iteration not in tree.iterations(rank, graph_id):
            raise DebuggerDumpNotExistError(f"iteration {iteration} of graph {graph_id} is not in rank {rank} of "
                                            f"dump {tree.dump_id}")

    # ------------------------------------------------------------------ names and side files
    def execution_order(self, tree: DumpTree, rank: int, graph_id: int) -> list[str]:
        location = tree.side_file(rank, dump_layout.EXECUTION_ORDER_DIR, dump_layout.execution_order_name(graph_id))
        if location is None:
            return []
        try:
            return self.side_files.get("exec-order", location, _read_execution_order)  # type: ignore[no-any-return]
        except (OSError, ValueError):
            return []

    def graph_proto(self, tree: DumpTree, rank: int, graph_id: int) -> Any | None:
        """The GraphProto of `graphs/ms_output_trace_code_graph_<id>.pb`, else of the `.ir` twin, else None."""
        pb_name, ir_name = dump_layout.graph_file_names(graph_id)
        for name, kind, read in ((pb_name, "dump-graph", _read_graph), (ir_name, "dump-graph-ir", _read_ir_graph)):
            location = tree.side_file(rank, dump_layout.GRAPHS_DIR, name)
            if location is None:
                continue
            try:
                return self.side_files.get(kind, location, read)
            except (OSError, ValueError, event_parser.PayloadError):
                continue
        return None

    def kernel_names(self, tree: DumpTree, rank: int, graph_id: int, items: Sequence[TensorItem]) -> KernelNames:
        kernels = self.execution_order(tree, rank, graph_id)
        names = KernelNames(kernels=kernels)
        ops = [(i.name.op_name, i.name.timestamp) for i in items if i.name.op_type != dump_layout.PARAMETER]
        names.by_file = match_kernels(ops, kernels)
        proto = self.graph_proto(tree, rank, graph_id)
        if proto is not None:
            names.parameters = match_parameters(p.name for p in proto.parameters if p.name)
        return names

    def statistic_rows(self, files: IterationFiles) -> list[StatisticRow]:
        entry = files.statistic_csv
        if entry is None:
            return []
        try:
            rows, _bad = self.side_files.get("statistic-csv", entry.location, _read_statistic_csv, entry=entry)
        except (OSError, ValueError):
            return []
        return rows  # type: ignore[no-any-return]

    def iteration(self, tree: DumpTree, rank: int, graph_id: int,
                  iteration: int) -> tuple[list[TensorItem], KernelNames, IterationFiles]:
        """The tensors of one iteration in execution order, their node names, and the folder's listing facts."""
        self.check_graph(tree, rank, graph_id, iteration)
        files = tree.iteration_files(rank, graph_id, iteration)
        csv_rows = self.statistic_rows(files)
        order, proto = self.execution_order(tree, rank, graph_id), self.graph_proto(tree, rank, graph_id)
        key = (tree.dump_id, rank, graph_id, iteration)
        with self._lock:
            known = self._iterations.get(key)
        if known is not None and all(a is b for a, b in zip(known[0], (files, csv_rows, order, proto), strict=True)):
            return known[1]  # nothing changed since it was built: the same (read-only) answer
        items = items_of(((t.name, t.entry) for t in files.tensors), csv_rows)
        names = self.kernel_names(tree, rank, graph_id, items)
        items.sort(key=lambda item: order_key(item, names))
        with self._lock:
            self._iterations[key] = ((files, csv_rows, order, proto), (items, names, files))
            self._iterations.move_to_end(key)
            while len(self._iterations) > MAX_ITERATIONS:
                self._iterations.popitem(last=False)
        return items, names, files

    # ------------------------------------------------------------------ tensor table
    def tensors(self, dump_id: str, rank: int, graph_id: int, iteration: int, offset: int = 0, limit: int = 100,
                search: str | None = None, node_name: str | None = None, io: str | None = None) -> dict[str, Any]:
        tree = self.tree(dump_id)
        items, names, files = self.iteration(tree, rank, graph_id, iteration)
        if io is not None and io not in dump_layout.IO_KINDS:
            raise ParamValueError(f"io must be input or output, got {io!r}")
        chosen = []
        needle = search.lower() if search else None
        for item in items:
            node, _, _ = names.node_of(item.name.op_type, item.name.op_name)
            if io is not None and item.name.io != io:
                continue
            if node_name is not None and node != node_name:
                continue
            if needle is not None and needle not in item.name.op_name.lower() and needle not in (node or "").lower():
                continue
            chosen.append(item)
        page = chosen[offset:offset + limit]
        rows = [row(item, facts, names) for item, facts in zip(page, self.facts.facts(page), strict=True)]
        return {"total": len(chosen), "offset": offset, "limit": limit, "tensors": rows,
                "truncated": files.truncated, "skipped_files": files.skipped, "skipped_count": files.skipped_count}

    def find(self, dump_id: str, rank: int, graph_id: int, iteration: int, op_name: str, io: str, slot: int,
             timestamp: int | None = None) -> tuple[DumpTree, TensorItem, KernelNames]:
        """One tensor by (op_name, io, slot); the newest file when an op wrote it more than once in the iteration
        (`timestamp` picks another)."""
        tree = self.tree(dump_id)
        items, names, _ = self.iteration(tree, rank, graph_id, iteration)
        found = [i for i in items if i.key == (op_name, io, slot)
                 and (timestamp is None or i.name.timestamp == timestamp)]
        if not found:
            raise DebuggerTensorNotExistError(f"{op_name} {io} {slot} in iteration {iteration} of graph {graph_id}, "
                                              f"rank {rank}")
        return tree, max(found, key=lambda i: i.name.timestamp), names

    # ------------------------------------------------------------------ values
    def tensor(self, dump_id: str, rank: int, graph_id: int, iteration: int, op_name: str, io: str, slot: int,
               dims: str | None = None, detail: str | None = None, timestamp: int | None = None) -> dict[str, Any]:
        """One tensor's row, and a window of its values (`detail` data, the default) or its histogram
        (`histogram`); `stats` gives the row only."""
        if detail not in (None, "data", "histogram", "stats"):
            raise ParamValueError(f"detail must be data, histogram or stats, got {detail!r}")
        _, item, names = self.find(dump_id, rank, graph_id, iteration, op_name, io, slot, timestamp)
        facts = self.facts.facts([item], force=detail in ("stats", "histogram"))[0]
        answer: dict[str, Any] = {"dump_id": dump_id, "rank": rank, "graph_id": graph_id, "iteration": iteration,
                                  "tensor": row(item, facts, names)}
        if detail == "stats":
            return answer
        if facts.get("error"):
            raise DebuggerTensorUnreadableError(facts["error"])
        overall = TensorStats.from_dict(facts["stats"]) if facts.get("stats") else None
        if detail == "histogram":
            answer["histogram_buckets"] = values.histogram(item, overall) if overall is not None else []
        else:
            answer.update(values.value_answer(item, overall, dims))
        return answer

    def compare(self, dump_id: str, rank: int, graph_id: int, iteration: int, other_iteration: int, op_name: str,
                io: str, slot: int, dims: str | None = None) -> dict[str, Any]:
        """The tensor in `iteration` minus the same tensor (op, io, slot) in `other_iteration` of the same graph."""
        _, current, names = self.find(dump_id, rank, graph_id, iteration, op_name, io, slot)
        _, other, _ = self.find(dump_id, rank, graph_id, other_iteration, op_name, io, slot)
        facts = self.facts.facts([current, other])
        answer = {"dump_id": dump_id, "rank": rank, "graph_id": graph_id, "iteration": iteration,
                  "other_iteration": other_iteration, "tensor": row(current, facts[0], names),
                  "other": row(other, facts[1], names)}
        answer.update(values.compare_answer(current, other, dims))
        return answer

    # ------------------------------------------------------------------ watchpoints
    @staticmethod
    def conditions() -> dict[str, Any]:
        return {"conditions": conditions.describe(), "targets": list(watchpoints.TARGETS)}

    def check(self, body: Any) -> dict[str, Any]:
        dump_id, watches, filters = watchpoints.parse_request(body)
        tree = self.tree(dump_id)
        answer = watchpoints.check(self, tree, watches, filters).answer()
        answer["dump_id"] = dump_id
        return answer

    # ------------------------------------------------------------------ graphs
    def graph(self, dump_id: str, rank: int, graph_id: int) -> GraphQuery:
        """The built graph of a dump's graph id (graphs/ms_output_trace_code_graph_<id>.pb), for the graph views."""
        tree = self.tree(dump_id)
        self.check_graph(tree, rank, graph_id)
        proto = self.graph_proto(tree, rank, graph_id)
        if proto is None:
            raise DebuggerGraphNotExistError(f"no readable graphs/ms_output_trace_code_graph_{graph_id}.pb or .ir in "
                                             f"rank {rank} of dump {dump_id}")
        key = (dump_id, rank, graph_id)
        query = self._graphs.get(key, proto)
        if query is None:
            query = GraphQuery(build_graph(proto, max_nodes=self.max_graph_nodes))
            self._graphs.put(key, proto, query)
        return query

    def node_tensors(self, dump_id: str, rank: int, graph_id: int, iteration: int,
                     nodes: list[dict[str, Any]], query: GraphQuery) -> list[dict[str, Any]]:
        """`nodes` (a graph listing) with, on each operator and parameter node, `tensors`: the rows of the tensors
        dumped for it in `iteration` (statistics computed for these only)."""
        tree = self.tree(dump_id)
        items, names, _ = self.iteration(tree, rank, graph_id, iteration)
        wanted: dict[str, str] = {}  # node full name -> listed name
        for node in nodes:
            graph_node = query.model.nodes.get(node["name"])
            if graph_node is None or graph_node.is_scope:
                continue
            full = graph_node.full_name or graph_node.name
            wanted[full.rsplit("/", 1)[-1] if graph_node.type == "Parameter" else full] = node["name"]
        chosen = [(i, wanted[n]) for i in items
                  if (n := names.node_of(i.name.op_type, i.name.op_name)[0]) is not None and n in wanted]
        by_node: dict[str, list[dict[str, Any]]] = {}
        for (item, listed), facts in zip(chosen, self.facts.facts([i for i, _ in chosen]), strict=True):
            by_node.setdefault(listed, []).append(row(item, facts, names))
        return [{**node, "tensors": by_node.get(node["name"], [])} if node["name"] in wanted.values() else node
                for node in nodes]

    @staticmethod
    def node_by_full_name(query: GraphQuery, full_name: str) -> str:
        """The name of the graph node (as the graph views list it: aggregation scopes included) whose full name
        (execution-order / tensor table `node_name`) is `full_name`; parameters are named by themselves."""
        model = query.model
        if full_name in model.nodes and model.nodes[full_name].full_name in ("", full_name):
            return full_name
        for node in model.nodes.values():
            if node.full_name == full_name and not node.is_scope:
                return node.name
        raise DebuggerNodeNotInGraphError(f"full name: {full_name}")

    def close(self) -> None:
        self.stats.close()


def _read_json(location: Location) -> Any:
    return json.loads(storage.read_bytes(location, MAX_SIDE_FILE_BYTES))


def _read_execution_order(location: Location) -> list[str]:
    return dump_layout.parse_execution_order(storage.read_text(location, errors="replace"))


def _read_statistic_csv(location: Location) -> tuple[list[StatisticRow], int]:
    return dump_layout.parse_statistic_csv(storage.read_bytes(location, MAX_SIDE_FILE_BYTES).decode("utf-8", "replace"))


def _read_ir_graph(location: Location) -> Any:
    if storage.stat(location).size > MAX_SIDE_FILE_BYTES:
        raise ValueError(f"{storage.describe(location)} is larger than {MAX_SIDE_FILE_BYTES} bytes")
    return ir_text.parse_ir_text(storage.read_text(location, errors="replace")).to_proto()


def _read_graph(location: Location) -> Any:
    if storage.stat(location).size > MAX_SIDE_FILE_BYTES:
        raise ValueError(f"{storage.describe(location)} is larger than {MAX_SIDE_FILE_BYTES} bytes")
    return event_parser.parse_pb_graph(storage.read_bytes(location), location.name).value
