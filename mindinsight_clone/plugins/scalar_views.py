"""Group curves with bands and the layer x step heatmap, over full-resolution scalar points (issue 32).

No Flask: server/routes_scalar_views.py parses the request. The points come from each run's point store
(`RunCache.scalar_window` with no step bounds and no reduction: every stored step, as the scalar window
endpoint serves them); a tag without a full-resolution series falls back to its kept sample and the answer
says so (`exact: false`). Everything is vectorised with numpy; NaN/Inf never enter an aggregate.
See docs/scalar-aggregate.md for the rules.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mindinsight_clone.errors import ParamValueError, ScalarNotExistError
from mindinsight_clone.plugins.common import tag_samples
from mindinsight_clone.plugins.tag_search import MATCH_BUDGET_S, MAX_PATTERN_CHARS, search_within_budget
from mindinsight_clone.store.downsample import MIN_POINTS, m4_indices
from mindinsight_clone.store.run_cache import RunCache
from mindinsight_clone.store.run_groups import split_rank

STATS = ("mean", "median")
BANDS = ("minmax", "std", "sem")
MAX_RUNS = 1000  # runs per aggregate request
MAX_HEATMAP_TAGS = 256  # tags per heatmap (the first ones in natural order; `truncated` says so)
ALL_POINTS = 1 << 62  # no M4 reduction: every stored point


@dataclass(frozen=True)
class Series:
    steps: np.ndarray  # int64, ascending, unique
    values: np.ndarray  # float64
    exact: bool  # False: the kept sample (no full-resolution series)


def full_series(cache: RunCache, tag: str) -> Series:
    """Every stored point of scalar `tag` (the scalar window's code path); ScalarNotExistError if absent."""
    if not cache.has_tag("scalar", tag):
        tag_samples(cache, "scalar", tag, ScalarNotExistError)  # raises MindInsight's error
    window = cache.scalar_window(tag, None, None, ALL_POINTS)
    if window is not None:
        steps, values, exact = np.asarray(window.steps, np.int64), np.asarray(window.values, np.float64), True
    else:
        samples = tag_samples(cache, "scalar", tag, ScalarNotExistError)
        steps = np.array([s.step for s in samples], dtype=np.int64)
        values = np.array([float(s.value) for s in samples], dtype=np.float64)
        exact = False
    # a step written twice (a restarted run): the last write wins, as in the charts
    order = np.argsort(steps, kind="stable")
    steps, values = steps[order], values[order]
    last = np.concatenate((steps[1:] != steps[:-1], [True])) if steps.size else np.zeros(0, bool)
    return Series(steps[last], values[last], exact)


# ------------------------------------------------------------------------------ patterns
def compile_pattern(pattern: str, name: str) -> Any:
    """A user's regular expression (the `regex` module, so matching can be time-limited); 4xx if invalid."""
    import regex  # here: imported by the first pattern, not by every start (tag_search does the same)

    if len(pattern) > MAX_PATTERN_CHARS:
        raise ParamValueError(f"'{name}' should be at most {MAX_PATTERN_CHARS} characters.")
    try:
        return regex.compile(pattern, regex.V0)
    except (regex.error, ValueError, OverflowError, RecursionError) as exc:
        raise ParamValueError(f"'{name}' is not a valid regular expression: {exc}") from None


def guarded_search(compiled: Any, texts: Sequence[str], name: str) -> list[Any]:
    """`compiled.search` over `texts` within MATCH_BUDGET_S in all (the tag filter's budget); 4xx past it."""
    try:
        return search_within_budget(compiled, texts)
    except TimeoutError:
        raise ParamValueError(f"'{name}' took too long to match (limit {MATCH_BUDGET_S} s).") from None


# ------------------------------------------------------------------------------ grouping
def group_runs(train_ids: Sequence[str], group_by: str,
               hparam_of: Callable[[str, str], str | None]) -> tuple[dict[str, list[str]], list[str]]:
    """(group name -> its train ids in request order, ungrouped train ids). A run whose path (train id without
    './') does not match the regex, has no value of the hparam (`hparam_of(train_id, name)`), or is no
    `rank_<n>` run is left out and listed as ungrouped."""
    kind, _, arg = group_by.partition(":")
    keys: list[str | None]
    if kind == "regex" and arg:
        # on the run path (the id without './'), as --run-filter: `^(lr[0-9.]+)_` groups ./lr0.1_seed3
        paths = [tid[2:] if tid.startswith("./") else tid for tid in train_ids]
        matches = guarded_search(compile_pattern(arg, "group_by"), paths, "group_by")
        keys = [None if m is None else (m.group(1) if m.re.groups else m.group(0)) for m in matches]
    elif kind == "hparam" and arg:
        keys = [hparam_of(tid, arg) for tid in train_ids]
    elif group_by == "rank_group":
        keys = [None if (split := split_rank(tid)) is None else split[0] for tid in train_ids]
    else:
        raise ParamValueError("'group_by' should be regex:<pattern>, hparam:<name> or rank_group.")
    groups: dict[str, list[str]] = {}
    ungrouped = []
    for tid, key in zip(train_ids, keys, strict=True):
        if key is None:
            ungrouped.append(tid)
        else:
            groups.setdefault(key, []).append(tid)
    return groups, ungrouped


def value_text(value: Any) -> str | None:
    """A hparam value as a group name: `0.01`, `8` (also for TensorBoard's float64 8.0), `adam`, `True`."""
    if value is None or isinstance(value, dict | list):
        return None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def lineage_hparam(model: dict[str, Any] | None, name: str) -> str | None:
    """The run's MindSpore lineage value `name` (`model_lineage`): a model field (learning_rate, batch_size,
    ...), else a user-defined value, else a metric; None when the run has none."""
    if not model:
        return None
    for scope in (model, model.get("user_defined") or {}, model.get("metric") or {}):
        text = value_text(scope.get(name)) if isinstance(scope, dict) else None
        if text is not None:
            return text
    return None


def session_hparam(sessions: Sequence[dict[str, Any]], name: str) -> str | None:
    """The TensorBoard hparams value `name` of a run: the one value its `add_hparams` sessions (the run itself
    or its session child runs, as `datavisual/hparams?train_id=` lists them) agree on; None otherwise."""
    values = {value_text(s["hparams"][name]) for s in sessions if name in s.get("hparams", {})}
    values.discard(None)
    return values.pop() if len(values) == 1 else None


# ------------------------------------------------------------------------------ aggregation
def aggregate(series: Sequence[Series], stat: str, band: str) -> dict[str, np.ndarray]:
    """Per step of the union of the runs' steps: the runs' finite values there reduced to center/lower/upper,
    and `count` (how many runs had a finite value at that step). A step with no finite value: NaN (null)."""
    steps = np.unique(np.concatenate([s.steps for s in series])) if series else np.zeros(0, np.int64)
    grid = np.full((len(series), steps.size), np.nan)
    for row, s in enumerate(series):
        grid[row, np.searchsorted(steps, s.steps)] = s.values
    grid[~np.isfinite(grid)] = np.nan
    count = np.count_nonzero(~np.isnan(grid), axis=0)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
        center = np.nanmean(grid, axis=0) if stat == "mean" else np.nanmedian(grid, axis=0)
        if band == "minmax":
            lower, upper = np.nanmin(grid, axis=0), np.nanmax(grid, axis=0)
        else:
            spread = np.nanstd(grid, axis=0)  # population (ddof=0), numpy's default
            if band == "sem":  # scipy.stats.sem's default: sample std (ddof=1) / sqrt(n); 0 for one run
                spread = np.where(count > 1, np.nanstd(grid, axis=0, ddof=1) / np.sqrt(np.maximum(count, 1)), 0.0)
            lower, upper = center - spread, center + spread
    return {"steps": steps, "center": center, "lower": lower, "upper": upper, "count": count}


def downsample_curve(curve: dict[str, np.ndarray], max_points: int) -> dict[str, np.ndarray]:
    """At most `max_points` steps of an aggregated curve: M4 over step buckets of the lower and of the upper
    curve (half the points each), so each bucket's lowest and highest band value survive."""
    steps = curve["steps"]
    if steps.size <= max_points:
        return curve
    half = max(max_points // 2, MIN_POINTS)
    keep = np.union1d(m4_indices(steps, curve["lower"], half), m4_indices(steps, curve["upper"], half))
    return {key: value[keep] for key, value in curve.items()}


def json_floats(values: np.ndarray) -> list[float | None]:
    """NaN/Inf -> None (JSON null)."""
    return [v if math.isfinite(v) else None for v in values.tolist()]


def group_answer(name: str, train_ids: list[str], curve: dict[str, np.ndarray], exact: bool) -> dict[str, Any]:
    return {"name": name, "train_ids": train_ids, "steps": curve["steps"].tolist(),
            "center": json_floats(curve["center"]), "lower": json_floats(curve["lower"]),
            "upper": json_floats(curve["upper"]), "count": curve["count"].tolist(), "exact": exact}


# ------------------------------------------------------------------------------ heatmap
_NUMBER = re.compile(r"\d+")


def natural_key(tag: str) -> tuple[Any, ...]:
    """`layer_2` before `layer_10`: digit runs compare as numbers."""
    parts = _NUMBER.split(tag)
    numbers = [int(n) for n in _NUMBER.findall(tag)]
    out: list[Any] = []
    for i, text in enumerate(parts):
        out.append((0, text))
        if i < len(numbers):
            out.append((1, numbers[i]))
    return tuple(out)


NAN_KIND, POS_INF_KIND, NEG_INF_KIND = 1, 2, 3  # scalars/heatmap's nonfinite_kind codes


def heatmap(series_by_tag: dict[str, Series], width: int) -> dict[str, Any]:
    """Tags (natural order) x step buckets. Columns: every step of the union when `width` >= their count
    (exact values), else `width` equal step buckets, each holding the value of largest |value| in it (an
    exploding layer stays visible; its sign kept). Non-finite values: null, with `nonfinite[i][j]` true and
    `nonfinite_kind[i][j]` saying which (1 NaN, 2 +Inf, 3 -Inf; a column holding several kinds: NaN first)."""
    tags = sorted(series_by_tag, key=natural_key)
    all_steps = np.unique(np.concatenate([series_by_tag[t].steps for t in tags])) if tags else np.zeros(0, np.int64)
    exact = all_steps.size <= width
    columns = all_steps.size if exact else width
    first = int(all_steps[0]) if all_steps.size else 0
    span = int(all_steps[-1]) - first + 1 if all_steps.size else 1
    buckets_first = first + (np.arange(columns, dtype=np.int64) * span + width - 1) // width  # a bucket's 1st step
    column_steps = all_steps if exact else buckets_first
    values = np.full((len(tags), columns), np.nan)
    kind = np.zeros((len(tags), columns), dtype=np.int8)
    for i, tag in enumerate(tags):
        s = series_by_tag[tag]
        if not s.steps.size:
            continue
        cols = np.searchsorted(all_steps, s.steps) if exact else ((s.steps - first) * width) // span
        finite = np.isfinite(s.values)
        codes = np.where(np.isnan(s.values), NAN_KIND, np.where(s.values > 0, POS_INF_KIND, NEG_INF_KIND))
        for code in (NEG_INF_KIND, POS_INF_KIND, NAN_KIND):  # the later kinds win a shared column
            kind[i, cols[~finite & (codes == code)]] = code
        cf, vf = cols[finite], s.values[finite]
        if exact:  # one step per column, each step once in a series
            values[i, cf] = vf
        elif vf.size:  # per column, the value of largest |value|: sort by (column, |value|), keep each column's last
            order = np.lexsort((np.abs(vf), cf))
            cf, vf = cf[order], vf[order]
            last = np.concatenate((cf[1:] != cf[:-1], [True]))
            values[i, cf[last]] = vf[last]
    bad = kind > 0
    values[bad] = np.nan
    # numpy arrays: the app's orjson provider writes them natively (NaN as null), no per-cell Python
    return {"tags": tags, "steps": column_steps.tolist(), "values": values, "nonfinite": bad,
            "nonfinite_kind": kind, "has_nonfinite": bool(bad.any())}
