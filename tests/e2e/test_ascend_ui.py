"""Browser tests of the Ascend profiler views (#/profiler on ../shared/fixtures/ascend: 2 ranks of an 8-rank job).

Expected values are read from the raw files (step_trace_time.csv, kernel_details.csv, communication.json,
memory_record.csv) here, independently of the server, so the assertions follow the files.
"""

from __future__ import annotations

import contextlib
import csv
import json
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.conftest import ASCEND_FIXTURES

LEVEL1 = "./torch_npu_level1"
LEVEL0 = "./torch_npu_level0"
PHASES = ("Computing", "Communication(Not Overlapped)", "Free")


def _output(job: str, rank: int) -> Path:
    return ASCEND_FIXTURES / job.removeprefix("./") / "profiler" / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return [{k.strip(): (v or "").strip() for k, v in row.items()} for row in csv.DictReader(fh)]


def _ranks(job: str) -> list[int]:
    infos = (ASCEND_FIXTURES / job.removeprefix("./") / "profiler").glob("*/profiler_info_*.json")
    return sorted(int(p.stem.rsplit("_", 1)[1]) for p in infos)


def _phase_means(job: str, rank: int) -> dict[str, float]:
    rows = _rows(_output(job, rank) / "step_trace_time.csv")
    return {ph: statistics.fmean(float(r[ph]) for r in rows) for ph in PHASES}


def _fmt_us(us: float) -> str:  # the UI's fmtUs for the ms range
    return f"{us / 1e3:.3f} ms" if 1e3 <= abs(us) < 1e6 else f"{us / 1e6:.3f} s"


def _slow(job: str) -> set[int]:
    """The documented rule (docs/profiler.md): these files give no pipeline stages, so every rank is a peer of
    the other; a rank is slow when its step time (the three phases) exceeds the peers' median by more than 5 %."""
    totals = {r: sum(_phase_means(job, r).values()) for r in _ranks(job)}
    median = statistics.median(totals.values())
    return {r for r, total in totals.items() if total > median * 1.05}


def _open(page: Any, base: str, query: str) -> None:
    page.goto(f"{base}/#/profiler?{query}")
    page.wait_for_selector('[data-testid="profiler-page"][data-status="ready"]')


def _chart_names(page: Any, testid: str) -> list[str]:
    page.wait_for_selector(f'[data-testid="{testid}"][data-rendered="true"]')
    return page.get_attribute(f'[data-testid="{testid}"]', "data-names").split("|")


def test_cluster_page_shows_both_ranks_and_opens_one(ascend_ui_server: str, page: Any,
                                                     screenshot: Callable[..., Path]) -> None:
    ranks = _ranks(LEVEL1)
    assert ranks == [0, 1]
    _open(page, ascend_ui_server, f"train_id={LEVEL1}&tab=cluster")
    assert _chart_names(page, "ascend-cluster-chart") == [str(r) for r in ranks]
    rows = page.locator('[data-testid="ascend-rank-row"]')
    assert rows.count() == len(ranks)
    slow = _slow(LEVEL1)
    for i, rank in enumerate(ranks):
        row = rows.nth(i)
        assert row.get_attribute("data-rank") == str(rank)
        assert row.get_attribute("data-slow") == ("true" if rank in slow else "false")
        text = row.inner_text()
        for value in _phase_means(LEVEL1, rank).values():
            assert _fmt_us(value) in text
    assert "cluster_analysis_output" in page.inner_text('[data-testid="ascend-no-cluster-output"]')
    screenshot(page, "ascend-cluster")

    # a click on rank 1's bar opens that rank's overview
    box = page.locator('[data-testid="ascend-cluster-chart"]').bounding_box()
    total = sum(_phase_means(LEVEL1, 1).values())
    x, y = page.evaluate(
        "(v) => window.__charts['profiler:ascend-cluster'].instance().convertToPixel({ seriesIndex: 0 }, [1, v])",
        total / 2,
    )
    page.mouse.click(box["x"] + x, box["y"] + y)
    page.wait_for_selector('[data-testid="prof-overview"]')
    assert page.input_value('[data-testid="prof-device-select"]') == "1"
    assert "device=1" in page.url
    assert page.get_attribute('[data-testid="prof-tab"]', "data-value") == "overview"
    computing = _phase_means(LEVEL1, 1)["Computing"]
    page.wait_for_selector('[data-testid="ascend-share-computing_us"]')
    assert _fmt_us(computing) in page.inner_text('[data-testid="ascend-share-computing_us"]')
    page.wait_for_selector('[data-testid="ascend-steps-chart"][data-rendered="true"]')
    screenshot(page, "ascend-overview-rank1")

    # and the table's button opens rank 0
    page.click('[data-testid="prof-tab-cluster"]')
    page.locator('[data-testid="ascend-open-rank"]').first.click()
    page.wait_for_selector('[data-testid="prof-overview"]')
    assert page.input_value('[data-testid="prof-device-select"]') == "0"


