"""HParams plugin (TensorBoard `add_hparams`): `hparams?train_id=<parent run>` and, for the model lineage page,
`hparams/sessions` (every session of every cached run, also as lineage-shaped objects).

`add_hparams` writes each session into a child run of its own (`<run>/<str(time.time())>/`, see
`ingest.tfevents_members`) holding the metadata-only tags `_hparams_/experiment` (hparam and metric names and
types), `_hparams_/session_start_info` (the hparam values) and `_hparams_/session_end_info` (the status), and
each metric as a scalar. A session is a run with a `session_start_info`; its metrics are the newest values of
the scalar tags its experiment names (its own, else the nearest ancestor run's, as TF's `hp.hparams_config`
writes it in the parent), else of every scalar tag of the session run. Values are as written: numbers are
float64 (`add_hparams` writes ints as DATA_TYPE_FLOAT64), strings and booleans as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mindinsight_clone.store.run_cache import RunCache

NAME = "hparams"
START, END, EXPERIMENT = "_hparams_/session_start_info", "_hparams_/session_end_info", "_hparams_/experiment"
SCALAR_SUFFIX = "/scalar"


def _latest(cache: RunCache, tag: str) -> dict[str, Any] | None:
    samples = cache.samples(NAME, tag)
    return samples[-1].value.data if samples else None


def _experiment(train_id: str, caches: dict[str, RunCache | None]) -> dict[str, Any] | None:
    """The experiment of a session: its own, else the nearest ancestor's among `caches`."""
    tid = train_id
    while True:
        cache = caches.get(tid)
        found = _latest(cache, EXPERIMENT) if cache is not None else None
        if found is not None:
            return found
        if tid == "./":
            return None
        parent = tid.rsplit("/", 1)[0]
        tid = "./" if parent == "." else parent


def _session(train_id: str, cache: RunCache, caches: dict[str, RunCache | None]) -> dict[str, Any] | None:
    start = _latest(cache, START)
    if start is None:
        return None
    experiment = _experiment(train_id, caches)
    names = experiment["metrics"] if experiment and experiment["metrics"] else \
        [t[:-len(SCALAR_SUFFIX)] for t in cache.tags("scalar") if t.endswith(SCALAR_SUFFIX)]
    metrics: dict[str, Any] = {}
    for name in names:
        samples = cache.samples("scalar", name + SCALAR_SUFFIX)
        if samples:
            metrics[name] = float(samples[-1].value)
    end = _latest(cache, END)
    item: dict[str, Any] = {"train_id": train_id, "hparams": start["hparams"], "metrics": metrics,
                            "status": end["status"] if end else "STATUS_RUNNING"}
    if experiment:
        item["hparam_types"] = {h["name"]: h["type"] for h in experiment["hparams"] if h["name"] in start["hparams"]}
    if start["group_name"]:
        item["group_name"] = start["group_name"]
    return item


def sessions(runs: Sequence[tuple[str, RunCache | None]]) -> dict[str, Any]:
    """`{"sessions": [...], "hparams": [names], "metrics": [names]}` over `runs` (train_id, cache or None when
    it is not cached: listed in `not_cached`)."""
    caches = dict(runs)
    out: list[dict[str, Any]] = []
    not_cached: list[str] = []
    for train_id, cache in runs:
        if cache is None:
            not_cached.append(train_id)
            continue
        item = _session(train_id, cache, caches)
        if item is not None:
            out.append(item)
    out.sort(key=lambda s: s["train_id"])
    body: dict[str, Any] = {
        "sessions": out,
        "hparams": sorted({k for s in out for k in s["hparams"]}),
        "metrics": sorted({k for s in out for k in s["metrics"]}),
    }
    if not_cached:
        body["not_cached"] = sorted(not_cached)
    return body


def lineage_objects(found: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Sessions shaped as the objects of `lineagemgr/lineages` answers: hparams as `user_defined`, metrics as
    `metric`, so a client can show them in the same table, parallel coordinates and importance chart."""
    return [{"summary_dir": s["train_id"], "model_lineage": {"metric": s["metrics"], "user_defined": s["hparams"]},
             "dataset_graph": {}, "added_info": {}, "source": "tensorboard_hparams"} for s in found]
