"""Browser tests of the Compare view, the Findings list and the slow-rank marks of the cluster page.

Compare runs on ../shared/fixtures/ascend (the session's `ascend_ui_server`); findings and the pipeline-parallel
cluster page on jobs this module writes (tests/ascend_jobs.py) and serves with a server of its own. Expected values
come from the files (or the numbers written), computed here; expected UI strings from the i18n dictionaries.
"""

from __future__ import annotations

import csv
import re
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import ascend_jobs as aj
from tests.conftest import REPO, free_port, run_cli
from tests.e2e.conftest import ASCEND_FIXTURES
from tests.integration.test_ascend_advice import _mix

LEVEL0, LEVEL1 = "./torch_npu_level0", "./torch_npu_level1"
I18N = REPO / "frontend" / "src" / "i18n"


def _strings(lang: str) -> dict[str, str]:
    text = (I18N / f"{lang}.ts").read_text(encoding="utf-8")
    return {k: v.replace("\\u2019", "’") for k, v in re.findall(r"^\s+'([^']+)': '((?:[^'\\]|\\.)*)',$", text, re.M)}


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return [{k.strip(): (v or "").strip() for k, v in row.items()} for row in csv.DictReader(fh)]


def _output(job: str, rank: int) -> Path:
    return ASCEND_FIXTURES / job.removeprefix("./") / "profiler" / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"


def _op_totals(job: str, rank: int) -> dict[str, float]:
    out = _output(job, rank)
    totals: dict[str, float] = defaultdict(float)
    if (out / "op_statistic.csv").exists():
        for r in _rows(out / "op_statistic.csv"):
            totals[r["OP Type"]] += float(r["Total Time(us)"])
    else:
        for r in _rows(out / "kernel_details.csv"):
            if r["Accelerator Core"] != "HCCL":
                totals[r["Type"]] += float(r["Duration(us)"])
    return totals


def _expected_order(value: dict[str, float], base: dict[str, float]) -> list[tuple[str, float]]:
    diffs = {k: value.get(k, 0.0) - base.get(k, 0.0) for k in set(value) | set(base)}
    return sorted(diffs.items(), key=lambda kv: (-abs(round(kv[1], 3)), kv[0]))


def _open(page: Any, base: str, query: str) -> None:
    page.goto(f"{base}/#/profiler?{query}")
    page.wait_for_selector('[data-testid="profiler-page"][data-status="ready"]')


def test_compare_view_largest_differences_first(ascend_ui_server: str, page: Any,
                                                screenshot: Callable[..., Path]) -> None:
    _open(page, ascend_ui_server, f"train_id={LEVEL1}&tab=compare")
    page.wait_for_selector('[data-testid="compare-chart"][data-rendered="true"]')
    assert page.input_value('[data-testid="compare-base-rank"]') == "1"  # another rank of the same profile
    expected = _expected_order(_op_totals(LEVEL1, 0), _op_totals(LEVEL1, 1))
    rows = page.locator('[data-testid="compare-row"]')
    shown = [(rows.nth(i).get_attribute("data-op-type"), float(rows.nth(i).get_attribute("data-diff")))
             for i in range(rows.count())]
    assert [name for name, _ in shown] == [name for name, _ in expected[: len(shown)]]
    for (_, got), (_, want) in zip(shown, expected, strict=False):
        assert got == pytest.approx(want, abs=2e-3)
    steps0, steps1 = (_rows(_output(LEVEL1, r) / "step_trace_time.csv")[0] for r in (0, 1))
    computing = page.get_attribute('[data-testid="compare-step-row"][data-key="computing_us"] td:nth-child(4)',
                                   "data-diff")
    assert float(computing) == pytest.approx(float(steps0["Computing"]) - float(steps1["Computing"]), abs=1e-3)
    screenshot(page, "ascend-compare-ranks")

    # a rank of another job as the base: Level0 rank 0 (its types come from kernel_details.csv)
    page.select_option('[data-testid="compare-base-job"]', LEVEL0)
    page.wait_for_function("() => location.hash.includes('base_train=')")
    page.wait_for_selector('[data-testid="compare-base-rank"] option[value="0"]', state="attached")
    expected = _expected_order(_op_totals(LEVEL1, 0), _op_totals(LEVEL0, 0))
    page.wait_for_function("(name) => document.querySelector('[data-testid=compare-row]')?.dataset.opType === name",
                           arg=expected[0][0])
    assert page.get_attribute('[data-testid="compare-row"]', "data-diff") is not None

    # Chinese, dark theme: the same view, its strings from zh.ts, no console error
    page.get_by_test_id("theme-select").select_option("dark")
    page.get_by_test_id("lang-zh").click()
    zh = _strings("zh")
    page.wait_for_function("(t) => document.querySelector('[data-testid=compare-ops] h3')?.textContent.trim() === t",
                           arg=zh["ascend.compareOps"])
    assert zh["ascend.compareTitle"] in page.inner_text('[data-testid="compare-base"]')
    page.wait_for_selector('[data-testid="compare-chart"][data-rendered="true"]')
    screenshot(page, "ascend-compare-jobs-dark-zh")