def _kernels(job: str, rank: int) -> list[dict[str, str]]:
    return [r for r in _rows(_output(job, rank) / "kernel_details.csv") if r["Accelerator Core"] != "AI_CPU"]


def _column(page: Any, name: str) -> list[str]:
    idx = page.eval_on_selector_all(
        '[data-testid="op-table"] thead th', "(ths, n) => ths.findIndex(th => th.dataset.testid === 'op-sort-' + n)", name
    )
    assert idx >= 0, name
    return page.eval_on_selector_all(
        '[data-testid="op-row"]', "(rows, i) => rows.map(r => r.children[i].textContent.trim())", idx
    )


def _wait_first(page: Any, column: str, value: float) -> None:
    """Waits until the table's first row shows `value` in `column` (the answer to the last request arrived)."""
    page.wait_for_function(
        "([c, v]) => { const th = [...document.querySelectorAll('[data-testid=op-table] thead th')];"
        " const i = th.findIndex(x => x.dataset.testid === 'op-sort-' + c);"
        " const r = document.querySelector('[data-testid=op-row]'); return !!r && Number(r.children[i].textContent) === v }",
        arg=[column, value],
    )


def test_kernel_table_searches_and_sorts(ascend_ui_server: str, page: Any, screenshot: Callable[..., Path]) -> None:
    kernels = _kernels(LEVEL1, 0)
    _open(page, ascend_ui_server, f"train_id={LEVEL1}&tab=ops&view=all")
    page.wait_for_selector('[data-testid="op-table"][data-view="all"]')
    page.wait_for_selector('[data-testid="op-chart"][data-rendered="true"]')
    assert page.get_attribute('[data-testid="op-table"]', "data-size") == str(len(kernels))

    term = "conv2d"
    matched = [k for k in kernels if term in k["Name"].lower()]
    assert 0 < len(matched) < len(kernels)
    page.fill('[data-testid="op-search"]', term)
    page.wait_for_selector(f'[data-testid="op-table"][data-size="{len(matched)}"]')
    names = _column(page, "op_name")
    assert names and all(term in n.lower() for n in names)

    # wait time, descending (one click), then duration, ascending (two clicks): the first row is the file's extreme
    waits = [float(k["Wait Time(us)"]) for k in matched]
    page.click('[data-testid="op-sort-wait_time_us"]')
    _wait_first(page, "wait_time_us", max(waits))
    shown = [float(v) for v in _column(page, "wait_time_us")]
    assert shown == sorted(shown, reverse=True)
    screenshot(page, "ascend-kernels-sorted")

    durations = [float(k["Duration(us)"]) for k in matched]
    page.click('[data-testid="op-sort-duration_us"]')
    _wait_first(page, "duration_us", max(durations))
    page.click('[data-testid="op-sort-duration_us"]')
    _wait_first(page, "duration_us", min(durations))
    assert page.get_attribute('[data-testid="op-table"]', "data-sort") == "duration_us:ascending"
    shown = [float(v) for v in _column(page, "duration_us")]
    assert shown == sorted(shown)
    assert len(shown) == min(len(matched), 20)


def _comm_ops(job: str, rank: int) -> list[str]:
    data = json.loads((_output(job, rank) / "communication.json").read_text())
    return [key.split("@")[0] for kinds in data.values() for ops in kinds.values() for key in ops
            if key != "Total Op Info"]


def test_communication_and_memory_charts_render(ascend_ui_server: str, page: Any,
                                                screenshot: Callable[..., Path]) -> None:
    ops = _comm_ops(LEVEL1, 0)
    _open(page, ascend_ui_server, f"train_id={LEVEL1}&tab=communication")
    links = _chart_names(page, "ascend-bandwidth-chart")
    assert "HCCS" in links
    page.wait_for_selector('[data-testid="ascend-matrix-chart"][data-rendered="true"]')
    assert int(page.get_attribute('[data-testid="ascend-matrix-chart"]', "data-point-count")) > 0
    assert page.locator('[data-testid="comm-row"]').count() == min(len(ops), 10)
    assert sorted(page.eval_on_selector_all('[data-testid="comm-row"] td:first-child', "c => c.map(x => x.textContent.trim())")) \
        == sorted(ops)[:10]
    screenshot(page, "ascend-communication")

    record = _rows(_output(LEVEL1, 0) / "memory_record.csv")
    peak_allocated = max(float(r["Total Allocated(MB)"]) for r in record if r["Total Allocated(MB)"])
    components = sorted({r["Component"] for r in record})
    page.click('[data-testid="prof-tab-memory"]')
    names = _chart_names(page, "ascend-memory-chart")
    assert sorted({n.split(":")[0] for n in names}) == components
    assert f"{peak_allocated:.2f} MB" in page.inner_text('[data-testid="ascend-peak-allocated"]')
    assert page.locator('[data-testid="alloc-row"]').count() > 0

    # the same pages in dark theme and in Chinese, still without a console error
    page.evaluate("() => { localStorage.setItem('mitheme', 'dark'); localStorage.setItem('milang', 'zh-cn') }")
    page.reload()
    page.wait_for_selector('[data-testid="ascend-memory-chart"][data-rendered="true"]')
    assert "内存" in page.inner_text('[data-testid="ascend-memory"]')
    screenshot(page, "ascend-memory-dark-zh")
    page.click('[data-testid="prof-tab-communication"]')
    page.wait_for_selector('[data-testid="ascend-matrix-chart"][data-rendered="true"]')
    screenshot(page, "ascend-communication-dark-zh")


