"""msprobe (issue 35) under /v1/mindinsight/msprobe: graph_visualize graphs (`.vis.db`, and the older JSON `.vis`),
compare graphs built here from two dumps, and trends (data2db `.trend.db`, or the training-state monitor's CSV
output). Thin: parse the request, read through ingest/msprobe_vis.py (`open_graph` picks the reader by file type),
analyzers/debugger/msprobe_graph_build.py, msprobe_trend.py and msprobe_monitor.py (docs/msprobe.md).

A built graph's id is `built:<the compare body, as base64url JSON>`: it says what to build, so it never goes stale
(a link survives a restart and a changed dump is built again); the graphs built are kept in a small cache by id and
by the identity of the two parsed dump.json files (the parse cache hands out a new object when a file changed)."""

from __future__ import annotations

import base64
import binascii
import json
import threading
from collections import OrderedDict
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from flask import Blueprint

from mindinsight_clone.errors import DebuggerDumpNotExistError, ParamValueError
from mindinsight_clone.ingest import msprobe_dump, msprobe_monitor
from mindinsight_clone.ingest.debug_discovery import MsprobeFile
from mindinsight_clone.server import params
from mindinsight_clone.server.deferred import DeferredModule, deferred
from mindinsight_clone.server.routes_msprobe import _dumps
from mindinsight_clone.server.routes_msprobe_compare import comparison_of, prepare
from mindinsight_clone.server.services import services

if TYPE_CHECKING:
    import sqlite3

    from mindinsight_clone.analyzers.debugger import msprobe_graph_build
    from mindinsight_clone.ingest import msprobe_trend, msprobe_vis
else:  # imported by the first graph or trend request (server/deferred.py): a worker starts serving without them
    sqlite3 = DeferredModule("sqlite3")
    msprobe_graph_build = DeferredModule("mindinsight_clone.analyzers.debugger.msprobe_graph_build")
    msprobe_trend, msprobe_vis = deferred("mindinsight_clone.ingest", "msprobe_trend", "msprobe_vis")

bp = Blueprint("msprobe_graph", __name__, url_prefix="/v1/mindinsight/msprobe")


def _vis_files() -> list[MsprobeFile]:
    return [f for f in _dumps().registry.debug_files().msprobe_files if f.kind == "vis"]


def _open(f: MsprobeFile) -> AbstractContextManager[msprobe_vis.VisGraphs]:
    return msprobe_vis.open_graph(f.location, cache=_dumps().cache)  # a .vis is parsed once per file version


BUILT = "built:"
BUILT_KEY = "msprobe_built_graphs"
KEEP_BUILT = 4
BODY_KEYS = ("target", "bench", "mode", "mapping")
MAX_ID = 8192


class BuiltGraphs:
    """The last few built graphs, by id, each with the two parsed dumps it was built from."""

    def __init__(self, keep: int = KEEP_BUILT) -> None:
        self._keep = keep
        self._items: OrderedDict[str, tuple[object, object, msprobe_graph_build.BuiltGraph]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, graph_id: str, target: object, bench: object) -> msprobe_graph_build.BuiltGraph | None:
        with self._lock:
            found = self._items.get(graph_id)
            if found is None or found[0] is not target or found[1] is not bench:
                return None
            self._items.move_to_end(graph_id)
            return found[2]

    def put(self, graph_id: str, target: object, bench: object, graph: msprobe_graph_build.BuiltGraph) -> None:
        with self._lock:
            self._items[graph_id] = (target, bench, graph)
            self._items.move_to_end(graph_id)
            while len(self._items) > self._keep:
                self._items.popitem(last=False)

    def ids(self) -> list[str]:
        with self._lock:
            return list(self._items)


def _built_graphs() -> BuiltGraphs:
    return services().service(BUILT_KEY, lambda _s: BuiltGraphs())


