"""Group curves with bands on the comparison page (issue 32, UI part).

30 runs `lr<lr>_seed<s>` (3 learning rates x 10 seeds; each seed offsets its curve, so the bands have a width),
written with the test writer of tests/unit/store/summary_files.py and served by the real server. The run list
takes all 30 ("Select shown": no 5-run cap), "Group by" a regex on the run name `^(lr[0-9.]+)_` gives 3 groups:
per group a center line and a shaded band, the drawn values equal to `scalars/aggregate`'s answer for the same
query (max_points = the chart's width), the legend names each group with its 10 runs, the grouping is kept in
the URL, and the CSV export holds the 3 group curves. No console error.
"""

from __future__ import annotations

import csv
import io
import json
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import serve
from tests.unit.store.summary_files import scalar_event, summary_name, version_event, write_records

TAG = "loss/scalar"  # a summary scalar `loss`, as plugins lists it
LRS = ("0.1", "0.01", "0.001")
SEEDS = range(10)
STEPS = range(1, 61)
REGEX = r"^(lr[0-9.]+)_"  # the example: matched on the run path (./lr0.1_seed3 without './')
CHART = f"compare-groups:{TAG}"


def loss(lr: str, seed: int, step: int) -> float:
    return 1.0 / (1 + float(lr) * step) + 0.05 * seed + (0.02 if step % 7 == seed % 7 else 0.0)


@pytest.fixture(scope="module")
def groups_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = tmp_path_factory.mktemp("compare-groups")
    for lr in LRS:
        for seed in SEEDS:
            payloads = [version_event()] + [scalar_event(s, {"loss": loss(lr, seed, s)}) for s in STEPS]
            write_records(base / f"lr{lr}_seed{seed}" / summary_name(1_700_000_000 + seed), payloads)
    yield from serve(base, tmp_path_factory.mktemp("compare-groups-ws"))


def aggregate(base: str, train_ids: list[str], max_points: int) -> dict[str, Any]:
    query = urllib.parse.urlencode({"train_ids": ",".join(train_ids), "tag": TAG, "group_by": f"regex:{REGEX}",
                                    "stat": "mean", "band": "minmax", "max_points": max_points})
    with urllib.request.urlopen(f"{base}/v1/mindinsight/datavisual/scalars/aggregate?{query}", timeout=30) as resp:
        return json.loads(resp.read())  # type: ignore[no-any-return]


def test_compare_30_runs_grouped_by_regex_with_bands(page: Any, groups_server: str, tmp_path: Path,
                                                     screenshot: Any) -> None:
    page.goto(f"{groups_server}/#/compare-plate?tag={urllib.parse.quote(TAG)}")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=run-option]').length === 30")
    page.get_by_test_id("run-clear").click()
    page.get_by_test_id("run-select-shown").click()
    page.wait_for_function("() => document.querySelector('[data-testid=run-selected-count]').dataset.count === '30'")

    page.get_by_test_id("group-mode").select_option("regex")
    page.get_by_test_id("group-regex").fill(REGEX)
    page.get_by_test_id("group-regex").press("Enter")
    page.wait_for_function(
        "id => { const c = (window.__charts || {})[id]; return c && c.extra && c.extra.groups.length === 3 }", arg=CHART)
    state = page.evaluate(
        """id => { const c = window.__charts[id]; const o = c.instance().getOption();
                   return { extra: c.extra, legend: o.legend[0].data,
                            series: o.series.map(s => ({ id: s.id, data: s.data, area: !!s.areaStyle })) } }""",
        CHART,
    )
    query = urllib.parse.parse_qs(page.url.split("?", 1)[1])
    assert query["gb"] == ["regex"] and query["gre"] == [REGEX] and len(query["run"]) == 30  # kept in the URL
    assert [g["runs"] for g in state["extra"]["groups"]] == [10, 10, 10]
    assert sorted(state["legend"]) == sorted(f"lr{lr} (10)" for lr in LRS)
    assert state["extra"]["ungrouped"] == []

    # the same query as the page's: the selection's ids in its order (groups come in the order of their first run)
    answer = aggregate(groups_server, query["run"], state["extra"]["maxPoints"])
    assert state["legend"] == [f"{g['name']} (10)" for g in answer["groups"]]
    by_id = {s["id"]: s for s in state["series"]}
    for i, g in enumerate(answer["groups"]):
        assert by_id[f"center:{i}"]["data"] == [[s, c] for s, c in zip(g["steps"], g["center"], strict=True)]
        assert by_id[f"band-lo:{i}"]["data"] == [[s, lo] for s, lo in zip(g["steps"], g["lower"], strict=True)]
        spans = [pair[1] for pair in by_id[f"band:{i}"]["data"]]
        assert spans == pytest.approx([hi - lo for lo, hi in zip(g["lower"], g["upper"], strict=True)])
        assert by_id[f"band:{i}"]["area"] and min(spans) > 0.4  # seeds 0..9 spread 0.45: a visible band

    screenshot(page, "compare_groups_bands")

    with page.expect_download() as dl:
        page.get_by_test_id("group-download-csv").click()
    path = tmp_path / "groups.csv"
    dl.value.save_as(path)
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    assert list(rows[0]) == ["step", "group", "center", "lower", "upper", "count"]
    assert sorted({r["group"] for r in rows}) == sorted(f"lr{lr}" for lr in LRS)
    assert len(rows) == sum(len(g["steps"]) for g in answer["groups"]) == 3 * len(STEPS)
    assert {r["count"] for r in rows} == {"10"}
