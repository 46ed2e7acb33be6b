"""Loss-landscape plugin: `landscape/intervals` and `landscape/landscapes` (API.md §7).

Deliberate difference: MindInsight's interval id is `str(hash(str(intervals)))`, which changes on every
restart (per-process string hashing). Ours is stable: the first 8 bytes of SHA-256 of the same string, as a
signed 64-bit decimal string (same shape as MindInsight's, so clients need no change).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from mindinsight_clone.errors import LandscapeNotExistError, ParamValueError, TrainJobNotExistError
from mindinsight_clone.ingest.event_parser import tensor_to_numpy
from mindinsight_clone.store.reservoir import Sample
from mindinsight_clone.store.run_cache import RunCache

NAME = "loss_landscape"

# train_id -> model lineage dict (network, optimizer, learning_rate, loss, metric) or None
LineageLookup = Callable[[str], "dict[str, Any] | None"]


def interval_id(intervals: Iterable[int]) -> str:
    text = str(list(intervals))
    return str(int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big", signed=True))


def tensor_list(proto: Any) -> Any:
    """A TensorProto as nested lists of floats (shaped by its dims)."""
    return tensor_to_numpy(proto).array.astype(np.float64).tolist()


def _is_final(ls: Any) -> bool:
    return not list(ls.loss_path.intervals)


def _samples(cache: RunCache) -> list[Sample]:
    out: list[Sample] = []
    for tag in cache.tags(NAME):
        out.extend(cache.samples(NAME, tag))
    return out


def intervals(cache: RunCache) -> dict[str, Any]:
    items = []
    for s in _samples(cache):
        ls = s.value
        if _is_final(ls):
            continue
        iv = list(ls.loss_path.intervals)
        items.append({"id": interval_id(iv), "value": [iv[0], iv[-1]]})
    items.sort(key=lambda i: i["value"][0])
    return {"intervals": items}


def _points(p: Any) -> dict[str, Any]:
    return {"x": tensor_list(p.x), "y": tensor_list(p.y), "z": tensor_list(p.z)}


def _convergence(ls: Any) -> list[Any]:
    cp = ls.convergence_point
    xs, ys, zs = (np.ravel(np.asarray(tensor_list(t), dtype=np.float64)) for t in (cp.x, cp.y, cp.z))
    if not xs.size or not ys.size or not zs.size:
        return [0, 0, 0]
    return [float(xs[0]), float(ys[0]), float(zs[0])]


def _metadata(ls: Any, train_id: str, lookup: LineageLookup | None) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "decomposition": ls.metadata.decomposition,
        "unit": ls.metadata.unit,
        "step_per_epoch": ls.metadata.step_per_epoch,
    }
    model = lookup(train_id) if lookup is not None else None
    if model is None:
        meta.update({"network": None, "learning_rate": None, "optimizer": None, "metric": {}})
        return meta
    lr, loss = model.get("learning_rate"), model.get("loss")
    meta.update({
        "network": model.get("network"),
        "learning_rate": format(lr, "6e") if lr is not None else None,
        "optimizer": model.get("optimizer"),
        "metric": model.get("metric") or {},
        "loss": format(loss, "6e") if loss is not None else None,
    })
    return meta


def landscape_for(cache: RunCache, train_id: str, kind: str, wanted_id: str | None,
                  lookup: LineageLookup | None) -> dict[str, Any]:
    for s in _samples(cache):
        ls = s.value
        item: dict[str, Any] = {}
        if kind == "interval" and not _is_final(ls) and interval_id(ls.loss_path.intervals) == wanted_id:
            item = {"train_id": train_id, "points": _points(ls.landscape), "path": {
                **_points(ls.loss_path.points), "intervals": list(ls.loss_path.intervals)}}
        if kind == "final" and _is_final(ls):
            item = {"train_id": train_id, "points": _points(ls.landscape)}
        if item:
            item["metadata"] = _metadata(ls, train_id, lookup)
            item["convergence_point"] = _convergence(ls)
            return item
    return {"error_code": LandscapeNotExistError().error_code, "train_id": train_id}


def invalid_id_item(train_id: str) -> dict[str, Any]:
    return {"error_code": ParamValueError().error_code, "train_id": train_id}


def not_cached_item(train_id: str) -> dict[str, Any]:
    return {"error_code": TrainJobNotExistError().error_code, "train_id": train_id}
