"""msprobe dumps in Chromium (issue 35): from the summary page to the first NaN node of the real msprobe 26.2 dump
(../shared/fixtures/msprobe/lenet_statistics: `Mint.div.0.forward` at step 2) in two clicks, its statistics with
the NaN shown as such, the node's statistics across steps with the NaN step marked, its call stack, and the
Cell tree collapsing."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import SHARED, require_shared
from tests.e2e.conftest import serve

MSPROBE = SHARED / "fixtures" / "msprobe"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    require_shared(MSPROBE)
    yield from serve(MSPROBE, tmp_path_factory.mktemp("msprobe-ws"), "--max-depth", "3")


def test_first_nan_from_the_summary_page(server: str, page: Any) -> None:
    page.goto(f"{server}/#/summary-manage")
    page.locator('[data-testid=summary-msprobe-link][data-dump-id="./lenet_statistics"]').click()  # click 1
    anomaly = page.get_by_test_id("msprobe-anomaly")
    anomaly.wait_for()
    assert anomaly.get_attribute("data-node") == "Mint.div.0.forward" and anomaly.get_attribute("data-step") == "2"
    anomaly.click()  # click 2
    detail = page.locator('[data-testid=msprobe-node-detail][data-name="Mint.div.0.forward"][data-step="2"]')
    detail.wait_for()  # step 2's own statistics, not the previous step's while step 2 loads
    assert page.get_by_test_id("msprobe-step").input_value() == "2"
    output = page.get_by_test_id("msprobe-slot").filter(has_text="output.0")
    assert "NaN" in output.inner_text()  # Mean and Norm; Max/Min finite (MindSpore skips NaN elements)
    page.wait_for_function("() => window.__charts?.['msprobe:node-steps']?.extra?.slot === 'output.0'")
    chart = page.evaluate("() => ({ bad: window.__charts['msprobe:node-steps'].extra.badSteps, "
                          "points: window.__charts['msprobe:node-steps'].series.map(s => s.points) })")
    assert chart == {"bad": [2], "points": [4, 4, 4, 4]}, chart  # steps 0-3; only step 2 divides 0 by 0
    page.get_by_test_id("msprobe-stack").locator("summary").click()
    page.get_by_test_id("msprobe-stack").filter(has_text="File ").wait_for()  # the call stack is asked on opening
    row = page.locator('[data-testid=msprobe-node][data-name="Mint.div.0.forward"]')
    assert row.get_attribute("data-bad") == "true"
    # collapse the Normalize cell: its calls leave the tree
    page.locator('[data-testid=msprobe-node][data-name="Cell._backbone.norm.Normalize.forward.0"] .twist').click()
    row.wait_for(state="detached")


def test_a_tensor_dump_shows_the_nan_values_of_a_slot(server: str, page: Any) -> None:
    """Task tensor (lenet_tensor): the output of step 2's 0/0 division as a table, a heat map whose NaN cells are
    counted apart, and the whole tensor's histogram."""
    import numpy as np

    want = np.load(MSPROBE / "lenet_tensor/step2/proc5748/dump_tensor_data/Mint.div.0.forward.output.0.npy")
    page.goto(f"{server}/#/msprobe?dump_id=./lenet_tensor&step=2&node=Mint.div.0.forward")
    page.locator('[data-testid=msprobe-node-detail][data-name="Mint.div.0.forward"][data-step="2"]').wait_for()
    page.get_by_test_id("msprobe-slot").filter(has_text="output.0").get_by_test_id("msprobe-slot-values").click()
    values = page.locator('[data-testid=msprobe-values][data-slot="output.0"]:not([data-shape=""])')
    values.wait_for()
    window = want[0, 0]  # the default window: the last two dimensions at index 0 of the others
    assert values.get_attribute("data-shape") == "[0, 0, :10, :10]"
    cells = page.locator("[data-testid=msprobe-values] .tensor-table td, [data-testid=msprobe-values] table td")
    assert cells.count() >= 100
    page.get_by_test_id("msprobe-values-view-heatmap").click()
    heat = page.locator('[data-testid=msprobe-values-heatmap][data-rendered="true"]')
    heat.wait_for()
    nan_cells = int(np.isnan(window[:10, :10]).sum())
    published = page.evaluate("() => window.__charts['msprobe-heatmap:Mint.div.0.forward:output:0'].series")
    assert {s["name"]: s["points"] for s in published}["finite"] == 100 - nan_cells
    page.get_by_test_id("msprobe-values-view-histogram").click()
    page.locator('[data-testid=msprobe-values-histogram-chart][data-rendered="true"]').wait_for()
    nonfinite = page.get_by_test_id("histogram-nonfinite")  # the NaN values, said beside the buckets of the rest
    assert nonfinite.count() == (1 if np.isnan(want).any() else 0)
    page.get_by_test_id("msprobe-values-close").click()
    values.wait_for(state="detached")