# --- a server of our own over jobs written here -------------------------------------------------------------


@pytest.fixture(scope="module")
def advice_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    base = tmp_path_factory.mktemp("advice-ui")
    _mix(base / "mix")
    aj.pipeline_job(base / "pp_equal", computing={0: 400_000.0, 1: 400_000.0, 2: 500_000.0, 3: 500_000.0},
                    totals_us={0: 809_400.0, 1: 810_200.0, 2: 809_800.0, 3: 810_000.0})
    aj.pipeline_job(base / "pp_slow", computing={0: 300_000.0, 1: 300_000.0, 2: 500_000.0, 3: 662_000.0},
                    totals_us={0: 700_000.0, 1: 700_000.0, 2: 810_000.0, 3: 972_000.0})
    for rank in range(65):  # a job of more ranks than the matrix card loads by itself
        aj.write_steps(base / "wide", rank, [aj.step_row(1, 700.0, 250.0, 50.0)])
    port, ws = free_port(), tmp_path_factory.mktemp("advice-ui-ws")
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws),
                      "--reload-interval", "1")
    assert started.returncode == 0, started.stdout + started.stderr
    yield f"http://127.0.0.1:{port}"
    run_cli("stop", "--port", str(port), "--workspace", str(ws))


def test_findings_list_links_to_the_views(advice_server: str, page: Any, screenshot: Callable[..., Path]) -> None:
    _open(page, advice_server, "train_id=./mix&tab=advice")
    page.wait_for_selector('[data-testid="finding"]')
    findings = page.locator('[data-testid="finding"]')
    ids = [findings.nth(i).get_attribute("data-id") for i in range(findings.count())]
    assert sorted(ids) == sorted(["slow_link", "aicpu", "dispatch_gap", "free_time", "low_bandwidth"])
    assert ids[0] == "slow_link"  # the one high finding first (7 GB/s is 41 % of the type's mean)
    en = _strings("en")
    slow_link = page.locator('[data-testid="finding"][data-id="slow_link"]')
    assert slow_link.locator('[data-testid="finding-title"]').inner_text() == en["advice.slow_link.title"]
    mean = statistics.fmean([18.0] * 11 + [7.0])
    assert f"{mean:.2f} GB/s" in slow_link.locator('[data-testid="finding-summary"]').inner_text()
    assert "80%" in slow_link.locator('[data-testid="finding-rule"]').inner_text()
    statuses = page.locator('[data-testid="advice-rule"]')
    assert {statuses.nth(i).get_attribute("data-id"): statuses.nth(i).get_attribute("data-status")
            for i in range(statuses.count())} == {
        "slow_rank_step": "ok", "slow_rank_vote": "ok", "slow_link": "found", "low_bandwidth": "found",
        "free_time": "found", "aicpu": "found", "dispatch_gap": "found"}
    screenshot(page, "ascend-findings")

    # each finding opens its view on its first rank
    failed: list[str] = []
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    slow_link.locator('[data-testid="finding-open"]').click()
    page.wait_for_selector('[data-testid="ascend-communication"]')
    assert page.get_attribute('[data-testid="prof-tab"]', "data-value") == "communication"
    assert page.input_value('[data-testid="prof-device-select"]') == "2"
    page.click('[data-testid="prof-tab-advice"]')
    page.locator('[data-testid="finding"][data-id="aicpu"] [data-testid="finding-open"]').click()
    page.wait_for_selector('[data-testid="prof-ops"]')
    assert page.input_value('[data-testid="prof-device-select"]') == "0"
    # this job has no operator_details.csv: the table card says so, and that expected absence is no failed request
    assert "operator_details.csv" in page.wait_for_selector('[data-testid="ascend-missing"]').inner_text()
    assert not failed and not page.console_errors, (failed, page.console_errors)

    # Chinese, dark theme
    page.click('[data-testid="prof-tab-advice"]')
    page.get_by_test_id("theme-select").select_option("dark")
    page.get_by_test_id("lang-zh").click()
    zh = _strings("zh")
    page.wait_for_function(
        "(t) => document.querySelector('[data-id=slow_link] [data-testid=finding-title]')?.textContent.trim() === t",
        arg=zh["advice.slow_link.title"])
    assert zh["advice.rules"] in page.inner_text('[data-testid="advice-rules"]')
    screenshot(page, "ascend-findings-dark-zh")


