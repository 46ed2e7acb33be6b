"""msprobe (issue 35) under /v1/mindinsight/msprobe: target-vs-bench comparison and compare_result files.
Thin: parse the request, call analyzers/debugger/msprobe_compare.py (and msprobe_mapping.py for a cross-framework
`mapping`; docs/msprobe.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flask import Blueprint

from mindinsight_clone.errors import DebuggerDumpNotExistError, ParamValueError
from mindinsight_clone.server import params
from mindinsight_clone.server.deferred import DeferredModule, deferred
from mindinsight_clone.server.routes_msprobe import _dumps
from mindinsight_clone.server.services import services

if TYPE_CHECKING:
    from mindinsight_clone.analyzers.debugger import msprobe_compare, msprobe_mapping
    from mindinsight_clone.analyzers.debugger.msprobe_dumps import MsprobeDumps, StepRank
    from mindinsight_clone.analyzers.debugger.msprobe_mapping import MappingSpec
    from mindinsight_clone.ingest import msprobe_compare_result
    from mindinsight_clone.ingest.msprobe_dump import DumpFile
else:  # by the first comparison (server/deferred.py); msprobe_mapping imports YAML: by the first mapped one
    msprobe_compare, msprobe_mapping = deferred("mindinsight_clone.analyzers.debugger", "msprobe_compare",
                                                "msprobe_mapping")
    msprobe_compare_result = DeferredModule("mindinsight_clone.ingest.msprobe_compare_result")

bp = Blueprint("msprobe_compare", __name__, url_prefix="/v1/mindinsight/msprobe")

RESULTS = ("pass", "warning", "error")
MAX_LIMIT = 100_000
COMPARISONS_KEY = "msprobe_comparisons"
MAPPINGS = ("api", "cell", "layer", "data")  # msprobe_mapping.KINDS, without importing it at start


def _side(body: dict[str, Any], key: str) -> tuple[str, int | None, str | None]:
    side = body.get(key)
    if not isinstance(side, dict) or not isinstance(side.get("dump_id"), str):
        raise ParamValueError(f"'{key}' should be {{\"dump_id\", \"step\", \"rank\"}}.")
    step = side.get("step")
    if step is not None and (not isinstance(step, int) or isinstance(step, bool) or step < 0):
        raise ParamValueError(f"'{key}.step' should be a step number.")
    rank = side.get("rank")
    return side["dump_id"], step, None if rank is None else str(rank)


def _mapping(body: dict[str, Any]) -> MappingSpec | None:
    """The body's `mapping` (msprobe's -am / -cm / -lm / -dm), its file read and checked; None: rows by name."""
    given = body.get("mapping")
    if given is None:
        return None
    if not isinstance(given, dict) or len(given) != 1 or not set(given) <= set(MAPPINGS):
        raise ParamValueError("'mapping' should name one of api, cell, layer, data: {\"api\": true | \"<yaml path>\"} "
                              "or {\"cell\" | \"layer\" | \"data\": \"<yaml path>\"}.")
    ((kind, value),) = given.items()
    if kind == "api" and value is True:
        return msprobe_mapping.MappingSpec("api")
    if not isinstance(value, str) or not value:
        raise ParamValueError(f"'mapping.{kind}' should be {'true or ' if kind == 'api' else ''}the path of a yaml "
                              "file relative to the summary base dir.")
    return msprobe_mapping.read_spec(services().data_manager.bases, kind, value)


def _layer_parents(dumps: MsprobeDumps, place: StepRank) -> dict[str, str | None]:
    """construct.json, for layer mapping: msprobe builds no layer tree for a side without stack.json."""
    return dumps.parents(place) if dumps.stacks(place) else {}


@dataclass(frozen=True)
class Request:
    """A compare body, checked: the mode, the mapping (None: rows by name), each side's dump.json and place."""

    mode: str
    spec: MappingSpec | None
    files: tuple[DumpFile, DumpFile]
    places: tuple[StepRank, StepRank]


def prepare(body: Any) -> Request:
    """Check a compare body (`target`, `bench`, `mode`, `mapping`) and open both sides' dump.json (400 / 404)."""
    if not isinstance(body, dict):
        raise ParamValueError("The body should be a JSON object.")
    mode = body.get("mode", "statistics")
    if mode not in ("statistics", "tensor"):
        raise ParamValueError("'mode' should be statistics or tensor.")
    spec = _mapping(body)
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
    return Request(mode, spec, (files[0], files[1]), (places[0], places[1]))


def comparison_of(req: Request) -> msprobe_compare.Comparison:
    """The comparison a checked body asks for (kept: the last two pairs of dumps)."""
    dumps = _dumps()
    files, places, spec = req.files, req.places, req.spec
    loaders = (dumps.tensor_loader(places[0]), dumps.tensor_loader(places[1])) if req.mode == "tensor" else None

    def make() -> msprobe_compare.Comparison:
        if spec is None:
            return msprobe_compare.compare(files[0], files[1], loaders)
        parents = (_layer_parents(dumps, places[0]), _layer_parents(dumps, places[1])) if spec.kind == "layer" else None
        pairs = msprobe_mapping.pair_rows(files[0], files[1], spec, parents)
        return msprobe_compare.compare(files[0], files[1], loaders, pairs)

    return _comparisons().get(files[0], files[1], req.mode, make, spec.ident if spec else "")


@bp.post("/compare")
def compare() -> Any:
    body = params.json_body(default={})
    if not isinstance(body, dict):
        raise ParamValueError("The body should be a JSON object.")
    wanted = body.get("result")
    if wanted is not None and wanted not in RESULTS:
        raise ParamValueError(f"'result' should be one of {', '.join(RESULTS)}.")
    offset, limit = body.get("offset", 0), body.get("limit", 1000)
    if not isinstance(offset, int) or not isinstance(limit, int) or offset < 0 or not 0 < limit <= MAX_LIMIT:
        raise ParamValueError(f"'offset' should be >= 0 and 'limit' between 1 and {MAX_LIMIT}.")
    req = prepare(body)
    comparison = comparison_of(req)
    rows = comparison.select(wanted)
    return {"rows": comparison.rows_json(rows[offset:offset + limit].tolist()),
            "counts": comparison.counts(), "unmatched": comparison.unmatched(),
            "first_divergence": comparison.first_divergence(), "total": int(rows.size), "mode": req.mode,
            "mapping": req.spec.kind if req.spec else None}


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
