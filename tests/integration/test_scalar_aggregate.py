"""`scalars/aggregate` and `scalars/heatmap` (issue 32) over real summary files: group curves and bands equal
numpy's over every written point (more steps than the reservoir keeps), grouping by regex, hparam and rank group,
downsampling that keeps the band's extremes, the layer heatmap at full width, NaN handling, and errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from mindinsight_clone.summary.tfevents_writer import TfeventsWriter
from tests.unit.analyzers.lineage.builders import write_run as write_lineage_run
from tests.unit.store.summary_files import scalar_event, summary_name, version_event, write_records

API = "/v1/mindinsight/datavisual/scalars"
KEEP = 50  # reservoir size: the runs have more steps, so a reservoir answer could not match numpy
STEPS = 120
WRITTEN_TAG = "loss"
TAG = "loss/scalar"  # as `plugins` lists a MindSpore scalar tag
GROUPS = ("alpha", "beta", "gamma")
LAYERS = 64


def _run_values(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    steps = np.arange(1, STEPS + 1)
    if seed % 10 == 3:  # some runs miss steps: aggregated over the runs present
        steps = steps[steps % 7 != 0]
    return steps, rng.normal(seed % 10, 1.0, steps.size).astype(np.float32).astype(np.float64)  # as stored


def _write_scalars(run: Path, steps: np.ndarray, rows: dict[str, np.ndarray], ts: int = 1_700_000_000) -> None:
    payloads = [version_event()]
    payloads += [scalar_event(int(s), {t: float(v[i]) for t, v in rows.items()}) for i, s in enumerate(steps)]
    write_records(run / summary_name(ts), payloads)


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("aggregate-base")
    truth: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for g, group in enumerate(GROUPS):
        for seed in range(10):
            name = f"sweep_{group}_seed{seed}"
            steps, values = _run_values(g * 100 + seed)
            run = base / name
            write_lineage_run(base, name, 1_600_000_000 + seed, lr=[0.1, 0.01][seed % 2])
            _write_scalars(run, steps, {WRITTEN_TAG: values})
            truth[f"./{name}"] = (steps, values)
    for rank in range(4):  # one job's ranks
        steps, values = _run_values(1000 + rank)
        _write_scalars(base / "job" / f"rank_{rank}", steps, {WRITTEN_TAG: values})
        truth[f"./job/rank_{rank}"] = (steps, values)
    for k, (lr, opt) in enumerate([(0.1, "adam"), (0.1, "sgd"), (0.2, "adam")]):  # TensorBoard add_hparams
        steps, values = _run_values(2000 + k)
        with TfeventsWriter(base / f"tb{k}", timestamp=1_700_000_000, host="h") as t:
            for step, value in zip(steps, values, strict=True):
                t.add_scalar(WRITTEN_TAG, float(value), int(step), wall_time=1_700_000_000.0 + step)
            t.add_hparams({"lr": lr, "opt": opt, "layers": 8}, {"acc": 0.5}, name="session")
        truth[f"./tb{k}"] = (steps, values)
    layer_steps = np.arange(0, 30)
    layers = {f"norm/layer_{i}": np.sin(layer_steps + i) * (i + 1) for i in range(LAYERS)}
    layers["norm/layer_7"][5] = np.nan
    layers["norm/layer_9"][6] = np.inf
    _write_scalars(base / "layers", layer_steps, {**layers, "other/layer_1": layer_steps * 1.0})
    settings = settings_for_tests(summary_base_dir=str(base), workspace=str(tmp_path_factory.mktemp("agg-ws")),
                                  reload_interval=0, scalar_samples=KEEP, max_depth=2)
    app = create_app(settings, start_background=False)
    dm = app.extensions["mindinsight_clone"].data_manager
    dm.reload()
    dm.cache_runs([*truth, "./layers"])
    dm.reload()
    return {"client": app.test_client(), "truth": truth, "layers": layers, "layer_steps": layer_steps}


def _get(client: FlaskClient, path: str, status: int = 200, **query: Any) -> dict[str, Any]:
    answer = client.get(f"{API}/{path}", query_string=query)
    assert answer.status_code == status, answer.get_json()
    return answer.get_json()  # type: ignore[no-any-return]


def _expected(truth: dict[str, tuple[np.ndarray, np.ndarray]], ids: list[str], stat: str,
              band: str) -> tuple[list[int], np.ndarray, np.ndarray, np.ndarray]:
    """numpy per step over the runs that have the step (plain loops, independent of the server's grid)."""
    steps = sorted({int(s) for t in ids for s in truth[t][0]})
    center, lower, upper = [], [], []
    for step in steps:
        vals = np.array([v[list(s).index(step)] for t in ids for s, v in [truth[t]] if step in s])
        c = float(np.mean(vals) if stat == "mean" else np.median(vals))
        if band == "minmax":
            lo, hi = float(np.min(vals)), float(np.max(vals))
        else:
            spread = float(np.std(vals)) if band == "std" else float(np.std(vals, ddof=1) / np.sqrt(vals.size))
            lo, hi = c - spread, c + spread
        center.append(c)
        lower.append(lo)
        upper.append(hi)
    return steps, np.array(center), np.array(lower), np.array(upper)


@pytest.mark.parametrize(("stat", "band"), [("mean", "minmax"), ("median", "std"), ("mean", "sem")])
def test_regex_groups_equal_numpy_over_every_point(written: dict[str, Any], stat: str, band: str) -> None:
    truth = written["truth"]
    ids = sorted(t for t in truth if "sweep" in t)
    body = _get(written["client"], "aggregate", train_ids=",".join(ids), tag=TAG, stat=stat, band=band,
                group_by=r"regex:sweep_(\w+?)_seed")
    assert [g["name"] for g in body["groups"]] == list(GROUPS)
    for group in body["groups"]:
        assert group["train_ids"] == [t for t in ids if f"_{group['name']}_" in t] and len(group["train_ids"]) == 10
        steps, center, lower, upper = _expected(truth, group["train_ids"], stat, band)
        assert group["steps"] == steps and len(steps) == STEPS > KEEP and group["exact"] is True
        np.testing.assert_allclose(group["center"], center, rtol=1e-12)
        np.testing.assert_allclose(group["lower"], lower, rtol=1e-12)
        np.testing.assert_allclose(group["upper"], upper, rtol=1e-12)
        assert group["count"][6] == 9 and group["count"][0] == 10  # step 7: one run (seed 3) lacks it


def test_unmatched_runs_are_ungrouped(written: dict[str, Any]) -> None:
    ids = ["./sweep_alpha_seed0", "./job/rank_0"]
    body = _get(written["client"], "aggregate", train_ids=",".join(ids), tag=TAG, group_by="regex:^sweep")
    assert [(g["name"], g["train_ids"]) for g in body["groups"]] == [("sweep", ["./sweep_alpha_seed0"])]
    assert body["ungrouped"] == ["./job/rank_0"]


def test_hparam_groups(written: dict[str, Any]) -> None:
    truth = written["truth"]
    ids = sorted(t for t in truth if "alpha" in t)
    body = _get(written["client"], "aggregate", train_ids=",".join(ids), tag=TAG, group_by="hparam:learning_rate")
    by_name = {g["name"]: g for g in body["groups"]}
    assert sorted(by_name) == ["0.01", "0.1"]
    assert by_name["0.1"]["train_ids"] == [t for t in ids if int(t[-1]) % 2 == 0]
    _, center, _, _ = _expected(truth, by_name["0.01"]["train_ids"], "mean", "minmax")
    np.testing.assert_allclose(by_name["0.01"]["center"], center, rtol=1e-12)


def test_tensorboard_hparams_groups(written: dict[str, Any]) -> None:
    truth = written["truth"]
    ids = ["./tb0", "./tb1", "./tb2", "./job/rank_0"]
    client = written["client"]
    body = _get(client, "aggregate", train_ids=",".join(ids), tag=TAG, group_by="hparam:opt")
    assert [(g["name"], g["train_ids"]) for g in body["groups"]] == [("adam", ["./tb0", "./tb2"]), ("sgd", ["./tb1"])]
    assert body["ungrouped"] == ["./job/rank_0"]
    _, center, _, _ = _expected(truth, ["./tb0", "./tb2"], "mean", "minmax")
    np.testing.assert_allclose(body["groups"][0]["center"], center, rtol=1e-12)
    by_lr = _get(client, "aggregate", train_ids=",".join(ids), tag=TAG, group_by="hparam:lr")["groups"]
    assert [(g["name"], g["train_ids"]) for g in by_lr] == [("0.1", ["./tb0", "./tb1"]), ("0.2", ["./tb2"])]
    (layers,) = _get(client, "aggregate", train_ids=",".join(ids[:3]), tag=TAG, group_by="hparam:layers")["groups"]
    assert layers["name"] == "8"  # add_hparams writes numbers as float64: 8.0 is named 8


def test_rank_group(written: dict[str, Any]) -> None:
    truth = written["truth"]
    ranks = [f"./job/rank_{r}" for r in range(4)]
    body = _get(written["client"], "aggregate", train_ids=",".join([*ranks, "./sweep_beta_seed1"]), tag=TAG,
                group_by="rank_group", band="std")
    (group,) = body["groups"]
    assert group["name"] == "./job" and group["train_ids"] == ranks and body["ungrouped"] == ["./sweep_beta_seed1"]
    _, center, lower, _ = _expected(truth, ranks, "mean", "std")
    np.testing.assert_allclose(group["center"], center, rtol=1e-12)
    np.testing.assert_allclose(group["lower"], lower, rtol=1e-12)


def test_max_points_keeps_the_band_extremes(written: dict[str, Any]) -> None:
    ids = [t for t in written["truth"] if "gamma" in t]
    query: dict[str, Any] = {"train_ids": ",".join(ids), "tag": TAG, "group_by": "regex:gamma"}
    (full,) = _get(written["client"], "aggregate", **query, max_points=STEPS)["groups"]
    (small,) = _get(written["client"], "aggregate", **query, max_points=16)["groups"]
    assert len(full["steps"]) == STEPS and 4 <= len(small["steps"]) <= 16
    assert set(small["steps"]) <= set(full["steps"])
    assert min(small["lower"]) == min(full["lower"]) and max(small["upper"]) == max(full["upper"])
    at = {s: i for i, s in enumerate(full["steps"])}
    assert small["center"] == [full["center"][at[s]] for s in small["steps"]]  # real aggregated points


def test_heatmap_full_width_natural_order_and_nan(written: dict[str, Any]) -> None:
    layers, steps = written["layers"], written["layer_steps"]
    body = _get(written["client"], "heatmap", train_id="./layers", tag_regex=r"^norm/layer_\d+/scalar$", width=1000)
    assert body["tags"] == [f"norm/layer_{i}/scalar" for i in range(LAYERS)]  # natural: layer_2 before layer_10
    assert body["steps"] == steps.tolist() and body["truncated"] is False and body["has_nonfinite"] is True
    for i, tag in enumerate(body["tags"]):
        expected = [None if not np.isfinite(v) else float(v) for v in layers[tag.removesuffix("/scalar")]]
        assert body["values"][i] == pytest.approx(expected)
    assert body["values"][7][5] is None and body["nonfinite"][7][5] and body["nonfinite"][9][6]
    assert sum(map(sum, body["nonfinite"])) == 2
    kinds = {(i, j): k for i, row in enumerate(body["nonfinite_kind"]) for j, k in enumerate(row) if k}
    assert kinds == {(7, 5): 1, (9, 6): 2}  # layer 7 wrote NaN, layer 9 +Inf: told apart


def test_heatmap_buckets_keep_the_largest_magnitude(written: dict[str, Any]) -> None:
    layers = written["layers"]
    body = _get(written["client"], "heatmap", train_id="./layers", tag_regex=r"layer_(1|2)\b", width=3)
    assert body["tags"] == ["norm/layer_1/scalar", "norm/layer_2/scalar", "other/layer_1/scalar"]
    row = body["values"][1]
    chunks = np.array_split(layers["norm/layer_2"], 3)
    assert body["steps"] == [0, 10, 20]
    assert row == pytest.approx([float(c[np.argmax(np.abs(c))]) for c in chunks])


@pytest.mark.parametrize(("path", "query", "status"), [
    ("aggregate", {"tag": TAG, "group_by": "rank_group"}, 400),  # no train_ids
    ("aggregate", {"train_ids": ",", "tag": TAG, "group_by": "rank_group"}, 400),
    ("aggregate", {"train_ids": "./job/rank_0", "tag": TAG, "group_by": "regex:(unclosed"}, 400),
    ("aggregate", {"train_ids": "./job/rank_0", "tag": TAG, "group_by": "cluster"}, 400),
    ("aggregate", {"train_ids": "./job/rank_0", "tag": TAG, "group_by": "rank_group", "stat": "mode"}, 400),
    ("aggregate", {"train_ids": "./job/rank_0", "tag": TAG, "group_by": "rank_group", "band": "iqr"}, 400),
    ("aggregate", {"train_ids": "./job/rank_0,./nope", "tag": TAG, "group_by": "regex:."}, 400),  # MindInsight: 400 for an unknown run or tag
    ("aggregate", {"train_ids": "./job/rank_0", "tag": "no-such-tag", "group_by": "regex:."}, 400),  # MindInsight: 400 for an unknown run or tag
    ("aggregate", {"train_ids": ",".join(f"./r{i}" for i in range(1001)), "tag": TAG, "group_by": "regex:."}, 400),
    ("heatmap", {"train_id": "./layers", "tag_regex": "(unclosed"}, 400),
    ("heatmap", {"train_id": "./nope", "tag_regex": "."}, 400),  # MindInsight: 400 for an unknown run or tag
])
def test_errors_in_the_app_shape(written: dict[str, Any], path: str, query: dict[str, Any], status: int) -> None:
    body = _get(written["client"], path, status, **query)
    assert set(body) == {"error_code", "error_msg"}
