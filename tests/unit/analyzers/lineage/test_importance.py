from __future__ import annotations

import math
from typing import Any

import pytest

from mindinsight_clone.analyzers.lineage.importance import flatten, histogram, optimize_targets


def _obj(tid: str, lr: float, batch: int | None, loss: float, acc: float | None, **user: Any) -> dict[str, Any]:
    lineage: dict[str, Any] = {"loss_function": "CE", "learning_rate": lr, "epoch": 3, "batch_size": batch,
                               "device_num": 1, "loss": loss, "model_size": 0, "dataset_mark": "2",
                               "metric": {} if acc is None else {"Accuracy": acc}, "user_defined": user}
    return {"summary_dir": tid, "model_lineage": lineage}


def test_golden_like_result() -> None:
    objects = [_obj("./landscape", 0.01, 8, 0.6946631, 0.5, seed=1, note="a"),
               _obj("./lineage_b", 0.05, 4, 0.7155939, 0.5, seed=1, note="b"),
               _obj("./lineage_a", 0.01, 8, 0.6931811, 0.5, seed=1, note="c")]
    result = optimize_targets(objects)
    meta = result["metadata"]
    assert meta["train_ids"] == ["./landscape", "./lineage_b", "./lineage_a"]
    assert [p["name"] for p in meta["possible_hyper_parameters"]] == ["learning_rate", "epoch", "batch_size",
                                                                       "[U]seed"]
    assert meta["unrecognized_params"] == [{"name": "[U]note", "reason_code": 1, "unselected": True}]
    acc, loss = result["targets"]
    assert acc["name"] == "[M]Accuracy" and loss["name"] == "loss"
    assert all(h["importance"] == 0 and h["reason_code"] == 3 for h in acc["hyper_parameters"])
    assert acc["buckets"][2] == [0.4, pytest.approx(0.2), 3.0]
    names = [h["name"] for h in loss["hyper_parameters"]]
    assert names[:2] == ["batch_size", "learning_rate"]
    assert loss["hyper_parameters"][0]["importance"] == pytest.approx(0.9982509704297986, rel=1e-12)
    assert loss["hyper_parameters"][2] == {"name": "epoch", "importance": 0, "reason_code": 3}
    assert loss["data"] == [0.6946631, 0.7155939, 0.6931811]
    assert loss["buckets"][0][0] == 0.6931811 and loss["buckets"][4][2] == 1.0


def test_too_few_samples_and_missing_values() -> None:
    objects = [_obj("./a", 0.1, 8, 1.0, 0.1), _obj("./b", 0.2, None, 2.0, None), _obj("./c", 0.3, 16, 3.0, 0.9)]
    result = optimize_targets(objects)
    params = {p["name"]: p["data"] for p in result["metadata"]["possible_hyper_parameters"]}
    assert params["batch_size"] == [8.0, None, 16.0]  # an int column with a gap becomes float (pandas)
    acc = result["targets"][0]
    assert acc["data"] == [0.1, None, 0.9]
    assert {h["name"]: h.get("reason_code") for h in acc["hyper_parameters"]}["learning_rate"] == 2
    loss = result["targets"][1]
    assert {h["name"]: h["importance"] for h in loss["hyper_parameters"]}["learning_rate"] == pytest.approx(1.0)


def test_no_lineage() -> None:
    assert optimize_targets([]) == {"metadata": {"train_ids": [], "possible_hyper_parameters": [],
                                                 "unrecognized_params": []}, "targets": []}


def test_flatten_pads_and_nan_strings() -> None:
    table = flatten([_obj("./a", 0.1, 8, 1.0, None, x="nan"), _obj("./b", 0.1, 8, 1.0, 0.5)])
    assert table["[M]Accuracy"] == [None, 0.5]
    assert math.isnan(table["[U]x"][0]) and table["[U]x"][1] is None


def test_histogram_constant_and_empty() -> None:
    assert histogram([0.5, 0.5])[2] == [0.4, pytest.approx(0.2), 2.0]
    assert [b[2] for b in histogram([math.nan])] == [0.0] * 5
