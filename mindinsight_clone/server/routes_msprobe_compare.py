"""msprobe (issue 35) under /v1/mindinsight/msprobe: target-vs-bench comparison and compare_result files.
Thin: parse the request, call analyzers/debugger/msprobe_compare.py (docs/msprobe.md)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from mindinsight_clone.analyzers.debugger import msprobe_compare
from mindinsight_clone.errors import DebuggerDumpNotExistError, ParamValueError
from mindinsight_clone.ingest import msprobe_compare_result
from mindinsight_clone.server import params
from mindinsight_clone.server.routes_msprobe import _dumps
from mindinsight_clone.server.services import services

bp = Blueprint("msprobe_compare", __name__, url_prefix="/v1/mindinsight/msprobe")

RESULTS = ("pass", "warning", "error")
MAX_LIMIT = 100_000
COMPARISONS_KEY = "msprobe_comparisons"


def _side(body: dict[str, Any], key: str) -> tuple[str, int | None, str | None]:
    side = body.get(key)
    if not isinstance(side, dict) or not isinstance(side.get("dump_id"), str):
        raise ParamValueError(f"'{key}' should be {{\"dump_id\", \"step\", \"rank\"}}.")
    step = side.get("step")
    if step is not None and (not isinstance(step, int) or isinstance(step, bool) or step < 0):
        raise ParamValueError(f"'{key}.step' should be a step number.")
    rank = side.get("rank")
    return side["dump_id"], step, None if rank is None else str(rank)


@bp.post("/compare")
def compare() -> Any:
    body = params.json_body(default={})
    if not isinstance(body, dict):
        raise ParamValueError("The body should be a JSON object.")
    mode = body.get("mode", "statistics")
    if mode not in ("statistics", "tensor"):
        raise ParamValueError("'mode' should be statistics or tensor.")
    wanted = body.get("result")
    if wanted is not None and wanted not in RESULTS:
        raise ParamValueError(f"'result' should be one of {', '.join(RESULTS)}.")
    offset, limit = body.get("offset", 0), body.get("limit", 1000)
    if not isinstance(offset, int) or not isinstance(limit, int) or offset < 0 or not 0 < limit <= MAX_LIMIT:
        raise ParamValueError(f"'offset' should be >= 0 and 'limit' between 1 and {MAX_LIMIT}.")
    dumps = _dumps()
    files, places = [], []
    for key in ("target", "bench"):
        place = dumps.place(*_side(body, key))
        dump = dumps.dump_file(place)
        if not dump.nodes:
            raise DebuggerDumpNotExistError(f"{key}: {place.step}/{place.rank} has no dump.json yet")
        if mode == "tensor" and dump.task != "tensor":
            raise ParamValueError(f"{key}: {place.step}/{place.rank} is a '{dump.task}' dump; tensor mode needs "
                                  "two dumps of task tensor.")
        files.append(dump)
        places.append(place)
    loaders = (dumps.tensor_loader(places[0]), dumps.tensor_loader(places[1])) if mode == "tensor" else None
    comparison = _comparisons().get(files[0], files[1], mode,
                                    lambda: msprobe_compare.compare(files[0], files[1], loaders))
    rows = comparison.select(wanted)
    return {"rows": comparison.rows_json(rows[offset:offset + limit].tolist()),
            "counts": comparison.counts(), "unmatched": comparison.unmatched(),
            "first_divergence": comparison.first_divergence(), "total": int(rows.size), "mode": mode}


def _comparisons() -> msprobe_compare.ComparisonCache:
    return services().service(COMPARISONS_KEY, lambda _s: msprobe_compare.ComparisonCache())


@bp.get("/compare_result")
def compare_result() -> Any:
    file_id = params.required("file_id")
    found = next((f for f in _dumps().registry.debug_files().msprobe_files
                  if f.file_id == file_id and f.kind == "compare"), None)
    if found is None:
        raise DebuggerDumpNotExistError(f"no compare result {file_id}")
    try:
        columns, rows = msprobe_compare_result.read_compare_result(found.location)
    except (OSError, ValueError) as exc:
        raise ParamValueError(str(exc)) from exc
    counts = {k: sum(r.get("Result") == k for r in rows) for k in RESULTS}
    return {"file_id": file_id, "columns": columns, "rows": rows, "counts": counts}


@bp.get("/files")
def files() -> Any:
    """The msprobe result files found under the base dir: compare results, graph_visualize dbs, trend dbs."""
    finds = _dumps().registry.debug_files()
    return {"files": [{"file_id": f.file_id, "kind": f.kind, "size": f.size} for f in finds.msprobe_files],
            "truncated": finds.msprobe_truncated}
