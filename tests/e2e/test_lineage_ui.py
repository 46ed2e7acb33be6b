"""Model- and data-lineage pages in Chromium: brushing filters the table, sorting reorders it,
tag/remark edits persist in the workspace across a server restart, CSV export, data lineage.

The parallel-coordinates brush is driven two ways: through the chart instance the page
publishes (`window.__charts[id].instance().dispatchAction({type: 'axisAreaSelect', ...})`, the
action a mouse brush dispatches) and with a real mouse drag along an axis.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import free_port, require_shared, run_cli

MODEL_CHART = "model-lineage-parallel"
DATA_CHART = "data-lineage-parallel"


def api_lineages(base: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(f"{base}/v1/mindinsight/lineagemgr/lineages", data=json.dumps(body).encode(),
                                 method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def model_objects(base: str) -> list[dict[str, Any]]:
    return [o for o in api_lineages(base, {"lineage_type": {"in": ["model"]}})["object"] if o.get("model_lineage")]


def open_page(page: Any, base: str, route: str) -> None:
    page.goto(f"{base}/#{route}")
    page.wait_for_selector("[data-testid=lineage-row]")


def row_ids(page: Any) -> list[str]:
    return page.eval_on_selector_all("[data-testid=lineage-row]", "rows => rows.map(r => r.dataset.trainId)")


def row_count(page: Any) -> int:
    return int(page.get_attribute("[data-testid=lineage-row-count]", "data-count"))


def brush(page: Any, chart: str, axis: str, lo: float, hi: float) -> None:
    page.wait_for_function("id => window.__charts && window.__charts[id] && window.__charts[id].instance()", arg=chart)
    page.evaluate(
        """([id, axis, lo, hi]) => window.__charts[id].instance().dispatchAction(
               {type: 'axisAreaSelect', parallelAxisId: axis, intervals: [[lo, hi]]})""",
        [chart, axis, lo, hi],
    )


def wait_rows(page: Any, n: int) -> None:
    page.wait_for_function(
        "n => document.querySelector('[data-testid=lineage-row-count]').dataset.count === String(n)", arg=n)


# ---------------------------------------------------------------- model lineage

def test_model_lineage_shows_every_run_with_chart_and_importance(page: Any, ui_server: str, screenshot: Any) -> None:
    objects = model_objects(ui_server)
    assert objects, "the UI data has no lineage"
    open_page(page, ui_server, "/model-lineage")
    assert row_count(page) == len(objects)
    assert sorted(row_ids(page)) == sorted(o["summary_dir"] for o in objects)
    # Default order: the server's (newest lineage first).
    assert row_ids(page) == [o["summary_dir"] for o in objects]
    chart = page.locator(f"[data-testid={MODEL_CHART}-chart]")
    assert chart.get_attribute("data-rendered") == "true"
    assert int(chart.get_attribute("data-point-count")) == len(objects)
    axes = page.evaluate(f"window.__charts['{MODEL_CHART}'].extra.axes.map(a => a.id)")
    assert "batch_size" in axes and any(a.startswith("metric/") for a in axes)
    # Each run links to its dashboard.
    link = page.locator("[data-testid=lineage-row]").first.locator("[data-testid=lineage-run-link]")
    assert link.get_attribute("href").endswith(f"#/train-dashboard?train_id={objects[0]['summary_dir']}")
    # Parameter importance for the first metric.
    page.wait_for_selector("[data-testid=lineage-importance-item]", state="attached")
    target = page.input_value("[data-testid=lineage-target-select]")
    assert target.startswith("[M]") or target == "loss"
    names = page.eval_on_selector_all("[data-testid=lineage-importance-item]", "els => els.map(e => e.dataset.param)")
    assert "batch_size" in names
    screenshot(page, "model_lineage")


def test_brushing_an_axis_filters_the_table(page: Any, ui_server: str, screenshot: Any) -> None:
    objects = model_objects(ui_server)
    sizes = sorted({o["model_lineage"]["batch_size"] for o in objects if "batch_size" in o["model_lineage"]})
    if len(sizes) < 2:
        pytest.skip("needs runs with different batch sizes")
    lo, hi = sizes[-1] - 0.5, sizes[-1] + 0.5  # the largest batch size only
    expected = sorted(o["summary_dir"] for o in objects if lo <= o["model_lineage"].get("batch_size", -1) <= hi)
    open_page(page, ui_server, "/model-lineage")
    brush(page, MODEL_CHART, "batch_size", lo, hi)
    wait_rows(page, len(expected))
    assert sorted(row_ids(page)) == expected
    assert page.get_attribute(f"[data-testid={MODEL_CHART}-chart]", "data-brushed") == "true"
    # A second axis narrows further (both brushes apply); an empty interval list clears it.
    brush(page, MODEL_CHART, "batch_size", sizes[0] - 0.5, sizes[-1] + 0.5)
    wait_rows(page, sum(1 for o in objects if "batch_size" in o["model_lineage"]))
    screenshot(page, "model_lineage_brushed")
    page.click("[data-testid=lineage-clear-brush]")
    wait_rows(page, len(objects))
    assert page.is_disabled("[data-testid=lineage-clear-brush]")


def test_mouse_brush_on_an_axis_filters_the_table(page: Any, ui_server: str) -> None:
    objects = model_objects(ui_server)
    values = [o["model_lineage"].get("batch_size") for o in objects]
    if len({v for v in values if v is not None}) < 2:
        pytest.skip("needs runs with different batch sizes")
    top = max(v for v in values if v is not None)
    open_page(page, ui_server, "/model-lineage")
    page.wait_for_function(f"window.__charts && window.__charts['{MODEL_CHART}']")
    # A chart with many axes scrolls sideways (each axis keeps room for its whole name): bring the axis into view.
    page.evaluate(
        """id => {
             const inst = window.__charts[id].instance()
             const dim = 'dim' + window.__charts[id].extra.axes.findIndex(a => a.id === 'batch_size')
             const [x] = inst.getModel().getComponent('parallel').coordinateSystem.dataToPoint(0, dim)
             const scroller = inst.getDom().closest('[data-testid=parallel-scroll]')
             scroller.scrollLeft = Math.max(0, x - scroller.clientWidth / 2)
           }""",
        MODEL_CHART,
    )
    # Pixel position of the batch_size axis at two values, from the chart's coordinate system.
    pts = page.evaluate(
        """([id, top]) => {
             const inst = window.__charts[id].instance()
             const axes = window.__charts[id].extra.axes
             const dim = 'dim' + axes.findIndex(a => a.id === 'batch_size')
             const cs = inst.getModel().getComponent('parallel').coordinateSystem
             const box = inst.getDom().getBoundingClientRect()
             return [top + 0.5, top - 0.5].map(v => {
               const [x, y] = cs.dataToPoint(v, dim)
               return [box.left + x, box.top + y]
             })
           }""",
        [MODEL_CHART, top],
    )
    (x1, y1), (x2, y2) = pts
    page.mouse.move(x1, y1 - 4)
    page.mouse.down()
    page.mouse.move(x2, y2 + 4, steps=8)
    page.mouse.up()
    expected = sorted(o["summary_dir"] for o in objects if o["model_lineage"].get("batch_size") == top)
    wait_rows(page, len(expected))
    assert sorted(row_ids(page)) == expected


def test_sorting_a_column_reorders_the_table(page: Any, ui_server: str) -> None:
    objects = model_objects(ui_server)
    open_page(page, ui_server, "/model-lineage")

    def expected(desc: bool) -> list[str]:
        have = [o for o in objects if o["model_lineage"].get("learning_rate") is not None]
        missing = [o["summary_dir"] for o in objects if o["model_lineage"].get("learning_rate") is None]
        # Stable: ties keep the default order; missing values always last.
        sign = -1 if desc else 1
        ordered = sorted(have, key=lambda o: sign * o["model_lineage"]["learning_rate"])
        return [o["summary_dir"] for o in ordered] + missing

    header = page.locator("[data-testid=lineage-th][data-col=learning_rate]")
    header.click()
    page.wait_for_function("() => document.querySelector('[data-testid=lineage-th][data-col=learning_rate]')"
                           ".getAttribute('aria-sort') === 'ascending'")
    assert row_ids(page) == expected(desc=False)
    header.click()
    page.wait_for_function("() => document.querySelector('[data-testid=lineage-th][data-col=learning_rate]')"
                           ".getAttribute('aria-sort') === 'descending'")
    assert row_ids(page) == expected(desc=True)
    assert "sort=learning_rate" in page.url and "order=desc" in page.url
    # A string column sorts too (summary path, ascending).
    page.locator("[data-testid=lineage-th][data-col=summary_dir]").click()
    page.wait_for_function("() => document.querySelector('[data-testid=lineage-th][data-col=summary_dir]')"
                           ".getAttribute('aria-sort') === 'ascending'")
    ids = row_ids(page)
    assert len(ids) == len(objects) and ids[0] <= ids[-1]


def test_column_picker_changes_axes_and_columns(page: Any, ui_server: str) -> None:
    open_page(page, ui_server, "/model-lineage")
    page.click("[data-testid=lineage-columns-button]")
    option = page.locator("[data-testid=lineage-columns-option][data-col=batch_size]")
    assert option.get_attribute("data-checked") == "true"
    option.locator("input").uncheck()
    page.wait_for_function(f"!window.__charts['{MODEL_CHART}'].extra.axes.some(a => a.id === 'batch_size')")
    assert page.locator("[data-testid=lineage-th][data-col=batch_size]").count() == 0
    page.click("[data-testid=lineage-columns-reset]")
    page.wait_for_selector("[data-testid=lineage-th][data-col=batch_size]")


def test_csv_export_matches_the_table(page: Any, ui_server: str, tmp_path: Path) -> None:
    objects = model_objects(ui_server)
    open_page(page, ui_server, "/model-lineage")
    with page.expect_download() as info:
        page.click("[data-testid=lineage-export-csv]")
    path = tmp_path / "out.csv"
    info.value.save_as(path)
    lines = path.read_text().strip().splitlines()
    header = lines[0].split(",")
    assert header[0] == "summary_dir" and header[-2:] == ["tag", "remark"]
    assert len(lines) == 1 + len(objects)
    assert [line.split(",")[0] for line in lines[1:]] == row_ids(page)


# ---------------------------------------------------------------- tag and remark across a restart

@pytest.fixture
def own_server(ui_base_dir: Path, tmp_path: Path) -> Iterator[Any]:
    """Starts/stops servers of our own on one workspace (the restart test)."""
    ws = tmp_path / "ws"
    ports: list[int] = []

    def start() -> str:
        port = free_port()
        done = run_cli("start", "--port", str(port), "--summary-base-dir", str(ui_base_dir), "--workspace", str(ws),
                       "--reload-interval", "1")
        assert done.returncode == 0, done.stdout + done.stderr
        ports.append(port)
        return f"http://127.0.0.1:{port}"

    def stop() -> None:
        port = ports.pop()
        done = run_cli("stop", "--port", str(port), "--workspace", str(ws))
        assert done.returncode == 0, done.stdout + done.stderr

    yield start, stop
    while ports:
        stop()


def test_remark_and_tag_survive_a_server_restart(page: Any, own_server: Any, screenshot: Any) -> None:
    start, stop = own_server
    base = start()
    open_page(page, base, "/model-lineage")
    row = page.locator("[data-testid=lineage-row]").first
    train_id = row.get_attribute("data-train-id")
    remark = "best run so far — keep ✓"

    row.locator("[data-testid=lineage-remark-edit]").click()
    row.locator("[data-testid=lineage-remark-input]").fill(remark)
    with page.expect_response(lambda r: r.request.method == "PUT" and "lineagemgr/lineages" in r.url) as put:
        row.locator("[data-testid=lineage-remark-input]").press("Enter")
    assert put.value.ok
    assert put.value.request.headers["content-type"].startswith("application/json")
    assert json.loads(put.value.request.post_data) == {"remark": remark}

    row.locator("[data-testid=lineage-tag-button]").click()
    with page.expect_response(lambda r: r.request.method == "PUT" and "lineagemgr/lineages" in r.url) as put:
        page.click("[data-testid=lineage-tag-option][data-tag='7']")
    assert put.value.ok and json.loads(put.value.request.post_data) == {"tag": 7}
    assert row.locator("[data-testid=lineage-tag]").get_attribute("data-tag") == "7"

    # Leave the page before the server goes away (its auto-refresh would log failed requests).
    page.goto("about:blank")
    stop()
    base = start()
    open_page(page, base, "/model-lineage")
    again = page.locator(f"[data-testid=lineage-row][data-train-id='{train_id}']")
    assert again.locator("[data-testid=lineage-remark-text]").inner_text() == remark
    assert again.locator("[data-testid=lineage-tag]").get_attribute("data-tag") == "7"
    # Sorting by tag, descending, puts the tagged run first.
    page.locator("[data-testid=lineage-th][data-col=tag]").click()
    page.locator("[data-testid=lineage-th][data-col=tag]").click()
    page.wait_for_function("id => document.querySelector('[data-testid=lineage-row]').dataset.trainId === id",
                           arg=train_id)
    screenshot(page, "model_lineage_after_restart")
    page.goto("about:blank")


# ---------------------------------------------------------------- data lineage

def test_data_lineage_table_chart_and_brush(page: Any, ui_server: str, screenshot: Any) -> None:
    objects = [o for o in api_lineages(ui_server, {})["object"] if o.get("dataset_graph")]
    assert objects
    page.goto(f"{ui_server}/#/data-lineage")
    page.wait_for_selector("[data-testid=lineage-row]")
    assert row_count(page) == len(objects)
    axes = page.evaluate(f"window.__charts['{DATA_CHART}'].extra.axes")
    assert axes[0]["id"] == "dataset_mark" and any(a["id"].startswith("op:Batch") for a in axes)
    screenshot(page, "data_lineage")

    require_shared()
    # Fixture: ./landscape has no Shuffle, unlike the lineage_* sweep.
    landscape = page.locator("[data-testid=lineage-row][data-train-id='./landscape']")
    shuffle_key = next(a["id"] for a in axes if a["id"].startswith("op:Shuffle"))
    cell = landscape.locator(f"td[data-col='{shuffle_key}']")
    assert "absent" in cell.inner_text() and cell.get_attribute("data-differs") == "true"
    # Brushing the Batch axis on one batch size keeps the runs whose root Batch op has it.
    batch = next(a for a in axes if a["id"].startswith("op:Batch"))
    index = next(i for i, c in enumerate(batch["categories"]) if c == "batch_size=16")
    brush(page, DATA_CHART, batch["id"], index - 0.3, index + 0.3)
    expected = sorted(o["summary_dir"] for o in objects if o["dataset_graph"].get("batch_size") == 16)
    wait_rows(page, len(expected))
    assert sorted(row_ids(page)) == expected
    screenshot(page, "data_lineage_brushed")
