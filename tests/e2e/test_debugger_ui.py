"""Browser tests of the Debugger (#/debugger) and Model (#/models) pages over the real MindSpore 2.10 debugging
output in ../shared/fixtures/mindspore_debug, read in place by one server (`--max-depth 3`: the dump root
`./dump/lenet` sits two levels down).

Expected values come from the fixture's EXPECTED.json (written by the generator) or from numpy over the fixture's
own .npy files, never from our answers. The planted-NaN copy and the live re-check are in test_debugger_live_ui.py.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import SHARED, require_shared
from tests.e2e.conftest import serve
from tests.e2e.test_ui_access import _non_ascii_icon_buttons, _unnamed_controls

DEBUG = SHARED / "fixtures" / "mindspore_debug"
CONV1 = "Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/Conv2D-op0"


@pytest.fixture(scope="module")
def debug_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    require_shared(DEBUG)
    yield from serve(DEBUG, tmp_path_factory.mktemp("dbg-ui-ws"), "--max-depth", "3")


@pytest.fixture(scope="module")
def dump() -> dict[str, Any]:
    require_shared(DEBUG)
    return json.loads((DEBUG / "dump" / "EXPECTED.json").read_text())["runs"]["lenet"]


@pytest.fixture(scope="module")
def models() -> dict[str, Any]:
    require_shared(DEBUG)
    return json.loads((DEBUG / "mindir" / "EXPECTED.json").read_text())


def _tensor(dump: dict[str, Any], iteration: int, node: str, io: str, slot: int = 0) -> dict[str, Any]:
    return next(t for t in dump["tensors"] if t["graph_id"] == 0 and t["iteration"] == iteration
                and t["graph_node"] == node and t["io"] == io and t["slot"] == slot)


def _values(t: dict[str, Any]) -> np.ndarray:
    return np.load(DEBUG / "dump" / t["path"])


def _cells(page: Any) -> list[float]:
    return [float(x) for x in page.get_by_test_id("tensor-cell").all_inner_texts()]


def _stat(page: Any, key: str) -> float:
    return float(page.locator(f'[data-testid=dbg-tensor-stats] [data-stat="{key}"]').get_attribute("data-raw"))


def _ready(page: Any) -> None:
    page.get_by_test_id("graph-canvas").and_(page.locator("[data-state=ready]")).wait_for()


def _open_conv1_output(page: Any, debug_server: str, iteration: int = 3) -> None:
    page.goto(f"{debug_server}/#/debugger?iteration=0")
    _ready(page)
    page.get_by_test_id("dbg-iteration").select_option(str(iteration))
    page.wait_for_url(f"**iteration={iteration}**")
    page.get_by_test_id("graph-search").fill("Conv2D-op0")
    page.locator(f'[data-testid=graph-search-result][data-name="{CONV1}"]').click()
    page.wait_for_function("n => document.querySelector('[data-testid=graph-node-name]')?.textContent === n", arg=CONV1)
    page.locator('[data-testid=dbg-node-tensor][data-io=output][data-slot="0"]').click()
    page.locator(f'[data-testid=dbg-tensor][data-iteration="{iteration}"][data-loading=false]').wait_for()


def test_open_the_dump_pick_iteration_3_and_a_conv_output_tensor(page: Any, debug_server: str, dump: dict[str, Any],
                                                                  screenshot: Callable[[Any, str], Path]) -> None:
    page.goto(f"{debug_server}/#/debugger")
    _ready(page)
    assert page.get_by_test_id("dbg-dump").input_value() == "./dump/lenet"
    iterations = sorted({t["iteration"] for t in dump["tensors"] if t["graph_id"] == 0})
    shown = page.get_by_test_id("dbg-iteration").locator("option").evaluate_all("els => els.map(e => +e.value)")
    assert shown == iterations == [0, 2, 3]

    _open_conv1_output(page, debug_server, 3)
    # The node panel lists what was dumped for the node in iteration 3, as EXPECTED.json has it.
    want = sorted((t["io"], t["slot"]) for t in dump["tensors"] if t["graph_id"] == 0 and t["iteration"] == 3
                  and t["graph_node"] == CONV1)
    got = page.get_by_test_id("dbg-node-tensor").evaluate_all("els => els.map(e => [e.dataset.io, +e.dataset.slot])")
    assert sorted(map(tuple, got)) == want
    conv = _tensor(dump, 3, CONV1, "output")
    for key in ("min", "max", "mean", "std", "count"):
        assert _stat(page, key) == pytest.approx(conv[key], rel=1e-9), key
    assert _stat(page, "nan") == 0
    # The default window is the first 10 x 10 of the last two axes, read by the server from the file.
    values = _values(conv)
    table = page.get_by_test_id("tensor-table")
    assert (table.get_attribute("data-rows"), table.get_attribute("data-cols")) == ("10", "10")
    assert _cells(page) == pytest.approx(values[0, 0, :10, :10].ravel(), abs=1e-5)
    screenshot(page, "debugger_tensor_table")

    # Another window, as numpy slices it.
    for i, text in enumerate(["1", "2", "5:9", "20:"]):
        page.get_by_test_id(f"tensor-dim-{i}").fill(text)
    page.get_by_test_id("tensor-dims-apply").click()
    page.locator('[data-testid=tensor-table][data-rows="4"][data-cols="8"]').wait_for()
    assert _cells(page) == pytest.approx(values[1, 2, 5:9, 20:].ravel(), abs=1e-5)

    # The same window as a heat map.
    page.get_by_test_id("dbg-tensor-view-heatmap").click()
    heat = page.locator("[data-testid=dbg-tensor-heatmap][data-rendered=true]")
    heat.wait_for()
    points = page.evaluate("id => window.__charts[id].series.map(s => s.points)", heat.get_attribute("data-chart-id"))
    assert points == [32, 0, 0, 0]  # 4 x 8 finite cells, no NaN, +Inf or -Inf

    # Compared with iteration 2: the window of the difference.
    page.get_by_test_id("dbg-tensor-view-table").click()
    page.get_by_test_id("dbg-tensor-compare").select_option("2")
    page.get_by_test_id("dbg-tensor-diff").wait_for()
    page.locator("[data-testid=dbg-tensor][data-loading=false] [data-testid=tensor-table]").wait_for()
    other = _values(_tensor(dump, 2, CONV1, "output"))
    diff = values.astype(np.float64) - other.astype(np.float64)
    assert _cells(page) == pytest.approx(diff[1, 2, 5:9, 20:].ravel(), abs=1e-5)
    assert "cmp=2" in page.url

    # Its histogram (finite values of the whole tensor).
    page.get_by_test_id("dbg-tensor-view-histogram").click()
    page.locator("[data-testid=dbg-tensor-histogram-chart][data-rendered=true]").wait_for()
    screenshot(page, "debugger_tensor_histogram")

    # Another iteration keeps the node and the tensor (and shows iteration 2's).
    page.get_by_test_id("dbg-tensor-view-table").click()
    page.get_by_test_id("dbg-iteration-prev").click()  # 3 -> 2
    page.locator('[data-testid=dbg-tensor][data-iteration="2"][data-loading=false]').wait_for()
    assert _stat(page, "max") == pytest.approx(_tensor(dump, 2, CONV1, "output")["max"], rel=1e-9)
    assert page.get_by_test_id("graph-node-name").inner_text() == CONV1
    # The node's tensors are now iteration 2's; a keyboard user opens one with Enter.
    page.locator('[data-testid=dbg-node-tensor][data-io=input][data-slot="0"]').focus()
    page.keyboard.press("Enter")
    page.locator("[data-testid=dbg-tensor][data-io=input][data-loading=false]").wait_for()
    assert _stat(page, "mean") == pytest.approx(_tensor(dump, 2, CONV1, "input")["mean"], rel=1e-9)


def test_iteration_tensor_table_and_a_watchpoint_over_the_clean_dump(page: Any, debug_server: str,
                                                                     dump: dict[str, Any]) -> None:
    page.goto(f"{debug_server}/#/debugger?iteration=3")
    _ready(page)
    page.get_by_test_id("dbg-lower-tab-tensors").click()
    table = page.get_by_test_id("dbg-iteration-tensors")
    it3 = [t for t in dump["tensors"] if t["graph_id"] == 0 and t["iteration"] == 3]
    page.locator(f'[data-testid=dbg-iteration-tensors][data-total="{len(it3)}"]').wait_for()
    page.get_by_test_id("dbg-tensor-search").fill("conv2")
    matching = [t for t in it3 if "conv2" in t["op_name"].lower() or "conv2" in (t["graph_node"] or "").lower()]
    page.locator(f'[data-testid=dbg-iteration-tensors][data-total="{len(matching)}"]').wait_for()
    assert int(table.get_attribute("data-total")) == len(matching)
    # A row opens its tensor and selects its node in the graph.
    row = page.get_by_test_id("dbg-iteration-tensor").first
    op = row.get_attribute("data-op-name")
    row.get_by_test_id("dbg-iteration-tensor-open").click()
    page.locator(f'[data-testid=dbg-tensor][data-op-name="{op}"]').wait_for()
    node = next(t["graph_node"] for t in it3 if t["op_name"] == op)
    page.wait_for_function("n => document.querySelector('[data-testid=graph-node-name]')?.textContent === n", arg=node)

    # too_large needs a threshold (MindInsight has no default): the check waits for one.
    page.get_by_test_id("dbg-condition-nan_or_inf").uncheck()
    page.get_by_test_id("dbg-condition-too_large").check()
    page.get_by_test_id("dbg-condition-problem-too_large").wait_for()
    assert page.get_by_test_id("dbg-check").is_disabled()
    page.get_by_test_id("dbg-param-too_large-max_gt").fill("5")
    page.get_by_test_id("dbg-check").click()
    result = page.get_by_test_id("dbg-check-result")
    result.wait_for()
    graph0 = [t for t in dump["tensors"] if t["graph_id"] == 0]
    over = [t for t in graph0 if t["max"] is not None and t["max"] > 5]
    assert int(result.get_attribute("data-hits")) == len(over)
    assert int(result.get_attribute("data-iterations")) == 3
    # One first hit per iteration, highlighted; no NaN/Inf anywhere in the real dump.
    firsts = page.locator("[data-testid=dbg-hit][data-first=true]").evaluate_all("els => els.map(e => +e.dataset.iteration)")
    assert sorted(firsts) == sorted({t["iteration"] for t in over})
    assert page.get_by_test_id("dbg-first-bad").count() == 0
    # each hit's figure says what it was tested against, and the column says what it holds
    assert page.get_by_test_id("dbg-hits-value-head").get_attribute("title")
    assert page.get_by_test_id("dbg-hit-param").first.inner_text() == "Max > 5"
    figures = page.get_by_test_id("dbg-hit-value").evaluate_all("els => els.map(e => e.firstChild.textContent.trim())")
    assert figures and all(float(f) > 5 for f in figures)


def test_lenet_mindir_shows_its_30_nodes_and_checkpoint_statistics(page: Any, debug_server: str,
                                                                    models: dict[str, Any],
                                                                    screenshot: Callable[[Any, str], Path]) -> None:
    page.goto(f"{debug_server}/#/models?model_id=./mindir/lenet.mindir")
    _ready(page)  # the MindIR's graph in the graph explorer
    facts = page.get_by_test_id("model-facts")
    mindir = models["lenet.mindir"]
    assert int(facts.get_attribute("data-nodes")) == mindir["node_count"] == 30
    assert int(facts.get_attribute("data-parameters")) == mindir["parameter_count"]
    screenshot(page, "models_mindir_graph")

    page.get_by_test_id("model-tab-nodes").click()
    nodes = page.locator('[data-testid=model-nodes][data-rows="30"]')
    nodes.wait_for()
    types = page.locator('[data-testid=model-nodes-row] td[data-col="op_type"]').all_inner_texts()
    want = Counter()
    for op_type, n in mindir["node_op_types"].items():  # REF::Conv2D:4 -> Conv2D
        want[op_type.removeprefix("REF::").split(":")[0]] += n
    assert len(types) == 30 and Counter(types) == want

    # Parameters: statistics from the checkpoint beside it, sortable by any statistic.
    page.get_by_test_id("model-tab-parameters").click()
    params = page.get_by_test_id("model-parameters")
    params.wait_for()
    assert params.get_attribute("data-source") == "./mindir/lenet.ckpt"
    page.get_by_test_id("model-param-row").first.wait_for()
    page.get_by_test_id("model-param-sort-max").click()
    page.get_by_test_id("model-param-sort-max").click()  # descending
    order = page.get_by_test_id("model-param-row").evaluate_all("els => els.map(e => e.dataset.name)")
    ckpt = models["lenet.ckpt"]["values"]
    assert order == [v["tag"] for v in sorted(ckpt, key=lambda v: -v["max"])]
    assert page.get_by_test_id("model-param").get_attribute("data-sort") == "max:desc"
    screenshot(page, "models_mindir_parameters")


def test_checkpoint_table_and_comparison_by_name(page: Any, debug_server: str, models: dict[str, Any]) -> None:
    page.goto(f"{debug_server}/#/models?model_id=./mindir/lenet_train.ckpt")
    train = models["lenet_train.ckpt"]["values"]
    page.locator(f'[data-testid=model-param][data-rows="{len(train)}"]').wait_for()
    # Sorting by the minimum (keyboard: Enter on the header).
    page.get_by_test_id("model-param-sort-min").focus()
    page.keyboard.press("Enter")
    order = page.get_by_test_id("model-param-row").evaluate_all("els => els.map(e => e.dataset.name)")
    assert order == [v["tag"] for v in sorted(train, key=lambda v: v["min"])]
    assert page.locator("[data-testid=model-param-row][data-bad=true]").count() == 0  # no NaN/Inf in it

    page.get_by_test_id("model-tab-compare").click()
    page.get_by_test_id("model-compare-other").select_option("./mindir/lenet.ckpt")
    net = {v["tag"] for v in models["lenet.ckpt"]["values"]}
    page.locator(f'[data-testid=model-compare][data-rows="{len(net)}"]').wait_for()
    # The trained checkpoint's weights are those of the net checkpoint (saved at the same moment).
    assert page.locator('[data-testid=model-compare-row] td[data-col="equal"]').all_inner_texts() == ["✓"] * len(net)
    only = page.get_by_test_id("model-only-in-model").inner_text()
    assert all(name in only for name in {v["tag"] for v in train} - net)


def test_ir_text_with_its_node_list_and_a_dot_drawing(page: Any, debug_server: str) -> None:
    ir = json.loads((DEBUG / "ir" / "EXPECTED.json").read_text())["levels"]
    build = next(f for f in ir["1"]["files"] if f["path"] == "level1/graph_build_0_0094.ir")
    page.goto(f"{debug_server}/#/models?model_id=./ir/level1/graph_build_0_0094.ir")
    nodes = page.locator(f'[data-testid=model-text-nodes][data-count="{build["total_cnodes"]}"]')
    nodes.wait_for()
    text = (DEBUG / "ir" / build["path"]).read_text().split("\n")
    assert int(page.get_by_test_id("model-text").get_attribute("data-lines")) == len(text)
    page.get_by_test_id("model-text-node-filter").fill("conv2d")
    page.locator(f'[data-testid=model-text-node][data-name="{CONV1}"]').click()
    line = int(page.get_by_test_id("model-text").get_attribute("data-line"))
    assert "= Conv2D(" in text[line] and f"Fullname with scope: ({CONV1})" in "".join(text[line:line + 8])
    page.locator(f'[data-testid=model-text-line][data-n="{line}"].current').wait_for()

    dot = next(f for f in ir["3"]["files"] if f["path"] == "level3/00_bootstrap_0001.dot")
    page.goto(f"{debug_server}/#/models?model_id=./ir/level3/00_bootstrap_0001.dot")
    drawing = page.locator("[data-testid=model-dot][data-state=ready]")
    drawing.wait_for()
    # Every node statement of the file is drawn: EXPECTED's MindSpore nodes plus the `parameters_<id>` table.
    statements = re.findall(r"^\s*(\w+)\s*\[", (DEBUG / "ir" / dot["path"]).read_text(), re.M)
    assert len(statements) == dot["node_definitions"] + 1
    assert int(drawing.get_attribute("data-nodes")) == len(statements)
    assert int(drawing.get_attribute("data-edges")) == dot["edges"]
    assert page.locator("[data-testid=model-dot] svg script, [data-testid=model-dot] svg a").count() == 0


def test_both_pages_in_chinese_dark_and_every_control_named(page: Any, debug_server: str,
                                                           screenshot: Callable[[Any, str], Path]) -> None:
    cdp = page.context.new_cdp_session(page)
    _open_conv1_output(page, debug_server, 3)
    page.get_by_test_id("lang-zh").click()
    page.get_by_test_id("theme-select").select_option("dark")
    assert page.get_by_test_id("debug-tab-dumps").inner_text() == "离线调试器"
    assert page.get_by_test_id("dbg-check").inner_text() == "检查"
    page.get_by_test_id("dbg-condition-too_large").check()  # its parameter inputs
    screenshot(page, "debugger_zh_dark")
    walk = [(None, None)] + [(f"/models?model_id=./mindir/lenet.mindir&tab={tab}", sel) for tab, sel in (
        # inside the models page: the debugger's own ready canvas stays in the DOM until the hash route is swapped
        ("graph", "[data-testid=model-content] [data-testid=graph-canvas][data-state=ready]"), ("parameters", "[data-testid=model-param-row]"),
        ("compare", "[data-testid=model-compare-row]"))] + [
        ("/models?model_id=./ir/level1/graph_build_0_0094.ir", "[data-testid=model-text-node]")]
    for route, ready in walk:
        if route:
            page.goto(f"{debug_server}/#{route}")
            page.wait_for_selector(ready)
        count, bad = _unnamed_controls(page, cdp)
        assert count > 3 and not bad, (route, bad)
        assert not _non_ascii_icon_buttons(page), route
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
