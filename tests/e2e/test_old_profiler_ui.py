"""Browser tests of the profiler page on MindInsight's old Ascend/GPU layout (../shared/reference/mindinsight/
old_profiler/corpus: one device, a device folder, a 4-rank pipeline-parallel cluster). The operators page, the step
trace and the cluster page draw with no console error (the `page` fixture fails on any); expected values are read
from the raw files here."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REFERENCE, REPO, free_port, run_cli

CORPUS = REFERENCE / "old_profiler" / "corpus"


@pytest.fixture(scope="module")
def old_ui_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not CORPUS.exists():
        pytest.skip(f"{CORPUS} is absent: the old-layout profiles live in ../shared (present in CI)")
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    port, ws = free_port(), tmp_path_factory.mktemp("old-ui-ws")
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(CORPUS), "--workspace", str(ws),
                      "--reload-interval", "0")
    assert started.returncode == 0, started.stdout + started.stderr
    yield f"http://127.0.0.1:{port}"
    run_cli("stop", "--port", str(port), "--workspace", str(ws))


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def _open(page: Any, base: str, query: str) -> None:
    page.goto(f"{base}/#/profiler?{query}")
    page.wait_for_selector('[data-testid="profiler-page"][data-status="ready"]')


def _rendered(page: Any, testid: str) -> None:
    page.wait_for_selector(f'[data-testid="{testid}"][data-rendered="true"]')


def test_operator_page(old_ui_server: str, page: Any, screenshot: Callable[..., Path]) -> None:
    prof = CORPUS / "run1" / "profiler"
    types = _rows(prof / "aicore_intermediate_1_type.csv")
    framework = {r["full_kernel_name"]: r for r in _rows(prof / "framework_raw_1.csv")}
    detail = sorted(_rows(prof / "aicore_intermediate_1_detail.csv"), key=lambda r: -float(r["execution_time"]))
    _open(page, old_ui_server, "train_id=./run1&tab=ops")
    _rendered(page, "legacy-type-chart")
    assert page.get_attribute('[data-testid="legacy-type-table"]', "data-size") == str(len(types))
    heads = page.locator('[data-testid="legacy-type-table"] th').all_inner_texts()
    assert heads[:2] == ["Kernel type", "Total time (µs)"]  # not MindInsight's raw kernel_type / total_time
    assert not [h for h in heads if re.search(r"\b[a-z]+(?:_[a-z]+)+\b", h)], heads
    page.wait_for_selector('[data-testid="legacy-op-table"]')
    assert page.get_attribute('[data-testid="legacy-op-table"]', "data-size") == str(len(detail))
    first = page.locator('[data-testid="legacy-op-row"]').first.locator("td")
    assert first.nth(2).inner_text() == framework[detail[0]["full_kernel_name"]]["kernel_name"]
    # the operator's inputs and outputs (op_info of framework_raw)
    page.locator('[data-testid="legacy-op-expand"]').first.click()
    info = json.loads(framework[detail[0]["full_kernel_name"]]["op_info"])
    assert page.locator('[data-testid="legacy-op-info"] tbody tr').count() == len(info)
    # a type row filters the operators
    page.locator('[data-testid="legacy-type-row"]', has_text="Conv2D").first.click()
    page.wait_for_selector('[data-testid="legacy-type-filter"]')
    conv = [r for r in detail if framework[r["full_kernel_name"]]["kernel_type"] == "Conv2D"]
    page.wait_for_function("n => document.querySelector('[data-testid=legacy-op-table]')?.dataset.size === n",
                           arg=str(len(conv)))
    screenshot(page, "old-profiler-ops")
    # AI CPU: no file for this device, said plainly
    page.locator('[data-testid="legacy-core"] button', has_text="AI CPU").click()
    page.wait_for_selector('[data-testid="legacy-no-ops"]')


def test_step_trace(old_ui_server: str, page: Any, screenshot: Callable[..., Path]) -> None:
    path = CORPUS / "run1" / "profiler" / "step_trace_raw_1_detail_time.csv"
    rows = _rows(path)
    average = rows[-1]
    streams = {c.split("_")[1] for c in average if c.startswith("stream_") and not c.endswith("point")}
    _open(page, old_ui_server, "train_id=./run1&tab=steps")
    _rendered(page, "legacy-steps-chart")
    names = page.get_attribute('[data-testid="legacy-steps-chart"]', "data-names").split("|")
    assert names == ["Iteration interval", "Forward + backward", "Iteration tail"]
    _rendered(page, "legacy-trace-chart")
    lanes = page.get_attribute('[data-testid="legacy-trace-chart"]', "data-names").split("|")
    assert lanes[:2] == ["step", "main"] and len(lanes) == 2 + len(streams)
    shown = page.locator('[data-testid="legacy-step-phase-fp_and_bp"] b').inner_text()
    assert shown == f"{round(int(average['fp_and_bp']) / 1e5, 4)} ms"
    # another step: its own values
    page.fill('[data-testid="legacy-step-input"]', "3")
    page.locator('[data-testid="legacy-step-input"]').dispatch_event("change")
    expected = f"{round(int(rows[2]['tail']) / 1e5, 4)} ms"
    page.wait_for_function("v => document.querySelector('[data-testid=legacy-step-phase-tail] b')?.textContent === v",
                           arg=expected)
    screenshot(page, "old-profiler-steps")


def test_cluster_page(old_ui_server: str, page: Any, screenshot: Callable[..., Path]) -> None:
    prof = CORPUS / "cluster4" / "profiler"
    ranks = sorted(int(p.name.split("_")[3]) for p in prof.glob("step_trace_raw_*_detail_time.csv"))
    links = 0
    for rank in ranks:
        average = next(r for r in _rows(prof / f"hccl_raw_{rank}.csv") if r["step_num"] == "-")
        links += sum(len(v) for v in json.loads(average["link_info"]).values())
    _open(page, old_ui_server, "train_id=./cluster4&tab=cluster")
    _rendered(page, "legacy-cluster-chart")
    # one cluster tab for every layout (issue 30): the format-blind per-rank phases and slow ranks above
    _rendered(page, "ascend-cluster-chart")
    assert page.get_attribute('[data-testid="ascend-cluster-chart"]', "data-names").split("|") == [str(r) for r in ranks]
    assert page.get_attribute('[data-testid="legacy-cluster-chart"]', "data-names").split("|") == [str(r) for r in ranks]
    assert "pipeline-parallel" in page.locator('[data-testid="legacy-cluster-mode"]').inner_text()
    rows = page.locator('[data-testid="legacy-rank-row"]')
    assert rows.count() == len(ranks)
    for i, rank in enumerate(ranks):
        interval = round(int(_rows(prof / f"step_trace_raw_{rank}_detail_time.csv")[-1]["iteration_interval"]) / 1e5, 4)
        assert float(rows.nth(i).locator("td").nth(2).inner_text()) == interval
    # the links come from their own request (hccl_raw files): wait for them, then count
    page.wait_for_function("n => document.querySelectorAll('[data-testid=legacy-link-row]').length === n", arg=links)
    # the largest bandwidth, in the unit it reads best in (hccl_raw writes KB/s): header unit x cell = the file's
    fastest = max(link[2] for rank in ranks for r in _rows(prof / f"hccl_raw_{rank}.csv") if r["step_num"] == "-"
                  for kinds in json.loads(r["link_info"]).values() for link in kinds.values())
    page.click('[data-testid="legacy-link-sort-bandwidth"]')  # descending
    header = page.locator('[data-testid="legacy-link-sort-bandwidth"]').inner_text()
    unit = header.split("(")[1].rstrip(")")
    to_kbps = {"GB/s": 1e6, "MB/s": 1e3, "KB/s": 1.0, "B/s": 1e-3}[unit]
    shown = float(page.locator('[data-testid="legacy-link-row"]').first.locator("td").nth(5).inner_text())
    assert 1 <= shown < 1000 or unit in ("GB/s", "B/s"), (shown, unit)
    assert shown * to_kbps == pytest.approx(fastest, rel=1e-3), (shown, unit, fastest)
    assert page.locator('[data-testid="legacy-cluster-suggestion"]').count() > 0
    _rendered(page, "legacy-cluster-flops-chart")
    # one stage only
    page.select_option('[data-testid="legacy-cluster-stage"]', "2")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=legacy-rank-row]').length === 2")
    screenshot(page, "old-profiler-cluster")
    # a rank's own pages
    page.locator('[data-testid="legacy-open-rank"]').first.click()
    page.wait_for_selector('[data-testid="prof-overview"]')
    assert "device=2" in page.url


def test_compare_and_advice_tabs_of_the_old_layout(old_ui_server: str, page: Any) -> None:
    """The old layout's steps feed the compare and advice pages (issue 30): rank 3 of the pipeline job against
    rank 0, numbers from the cluster analyse files."""
    prof = CORPUS / "cluster4" / "profiler"
    mean = {r: (lambda rows: sum(float(x["computation_time"]) for x in rows) / len(rows))(
        _rows(prof / f"ascend_cluster_analyse_pipeline-parallel_2_4_{r}.csv")[:-1]) for r in (0, 3)}
    _open(page, old_ui_server, "train_id=./cluster4&tab=compare&device=3")
    row = page.locator('[data-testid="compare-step-row"][data-key="computing_us"]')
    row.wait_for()
    diff_us = float(row.locator("td[data-diff]").get_attribute("data-diff") or "nan")
    assert diff_us == pytest.approx((mean[3] - mean[0]) * 1000, abs=0.05)
    _open(page, old_ui_server, "train_id=./cluster4&tab=advice")
    page.wait_for_selector('[data-testid="advice-count"]')
    assert page.get_by_test_id("ascend-advice").is_visible()


@pytest.mark.parametrize("lang", ["en-us", "zh-cn"])
def test_data_pipeline_table_is_labelled_and_fits_at_1024(old_ui_server: str, page: Any, lang: str) -> None:
    """The operator-queue table of minddata_pipeline_raw_<id>.csv: labelled in the UI's language (the raw field in
    the header's tooltip), and inside its card at 1024 px (it was 5 px wider than the card, raw names as headers)."""
    raw = _rows(CORPUS / "run1" / "profiler" / "minddata_pipeline_raw_1.csv")
    page.set_viewport_size({"width": 1024, "height": 900})
    page.add_init_script(f"localStorage.setItem('milang', '{lang}')")
    _open(page, old_ui_server, "train_id=./run1&tab=pipeline")
    table = page.wait_for_selector('[data-testid="pipeline-table"]')
    assert page.locator('[data-testid="pipeline-row"]').count() == len(raw)
    heads = page.eval_on_selector_all('[data-testid="pipeline-table"] th',
                                      "ths => ths.map(th => [th.dataset.column, th.innerText.trim()])")
    assert {c for c, _ in heads} <= set(raw[0]) and len(heads) >= 6
    for column, text in heads:
        assert text and text != column and not re.search(r"\b[a-z]+(?:_[a-z]+)+\b", text), (column, text)
    if lang == "zh-cn":
        assert all(re.search(r"[\u4e00-\u9fff]", text) or text.isupper() for _, text in heads), heads
    fits = table.evaluate("t => { const card = t.closest('.panel'); return [t.getBoundingClientRect().right,"
                          " card.getBoundingClientRect().right, document.documentElement.scrollWidth, innerWidth] }")
    assert fits[0] <= fits[1] and fits[2] <= fits[3], fits


