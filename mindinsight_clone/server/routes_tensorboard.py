"""Routes of the TensorBoard kinds under /v1/mindinsight/datavisual/ (ours: MindInsight has no such data).

Thin: parse the request, call the kind's plugin module. Same train_id validation, errors, ETag/304 and gzip as
the other datavisual routes (docs/api.md, "TensorBoard kinds").
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from mindinsight_clone.analyzers.lineage import importance
from mindinsight_clone.errors import MindInsightError, ParamMissError, ParamTypeError, ParamValueError
from mindinsight_clone.plugins import audio, custom_scalars, embeddings, hparams, meshes, pr_curves, scalars, text
from mindinsight_clone.plugins.text_compare import MAX_RUNS, compare
from mindinsight_clone.server import params
from mindinsight_clone.server.routes_datavisual import P, _cached, _dm, _known_id, revalidate_and_compress
from mindinsight_clone.server.services import services
from mindinsight_clone.store.run_cache import RunCache

bp = Blueprint("tensorboard", __name__, url_prefix="/v1/mindinsight")
bp.after_request(revalidate_and_compress)


# ------------------------------------------------------------------------------ text
@bp.get(f"{P}/text")
def text_route() -> Any:
    raw_id, tag = params.required("train_id"), params.required("tag")
    _, cache = _cached(raw_id)
    return text.texts(cache, tag)


@bp.get(f"{P}/text/latest")
def text_latest_route() -> Any:
    _, cache = _cached(params.required("train_id"))
    return text.latest(cache)


@bp.post(f"{P}/text/compare")
def text_compare() -> Any:
    body = params.json_body(default=None)
    train_ids = body.get("train_ids") if isinstance(body, dict) else None
    if train_ids is None:
        raise ParamMissError("train_ids")
    if not isinstance(train_ids, list) or not all(isinstance(t, str) for t in train_ids):
        raise ParamTypeError("train_ids", "<class 'list'> of str")
    ids = list(dict.fromkeys(train_ids))
    if not 1 <= len(ids) <= MAX_RUNS:
        raise ParamValueError(f"'train_ids' should hold 1 to {MAX_RUNS} train ids.")
    runs: list[tuple[str, RunCache]] = [_cached(tid) for tid in ids]  # an unknown run fails the request (50545005)
    return compare(runs)


# ------------------------------------------------------------------------------ PR curves
@bp.get(f"{P}/pr-curves")
def pr_curves_route() -> Any:
    raw_id, tag = params.required("train_id"), params.required("tag")
    _, cache = _cached(raw_id)
    return pr_curves.pr_curves(cache, tag)


# ------------------------------------------------------------------------------ hparams
def _runs_under(prefix: str | None) -> list[tuple[str, RunCache | None]]:
    """Listed runs (all, or `prefix` and the runs below it) with their caches (None: not cached)."""
    dm = _dm()
    out: list[tuple[str, RunCache | None]] = []
    below = None if prefix is None else ("./" if prefix == "./" else prefix + "/")
    for run in dm.runs():
        tid = run.train_id
        if below is not None and tid != prefix and not tid.startswith(below):
            continue
        try:
            out.append((tid, dm.run_cache(tid)))
        except MindInsightError:
            out.append((tid, None))
    return out


@bp.get(f"{P}/hparams")
def hparams_route() -> Any:
    tid = _known_id(params.required("train_id"))
    return hparams.sessions(_runs_under(tid))


@bp.get(f"{P}/hparams/sessions")
def hparams_all_sessions() -> Any:
    """Every session of every listed run, also as lineage objects with their parameter importance (the model
    lineage page shows them beside MindSpore lineage)."""
    body = hparams.sessions(_runs_under(None))
    objects = hparams.lineage_objects(body["sessions"])
    body["object"] = objects
    body["importance"] = importance.optimize_targets(objects)
    return body


# ------------------------------------------------------------------------------ audio
@bp.get(f"{P}/audio/metadata")
def audio_metadata() -> Any:
    raw_id, tag = params.required("train_id"), params.required("tag")
    _, cache = _cached(raw_id)
    return audio.audio_metadata(cache, tag)


@bp.get(f"{P}/audio/single-audio")
def single_audio() -> Any:
    raw_id, tag = params.required("train_id"), params.required("tag")
    step = params.to_int("step", params.required("step"))
    _, cache = _cached(raw_id)
    assert step is not None
    data, mime = audio.single_audio(cache, tag, step)
    return Response(data, mimetype=mime)


# ------------------------------------------------------------------------------ embeddings
@bp.get(f"{P}/embeddings")
def embeddings_route() -> Any:
    _, cache = _cached(params.required("train_id"))
    return embeddings.embeddings(cache)


@bp.get(f"{P}/embedding")
def embedding_route() -> Any:
    raw_id, tag = params.required("train_id"), params.required("tag")
    _, cache = _cached(raw_id)
    return embeddings.embedding(cache, tag, services().settings.embedding_max_points)


@bp.get(f"{P}/embedding/sprite")
def embedding_sprite() -> Any:
    raw_id, tag = params.required("train_id"), params.required("tag")
    _, cache = _cached(raw_id)
    data, mime = embeddings.sprite(cache, tag)
    return Response(data, mimetype=mime)


# ------------------------------------------------------------------------------ add_scalars groups
@bp.get(f"{P}/scalars-group")
def scalars_group() -> Any:
    raw_id, tag = params.required("train_id"), params.required("tag")
    tid, cache = _cached(raw_id)
    run = _dm().run(tid)
    return scalars.scalars_group(cache, run.scalar_groups() if run is not None else {}, tag)


# ------------------------------------------------------------------------------ custom scalars, meshes
@bp.get(f"{P}/custom-scalars")
def custom_scalars_route() -> Any:
    _, cache = _cached(params.required("train_id"))
    return custom_scalars.layout(cache)


@bp.get(f"{P}/meshes")
def meshes_route() -> Any:
    raw_id, tag = params.required("train_id"), params.required("tag")
    _, cache = _cached(raw_id)
    return meshes.meshes(cache, tag)
