"""Many runs and rank groups in Chromium (issue 13): a summary list of 10,000 runs that scrolls and
searches page by page, a rank group that expands, the dashboard overlaying a job's ranks, and the
comparison page picking a whole group.

The base dir is written by our SummaryWriter (benchmarks/many_runs.py): 10,000 small runs plus two jobs
of four ranks four levels down (`./job_<g>/output/summary/rank_<r>`), served by the real server started
with `--max-depth 4` and a run-count limit above 10,008; the cache settings are the defaults.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import REPO, free_port, run_cli

sys.path.insert(0, str(REPO / "benchmarks"))
from many_runs import make_many_runs

RUNS = 10_000
GROUPS = 2
RANKS = 4
ENTRIES = RUNS + GROUPS  # with collapse_groups a group is one entry
GROUP0 = "./job_0/output/summary"


@pytest.fixture(scope="module")
def many_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    base = tmp_path_factory.mktemp("many-runs")
    make_many_runs(base, RUNS, GROUPS, RANKS, steps=2, rank_steps=50)
    port, ws = free_port(), tmp_path_factory.mktemp("many-ws")
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws),
                      "--reload-interval", "2", "--max-depth", "4", "--max-run-count", str(RUNS + 100),
                      timeout=180)
    assert started.returncode == 0, started.stdout + started.stderr
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180  # the first scan of 10,008 runs: wait until all are listed (bounded)
    while total_listed(url) != RUNS + GROUPS * RANKS and time.monotonic() < deadline:
        time.sleep(0.5)
    yield url
    run_cli("stop", "--port", str(port), "--workspace", str(ws))


def total_listed(base: str) -> int:
    with urllib.request.urlopen(f"{base}/v1/mindinsight/datavisual/train-jobs?limit=1", timeout=30) as resp:
        return int(json.loads(resp.read())["total"])


def open_summary(page: Any, base: str) -> None:
    page.goto(f"{base}/#/summary-manage")
    page.wait_for_function(f"() => document.querySelector('[data-testid=summary-table]')?.dataset.total === '{ENTRIES}'",
                           timeout=120_000)


def test_summary_list_of_10000_runs_scrolls_and_searches(page: Any, many_server: str, screenshot: Any) -> None:
    assert total_listed(many_server) == RUNS + GROUPS * RANKS  # listed by the server (MindInsight's total)
    open_summary(page, many_server)
    rows = page.locator("[data-testid=summary-row]")
    rows.first.wait_for()
    # virtualised: only the rows around the viewport exist, not 10,000
    assert 5 < page.locator("[data-testid=summary-table] .vrow").count() < 120
    screenshot(page, "runs_scale_summary_top")

    # scroll to the very end: the last entries' page is asked for and shown
    page.get_by_test_id("summary-scroller").evaluate("el => { el.scrollTop = el.scrollHeight }")
    last = page.locator(f"[data-testid=summary-row][data-index='{ENTRIES - 1}']")
    last.wait_for()
    assert last.get_attribute("data-train-id") == "./exp_00000"  # the least recently updated run
    assert page.locator("[data-testid=summary-table] .vrow").count() < 120
    screenshot(page, "runs_scale_summary_bottom")

    # and to the middle
    page.get_by_test_id("summary-scroller").evaluate("el => { el.scrollTop = el.scrollHeight / 2 }")
    page.wait_for_function("""() => [...document.querySelectorAll('[data-testid=summary-row]')]
                                  .some(r => Number(r.dataset.index) > 4000 && Number(r.dataset.index) < 6000)""")

    # search goes to the server: 10 matches out of 10,000, back at the top
    page.get_by_test_id("summary-search").fill("exp_0424")
    page.wait_for_function("() => document.querySelector('[data-testid=summary-table]').dataset.total === '10'")
    ids = [r.get_attribute("data-train-id") for r in rows.all()]
    assert sorted(ids) == [f"./exp_0424{d}" for d in range(10)]
    assert "q=exp_0424" in page.url
    screenshot(page, "runs_scale_summary_search")
    page.get_by_test_id("summary-search").fill("no-such-run-anywhere")
    page.get_by_text("No run matches").wait_for()
    page.get_by_test_id("summary-search").fill("")
    page.wait_for_function(f"() => document.querySelector('[data-testid=summary-table]').dataset.total === '{ENTRIES}'")


def test_a_rank_group_expands(page: Any, many_server: str, screenshot: Any) -> None:
    open_summary(page, many_server)
    group = page.locator(f"[data-testid=summary-group-row][data-group-id='{GROUP0}']")
    group.wait_for()
    assert group.get_by_test_id("summary-group-size").inner_text().startswith(str(RANKS))
    assert page.locator(f"[data-testid=summary-row][data-group-id='{GROUP0}']").count() == 0
    group.get_by_test_id("summary-group-toggle").click()
    members = page.locator(f"[data-testid=summary-row][data-group-id='{GROUP0}']")
    page.wait_for_function(
        f"() => document.querySelectorAll(`[data-testid=summary-row][data-group-id='{GROUP0}']`).length === {RANKS}")
    assert [m.get_attribute("data-train-id") for m in members.all()] == [f"{GROUP0}/rank_{r}" for r in range(RANKS)]
    assert group.get_attribute("data-expanded") == "true"
    screenshot(page, "runs_scale_group_expanded")
    # dark theme too
    page.get_by_test_id("theme-select").select_option("dark")
    page.wait_for_function("() => document.documentElement.dataset.theme === 'dark'")
    screenshot(page, "runs_scale_group_expanded_dark")
    page.get_by_test_id("theme-select").select_option("light")
    # Chinese labels
    page.get_by_test_id("lang-zh").click()
    page.wait_for_function(
        f"() => document.querySelector(`[data-group-id='{GROUP0}'] [data-testid=summary-group-size]`)"
        ".textContent.includes('个 rank')")
    screenshot(page, "runs_scale_group_expanded_zh")
    page.get_by_test_id("lang-en").click()
    group.get_by_test_id("summary-group-toggle").click()
    page.wait_for_function(
        f"() => document.querySelectorAll(`[data-testid=summary-row][data-group-id='{GROUP0}']`).length === 0")


def test_the_dashboard_overlays_the_ranks_of_a_job(page: Any, many_server: str, screenshot: Any) -> None:
    page.goto(f"{many_server}/#/train-dashboard?train_id={GROUP0}/rank_1")
    card = page.get_by_test_id("dashboard-card-ranks")
    card.wait_for(timeout=60_000)
    assert card.get_attribute("data-group-id") == GROUP0
    page.wait_for_function(
        f"() => document.querySelector('[data-chart-id=\"dashboard:ranks\"]')?.dataset.seriesCount === '{RANKS}'",
        timeout=60_000)
    chart = page.evaluate("() => window.__charts['dashboard:ranks'].series.map(s => [s.name, s.lastX, s.lastY])")
    assert [name.split(" ")[0] for name, _, _ in chart] == [f"rank_{r}" for r in range(RANKS)]
    # rank r wrote loss = (1 + 0.1 r) / step: at step 50 every line ends where its rank says
    for r, (_, last_x, last_y) in enumerate(chart):
        assert last_x == 50
        assert last_y == pytest.approx((1.0 + 0.1 * r) / 50, rel=1e-6)
    # another tag: one line per rank again, with the new values
    card.get_by_test_id("dashboard-ranks-tag").select_option("lr/scalar")
    page.wait_for_function("() => Math.abs(window.__charts['dashboard:ranks'].series[3].lastY - 0.04) < 1e-6")
    screenshot(page, "runs_scale_dashboard_ranks")


def test_the_comparison_page_picks_a_whole_group(page: Any, many_server: str, screenshot: Any) -> None:
    page.goto(f"{many_server}/#/compare-plate")
    option = page.locator("[data-testid=compare-group-option][data-group-id='./job_1/output/summary']")
    option.wait_for(timeout=60_000)
    option.click()
    page.wait_for_function(f"() => document.querySelector('[data-testid=run-selected-count]').dataset.count === '{RANKS}'")
    assert "group=" in page.url
    page.wait_for_function(
        f"() => document.querySelector('[data-chart-id=\"compare:loss/scalar\"]')?.dataset.seriesCount === '{RANKS}'",
        timeout=60_000)
    names = page.evaluate("() => window.__charts['compare:loss/scalar'].series.map(s => s.name)")
    assert sorted(names) == [f"./job_1/output/summary/rank_{r}" for r in range(RANKS)]
    screenshot(page, "runs_scale_compare_group")
    # the summary list's "Compare ranks" link selects the other group's ranks
    open_summary(page, many_server)
    group = page.locator(f"[data-testid=summary-group-row][data-group-id='{GROUP0}']")
    group.get_by_test_id("summary-group-compare-link").click()
    page.get_by_test_id("compare-page").wait_for()
    expected = [f"{GROUP0}/rank_{r}" for r in range(RANKS)]
    page.wait_for_function(
        """want => { const c = window.__charts['compare:loss/scalar'];
                    return !!c && JSON.stringify(c.series.map(s => s.name).sort()) === JSON.stringify(want) }""",
        arg=expected, timeout=60_000)
    assert f"group={GROUP0}" in urllib.parse.unquote(page.url)


def test_the_comparison_run_filter_reaches_runs_beyond_the_first_999(page: Any, many_server: str) -> None:
    page.goto(f"{many_server}/#/compare-plate?run=./exp_09999")
    page.get_by_test_id("run-filter").wait_for(timeout=60_000)
    page.wait_for_function("() => document.querySelector('[data-testid=run-selected-count]').dataset.count === '1'")
    # ./exp_00007 is among the least recently updated: not in the first 999 the page lists
    page.get_by_test_id("run-filter").fill("exp_00007")
    option = page.locator("[data-testid=run-option][data-train-id='./exp_00007']")
    option.wait_for()
    assert page.locator("[data-testid=run-option]").count() == 1
    page.get_by_test_id("run-filter").fill("exp_0000")  # 10 matches, ./exp_00007 among them
    page.wait_for_function("() => document.querySelectorAll('[data-testid=run-option]').length === 10")
    page.locator("[data-testid=run-option][data-train-id='./exp_00007'] input").check()
    page.wait_for_function(
        """() => { const c = window.__charts['compare:loss/scalar'];
                   return !!c && JSON.stringify(c.series.map(s => s.name).sort())
                                 === JSON.stringify(['./exp_00007', './exp_09999']) }""", timeout=60_000)
    page.get_by_test_id("run-filter").fill("")  # the picked run stays selected and known
    page.wait_for_function("() => document.querySelector('[data-testid=run-selected-count]').dataset.count === '2'")