def test_watchpoints_on_the_statistics_open_their_node(server: str, page: Any) -> None:
    """The Watchpoints panel: NaN/Inf over every step lists the first NaN first and opens it; change_too_large (on
    the norm, against the previous dumped step) says what it compared with; too_large names what the statistics
    cannot compute and waits for a threshold."""
    page.goto(f"{server}/#/msprobe?tab=dumps&dump_id=./lenet_statistics")
    page.get_by_test_id("msprobe-watchpoints").locator("summary").click()
    page.get_by_test_id("msprobe-watch-run").click()
    result = page.locator("[data-testid=msprobe-watch-result][data-condition=nan_or_inf]")
    result.wait_for()
    assert result.get_attribute("data-total") == "16"  # steps 2 and 3 (EXPECTED.json entries_with_nan)
    first = page.get_by_test_id("msprobe-watch-hit").first
    assert first.get_attribute("data-node") == "Mint.div.0.forward" and first.get_attribute("data-step") == "2"
    first.get_by_test_id("msprobe-watch-hit-open").click()
    page.locator('[data-testid=msprobe-node-detail][data-name="Mint.div.0.forward"][data-step="2"]').wait_for()
    page.get_by_test_id("msprobe-watch-condition").select_option("change_too_large")
    page.get_by_test_id("msprobe-watch-param-abs_mean_update_ratio_gt").fill("0.5")
    page.get_by_test_id("msprobe-watch-run").click()
    page.locator("[data-testid=msprobe-watch-result][data-condition=change_too_large]").wait_for()
    assert "step 1: norm" in page.get_by_test_id("msprobe-watch-hit").first.inner_text()
    page.get_by_test_id("msprobe-watch-condition").select_option("too_large")
    assert page.get_by_test_id("msprobe-watch-run").is_disabled()  # no threshold yet
    assert "abs" in page.get_by_test_id("msprobe-watch-unsupported").get_attribute("title")
    # a parameter MindInsight keeps out of sight is folded under "Advanced", checked like the others
    page.get_by_test_id("msprobe-watch-condition").select_option("not_changed")
    atol = page.get_by_test_id("msprobe-watch-param-atol")
    assert page.get_by_test_id("msprobe-watch-param-rtol").is_visible() and not atol.is_visible()
    page.get_by_test_id("msprobe-watch").locator("details summary").click()
    atol.fill("x")
    page.get_by_test_id("msprobe-watch-problem").wait_for()
    assert page.get_by_test_id("msprobe-watch-run").is_disabled()


