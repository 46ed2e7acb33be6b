"""GET msprobe/watch and msprobe/watch/conditions (issue 35): MindInsight's watchpoint conditions on msprobe's
statistics, over the real msprobe 26.2 dumps in ../shared/fixtures/msprobe (skipped without ../shared), and over a
dump written here with gaps between its dumped steps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from mindinsight_clone.errors import DebuggerParamValueError
from tests.conftest import require_shared
from tests.integration.test_debugger_api import make_client
from tests.integration.test_msprobe_dumps_api import MSPROBE, get

LENET = "./lenet_statistics"


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> tuple[FlaskClient, dict[str, Any]]:
    require_shared(MSPROBE)
    expected = json.loads((MSPROBE / "EXPECTED.json").read_text())
    return make_client(MSPROBE, tmp_path_factory.mktemp("msprobe-watch-ws")), expected


def entries(job: str, step: int) -> dict[str, Any]:
    """The fixture's dump.json entries at a step, read here with the standard library (bare NaN tokens)."""
    path = next((MSPROBE / job / f"step{step}").glob("*/dump.json"))
    data: dict[str, Any] = json.loads(path.read_text())["data"]
    return data


def watch(client: FlaskClient, status: int = 200, **query: Any) -> dict[str, Any]:
    return get(client, "/watch", status, **query)


def where(hit: dict[str, Any]) -> tuple[Any, ...]:
    return hit["rank"], hit["step"], hit["node"], hit["io"], hit["index"]


