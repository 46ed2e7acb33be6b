"""ModelService: the model files under the base dir (MindIR, checkpoints, safetensors, ONNX, MindSpore Lite .ms, IR
text, .dot, anf_ir .pb) for the models/* routes.

Model files are found by the run discovery's walk (`DataManager.debug_files()`); a client's `model_id` is only
looked up among them. Parsed files are kept per file version (`ParsedFileCache`, keyed by size/mtime/inode);
parameter statistics are computed once per file version and kept in the workspace (`StatsCache`, the debugger's).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from mindinsight_clone.analyzers.debugger.service import DebugFilesRegistry
from mindinsight_clone.analyzers.debugger.stats import tensor_stats
from mindinsight_clone.analyzers.debugger.stats_cache import FileKey, StatsCache, file_key
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.errors import ModelKindError, ModelNotExistError, ModelUnreadableError, ParamValueError
from mindinsight_clone.ingest import (
    anf_graph,
    checkpoint,
    ir_text,
    mindir,
    mindspore_lite_model,
    onnx_model,
    safetensors_file,
    storage,
)
from mindinsight_clone.ingest.debug_discovery import ModelFile
from mindinsight_clone.ingest.model_graph import ModelFormatError, ModelGraph
from mindinsight_clone.ingest.storage import Entry, Location
from mindinsight_clone.plugins.graphs.build import build_graph
from mindinsight_clone.plugins.graphs.cache import BuiltGraphs, cache_budget
from mindinsight_clone.plugins.graphs.model import DEFAULT_MAX_NODES
from mindinsight_clone.plugins.graphs.query import GraphQuery

GRAPH_KINDS = ("mindir", "onnx", "ms", "ir", "pb")
PARAMETER_KINDS = ("checkpoint", "safetensors", "safetensors-index", safetensors_file.RANKS_KIND, "mindir", "onnx",
                   "ms")
SAFETENSORS_KINDS = ("safetensors", "safetensors-index", safetensors_file.RANKS_KIND)
TEXT_KINDS = ("ir", "dot")
MAX_TEXT_BYTES = 256 * 1024 * 1024  # .ir files larger than this are not parsed (their text is still paged)
MAX_TEXT_PAGE = 4 * 1024 * 1024
STAT_KEYS = ("count", "finite_count", "min", "max", "mean", "std", "nan_count", "pos_inf_count", "neg_inf_count",
             "zero_count", "abs_mean")


class ModelService:
    def __init__(self, registry: DebugFilesRegistry, workspace: str | None,
                 parsed: ParsedFileCache | None = None, stats: StatsCache | None = None,
                 max_graph_nodes: int = DEFAULT_MAX_NODES) -> None:
        self.registry = registry
        self.parsed = parsed if parsed is not None else ParsedFileCache(max_bytes=512 << 20)
        self.stats = stats if stats is not None else StatsCache(workspace, "models.sqlite3")
        self.max_graph_nodes = max_graph_nodes
        self._graphs: BuiltGraphs[str] = BuiltGraphs(cache_budget(max_graph_nodes))

    # ------------------------------------------------------------------ listing
    def models(self) -> dict[str, Any]:
        finds = self.registry.debug_files()
        items = sorted([*finds.models, *self._rank_sets(finds.models).values()], key=lambda m: m.model_id)
        return {"models": [{"model_id": m.model_id, "kind": m.kind, "size": m.size if m.size >= 0 else None,
                            "mtime": m.mtime or None} for m in items], "truncated": finds.models_truncated,
                "load_status": self.registry.load_status}

    @staticmethod
    def _rank_sets(models: list[ModelFile]) -> dict[str, ModelFile]:
        """A distributed job's per-rank safetensors shards as one model each (`<job>/rank_*/<name>.safetensors`);
        its location is the lowest rank's file, its size the sum."""
        by_id = {m.model_id: m for m in models}
        out = {}
        for set_id, shards in safetensors_file.rank_sets([(m.model_id, m.location) for m in models]).items():
            members = [by_id[s.model_id] for s in shards]
            size = -1 if any(m.size < 0 for m in members) else sum(m.size for m in members)
            out[set_id] = ModelFile(set_id, members[0].location, safetensors_file.RANKS_KIND, size,
                                    max(m.mtime for m in members))
        return out

    def model(self, model_id: str, kinds: Iterable[str] | None = None) -> ModelFile:
        models = self.registry.debug_files().models
        found = next((m for m in models if m.model_id == model_id), None)
        if found is None and "/rank_*/" in model_id:
            found = self._rank_sets(models).get(model_id)
        if found is None:
            raise ModelNotExistError(f"model_id: {model_id}")
        allowed = tuple(kinds or ())
        if allowed and found.kind not in allowed:
            raise ModelKindError(f"{model_id} is a {found.kind} file; this answers for {', '.join(allowed)}")
        return found

    def _stat(self, model: ModelFile) -> Entry:
        try:
            return storage.stat(model.location)
        except OSError as exc:
            raise ModelUnreadableError(f"{model.model_id}: {exc}") from None

    def _parsed(self, kind: str, model: ModelFile, parse: Any) -> Any:
        entry = self._stat(model)
        try:
            return self.parsed.get(kind, model.location, lambda loc: parse(loc, entry.size), entry=entry)
        except ModelFormatError as exc:
            raise ModelUnreadableError(f"{model.model_id}: {exc}") from None
        except (OSError, UnicodeError, ValueError) as exc:
            raise ModelUnreadableError(f"{model.model_id}: {type(exc).__name__}: {exc}") from None

    # ------------------------------------------------------------------ graphs
    def model_graph(self, model: ModelFile) -> tuple[ModelGraph, Any]:
        """The flat graph and the GraphProto the graph views build from."""
        if model.kind == "mindir":
            parsed = self._parsed("mindir", model, mindir.read_mindir)
            return parsed.graph, None
        if model.kind in ("onnx", "ms"):
            return self._tensor_model(model).graph, None
        if model.kind == "ir":
            graph = self._parsed("ir-text", model, _read_ir)
            return graph, None
        proto = self._parsed("anf-pb", model, anf_graph.read_graph_proto)
        return anf_graph.flatten(proto), proto

    def graph(self, model_id: str, offset: int = 0, limit: int | None = None) -> dict[str, Any]:
        model = self.model(model_id, GRAPH_KINDS)
        graph, _ = self.model_graph(model)
        nodes = graph.nodes[offset:offset + limit] if limit is not None else graph.nodes[offset:]
        return {"model_id": model_id, "kind": model.kind, "graph_name": graph.graph_name,
                "node_count": len(graph.nodes), "parameter_count": len(graph.parameters),
                "nodes": [n.to_dict() for n in nodes], "parameters": [p.to_dict() for p in graph.parameters],
                "inputs": [p.to_dict() for p in graph.inputs], "outputs": [p.to_dict() for p in graph.outputs],
                "constants": graph.constants, "facts": graph.facts, **self._tensor_facts(model, nodes)}

    def _onnx(self, model: ModelFile) -> onnx_model.OnnxModel:
        found: onnx_model.OnnxModel = self._parsed("onnx", model, onnx_model.read_onnx)
        return found

    def _lite(self, model: ModelFile) -> mindspore_lite_model.LiteModel:
        found: mindspore_lite_model.LiteModel = self._parsed("ms", model, mindspore_lite_model.read_ms)
        return found

    def _tensor_model(self, model: ModelFile) -> onnx_model.OnnxModel | mindspore_lite_model.LiteModel:
        """An ONNX or MindSpore Lite model (parsed once per file version)."""
        return self._onnx(model) if model.kind == "onnx" else self._lite(model)

    def _tensor_facts(self, model: ModelFile, nodes: list[Any]) -> dict[str, Any]:
        """ONNX / .ms: each node's input and output tensor (value) names; .ms: every tensor."""
        if model.kind not in ("onnx", "ms"):
            return {}
        parsed = self._tensor_model(model)
        edges = {n.name: parsed.tensor_edges.get(n.name, ([], [])) for n in nodes}
        out: dict[str, Any] = {"tensor_edges": {name: {"inputs": i, "outputs": o} for name, (i, o) in edges.items()}}
        if isinstance(parsed, mindspore_lite_model.LiteModel):
            out["tensors"] = [t.to_dict() for t in parsed.tensors]
        return out

    def graph_query(self, model_id: str) -> GraphQuery:
        """The built graph (scope tree) for the graph views."""
        model = self.model(model_id, GRAPH_KINDS)
        graph, proto = self.model_graph(model)
        source = proto if proto is not None else graph
        query = self._graphs.get(model_id, source)
        if query is None:
            built = build_graph(proto if proto is not None else graph.to_proto(), max_nodes=self.max_graph_nodes)
            query = GraphQuery(built)
            self._graphs.put(model_id, source, query)
        return query

    # ------------------------------------------------------------------ parameters
    def _arrays(self, model: ModelFile) -> list[tuple[str, list[int], str, Any]]:
        """(name, shape, dtype, chunks factory) of every parameter of a checkpoint, safetensors, MindIR, ONNX
        (initializers) or .ms (constant tensors)."""
        if model.kind == "checkpoint":
            entries = self._parsed("ckpt-index", model, checkpoint.read_entries)
            return [(e.tag, list(e.dims), e.dtype, lambda e=e: checkpoint.value_chunks(model.location, e))
                    for e in entries]
        if model.kind in SAFETENSORS_KINDS:
            tensors = self._safetensors(model).tensors
            return [(t.name, list(t.shape), t.dtype, lambda t=t: safetensors_file.value_chunks(t)) for t in tensors]
        if model.kind == "onnx":
            weights = self._onnx(model).weights
            return [(w.name, list(w.shape), w.dtype, lambda w=w: onnx_model.value_chunks(w)) for w in weights.values()]
        if model.kind == "ms":
            lite = self._lite(model)
            return [(t.name, list(t.dims), t.dtype, lambda t=t: iter([mindspore_lite_model.tensor_values(lite, t)]))
                    for t in lite.constants()]
        parsed = self._parsed("mindir", model, mindir.read_mindir)
        return [(p.name, p.shape, p.dtype, lambda p=p: iter([mindir.weight_values(parsed.weights[p.name])
                                                            .reshape(-1)]))
                for p in parsed.graph.parameters]

    def _safetensors(self, model: ModelFile) -> safetensors_file.SafetensorsModel:
        """The header(s) of a safetensors file, index set or rank set (parsed once per file version)."""
        if model.kind == safetensors_file.RANKS_KIND:
            return self._rank_set(model)[0]
        if model.kind == "safetensors-index":
            found: safetensors_file.SafetensorsModel = self._parsed("st-index", model, safetensors_file.read_index)
        else:
            found = self._parsed("st-header", model, safetensors_file.read_header)
        return found

    def _rank_set(self, model: ModelFile) -> tuple[safetensors_file.SafetensorsModel, dict[str, list[int]]]:
        """The union of a rank set's shards and each tensor's owner ranks (each shard's header parsed and cached on
        its own)."""
        models = self.registry.debug_files().models
        by_id = {m.model_id: m for m in models}
        shards = safetensors_file.rank_sets([(m.model_id, m.location) for m in models]).get(model.model_id, [])
        if not shards:
            raise ModelNotExistError(f"model_id: {model.model_id}")
        headers = [(s.rank, self._parsed("st-header", by_id[s.model_id], safetensors_file.read_header))
                   for s in shards]
        return safetensors_file.merge_ranks(headers)

    def _stat_keys(self, model: ModelFile, entry: Entry, names: list[str]) -> list[FileKey]:
        """The statistics cache keys of parameters: the model file's version; for a set of safetensors files, the
        version of the shard that holds each tensor (a rewritten shard is computed again)."""
        if model.kind not in ("safetensors-index", safetensors_file.RANKS_KIND):
            return [file_key(f"{model.location}#{name}", entry.size, entry.mtime, entry.identity) for name in names]
        where = {t.name: t.location for t in self._safetensors(model).tensors}
        versions: dict[str, Entry] = {}
        keys = []
        for name in names:
            location = where[name]
            shard = versions.get(str(location))
            if shard is None:
                shard = versions[str(location)] = self._stat(ModelFile(model.model_id, location, model.kind, -1, 0))
            keys.append(file_key(f"{location}#{name}", shard.size, shard.mtime, shard.identity))
        return keys

    def parameters(self, model_id: str, offset: int = 0, limit: int | None = None) -> dict[str, Any]:
        """`{"total", "parameters": [{"name", "shape", "dtype", "min", "max", "mean", "std", "nan_count", ...}]}` in
        file order, statistics computed for the page asked (`offset`, `limit`; default all); a parameter whose values
        cannot be read has `error` and null statistics."""
        model = self.model(model_id, PARAMETER_KINDS)
        entry = self._stat(model)
        every = self._arrays(model)
        arrays = every[offset:offset + limit] if limit is not None else every[offset:]
        keys = self._stat_keys(model, entry, [name for name, _, _, _ in arrays])
        known = self.stats.get_many(keys)
        rows, new = [], []
        for key, (name, shape, dtype, chunks) in zip(keys, arrays, strict=True):
            facts = known.get(key)
            if facts is None:
                facts = _facts(chunks)
                if "error" not in facts:
                    new.append((key, facts))
            stats = facts.get("stats") or {}
            rows.append({"name": name, "shape": shape, "dtype": dtype, **{k: stats.get(k) for k in STAT_KEYS},
                         "error": facts.get("error")})
        self.stats.put_many(new)
        answer: dict[str, Any] = {"model_id": model_id, "kind": model.kind, "total": len(every), "parameters": rows}
        if model.kind in SAFETENSORS_KINDS:
            answer["metadata"] = self._safetensors(model).metadata
        if model.kind == safetensors_file.RANKS_KIND:
            owners = self._rank_set(model)[1]
            for row in rows:
                row["ranks"] = owners[str(row["name"])]
        return answer

    def compare(self, model_id: str, other_id: str) -> dict[str, Any]:
        """Parameters of two weight files (checkpoint, safetensors, MindIR, ONNX, .ms) matched by name: the
        difference `model - other` where both have the parameter with one shape, and which names only one of them
        has."""
        if model_id == other_id:
            raise ParamValueError("compare two different models")
        left = {name: (shape, dtype, chunks) for name, shape, dtype, chunks in
                self._arrays(self.model(model_id, PARAMETER_KINDS))}
        right = {name: (shape, dtype, chunks) for name, shape, dtype, chunks in
                 self._arrays(self.model(other_id, PARAMETER_KINDS))}
        rows = []
        for name, (shape, dtype, chunks) in left.items():
            if name not in right:
                continue
            other_shape, other_dtype, other_chunks = right[name]
            row: dict[str, Any] = {"name": name, "shape": shape, "other_shape": other_shape, "dtype": dtype,
                                   "other_dtype": other_dtype}
            if shape != other_shape:
                row["error"] = "the shapes differ"
            else:
                try:
                    diff = tensor_stats(_differences(chunks(), other_chunks()))
                    row.update({f"diff_{k}": v for k, v in diff.to_dict().items() if k in STAT_KEYS})
                    row["equal"] = diff.count == 0 or (diff.finite_count == diff.count and diff.min == diff.max == 0.0)
                except (ModelFormatError, OSError, ValueError) as exc:
                    row["error"] = str(exc)
            rows.append(row)
        return {"model_id": model_id, "other_model_id": other_id, "parameters": rows,
                "only_in_model": sorted(set(left) - set(right)), "only_in_other": sorted(set(right) - set(left))}

    # ------------------------------------------------------------------ text
    def text(self, model_id: str, offset: int = 0, limit: int = MAX_TEXT_PAGE) -> dict[str, Any]:
        """A page of an `.ir` or `.dot` file's text (bytes `offset` .. `offset + limit`, decoded as UTF-8)."""
        model = self.model(model_id, TEXT_KINDS)
        size = self._stat(model).size
        try:
            data = storage.read_range(model.location, offset, min(limit, MAX_TEXT_PAGE))
        except OSError as exc:
            raise ModelUnreadableError(f"{model_id}: {exc}") from None
        return {"model_id": model_id, "kind": model.kind, "size": size, "offset": offset, "length": len(data),
                "text": data.decode("utf-8", "replace"), "truncated": offset + len(data) < size}


def _read_ir(location: Location, size: int) -> ModelGraph:
    if size > MAX_TEXT_BYTES:
        raise ModelFormatError(f"{location.name} has {size} bytes; .ir files above {MAX_TEXT_BYTES} are not parsed")
    return ir_text.parse_ir_text(storage.read_text(location, errors="replace"))


def _facts(chunks: Any) -> dict[str, Any]:
    try:
        return {"stats": tensor_stats(chunks()).to_dict()}
    except (ModelFormatError, OSError, ValueError, TypeError) as exc:
        return {"error": str(exc)}


def _differences(left: Iterator[np.ndarray], right: Iterator[np.ndarray]) -> Iterator[np.ndarray]:
    """`left - right` as float64 chunks (the two streams may chunk differently)."""
    pending = np.zeros(0)
    for chunk in left:
        a = chunk.astype(np.float64).reshape(-1)
        while pending.size < a.size:
            nxt = next(right, None)
            if nxt is None:
                raise ValueError("the other parameter has fewer values")
            pending = np.concatenate([pending, nxt.astype(np.float64).reshape(-1)])
        yield a - pending[:a.size]
        pending = pending[a.size:]