def test_compare_lands_on_the_first_diverging_node(server: str, page: Any) -> None:
    page.goto(f"{server}/#/msprobe?tab=compare")
    target = page.get_by_test_id("compare-target").get_by_test_id("compare-dump")
    # the first pair is picked once the dumps are listed (a select not drawn yet has no value either)
    page.wait_for_function("() => (document.querySelector('[data-testid=compare-target] [data-testid=compare-dump]')"
                           "?.value ?? '') !== ''")
    assert target.input_value() == "./pair_target_ms_statistics"
    assert page.get_by_test_id("compare-bench").get_by_test_id("compare-dump").input_value() == "./pair_bench_ms_statistics"
    page.get_by_test_id("compare-run").click()
    answer = page.get_by_test_id("compare-answer")
    answer.wait_for()
    assert answer.get_attribute("data-total") == "167"
    # every row is reachable: 100 a page leaves 67 on the second (the old table stopped at a fixed count, unsaid)
    page.get_by_test_id("compare-pager-size").select_option("100")
    assert page.get_by_test_id("compare-row").count() == 100
    page.get_by_test_id("compare-pager-next").click()
    assert page.get_by_test_id("compare-row").count() == 67
    assert page.get_by_test_id("compare-server-cut").count() == 0  # the whole answer came
    page.get_by_test_id("compare-filter").select_option("error")
    assert {r.get_attribute("data-result") for r in page.get_by_test_id("compare-row").all()} == {"error"}
    first = page.get_by_test_id("compare-first-divergence")
    node = first.get_attribute("data-node")
    assert node and "dtype" in first.inner_text()
    page.get_by_test_id("compare-show-first").click()
    page.locator(f'[data-testid=msprobe-node-detail][data-name="{node}"][data-step="0"]').wait_for()
    assert "Float16" in page.get_by_test_id("msprobe-slots").inner_text()  # the float16 fc2 cell of the target

    page.goto(f"{server}/#/msprobe?tab=compare")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=compare-file] option').length > 1")
    csv = page.evaluate("() => [...document.querySelectorAll('[data-testid=compare-file] option')]"
                        ".map(o => o.value).find(v => v.includes('/statistics_csv/'))")
    page.get_by_test_id("compare-file").select_option(csv)
    page.get_by_test_id("compare-open-file").click()
    assert page.get_by_test_id("compare-file-table").get_attribute("data-rows") == "167"
    page.get_by_test_id("compare-file-pager-size").select_option("100")
    page.get_by_test_id("compare-file-pager-next").click()
    assert page.get_by_test_id("compare-file-row").count() == 67


def test_cross_framework_compare_with_a_cell_mapping(server: str, page: Any) -> None:
    """A MindSpore target against a PyTorch bench: the page says names differ, and msprobe's -cm cell mapping
    (configs/cell_mapping.yaml, a path under the base dir) matches as many rows as msprobe's own result."""
    theirs = list(csv.DictReader((next((MSPROBE / "compare" / "cross_framework_cell_mapping")
                                       .glob("compare_result_*.csv"))).open(newline="")))
    unmatched = sum(r["Bench Name"] in ("N/A", "") for r in theirs)
    page.goto(f"{server}/#/msprobe?tab=compare")
    page.wait_for_function("() => (document.querySelector('[data-testid=compare-target] [data-testid=compare-dump]')"
                           "?.value ?? '') !== ''")
    page.get_by_test_id("compare-target").get_by_test_id("compare-dump").select_option("./pair_bench_ms_statistics")
    page.get_by_test_id("compare-bench").get_by_test_id("compare-dump").select_option("./pair_bench_torch_statistics")
    assert page.get_by_test_id("compare-cross-hint").is_visible()
    page.get_by_test_id("compare-mapping").select_option("cell")
    assert page.get_by_test_id("compare-run").is_disabled()  # a yaml kind needs its path
    page.get_by_test_id("compare-mapping-path").fill("configs/cell_mapping.yaml")
    page.get_by_test_id("compare-run").click()
    answer = page.get_by_test_id("compare-answer")
    assert answer.get_attribute("data-total") == str(len(theirs))
    assert "cell" in page.get_by_test_id("compare-mapping-used").inner_text()
    assert str(unmatched) in answer.inner_text()
    page.get_by_test_id("compare-mapping-path").fill("../../etc/passwd")
    page.get_by_test_id("compare-run").click()
    page.get_by_test_id("state-error").wait_for()  # a path outside the base dir: refused, said
    assert sum("400" in e for e in page.console_errors) == 1  # that refusal, and nothing else
    page.console_errors[:] = [e for e in page.console_errors if "400" not in e]


