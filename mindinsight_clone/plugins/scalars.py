"""Scalar plugin: `scalar/metadata` and the comparison `scalars` (API.md §2), plus additive extras.

Additive (documented in docs/api.md): `downsample=N` adds `summary` (count, exact min/max, last value and a
min/max envelope of at most N buckets over every step seen, so spikes the sample dropped still show), and
`format=csv` returns the points as CSV. `start_step`/`end_step`/`points` ask for a step window at full
resolution (`scalar_window`): every real point when the window holds at most `points`, else the first, last,
min and max real point of each of `points // 4` equal step buckets (M4) from the run's point store.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from typing import Any

import numpy as np
import orjson

from mindinsight_clone.errors import ScalarNotExistError
from mindinsight_clone.ingest.gc_pause import gc_paused
from mindinsight_clone.plugins.common import tag_samples
from mindinsight_clone.store.downsample import m4_indices
from mindinsight_clone.store.reservoir import Sample
from mindinsight_clone.store.run_cache import RunCache

NAME = "scalar"
WINDOW_DEFAULT_POINTS = 1000
WINDOW_MAX_POINTS = 100_000


def _points(samples: list[Sample]) -> list[dict[str, Any]]:
    return [{"step": s.step, "value": float(s.value), "wall_time": s.wall_time} for s in samples]


def _points_json(samples: list[Sample]) -> orjson.Fragment:
    # Kept per tag as compact JSON (NaN/Inf -> null), not as dicts: a third of the memory, and a
    # response embeds it without encoding the points again. The dicts are short-lived and cycle-free:
    # no generational GC passes over the whole heap while they are made.
    with gc_paused():
        return orjson.Fragment(orjson.dumps(_points(samples)))


def _rows_json(rows: np.ndarray) -> orjson.Fragment:
    """`_points_json` of stored rows (point_store.ROW), without making a Sample per row (a run's whole series)."""
    steps, walls, values = rows["step"].tolist(), rows["wall_time"].tolist(), rows["value"].tolist()
    with gc_paused():
        return orjson.Fragment(orjson.dumps(
            [{"step": s, "value": v, "wall_time": w} for s, w, v in zip(steps, walls, values, strict=True)]))


def _kept_json(cache: RunCache, tag: str) -> orjson.Fragment:
    """The kept points of `tag` as JSON (cached while its reservoir is unchanged)."""
    return cache.memo(NAME, tag, "points_json", _points_json, _rows_json)


def points(cache: RunCache, tag: str) -> list[dict[str, Any]]:
    """The kept points of `tag` as dicts (for CSV)."""
    return _points(tag_samples(cache, NAME, tag, ScalarNotExistError))


def scalar_metadata(cache: RunCache, tag: str) -> dict[str, Any]:
    if not cache.has_samples(NAME, tag):
        tag_samples(cache, NAME, tag, ScalarNotExistError)  # raises MindInsight's error
    return {"metadatas": _kept_json(cache, tag)}


def merge_envelope(buckets: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """Merge neighbouring envelope buckets until at most `limit` remain (min of mins, max of maxes)."""
    if limit <= 0 or len(buckets) <= limit:
        return buckets
    group = -(-len(buckets) // limit)
    out = []
    for i in range(0, len(buckets), group):
        chunk = buckets[i:i + group]
        mins = [b["min"] for b in chunk if b["min"] is not None]
        maxs = [b["max"] for b in chunk if b["max"] is not None]
        out.append({
            "step_start": chunk[0]["step_start"],
            "step_end": chunk[-1]["step_end"],
            "min": min(mins) if mins else None,
            "max": max(maxs) if maxs else None,
            "count": sum(b["count"] for b in chunk),
        })
    return out


def scalar_summary(cache: RunCache, tag: str, downsample: int) -> dict[str, Any] | None:
    stats = cache.scalar_stats(tag)
    if stats is None:
        return None
    stats["envelope"] = merge_envelope(stats["envelope"], downsample)
    return stats


def scalars_multi(caches: Iterable[tuple[str, RunCache]], tags: list[str]) -> dict[str, Any]:
    """Cartesian product, run-major; missing (run, tag) pairs are skipped."""
    out = []
    for train_id, cache in caches:
        for tag in tags:
            if not cache.has_tag(NAME, tag):
                continue
            out.append({"train_id": train_id, "tag": tag, "values": _kept_json(cache, tag)})
    return {"scalars": out}


# A spreadsheet runs a cell starting with = + - @ (or a tab / CR) as a formula (OWASP "CSV Injection"); text
# that is only a number or a NaN/Inf marker is left alone (the browser's exports do the same: lib/csv.ts).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMERIC = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)", re.IGNORECASE)


def csv_text(cell: str) -> str:
    """A text cell (run or tag name, written by whoever writes the summary files) with a leading quote when a
    spreadsheet would run it as a formula."""
    if not cell.startswith(_FORMULA_START) or _NUMERIC.fullmatch(cell):
        return cell
    return "'" + cell


def to_csv(rows: Iterable[tuple[str, str, dict[str, Any]]]) -> str:
    """CSV `train_id,tag,step,wall_time,value` (empty value for NaN/Inf; names neutralised: `csv_text`)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["train_id", "tag", "step", "wall_time", "value"])
    for train_id, tag, p in rows:
        value = p["value"]
        cell = "" if value != value or value in (float("inf"), float("-inf")) else repr(value)
        writer.writerow([csv_text(train_id), csv_text(tag), p["step"], repr(p["wall_time"]), cell])
    return buf.getvalue()


def scalar_window(cache: RunCache, tag: str, start_step: int | None, end_step: int | None,
                  points: int) -> dict[str, Any]:
    """`{"metadatas": [...], "window": {...}}`: real points of the step window, at most `points` (M4).

    `window.exact` is false when the run has no full-resolution series for the tag: the answer then comes from
    the kept sample, and `window.reason` says why (`disk_full`, `write_failed`, `no_store`) with the error in
    `window.detail` (the log says it too). Full resolution returns once the store can write again.
    """
    samples = tag_samples(cache, NAME, tag, ScalarNotExistError)
    window = cache.scalar_window(tag, start_step, end_step, points)
    if window is not None:
        steps, walls, values, total = window.steps.tolist(), window.wall_times.tolist(), window.values.tolist(), \
            window.total
        exact = True
    else:
        inside = [s for s in samples if (start_step is None or s.step >= start_step)
                  and (end_step is None or s.step <= end_step)]
        total = len(inside)
        vals = np.array([float(s.value) for s in inside], dtype=np.float64)
        keep = m4_indices(np.array([s.step for s in inside], dtype=np.int64), vals, points).tolist()
        steps = [inside[i].step for i in keep]
        walls = [inside[i].wall_time for i in keep]
        values = [float(inside[i].value) for i in keep]
        exact = False
    rows = [{"step": st, "value": v, "wall_time": w} for st, w, v in zip(steps, walls, values, strict=True)]
    info: dict[str, Any] = {"start_step": start_step, "end_step": end_step, "points": points, "total": total,
                            "exact": exact}
    if not exact:
        failure = cache.point_failure(tag)
        info["reason"] = failure.reason if failure is not None else "no_store"
        info["detail"] = failure.detail if failure is not None else "the server keeps no full-resolution store"
    return {"metadatas": orjson.Fragment(orjson.dumps(rows)), "window": info}


# ------------------------------------------------------------------------------ TensorBoard layouts
SCALAR_SUFFIX = "/scalar"
SAMPLES_SUFFIXES = (" vs samples", "_vs_samples")  # Megatron / MindSpeed-LLM (spaces kept), MindFormers (tensorboardX)


def samples_twins(tags: Iterable[str]) -> dict[str, str]:
    """Scalar tag -> its "vs samples" twin (the same metric with the consumed-sample count as step):
    `lm loss/scalar` -> `lm loss vs samples/scalar`, `loss/scalar` -> `loss_vs_samples/scalar`."""
    present = set(tags)
    out: dict[str, str] = {}
    for tag in sorted(present):
        if not tag.endswith(SCALAR_SUFFIX):
            continue
        base = tag[:-len(SCALAR_SUFFIX)]
        for suffix in SAMPLES_SUFFIXES:
            twin = base + suffix + SCALAR_SUFFIX
            if twin in present:
                out[tag] = twin
                break
    return out


def scalars_group(cache: RunCache, groups: dict[str, list[str]], tag: str) -> dict[str, Any]:
    """One `add_scalars` group (`expert_load/layer_3`): a series per key, named by the key, with the points of
    the key's scalar tag (`expert_load/layer_3/ep_0/scalar`, also served by `scalar/metadata`)."""
    main = tag[:-len(SCALAR_SUFFIX)] if tag.endswith(SCALAR_SUFFIX) and tag[:-len(SCALAR_SUFFIX)] in groups else tag
    keys = groups.get(main)
    if not keys:
        raise ScalarNotExistError(f"Detail: there is no add_scalars group {tag!r} in this train job.")
    series = []
    for key in keys:
        member = f"{main}/{key}{SCALAR_SUFFIX}"
        points = _kept_json(cache, member) if cache.has_samples(NAME, member) else []
        series.append({"name": key, "tag": member, "metadatas": points})
    return {"tag": main, "series": series}