def _border_of_rank(page: Any, rank_index: int) -> list[str | None]:
    """Per series (phase) of the cluster chart, the border colour of bar `rank_index` (None when plain)."""
    return page.evaluate(
        "(i) => window.__charts['profiler:ascend-cluster'].instance().getOption().series.map("
        "s => { const d = s.data[i]; return (d && d.itemStyle && d.itemStyle.borderColor) || null })",
        rank_index)


def test_pipeline_cluster_marks_the_slow_phase_among_peers(advice_server: str, page: Any,
                                                           screenshot: Callable[..., Path]) -> None:
    # PP 2, stage computing 25 % apart, equal step times: no rank is slow
    _open(page, advice_server, "train_id=./pp_equal&tab=cluster")
    page.wait_for_selector('[data-testid="ascend-cluster-chart"][data-rendered="true"]')
    rows = page.locator('[data-testid="ascend-rank-row"]')
    assert rows.count() == 4
    assert [rows.nth(i).get_attribute("data-slow") for i in range(4)] == ["false"] * 4
    assert page.locator('[data-testid="ascend-slow-badge"]').count() == 0
    assert all(b is None for r in range(4) for b in _border_of_rank(page, r))
    screenshot(page, "ascend-cluster-pp-equal")

    # stage 1's rank 3 takes 20 % longer than its peer, in computing: only it, outlined on computing
    _open(page, advice_server, "train_id=./pp_slow&tab=cluster")
    page.wait_for_selector('[data-testid="ascend-cluster-chart"][data-rendered="true"]')
    rows = page.locator('[data-testid="ascend-rank-row"]')
    assert [rows.nth(i).get_attribute("data-slow") for i in range(4)] == ["false", "false", "false", "true"]
    assert rows.nth(3).get_attribute("data-slow-phase") == "computing_us"
    assert page.get_attribute('[data-testid="ascend-peers"]', "data-source") == "communication"
    series = page.evaluate("() => window.__charts['profiler:ascend-cluster'].instance().getOption().series"
                           ".map(s => s.name)")
    borders = _border_of_rank(page, 3)
    assert [name for name, b in zip(series, borders, strict=True) if b] == [_strings("en")["ascend.computing"]]
    assert all(b is None for r in range(3) for b in _border_of_rank(page, r))
    screenshot(page, "ascend-cluster-pp-slow")
    page.get_by_test_id("theme-select").select_option("dark")
    page.get_by_test_id("lang-zh").click()
    page.wait_for_function("(t) => document.querySelector('[data-testid=ascend-slow-rule]')?.textContent.includes(t)",
                           arg=_strings("zh")["ascend.slowRule"][:8])
    assert [name for name, b in zip(page.evaluate(
        "() => window.__charts['profiler:ascend-cluster'].instance().getOption().series.map(s => s.name)"),
        _border_of_rank(page, 3), strict=True) if b] == [_strings("zh")["ascend.computing"]]
    screenshot(page, "ascend-cluster-pp-slow-dark-zh")


def test_the_all_ranks_matrix_waits_for_a_click_on_wide_jobs(advice_server: str, page: Any) -> None:
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if "cluster-communication-matrix" in r.url else None)
    _open(page, advice_server, "train_id=./wide&tab=cluster")
    page.wait_for_selector('[data-testid="ascend-cluster-chart"][data-rendered="true"]')
    assert "65" in page.inner_text('[data-testid="cluster-matrix-ask"]')
    assert requests == []
    page.click('[data-testid="cluster-matrix-load"]')
    page.wait_for_selector('[data-testid="cluster-matrix-empty"]')  # these ranks wrote no matrix
    assert len(requests) == 1
