"""Browser tests of the Debugger and Model pages while a dump is being written, and over the demo data.

One server (`--max-depth 2`, `--reload-interval 1`) on a temporary base dir holding
* what `scripts/make_demo_data` writes (its `lenet_dump/` goes NaN from iteration 3, its `models/`), and
* `dump/lenet`: a copy of the real MindSpore dump of ../shared/fixtures/mindspore_debug with NaN planted in
  iteration 3 (conv2's output and the ReLU input after it), made here at test time; iteration 3 is held back and
  moved in during the test, as a dump still being written gets it.
The first bad op is computed independently: from the fixture's EXPECTED.json (execution order of the planted
tensors) and, for the demo data, by numpy over its .npy files and its execution-order csv.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mindinsight_clone.analyzers.debugger.dumps import DEFAULT_TTL
from mindinsight_clone.summary.debug_files import write_checkpoint
from tests.conftest import REPO, SHARED
from tests.e2e.conftest import serve

DEBUG = SHARED / "fixtures" / "mindspore_debug"
HELD_BACK = 3


BAD_CKPT = {"w.ok": np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4),
            "w.nan": np.array([1.0, np.nan, 3.0, np.inf], dtype=np.float32),
            "b.big": np.full((5,), 7.5, dtype=np.float32)}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dbg-live")
    write_checkpoint(root / "ckpt_nan" / "bad.ckpt", BAD_CKPT)  # the project's own checkpoint writer
    # Few training steps (the runs are not under test here): the dump and model files do not depend on them.
    subprocess.run([sys.executable, str(REPO / "scripts" / "make_demo_data"), str(root), "--steps", "20"], check=True,
                   timeout=120, capture_output=True)
    return root


@pytest.fixture(scope="module")
def planted(base: Path) -> dict[str, Any]:
    """The NaN copy of the fixture dump at `base/dump/lenet` (iteration 3 of graph 0 kept aside in `base/held`)."""
    if not DEBUG.exists():
        return {}
    expected = json.loads((DEBUG / "dump" / "EXPECTED.json").read_text())["runs"]["lenet"]
    dest = base / "dump" / "lenet"
    shutil.copytree(DEBUG / "dump" / "lenet", dest, copy_function=shutil.copyfile)
    for folder, _dirs, _files in os.walk(dest):
        os.chmod(folder, 0o755)
    it3 = [t for t in expected["tensors"] if t["graph_id"] == 0 and t["iteration"] == HELD_BACK]
    conv2 = next(t for t in it3 if t["op_type"] == "Conv2D" and "conv2" in t["op_name"] and t["io"] == "output")
    relu = min((t for t in it3 if t["op_type"] == "ReLU" and t["io"] == "input"
                and t["execution_order_index"] > conv2["execution_order_index"]),
               key=lambda t: t["execution_order_index"])
    for t in (conv2, relu):
        path = base / "dump" / t["path"]
        array = np.load(path)
        array.reshape(-1)[7] = np.nan
        np.save(path, array)
    held = base / "held"
    shutil.move(dest / "rank_0" / "LeNet" / "0" / str(HELD_BACK), held)
    first = min((conv2, relu), key=lambda t: (t["execution_order_index"], t["io"] != "input"))
    return {"first": first, "planted": [conv2, relu], "held": held, "dest": dest, "tensors": expected["tensors"]}


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory, base: Path, planted: dict[str, Any]) -> Iterator[str]:
    yield from serve(base, tmp_path_factory.mktemp("dbg-live-ws"), "--max-depth", "2")


def _ready(page: Any) -> None:
    page.get_by_test_id("graph-canvas").and_(page.locator("[data-state=ready]")).wait_for()


def test_nan_or_inf_on_a_planted_copy_lands_on_the_first_bad_op_and_rechecks_live(
        page: Any, live_server: str, planted: dict[str, Any], screenshot: Callable[[Any, str], Path]) -> None:
    if not planted:
        pytest.skip(f"{DEBUG} is absent: the real MindSpore dump lives in ../shared (present in CI)")
    page.goto(f"{live_server}/?refresh=1#/debugger?dump_id=./dump/lenet")
    _ready(page)
    assert page.get_by_test_id("dbg-iteration").locator("option").evaluate_all("els => els.map(e => +e.value)") == [0, 2]
    page.get_by_test_id("dbg-check").click()  # nan_or_inf is checked by default
    page.get_by_test_id("dbg-hits-none").wait_for()
    assert page.get_by_test_id("dbg-check-result").get_attribute("data-iterations") == "2"

    # Iteration 3 is written: the page sees it and re-runs the check by itself.
    shutil.move(planted["held"], planted["dest"] / "rank_0" / "LeNet" / "0" / str(HELD_BACK))
    banner = page.get_by_test_id("dbg-first-bad")
    banner.wait_for(timeout=20_000)
    result = page.get_by_test_id("dbg-check-result")
    assert result.get_attribute("data-iterations") == "3"
    assert int(result.get_attribute("data-rechecks")) >= 1
    assert int(result.get_attribute("data-hits")) == len(planted["planted"])
    first = planted["first"]
    assert banner.get_attribute("data-op-name") == first["op_name"]
    assert banner.get_attribute("data-iteration") == str(HELD_BACK)
    assert banner.get_attribute("data-node") == first["graph_node"]
    firsts = page.locator("[data-testid=dbg-hit][data-first=true]").evaluate_all("els => els.map(e => e.dataset.opName)")
    assert firsts == [first["op_name"]]
    # Hits in execution order.
    assert page.get_by_test_id("dbg-hit").evaluate_all("els => els.map(e => e.dataset.opName)") == [
        t["op_name"] for t in sorted(planted["planted"], key=lambda t: t["execution_order_index"])]

    # One click from the banner: iteration 3, the op selected and marked in the graph, its tensor open.
    page.get_by_test_id("dbg-first-bad-go").click()
    page.wait_for_url(f"**iteration={HELD_BACK}**")
    page.wait_for_function("n => document.querySelector('[data-testid=graph-node-name]')?.textContent === n",
                           arg=first["graph_node"])
    # Drawn, selected and marked as the first NaN/Inf op.
    page.locator(f'[data-testid=graph-node].gc-selected[data-mark=first][data-name="{first["graph_node"]}"]').wait_for()
    tensor = page.locator(f'[data-testid=dbg-tensor][data-op-name="{first["op_name"]}"][data-loading=false]')
    tensor.wait_for()
    assert tensor.get_attribute("data-nan-inf") == "true"
    nan = page.locator('[data-testid=dbg-tensor-stats] [data-stat="nan"]').get_attribute("data-raw")
    assert nan == "1"
    assert page.get_by_test_id("tensor-cell").filter(has_text="NAN").count() <= 1
    assert page.get_by_test_id("dbg-goto-first").is_visible()
    screenshot(page, "debugger_first_bad_op")

    # A tensor file cut short (a dump still being written): said calmly with the reason, the page keeps working.
    conv1 = next(t for t in planted["tensors"] if t["op_type"] == "Conv2D" and "conv1" in t["op_name"]
                 and t["io"] == "output" and t["iteration"] == HELD_BACK and t["graph_id"] == 0)
    path = planted["dest"].parent / conv1["path"]
    os.truncate(path, path.stat().st_size // 3)
    # the server keeps a dump's listings (with each file's size) for DEFAULT_TTL seconds: after that, every view,
    # the node's tensor rows too, sees the cut file (before it, a row may still show the statistics of the whole one)
    time.sleep(DEFAULT_TTL + 0.3)
    page.goto(f"{live_server}/#/debugger?dump_id=./dump/lenet&iteration={HELD_BACK}"
              f"&tensor=output:0:{conv1['op_name']}&node={conv1['graph_node']}")
    calm = page.get_by_test_id("dbg-tensor-unreadable")
    calm.wait_for()
    assert "truncated" in calm.inner_text()
    assert page.get_by_test_id("state-error").count() == 0
    row = page.locator(f'[data-testid=dbg-node-tensor][data-op-name="{conv1["op_name"]}"][data-io=output]')
    assert "truncated" in row.inner_text()
    # The browser logs the tensor request's 400 itself: that is the answer under test, not a page error.
    page.console_errors[:] = [e for e in page.console_errors if "400" not in e]


def _demo_first_bad(base: Path) -> tuple[int, str]:
    """The demo dump's first NaN/Inf: earliest iteration with a non-finite tensor file, then the first such kernel
    in the execution-order csv (a file's op name is the kernel's full name with / -> _), inputs before outputs."""
    rank = base / "lenet_dump" / "rank_0"
    order = [line.strip().replace("/", "_") for line in
             (rank / "execution_order" / "ms_execution_order_graph_0.csv").read_text().splitlines()[1:] if line.strip()]
    graph_dir = next((rank).glob("*/0"))
    for folder in sorted(graph_dir.iterdir(), key=lambda p: int(p.name)):
        bad = []
        for f in folder.glob("*.npy"):
            parts = f.name[:-4].split(".")
            op_name, io = ".".join(parts[1:-7]), parts[-4]
            if op_name in order and not np.isfinite(np.load(f)).all():
                bad.append((order.index(op_name), io != "input", op_name))
        if bad:
            return int(folder.name), min(bad)[2]
    raise AssertionError("the demo dump has no NaN")


def test_demo_data_shows_both_pages(page: Any, live_server: str, base: Path) -> None:
    iteration, op_name = _demo_first_bad(base)
    page.goto(f"{live_server}/#/summary-manage")
    banner = page.get_by_test_id("summary-debug")
    banner.wait_for()
    links = page.get_by_test_id("summary-debugger-link").evaluate_all("els => els.map(e => e.dataset.dumpId)")
    assert "./lenet_dump" in links
    page.locator('[data-testid=summary-debugger-link][data-dump-id="./lenet_dump"]').click()
    _ready(page)
    dumped = sorted(int(p.name) for p in next((base / "lenet_dump" / "rank_0").glob("*/0")).iterdir())
    assert page.get_by_test_id("dbg-iteration").locator("option").evaluate_all("els => els.map(e => +e.value)") == dumped
    page.get_by_test_id("dbg-check").click()
    first = page.get_by_test_id("dbg-first-bad")
    first.wait_for()
    assert (first.get_attribute("data-iteration"), first.get_attribute("data-op-name")) == (str(iteration), op_name)

    page.get_by_test_id("nav-debugger").click()
    page.get_by_test_id("debug-tab-models").click()
    page.get_by_test_id("models-page").and_(page.locator("[data-status=ready]")).wait_for()
    files = page.get_by_test_id("model-file").evaluate_all("els => els.map(e => e.dataset.modelId)")
    demo = sorted(f"./models/{p.name}" for p in (base / "models").iterdir() if p.is_file())
    assert [f for f in files if f.startswith("./models/")] == demo
    page.locator('[data-testid=model-file][data-model-id="./models/lenet.mindir"]').click()
    _ready(page)
    nodes = int(page.get_by_test_id("model-facts").get_attribute("data-nodes"))
    page.get_by_test_id("model-tab-nodes").click()
    page.locator(f'[data-testid=model-nodes][data-rows="{nodes}"]').wait_for()
    assert nodes > 0
    page.get_by_test_id("model-tab-parameters").click()
    page.get_by_test_id("model-param-row").first.wait_for()
    assert page.get_by_test_id("model-parameters").get_attribute("data-source") == "./models/lenet.ckpt"
    assert page.get_by_test_id("model-param-missing").count() == 0
    page.locator('[data-testid=model-file][data-model-id="./models/lenet_graph.dot"]').click()
    drawing = page.locator("[data-testid=model-dot][data-state=ready]")
    drawing.wait_for()
    assert int(drawing.get_attribute("data-nodes")) > 0

    # A checkpoint with NaN/Inf: its row and a banner say so; any statistic sorts it.
    page.goto(f"{live_server}/#/models?model_id=./ckpt_nan/bad.ckpt")
    page.locator(f'[data-testid=model-param][data-rows="{len(BAD_CKPT)}"]').wait_for()
    bad = page.locator("[data-testid=model-param-row][data-bad=true]").evaluate_all("els => els.map(e => e.dataset.name)")
    assert bad == [name for name, a in BAD_CKPT.items() if not np.isfinite(a).all()]
    assert page.get_by_test_id("model-param-nonfinite").get_attribute("data-count") == "1"
    page.get_by_test_id("model-param-sort-mean").click()
    page.get_by_test_id("model-param-sort-mean").click()  # descending
    means = {name: float(a[np.isfinite(a)].mean()) for name, a in BAD_CKPT.items()}  # over the finite values
    order = page.get_by_test_id("model-param-row").evaluate_all("els => els.map(e => e.dataset.name)")
    assert order == sorted(BAD_CKPT, key=lambda n: -means[n]) != list(BAD_CKPT)