def test_vis_db_side_by_side_expands_together(server: str, page: Any) -> None:
    page.goto(f"{server}/#/msprobe?tab=graphs")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=graph-file] option').length > 1")
    compare = page.evaluate("() => [...document.querySelectorAll('[data-testid=graph-file] option')]"
                            ".map(o => o.value).find(v => v.includes('/compare_statistics/'))")
    page.get_by_test_id("graph-file").select_option(compare)
    npu, bench = page.get_by_test_id("graph-side-NPU"), page.get_by_test_id("graph-side-Bench")
    child = '[data-testid=graph-node][data-name="Mint.sum.0.forward"]'
    npu.locator(child).wait_for()
    bench.locator(child).wait_for()
    assert page.get_by_test_id("graph-legend-item").count() == 4  # pass, warning, error, unmatched
    # the float16 fc2 of the target: an error precision index (1) on the NPU side
    assert npu.locator('[data-testid=graph-node][data-name="Cell._backbone.fc2.Dense.forward.0"]').get_attribute(
        "data-precision") == "1"
    npu.locator('[data-testid=graph-node][data-name="Cell._backbone.norm.Normalize.forward.0"] .twist').click()
    npu.locator(child).wait_for(state="detached")
    bench.locator(child).wait_for(state="detached")  # collapsed on both sides
    page.get_by_test_id("graph-filter").select_option("errors")
    shown = npu.locator("[data-testid=graph-node]").evaluate_all(
        "els => els.map(e => [e.dataset.precision, !!e.querySelector('button.twist')])")
    assert ["1", False] in shown  # an error leaf; every passing row left is an ancestor of one
    assert all(has_children for precision, has_children in shown if precision in ("", "0"))
    npu.locator('[data-testid=graph-node][data-name="Cell._backbone.fc2.Dense.forward.0"] .name').click()
    assert "NormRelativeErr" in page.get_by_test_id("graph-node-detail").inner_text()


def test_compare_opens_as_a_graph_built_from_the_two_dumps(server: str, page: Any) -> None:
    """No graph_visualize run: the compared pair is built into the side-by-side graph and drawn as a .vis.db is."""
    page.goto(f"{server}/#/msprobe?tab=compare")
    page.wait_for_function("() => (document.querySelector('[data-testid=compare-target] [data-testid=compare-dump]')"
                           "?.value ?? '') !== ''")
    page.get_by_test_id("compare-run").click()
    page.get_by_test_id("compare-answer").wait_for()
    page.get_by_test_id("compare-open-graph").click()
    npu, bench = page.get_by_test_id("graph-side-NPU"), page.get_by_test_id("graph-side-Bench")
    child = '[data-testid=graph-node][data-name="Mint.sum.0.forward"]'
    npu.locator(child).wait_for()
    bench.locator(child).wait_for()
    assert "graph_id=built" in page.url
    assert page.get_by_test_id("graph-file").input_value().startswith("built:")
    assert page.get_by_test_id("graph-legend-item").count() == 4
    assert npu.locator('[data-testid=graph-node][data-name="Cell._backbone.fc2.Dense.forward.0"]').get_attribute(
        "data-precision") == "1"  # the float16 fc2, as msprobe's own graph colours it
    assert npu.locator("[data-testid=graph-node]").count() == bench.locator("[data-testid=graph-node]").count()
    npu.locator('[data-testid=graph-node][data-name="Cell._backbone.fc2.Dense.forward.0"] .name').click()
    assert "NormRelativeErr" in page.get_by_test_id("graph-node-detail").inner_text()
    page.reload()  # the link holds what to build: it opens again
    page.get_by_test_id("graph-side-Bench").locator(child).wait_for()