def test_data_pipeline_tab_shows_the_queue_and_cpu_cards_a_rank_has(old_ui_server: str, page: Any) -> None:
    """One pipeline tab for every layout (issue 30): a rank with device-queue and CPU-utilisation files gets their
    cards (the stages as process_summary answers them, one CPU row per series of the file), beside the operator
    queues; a rank without them gets only the operator-queue card; a rank with none says "not recorded" once."""
    raw = json.loads((CORPUS / "devdir" / "profiler" / "minddata_cpu_utilization_0.json").read_text())
    series = len(raw["device_info"]) + len(raw["process_info"]) + sum(len(op["metrics"]) for op in raw["op_info"])
    api = f"{old_ui_server}/v1/mindinsight/profile/process_summary?train_id=./devdir&profile=profiler&device_id=0"
    summary = page.request.get(api).json()
    _open(page, old_ui_server, "train_id=./devdir&tab=pipeline&device=0")
    page.wait_for_selector('[data-testid="pipeline-cpu-table"]')
    assert page.locator('[data-testid="pipeline-cpu-row"]').count() == series
    for stage in ("data_process", "fpbp"):
        got = page.get_attribute(f'[data-testid="pipeline-stage-{stage}"]', "data-status")
        assert got == summary[stage]["status"], stage
    queue = summary["device_queue_info"]["summary"]
    assert f"{queue['empty_batch_count']} of {queue['total_batch']}" in page.inner_text('[data-testid="pipeline-device-queue"]')
    _rendered(page, "pipeline-queue-chart")
    _open(page, old_ui_server, "train_id=./run1&tab=pipeline")
    page.wait_for_selector('[data-testid="pipeline-table"]')
    page.wait_for_load_state("networkidle")
    assert page.locator('[data-testid="pipeline-cpu"], [data-testid="pipeline-queues"]').count() == 0
    # a rank with none of the files: said once
    _open(page, old_ui_server, "train_id=./devdir&tab=pipeline&device=1")
    page.wait_for_selector('[data-testid="pipeline-not-recorded"]')
    assert page.locator('[data-testid="pipeline-ops"]').count() == 0