def built_id(body: dict[str, Any]) -> str:
    wanted = {k: body[k] for k in BODY_KEYS if body.get(k) is not None}
    text = json.dumps(wanted, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return BUILT + base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _body_of(graph_id: str) -> dict[str, Any]:
    token = graph_id[len(BUILT):]
    try:
        if len(graph_id) > MAX_ID:
            raise ValueError("too long")
        body = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        if not isinstance(body, dict) or not set(body) <= set(BODY_KEYS):
            raise ValueError("not a compare body")
    except (ValueError, binascii.Error) as exc:
        raise ParamValueError(f"{graph_id[:80]} is not the id of a built graph ({exc}); build it again with "
                              "POST msprobe/graph/build.") from exc
    return body


def _build(graph_id: str, body: dict[str, Any]) -> msprobe_graph_build.BuiltGraph:
    """The graph `body` asks for: kept, or built from the two dumps and their comparison."""
    req = prepare(body)
    cache = _built_graphs()
    found = cache.get(graph_id, *req.files)
    if found is not None:
        return found
    dumps = _dumps()
    comparison = comparison_of(req)
    target, bench = req.places
    graph = msprobe_graph_build.build(
        req.files[0], req.files[1], (dumps.parents(target), dumps.parents(bench)),
        (dumps.stacks(target), dumps.stacks(bench)), comparison, req.mode,
        msprobe_dump.step_of(target.step) or 0, _rank_number(target.rank))
    cache.put(graph_id, *req.files, graph)
    return graph


def _rank_number(rank: str) -> int:
    """msprobe's rank of a rank folder: `rank<R>` is R, a `proc<pid>` folder is read as rank 0."""
    return int(rank[4:]) if rank.startswith("rank") and rank[4:].isdigit() else 0


def _source(graph_id: str) -> tuple[str, AbstractContextManager[msprobe_vis.VisGraphs]]:
    """A graph id's (id, reader): a graph_visualize file, or a built graph."""
    if graph_id.startswith(BUILT):
        return graph_id, nullcontext(_build(graph_id, _body_of(graph_id)))
    f = _file(graph_id)
    return f.file_id, _open(f)


@bp.post("/graph/build")
def graph_build() -> Any:
    """Build the compare graph of two dumps (the compare body: `target`, `bench`, `mode`, `mapping`), as
    `msprobe graph_visualize` would: `{"graph_id": "built:...", "kind": "compare", "graphs": [...], "error": null}`,
    the id that GET graph and graph/node take."""
    body = params.json_body(default={})
    if not isinstance(body, dict):
        raise ParamValueError("The body should be a JSON object.")
    graph_id = built_id(body)
    graph = _build(graph_id, _body_of(graph_id))
    return {"graph_id": graph_id, "kind": "compare", "graphs": graph.graphs(), "error": None}


def _file(graph_id: str) -> MsprobeFile:
    found = next((f for f in _vis_files() if f.file_id == graph_id), None)
    if found is None:
        raise DebuggerDumpNotExistError(f"no graph_visualize file {graph_id}")
    return found


@bp.get("/graphs")
def graphs() -> Any:
    """`{"graphs": [{"graph_id", "kind": "build"|"compare", "graphs": [{"graph", "side", "step", "rank", "nodes"}]}]}`
    (a file that cannot be read is listed with its error)."""
    out = []
    for f in sorted(_vis_files(), key=lambda f: f.file_id):
        item: dict[str, Any] = {"graph_id": f.file_id, "kind": None, "graphs": [], "error": None}
        try:
            with _open(f) as vis:
                item["kind"] = vis.config()["graph_type"]
                item["graphs"] = vis.graphs()
        except (OSError, ValueError, sqlite3.Error) as exc:
            item["error"] = str(exc)
        out.append(item)
    wanted = params.arg("graph_id") or ""
    for graph_id in [*_built_graphs().ids(), *([wanted] if wanted.startswith(BUILT) else [])]:
        if any(item["graph_id"] == graph_id for item in out):
            continue
        try:
            graph = _build(graph_id, _body_of(graph_id))
        except DebuggerDumpNotExistError as exc:
            if graph_id == wanted:
                raise
            out.append({"graph_id": graph_id, "kind": "compare", "graphs": [], "error": str(exc)})
            continue
        out.append({"graph_id": graph_id, "kind": "compare", "graphs": graph.graphs(), "error": None})
    return {"graphs": out}


@bp.get("/graph")
def graph() -> Any:
    """One graph of a file: `side` NPU (target) or Bench, at `step` and `rank` (default: the first), its nodes with
    parent, precision index, overflow level and whether it is matched; the file's colour legend."""
    graph_id, source = _source(params.required("graph_id"))
    side = params.arg("side") or "NPU"
    if side not in ("NPU", "Bench"):
        raise ParamValueError("'side' should be NPU (the target) or Bench.")
    step, rank = params.to_int("step", params.arg("step")), params.to_int("rank", params.arg("rank"))
    try:
        with source as vis:
            config = vis.config()
            candidates = [g for g in vis.graphs() if g["side"] == side
                          and (step is None or g["step"] == step) and (rank is None or g["rank"] == rank)]
            if not candidates:
                raise DebuggerDumpNotExistError(f"{graph_id} has no {side} graph" +
                                                (f" at step {step}" if step is not None else "") +
                                                (f" rank {rank}" if rank is not None else ""))
            chosen = candidates[0]
            nodes = vis.nodes(chosen["graph"])
    except (OSError, ValueError, sqlite3.Error) as exc:
        raise ParamValueError(str(exc)) from exc
    return {"graph_id": graph_id, "kind": config["graph_type"], "side": side, "step": chosen["step"],
            "rank": chosen["rank"], "colors": config["colors"], "overflow_check": config["overflow_check"],
            "steps": config["steps"], "ranks": config["ranks"], "nodes": nodes}


@bp.get("/graph/node")
def graph_node() -> Any:
    """A node's input/output statistics (and compare columns), its stack and matched node."""
    graph_id, source = _source(params.required("graph_id"))
    name = params.required("name")
    side = params.arg("side") or "NPU"
    step, rank = params.to_int("step", params.arg("step"), 0), params.to_int("rank", params.arg("rank"), 0)
    try:
        with source as vis:
            found = vis.node(f"{side}_{step}_{rank}", name)
    except (OSError, ValueError, sqlite3.Error) as exc:
        raise ParamValueError(str(exc)) from exc
    if found is None:
        raise DebuggerDumpNotExistError(f"no node {name} in {graph_id} {side} step {step} rank {rank}")
    return {"graph_id": graph_id, "name": name, "side": side, **found}


@bp.get("/trend")
def trend() -> Any:
    """A `.trend.db` (msprobe data2db), or a monitor CSV output folder, as a target × step matrix of one statistic of
    one metric and rank: the same answer for both (the folder's adds what it skipped)."""
    file_id = params.required("file_id")
    found = next((f for f in _dumps().registry.debug_files().msprobe_files
                  if f.file_id == file_id and f.kind in ("trend", "monitor")), None)
    if found is None:
        raise DebuggerDumpNotExistError(f"no data2db trend file or monitor output {file_id}")
    metric, stat = params.arg("metric") or None, params.arg("stat") or "norm"
    rank = params.to_int("rank", params.arg("rank"))
    try:
        if found.kind == "monitor":
            answer = msprobe_monitor.read_monitor_trend(found.location, metric, stat, rank, cache=_dumps().cache)
        else:
            with msprobe_vis.open_sqlite(found.location, msprobe_trend.TABLES, "data2db") as conn:
                answer = msprobe_trend.read_trend(conn, metric, stat, rank)
    except (OSError, ValueError, sqlite3.Error) as exc:
        raise ParamValueError(str(exc)) from exc
    return {"file_id": file_id, "kind": found.kind, **answer}
