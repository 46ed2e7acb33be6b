"""msprobe (issue 35) under /v1/mindinsight/msprobe: graph_visualize graphs (`.vis.db`, and the older JSON `.vis`) and
trends (data2db `.trend.db`, or the training-state monitor's CSV output). Thin: parse the request, read through
ingest/msprobe_vis.py (`open_graph` picks the reader by file type), msprobe_trend.py and msprobe_monitor.py
(docs/msprobe.md)."""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from typing import Any

from flask import Blueprint

from mindinsight_clone.errors import DebuggerDumpNotExistError, ParamValueError
from mindinsight_clone.ingest import msprobe_monitor, msprobe_trend, msprobe_vis
from mindinsight_clone.ingest.debug_discovery import MsprobeFile
from mindinsight_clone.server import params
from mindinsight_clone.server.routes_msprobe import _dumps

bp = Blueprint("msprobe_graph", __name__, url_prefix="/v1/mindinsight/msprobe")


def _vis_files() -> list[MsprobeFile]:
    return [f for f in _dumps().registry.debug_files().msprobe_files if f.kind == "vis"]


def _open(f: MsprobeFile) -> AbstractContextManager[msprobe_vis.VisGraphs]:
    return msprobe_vis.open_graph(f.location, cache=_dumps().cache)  # a .vis is parsed once per file version


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
    return {"graphs": out}


@bp.get("/graph")
def graph() -> Any:
    """One graph of a file: `side` NPU (target) or Bench, at `step` and `rank` (default: the first), its nodes with
    parent, precision index, overflow level and whether it is matched; the file's colour legend."""
    f = _file(params.required("graph_id"))
    side = params.arg("side") or "NPU"
    if side not in ("NPU", "Bench"):
        raise ParamValueError("'side' should be NPU (the target) or Bench.")
    step, rank = params.to_int("step", params.arg("step")), params.to_int("rank", params.arg("rank"))
    try:
        with _open(f) as vis:
            config = vis.config()
            candidates = [g for g in vis.graphs() if g["side"] == side
                          and (step is None or g["step"] == step) and (rank is None or g["rank"] == rank)]
            if not candidates:
                raise DebuggerDumpNotExistError(f"{f.file_id} has no {side} graph" +
                                                (f" at step {step}" if step is not None else "") +
                                                (f" rank {rank}" if rank is not None else ""))
            chosen = candidates[0]
            nodes = vis.nodes(chosen["graph"])
    except (OSError, ValueError, sqlite3.Error) as exc:
        raise ParamValueError(str(exc)) from exc
    return {"graph_id": f.file_id, "kind": config["graph_type"], "side": side, "step": chosen["step"],
            "rank": chosen["rank"], "colors": config["colors"], "overflow_check": config["overflow_check"],
            "steps": config["steps"], "ranks": config["ranks"], "nodes": nodes}


@bp.get("/graph/node")
def graph_node() -> Any:
    """A node's input/output statistics (and compare columns), its stack and matched node."""
    f = _file(params.required("graph_id"))
    name = params.required("name")
    side = params.arg("side") or "NPU"
    step, rank = params.to_int("step", params.arg("step"), 0), params.to_int("rank", params.arg("rank"), 0)
    try:
        with _open(f) as vis:
            found = vis.node(f"{side}_{step}_{rank}", name)
    except (OSError, ValueError, sqlite3.Error) as exc:
        raise ParamValueError(str(exc)) from exc
    if found is None:
        raise DebuggerDumpNotExistError(f"no node {name} in {f.file_id} {side} step {step} rank {rank}")
    return {"graph_id": f.file_id, "name": name, "side": side, **found}


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
