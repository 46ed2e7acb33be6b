"""Browser tests of the profiler page (#/profiler) on MindSpore 2.10 profiler output (./profiler_cpu).

The expected operator types are read from the fixture's own `cpu_op_type_info_0.csv`, so the assertions
follow the files rather than hard-coded names.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, require_shared

RUN = "./profiler_cpu"


def _op_types(run: str = RUN) -> list[str]:
    require_shared(FIXTURES)
    files = sorted((FIXTURES / run).glob("profiler*/*_ascend_ms/FRAMEWORK/cpu_op_type_info_0.csv"))
    assert files, f"no cpu_op_type_info_0.csv under {run}"
    with files[0].open(newline="") as fh:
        return [row["op_type"] for row in csv.DictReader(fh)]


def _detail_rows(run: str = RUN) -> int:
    files = sorted((FIXTURES / run).glob("profiler*/*_ascend_ms/FRAMEWORK/cpu_op_detail_info_0.csv"))
    with files[0].open(newline="") as fh:
        return sum(1 for _ in csv.DictReader(fh))


def _open(page: Any, base: str, query: str) -> None:
    page.goto(f"{base}/#/profiler?{query}")
    page.wait_for_selector('[data-testid="profiler-page"][data-status="ready"]')


def _row_types(page: Any) -> list[str]:
    return page.eval_on_selector_all('[data-testid="op-row"]', "rows => rows.map(r => r.dataset.opType)")


def _wait_rows(page: Any, predicate_js: str) -> None:
    """Waits until the table has rows and `predicate_js` (a function body over `rows`) holds.

    The page's CSP forbids eval/new Function, so the predicate is spliced into the script itself."""
    page.wait_for_function(
        "() => { const rows = [...document.querySelectorAll('[data-testid=op-row]')];"
        " return rows.length > 0 && ((rows) => { %s })(rows) }" % predicate_js
    )


def test_overview_shows_totals_steps_and_top_ops(ui_server: str, page: Any, screenshot: Callable[..., Path]) -> None:
    types = _op_types()
    _open(page, ui_server, f"train_id={RUN}")
    page.wait_for_selector('[data-testid="ov-op-pie"][data-rendered="true"]')
    assert page.inner_text('[data-testid="ov-step-count"] [data-testid="ov-value"]').strip() == "4"
    assert "ms" in page.inner_text('[data-testid="ov-total-time"] [data-testid="ov-value"]')
    top = page.locator('[data-testid="ov-top-op"]').all_inner_texts()
    assert top and all(any(t in line for t in types) for line in top)
    # the biggest type of the fixture (by total time) comes first
    assert "Conv2D" in top[0]
    assert page.locator('[data-testid^="ov-hint-"]').count() >= 1
    screenshot(page, "profiler_overview")


def test_operator_pie_and_table_show_fixture_op_types(
    ui_server: str, page: Any, screenshot: Callable[..., Path]
) -> None:
    types = _op_types()
    _open(page, ui_server, f"train_id={RUN}&tab=ops")
    chart = page.locator('[data-testid="op-chart"]')
    page.wait_for_selector('[data-testid="op-chart"][data-rendered="true"]')
    assert chart.get_attribute("data-kind") == "pie"
    assert set(chart.get_attribute("data-names").split("|")) == set(types)  # 15 types, all in the top 20
    _wait_rows(page, "return true")
    assert sorted(_row_types(page)) == sorted(types)
    assert page.inner_text('[data-testid="op-pager-total"]').strip().endswith(str(len(types)))
    screenshot(page, "profiler_ops_pie")

    page.click('[data-testid="op-chart-kind-bar"]')
    page.wait_for_selector('[data-testid="op-chart"][data-kind="bar"][data-rendered="true"]')
    assert "chart=bar" in page.url
    screenshot(page, "profiler_ops_bar")


def test_operator_search_sort_paging_and_expand(ui_server: str, page: Any, screenshot: Callable[..., Path]) -> None:
    types = _op_types()
    _open(page, ui_server, f"train_id={RUN}&tab=ops")
    _wait_rows(page, "return true")

    # fuzzy, case-insensitive search on the type
    page.fill('[data-testid="op-search"]', "conv")
    want = sorted(t for t in types if "conv" in t.lower())
    _wait_rows(page, f"return rows.length === {len(want)}")
    assert sorted(_row_types(page)) == want
    page.fill('[data-testid="op-search"]', "")
    _wait_rows(page, f"return rows.length === {len(types)}")

    # sort on a column: first click descending, second ascending
    page.click('[data-testid="op-sort-op_type"]')
    _wait_rows(page, "return rows[0].dataset.opType === " + repr(max(types)))
    assert _row_types(page) == sorted(types, reverse=True)
    page.click('[data-testid="op-sort-op_type"]')
    _wait_rows(page, "return rows[0].dataset.opType === " + repr(min(types)))
    assert _row_types(page) == sorted(types)
    assert page.get_attribute('[data-testid="op-sort-op_type"]', "aria-sort") == "ascending"

    # paging: 10 a page, offset is a page index
    page.select_option('[data-testid="op-pager-size"]', "10")
    _wait_rows(page, "return rows.length === 10")
    page.click('[data-testid="op-pager-next"]')
    _wait_rows(page, f"return rows.length === {len(types) - 10}")
    assert _row_types(page) == sorted(types)[10:]

    # grouped by type: expand a type into its operators
    page.click('[data-testid="op-pager-prev"]')
    _wait_rows(page, "return rows.length === 10")
    page.locator('[data-testid="op-row"]', has_text="Conv2D").first.locator('[data-testid="op-expand"]').click()
    page.wait_for_selector('[data-testid="op-detail-row"]')
    details = page.locator('[data-testid="op-detail-row"]').all_inner_texts()
    assert details and all("Conv2D" in d for d in details)
    screenshot(page, "profiler_ops_expanded")

    # all operators: every row of the detail CSV, searchable by name
    page.click('[data-testid="op-view-all"]')
    page.wait_for_function(
        "n => document.querySelector('[data-testid=op-table]')?.dataset.view === 'all'"
        " && document.querySelector('[data-testid=op-table]').dataset.size === String(n)",
        arg=_detail_rows(),
    )
    page.fill('[data-testid="op-search"]', "matmul")
    _wait_rows(page, "return rows.every(r => /matmul/i.test(r.textContent))")
    assert all(t == "MatMul" for t in _row_types(page))


