"""`scalars/aggregate` (group curves with bands) and `scalars/heatmap` (layer x step) under
/v1/mindinsight/datavisual (issue 32; additive). Thin: parse the request, call plugins/scalar_views.py."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from mindinsight_clone.errors import ParamValueError
from mindinsight_clone.plugins import hparams
from mindinsight_clone.plugins import scalar_views as views
from mindinsight_clone.server import params
from mindinsight_clone.server.routes_datavisual import LINEAGE_LOOKUP_KEY, _cached, revalidate_and_compress
from mindinsight_clone.server.routes_tensorboard import _runs_under
from mindinsight_clone.server.services import services

bp = Blueprint("scalar_views", __name__, url_prefix="/v1/mindinsight/datavisual/scalars")
bp.after_request(revalidate_and_compress)  # ETag/304 and gzip, as the datavisual answers

MAX_POINTS = 1_000_000
MAX_WIDTH = 100_000


def _choice(name: str, allowed: tuple[str, ...]) -> str:
    value = params.arg(name) or allowed[0]
    if value not in allowed:
        raise ParamValueError(f"'{name}' should be one of {', '.join(allowed)}.")
    return value


@bp.get("/aggregate")
def aggregate_route() -> Any:
    train_ids = list(dict.fromkeys(t for t in params.required("train_ids").split(",") if t))
    if not train_ids:
        raise ParamValueError("'train_ids' should name at least one train job.")
    if len(train_ids) > views.MAX_RUNS:
        raise ParamValueError(f"'train_ids' should name at most {views.MAX_RUNS} train jobs.")
    tag = params.required("tag")
    group_by = params.required("group_by")
    stat, band = _choice("stat", views.STATS), _choice("band", views.BANDS)
    max_points = params.int_arg("max_points", default=MAX_POINTS, minimum=views.MIN_POINTS, maximum=MAX_POINTS)
    assert max_points is not None
    groups, ungrouped = views.group_runs(train_ids, group_by, _hparam_of)
    series = {tid: views.full_series(_cached(tid)[1], tag) for ids in groups.values() for tid in ids}
    out = []
    for name, ids in groups.items():
        curve = views.aggregate([series[t] for t in ids], stat, band)
        exact = all(series[t].exact for t in ids)
        out.append(views.group_answer(name, ids, views.downsample_curve(curve, max_points), exact))
    return {"tag": tag, "stat": stat, "band": band, "groups": out, "ungrouped": ungrouped}


def _hparam_of(train_id: str, name: str) -> str | None:
    """MindSpore lineage first, else the TensorBoard hparams sessions of the run (and its session runs)."""
    lookup = services().extras.get(LINEAGE_LOOKUP_KEY)
    found = views.lineage_hparam(lookup(train_id), name) if callable(lookup) else None
    if found is None:
        found = views.session_hparam(hparams.sessions(_runs_under(train_id))["sessions"], name)
    return found


@bp.get("/heatmap")
def heatmap_route() -> Any:
    tid, cache = _cached(params.required("train_id"))
    compiled = views.compile_pattern(params.required("tag_regex"), "tag_regex")
    width = params.int_arg("width", default=1000, minimum=1, maximum=MAX_WIDTH)
    assert width is not None
    tags = cache.tags("scalar")
    matched = [t for t, m in zip(tags, views.guarded_search(compiled, tags, "tag_regex"), strict=True) if m]
    matched.sort(key=views.natural_key)
    kept = matched[:views.MAX_HEATMAP_TAGS]
    answer = views.heatmap({t: views.full_series(cache, t) for t in kept}, width)
    return {"train_id": tid, **answer, "matched": len(matched), "truncated": len(matched) > len(kept)}