def test_overview_is_the_one_overview_with_the_old_layouts_cards(old_ui_server: str, page: Any) -> None:
    """One overview for every layout (issue 30): the figures and operator types of profile/overview (322 steps and
    the top AI Core type, from the files), MindInsight's step split of the step trace instead of the phase split,
    and the FLOPs card only where flops_summary is written."""
    rows = _rows(CORPUS / "run1" / "profiler" / "step_trace_raw_1_detail_time.csv")
    trace, average = [r for r in rows if r["step_num"] != "-"], next(r for r in rows if r["step_num"] == "-")
    top = max(_rows(CORPUS / "run1" / "profiler" / "aicore_intermediate_1_type.csv"), key=lambda r: float(r["total_time"]))
    _open(page, old_ui_server, "train_id=./run1")
    page.wait_for_selector('[data-testid="legacy-step-split"]')
    assert page.inner_text('[data-testid="ov-step-count"] [data-testid="ov-value"]').strip() == str(len(trace))
    assert page.locator('[data-testid="ov-top-op"]').first.locator(".name").inner_text() == top["kernel_type"]
    fp_bp = int(average["fp_and_bp"]) / 1e5  # ms: MindInsight's split is the file's average row
    assert float(page.inner_text('[data-testid="legacy-phase-fp_and_bp"] b').split()[0]) == pytest.approx(fp_bp, abs=1e-3)
    assert page.locator('[data-testid="ascend-step-split"]').count() == 0
    assert page.locator('[data-testid="legacy-flops-summary"]').count() == 0
    _open(page, old_ui_server, "train_id=./cluster4&device=2")
    page.wait_for_selector('[data-testid="legacy-flops-summary"]')