def test_level0_views_say_what_is_missing(ascend_ui_server: str, page: Any, screenshot: Callable[..., Path]) -> None:
    assert not (_output(LEVEL0, 0) / "communication.json").exists()
    _open(page, ascend_ui_server, f"train_id={LEVEL0}&tab=communication")
    missing = page.wait_for_selector('[data-testid="ascend-missing"]')
    assert "communication.json" in missing.inner_text()
    assert page.locator('[data-testid="ascend-bandwidth-chart"]').count() == 0
    # the server lists the page as holding no data (profile/dirs `views`): its tab is marked, the others are not
    assert page.get_attribute('[data-testid="prof-tab-communication"]', "data-muted") == "true"
    assert page.get_attribute('[data-testid="prof-tab-timeline"]', "data-muted") is None
    screenshot(page, "ascend-level0-communication-missing")
    # an expected absence: the server answers it without an HTTP error (missing_ok), so the browser logs nothing
    assert not page.console_errors, page.console_errors
    # the other views of that rank still answer: type chart from kernel_details.csv (no op_statistic.csv at Level0)
    page.click('[data-testid="prof-tab-overview"]')
    page.wait_for_selector('[data-testid="ov-op-pie"][data-rendered="true"]')
    page.wait_for_selector('[data-testid="ascend-steps-chart"][data-rendered="true"]')


def test_a_late_timeline_summary_of_the_previous_rank_is_dropped(ascend_ui_server: str, page: Any) -> None:
    """Rank 0's timeline-summary answers after rank 1 was picked and drawn: the timeline stays rank 1's and asks
    nothing more (it took rank 0's summary, its counts and its process ids, and fetched events again with them)."""
    from playwright.sync_api import Error as PlaywrightError

    held: list[Any] = []
    page.route("**/profile/timeline-summary?*device_id=0*", lambda route: held.append(route))
    _open(page, ascend_ui_server, f"train_id={LEVEL1}&tab=timeline&device=0")
    while not held:
        page.wait_for_timeout(50)
    page.select_option('[data-testid="prof-device-select"]', "1")
    chart = page.wait_for_selector('[data-testid="timeline-chart"][data-rendered="true"]')

    def drawn() -> tuple[str | None, ...]:
        info = page.inner_text('[data-testid="timeline-info"]')  # its counts come from the summary
        return chart.get_attribute("data-event-count"), chart.get_attribute("data-extent"), info

    before = drawn()
    late: list[str] = []
    page.on("request", lambda r: late.append(r.url) if "/profile/timeline" in r.url else None)
    with contextlib.suppress(PlaywrightError):  # the page has dropped the request (it aborts the rank's load)
        held[0].continue_()
    page.wait_for_timeout(1500)
    assert late == []
    assert drawn() == before
    assert "device=1" in page.url


def test_timeline_shows_npu_lanes(ascend_ui_server: str, page: Any, screenshot: Callable[..., Path]) -> None:
    _open(page, ascend_ui_server, f"train_id={LEVEL1}&tab=timeline")
    page.wait_for_selector('[data-testid="timeline-chart"][data-rendered="true"]')
    lanes = page.evaluate("() => window.__charts['profiler:timeline'].extra.lanes")
    processes = {lane.split(" · ")[0] for lane in lanes}
    assert {"Ascend Hardware", "HCCL", "Overlap Analysis"} <= processes
    assert processes <= {"Ascend Hardware", "HCCL", "Overlap Analysis"}
    screenshot(page, "ascend-timeline")
    page.select_option('[data-testid="timeline-lane-scope"]', "all")
    page.wait_for_function(
        "() => window.__charts['profiler:timeline'].extra.lanes.some(l => !/^(Ascend Hardware|HCCL|Overlap Analysis) /.test(l))"
    )