def test_timeline_renders_and_zooms(ui_server: str, page: Any, screenshot: Callable[..., Path]) -> None:
    require_shared(FIXTURES)
    _open(page, ui_server, f"train_id={RUN}&tab=timeline")
    sel = '[data-testid="timeline-chart"]'
    page.wait_for_selector(f'{sel}[data-rendered="true"]')
    chart = page.locator(sel)
    extent = int(chart.get_attribute("data-extent"))
    assert extent > 0
    assert int(chart.get_attribute("data-event-count")) > 0
    assert int(chart.get_attribute("data-lane-count")) >= 2  # CPU OP + Scope Layer threads
    assert (chart.get_attribute("data-window-start"), chart.get_attribute("data-window-end")) == ("0", str(extent))
    fetches = int(chart.get_attribute("data-fetches"))
    screenshot(page, "profiler_timeline")

    # zoom in with the button: the visible window shrinks and that window is re-fetched
    page.click('[data-testid="timeline-zoom-in"]')
    page.wait_for_function(
        "([s, n]) => { const e = document.querySelector(s); return Number(e.dataset.windowEnd) - Number(e.dataset.windowStart)"
        " < 0.6 * n && Number(e.dataset.fetches) > %d && e.dataset.loadedWindow !== '0-' + n }" % fetches,
        arg=[sel, extent],
    )
    start, end = int(chart.get_attribute("data-window-start")), int(chart.get_attribute("data-window-end"))
    assert 0 < end - start < extent
    assert chart.get_attribute("data-loaded-window") == f"{start}-{end}"

    # the mouse wheel zooms too
    box = chart.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + 60)
    page.mouse.wheel(0, -400)
    page.wait_for_function(
        "([s, w]) => { const e = document.querySelector(s); return Number(e.dataset.windowEnd) - Number(e.dataset.windowStart) < w }",
        arg=[sel, end - start],
    )
    screenshot(page, "profiler_timeline_zoomed")

    page.click('[data-testid="timeline-reset"]')
    page.wait_for_function(
        "([s, n]) => { const e = document.querySelector(s); return e.dataset.windowStart === '0' && e.dataset.windowEnd === String(n) }",
        arg=[sel, extent],
    )


def test_steps_and_memory_render(ui_server: str, page: Any, screenshot: Callable[..., Path]) -> None:
    require_shared(FIXTURES)
    _open(page, ui_server, f"train_id={RUN}&tab=steps")
    page.wait_for_selector('[data-testid="steps-chart"][data-rendered="true"]')
    assert page.locator('[data-testid="step-row"]').count() == 4
    page.click('[data-testid="prof-tab-memory"]')
    page.wait_for_selector('[data-testid="memory-chart"][data-rendered="true"]')
    assert int(page.get_attribute('[data-testid="memory-chart"]', "data-point-count")) > 0
    assert "KiB" in page.inner_text('[data-testid="mem-peak-allocated"]')
    screenshot(page, "profiler_memory")


def test_not_recorded_states(ui_server: str, page: Any, screenshot: Callable[..., Path]) -> None:
    require_shared(FIXTURES)
    _open(page, ui_server, "train_id=./profiler_only_legacy_api&tab=pipeline")
    page.wait_for_selector('[data-testid="pipeline-not-recorded"]')
    screenshot(page, "profiler_pipeline_not_recorded")
    # a run without profiler data
    page.goto(f"{ui_server}/#/profiler?train_id=./landscape")
    page.wait_for_selector('[data-testid="prof-no-profiler"]')


def test_mindinsight_profiling_link_redirects(ui_server: str, page: Any) -> None:
    require_shared(FIXTURES)
    page.goto(f"{ui_server}/#/profiling-cpu?dir=./profiler&id={RUN}&path={RUN}")
    page.wait_for_selector('[data-testid="profiler-page"][data-status="ready"]')
    assert re.search(r"#/profiler\?", page.url)
    assert page.inner_text('[data-testid="prof-dir-label"]').strip() == "./profiler"
    page.wait_for_selector('[data-testid="ov-op-pie"][data-rendered="true"]')


@pytest.mark.parametrize("tab", ["overview", "ops", "timeline", "steps", "memory", "pipeline"])
def test_every_tab_has_its_control(ui_server: str, page: Any, tab: str) -> None:
    require_shared(FIXTURES)
    _open(page, ui_server, f"train_id={RUN}&tab={tab}")
    page.wait_for_selector(f'[data-testid="prof-tab-{tab}"][aria-checked="true"]')
    assert page.locator('[data-testid="prof-device-select"]').input_value() == "0"