def test_nan_or_inf_hits_start_with_the_first_nan_anomalies_reports(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, expected = real
    first = get(client, "/anomalies", dump_id=LENET)["first"][0]
    body = watch(client, dump_id=LENET, condition="nan_or_inf", limit=10_000)
    assert where(body["hits"][0]) == where(first)  # execution order, earliest step first
    assert body["hits"][0]["actual"] == {"mean": "NAN", "norm": "NAN"}  # Max/Min finite: MindSpore skips NaN
    assert body["total"] == len(body["hits"]) and body["unsupported"] == [] and body["params"] == {}
    steps = expected["jobs"]["lenet_statistics"]["dump"]["steps"]
    for place, facts in steps.items():
        step = int(place.split("/")[0][4:])
        nodes = [h["node"] for h in body["hits"] if h["step"] == step]
        assert list(dict.fromkeys(nodes)) == facts["entries_with_nan"], place  # in execution order
    one = watch(client, dump_id=LENET, condition="nan_or_inf", step=3, rank=first["rank"], limit=10_000)
    assert one["hits"] == [h for h in body["hits"] if h["step"] == 3]
    assert watch(client, dump_id="./pair_target_ms_statistics", condition="nan_or_inf")["total"] == 0


def test_too_large_around_a_known_max(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, _ = real
    known = entries("lenet_statistics", 2)["Mint.div.0.forward"]["output"][0]["Max"]
    spot = ("Mint.div.0.forward", "output", "0")

    def hits(threshold: float) -> list[dict[str, Any]]:
        body = watch(client, dump_id=LENET, condition="too_large", max_gt=threshold, step=2, limit=10_000)
        assert body["params"] == {"max_gt": threshold}
        assert all(h["actual"]["max_gt"] > threshold for h in body["hits"])
        return [h for h in body["hits"] if (h["node"], h["io"], h["index"]) == spot]

    below = hits(known - 1e-3)
    assert len(below) == 1 and below[0]["actual"] == {"max_gt": known} and below[0]["max"] == known
    assert hits(known) == []  # strictly above, as MindInsight
    assert hits(known + 1e-3) == []
    small = watch(client, dump_id=LENET, condition="too_small", min_lt=-1e9, max_lt=-1e9)
    assert small["total"] == 0


def test_change_too_large_between_dumped_steps(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, _ = real
    node, io, index = "Cell._backbone.conv2.Conv2d.forward.0", "parameters", "weight"
    norms = [entries("lenet_statistics", s)[node]["parameters"]["weight"]["Norm"] for s in range(4)]
    ratio = abs(norms[1] - norms[0]) / (abs(norms[0]) + 1e-9)
    assert 0 < ratio < 0.1  # a weight moves little: the default threshold (0.1) does not hit it

    def hit(**query: Any) -> list[dict[str, Any]]:
        body = watch(client, dump_id=LENET, condition="change_too_large", limit=10_000, **query)
        assert "Norm" in body["definition"] and body["unsupported"] == []
        return [h for h in body["hits"] if (h["node"], h["io"], h["index"]) == (node, io, index)]

    found = hit(abs_mean_update_ratio_gt=ratio * 0.9, step=1)
    assert len(found) == 1 and found[0]["step"] == 1 and found[0]["previous_step"] == 0
    assert found[0]["actual"]["abs_mean_update_ratio_gt"] == pytest.approx(ratio, rel=1e-12)
    assert found[0]["norm"] == norms[1] and found[0]["previous"]["norm"] == norms[0]
    assert hit(abs_mean_update_ratio_gt=ratio * 1.1, step=1) == []
    assert hit(abs_mean_update_ratio_gt=ratio * 0.9, step=0) == []  # the first dumped step has no previous
    every = hit(abs_mean_update_ratio_gt=0)  # every step with a previous one, in step order
    assert [h["step"] for h in every] == [1, 2, 3] and [h["previous_step"] for h in every] == [0, 1, 2]
    small = watch(client, dump_id=LENET, condition="change_too_small", abs_mean_update_ratio_lt=ratio * 1.1, step=1,
                  limit=10_000)
    assert any((h["node"], h["io"], h["index"]) == (node, io, index) for h in small["hits"])
    # lenet_tensor dumped steps 1 and 2 only: step 2 is compared with step 1
    body = watch(client, dump_id="./lenet_tensor", condition="change_too_large", limit=10_000)
    assert body["total"] > 0 and {(h["step"], h["previous_step"]) for h in body["hits"]} == {(2, 1)}


def test_pages_are_slices_of_one_order(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, _ = real
    whole = watch(client, dump_id=LENET, condition="too_large", max_gt=0.5, limit=10_000)
    assert whole["total"] == len(whole["hits"]) > 40
    assert [h["step"] for h in whole["hits"]] == sorted(h["step"] for h in whole["hits"])
    pages = [watch(client, dump_id=LENET, condition="too_large", max_gt=0.5, offset=o, limit=17)
             for o in range(0, whole["total"], 17)]
    assert [h for p in pages for h in p["hits"]] == whole["hits"] and {p["total"] for p in pages} == {whole["total"]}
    distributed = watch(client, dump_id="./pair_target_ms_statistics", condition="range", max_min_gt=1, rank="0")
    assert distributed["total"] > 0 and {h["rank"] for h in distributed["hits"]} == {"rank0"}


@pytest.mark.parametrize("query", [
    {"condition": "nope"},
    {"condition": "too_large"},
    {"condition": "too_large", "max_gt": "big"},
    {"condition": "too_large", "max_gt": "nan"},
    {"condition": "too_large", "abs_mean_gt": "1"},
    {"condition": "too_small", "mean_lt": "1", "stride": "2"},
    {"condition": "range", "range_start_inclusive": "0", "range_end_inclusive": "1", "range_percentage_lt": "5"},
    {"condition": "all_zero", "zero_percentage_ge": "50"},
    {"condition": "change_too_large", "abs_mean_update_ratio_gt": "-1"},
])
def test_a_bad_condition_or_parameter_is_conditions_pys_400(real: tuple[FlaskClient, dict[str, Any]],
                                                            query: dict[str, str]) -> None:
    client, _ = real
    response = client.get("/v1/mindinsight/msprobe/watch", query_string={"dump_id": LENET, **query})
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.get_json()["error_code"] == DebuggerParamValueError().error_code


def test_other_bad_requests(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, _ = real
    get(client, "/watch", 400, condition="nan_or_inf")  # no dump_id
    get(client, "/watch", 400, dump_id=LENET)  # no condition
    get(client, "/watch", 400, dump_id=LENET, condition="nan_or_inf", limit=0)
    get(client, "/watch", 400, dump_id=LENET, condition="nan_or_inf", step=9)
    get(client, "/watch", 400, dump_id="./nowhere", condition="nan_or_inf")


def test_conditions_for_the_form(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, _ = real
    body = get(client, "/watch/conditions")
    by_id = {c["id"]: c for c in body["conditions"]}
    assert [p["name"] for p in by_id["too_small"]["params"]] == ["max_lt", "min_lt", "mean_lt"]
    assert {p["name"]: p["default"] for p in by_id["change_too_large"]["params"]} == {
        "abs_mean_update_ratio_gt": 0.1, "epsilon": 1e-9}
    assert {"condition": "too_large", "param": "abs_mean_gt"}.items() <= next(
        u for u in body["unsupported"] if u["param"] == "abs_mean_gt").items()
    answer = watch(client, dump_id=LENET, condition="too_large", max_gt=1e9)
    assert [u["param"] for u in answer["unsupported"]] == ["abs_mean_gt"]  # said in the answer, not silently


# ---------------------------------------------------------------- a dump written here (no ../shared needed)
def _leaf(norm: float) -> dict[str, Any]:
    return {"type": "mindspore.Tensor", "dtype": "Float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5,
            "Norm": norm}


def test_steps_with_gaps_compare_with_the_previous_dumped_step(tmp_path: Path) -> None:
    base = tmp_path / "base"
    for step, norms in ((0, (1.0, 5.0)), (4, (2.0, 5.0)), (9, (2.0, 10.0))):
        for rank, scale in (("rank0", 1.0), ("rank1", 3.0)):
            folder = base / "job" / f"step{step}" / rank
            folder.mkdir(parents=True)
            data = {"Mint.add.0.forward": {"input_args": [_leaf(norms[0] * scale)], "input_kwargs": {},
                                           "output": [_leaf(norms[1])]}}
            (folder / "dump.json").write_text(json.dumps({"task": "statistics", "level": "L1",
                                                          "framework": "mindspore", "data": data}))
    client = make_client(base, tmp_path / "ws")
    body = watch(client, dump_id="./job", condition="change_too_large", abs_mean_update_ratio_gt=0.5)
    got = [(h["step"], h["rank"], h["io"], h["previous_step"], h["actual"]["abs_mean_update_ratio_gt"])
           for h in body["hits"]]
    assert got == [(4, "rank0", "input", 0, pytest.approx(1.0)), (4, "rank1", "input", 0, pytest.approx(1.0)),
                   (9, "rank0", "output", 4, pytest.approx(1.0)), (9, "rank1", "output", 4, pytest.approx(1.0))]
    only = watch(client, dump_id="./job", condition="change_too_large", abs_mean_update_ratio_gt=0.5, step=9, rank="1")
    assert [(h["step"], h["rank"], h["previous_step"]) for h in only["hits"]] == [(9, "rank1", 4)]
    same = watch(client, dump_id="./job", condition="not_changed", step=9)
    assert [(h["rank"], h["io"]) for h in same["hits"]] == [("rank0", "input"), ("rank1", "input")]
