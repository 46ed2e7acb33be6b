"""msprobe (issue 35) under /v1/mindinsight/msprobe: dumps, nodes, the Cell tree, a node across steps, anomalies,
watchpoint conditions on the statistics. Thin: parse the request, call analyzers/debugger/msprobe_dumps.py and
msprobe_watch.py (docs/msprobe.md)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Blueprint, request

from mindinsight_clone.errors import ParamValueError
from mindinsight_clone.server import params
from mindinsight_clone.server.services import Services, services

if TYPE_CHECKING:
    from mindinsight_clone.analyzers.debugger.msprobe_dumps import MsprobeDumps

bp = Blueprint("msprobe", __name__, url_prefix="/v1/mindinsight/msprobe")

SERVICE_KEY = "msprobe-dumps"


def _make(svc: Services) -> MsprobeDumps:
    from mindinsight_clone.analyzers.debugger.msprobe_dumps import MSPROBE_CACHE_BYTES, MsprobeDumps
    from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
    from mindinsight_clone.analyzers.profiler.engine.table_store import MB, TableStore

    # parsed dump.json files in memory; their statistics tables (msprobe_index) also as Parquet in the workspace,
    # within the profiler's disk budget (profiler_cache_mb), in their own folder
    store = TableStore(Path(svc.settings.workspace) / "cache" / "msprobe", svc.settings.profiler_cache_mb * MB,
                       name="msprobe")
    return MsprobeDumps(svc.data_manager, ParsedFileCache(max_bytes=MSPROBE_CACHE_BYTES, store=store))


def _dumps() -> MsprobeDumps:
    return services().service(SERVICE_KEY, _make)


def _step() -> int | None:
    return params.to_int("step", params.arg("step"))


@bp.get("/dumps")
def dumps() -> Any:
    return _dumps().dumps()


@bp.get("/nodes")
def nodes() -> Any:
    offset = params.to_int("offset", params.arg("offset"), 0)
    limit = params.to_int("limit", params.arg("limit"), 100)
    assert offset is not None and limit is not None
    return _dumps().nodes(params.required("dump_id"), _step(), params.arg("rank"), offset, limit,
                          params.arg("search") or "")


@bp.get("/tree")
def tree() -> Any:
    return _dumps().tree(params.required("dump_id"), _step(), params.arg("rank"))


@bp.get("/node")
def node() -> Any:
    """One node across the steps of a rank, or with `across=ranks` across the ranks at one step."""
    across = params.arg("across") or "steps"
    if across not in ("steps", "ranks"):
        raise ParamValueError("'across' should be steps or ranks.")
    if across == "ranks":
        return _dumps().node_ranks(params.required("dump_id"), params.required("name"), _step())
    return _dumps().node(params.required("dump_id"), params.required("name"), params.arg("rank"))


@bp.get("/tensor")
def tensor() -> Any:
    """A window (`shape`, MindInsight's slicing syntax) of a node's input/output/parameter tensor; `detail=histogram`
    adds the whole tensor's histogram."""
    detail = params.arg("detail") or "data"
    if detail not in ("data", "histogram"):
        raise ParamValueError("'detail' should be data or histogram.")
    return _dumps().tensor(params.required("dump_id"), _step(), params.arg("rank"), params.required("name"),
                           params.required("io"), params.required("index"), params.arg("shape"),
                           with_histogram=detail == "histogram")


@bp.get("/anomalies")
def anomalies() -> Any:
    return _dumps().anomalies(params.required("dump_id"))


WATCH_ARGS = frozenset({"dump_id", "condition", "step", "rank", "offset", "limit"})


@bp.get("/watch")
def watch() -> Any:
    """A watchpoint condition over the statistics of every step x rank (or `step` / `rank`); any other query key is
    a parameter of the condition (`max_gt=10`)."""
    from mindinsight_clone.analyzers.debugger import msprobe_watch

    offset = params.to_int("offset", params.arg("offset"), 0)
    limit = params.to_int("limit", params.arg("limit"), 100)
    assert offset is not None and limit is not None
    given = {key: request.args[key] for key in request.args if key not in WATCH_ARGS}
    return msprobe_watch.watch(_dumps(), params.required("dump_id"), params.required("condition"), given, _step(),
                               params.arg("rank"), offset, limit)


@bp.get("/watch/conditions")
def watch_conditions() -> Any:
    """The conditions msprobe's statistics can answer, with their parameters (the UI's form), and what they cannot."""
    from mindinsight_clone.analyzers.debugger import msprobe_watch

    return msprobe_watch.describe()