def test_trend_heatmap_marks_the_nan_and_a_cell_opens_its_line(server: str, page: Any) -> None:
    page.goto(f"{server}/#/msprobe?tab=trends")
    page.wait_for_function("() => window.__charts?.['msprobe:trend']?.extra?.targets > 0")
    extra = page.evaluate("() => window.__charts['msprobe:trend'].extra")
    assert extra["steps"] in (4, 8) and extra["empty"] > 0  # the NaN step's cells are empty
    assert "NaN" in page.get_by_test_id("trend-empty").inner_text()
    x, y = page.evaluate("() => { const c = window.__charts['msprobe:trend'].instance(); "
                         "const d = c.getOption().series[0].data[0]; return c.convertToPixel({seriesIndex: 0}, [d[0], d[1]]) }")
    page.get_by_test_id("trend-heatmap").click(position={"x": x, "y": y})  # scrolled into view first
    page.wait_for_function("() => window.__charts?.['msprobe:trend-line']?.series?.[0]?.points > 0")


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from mindinsight_clone.summary.msprobe_demo import write_msprobe_demo

    base = tmp_path_factory.mktemp("msprobe-demo")
    write_msprobe_demo(base)
    yield from serve(base, tmp_path_factory.mktemp("msprobe-demo-ws"))


def test_a_node_across_the_ranks_shows_which_rank_has_the_nan(demo_server: str, page: Any) -> None:
    """The demo job's rank 1 divides 0 by 0 at step 2 (rank 0 only at step 3): across the ranks of step 2 the chart
    marks rank 1 alone."""
    page.goto(f"{demo_server}/#/msprobe?dump_id=./msprobe_target&step=2&rank=0&node=Mint.div.0.forward")
    page.locator('[data-testid=msprobe-node-detail][data-name="Mint.div.0.forward"][data-step="2"]').wait_for()
    page.get_by_test_id("msprobe-across-ranks").check()
    page.wait_for_function("() => window.__charts?.['msprobe:node-ranks']?.extra?.slot === 'output.0'")
    drawn = page.evaluate("() => window.__charts['msprobe:node-ranks'].extra")
    assert drawn["badRanks"] == ["rank1"], drawn
    page.get_by_test_id("msprobe-across-ranks").uncheck()  # back to the steps of the rank
    page.get_by_test_id("msprobe-steps-chart").wait_for()
    assert page.get_by_test_id("msprobe-ranks-chart").count() == 0


@pytest.fixture(scope="module")
def monitor_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A 2-rank monitor CSV output written as msprobe's TrainerMon writes it; rank 1 goes NaN at step 2."""
    from tests.monitor_csv_writer import write_rank

    base = tmp_path_factory.mktemp("monitor")
    out = base / "monitor_output"
    write_rank(out / "Nov29_15-30-14-rank0-e896a532", 0, range(4), ["actv", "grad_reduced"])
    write_rank(out / "Nov29_15-30-13-rank1-a92afa50", 1, range(4), ["actv", "grad_reduced"],
               nan_at=(2, "layers.1.weight"))
    yield from serve(base, tmp_path_factory.mktemp("monitor-ws"))


def test_monitor_csvs_draw_as_trends_per_rank(monitor_server: str, page: Any) -> None:
    page.goto(f"{monitor_server}/#/msprobe?tab=trends")
    page.wait_for_function("() => window.__charts?.['msprobe:trend']?.extra?.targets > 0")
    assert "monitor" in page.get_by_test_id("trend-file").inner_text()
    assert page.evaluate("() => window.__charts['msprobe:trend'].extra") == {"targets": 6, "steps": 4, "empty": 0}
    page.get_by_test_id("trend-metric").select_option("grad_reduced")
    page.get_by_test_id("trend-rank").select_option("1")
    page.wait_for_function("() => window.__charts['msprobe:trend'].extra.empty === 2")  # steps 2, 3 of layers.1.weight
    page.get_by_test_id("trend-stat").select_option("zeros")
    page.wait_for_function("() => window.__charts['msprobe:trend'].series?.[0]?.name === 'zeros'")
