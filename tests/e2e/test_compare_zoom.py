"""Full-resolution windows on the comparison page and the dashboard's rank overlay (issue 13, UI part).

Two ranks of one job, 200,000 steps each, written by our SummaryWriter; rank_1 holds a one-step spike at a
step the 1,000-point reservoir sample does not keep. On the comparison page (both runs overlaid) a box zoom
around the spike re-asks both runs' windows (`scalar/metadata?start_step=&end_step=&points=`), and the
spike's real value is plotted for rank_1 only. The CSV export of the zoomed window holds exactly the
window's real points of each run (compared with the API asked for every point of the same steps), and
without zoom every real step of both series (400,000 rows, fetched window by window under the server's
100,000-point maximum). The note under the chart says what the export holds, in English and Chinese, in
the light and the dark theme. The dashboard of rank_0 overlays both ranks and zooms the same way.
"""

from __future__ import annotations

import csv
import io
import json
import math
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mindinsight_clone.summary import SummaryWriter
from tests.conftest import REPO, free_port, run_cli
from tests.e2e.test_scalar_zoom import SPIKE_VALUE, STEPS, spike_step

TAG = "loss/scalar"
RUNS = ("./job/rank_0", "./job/rank_1")
SPIKY = RUNS[1]


def curve(rank: int, step: int) -> float:
    return 1.0 + rank * 0.2 + 0.5 * math.exp(-step / 30_000) + 0.01 * math.sin(step)


@pytest.fixture(scope="module")
def ranks_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    tmp = tmp_path_factory.mktemp("compare-zoom")
    base, ws, port = tmp / "logs", tmp / "ws", free_port()
    spike = spike_step()
    for rank in (0, 1):
        writer = SummaryWriter(base / "job" / f"rank_{rank}", timestamp=1_795_000_000 + rank)
        try:
            for step in range(1, STEPS + 1):
                spiky = rank == 1 and step == spike
                writer.add_scalar("loss", SPIKE_VALUE if spiky else curve(rank, step), step)
        finally:
            writer.close()
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws),
                      "--reload-interval", "0", "--max-depth", "2")
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        yield f"http://127.0.0.1:{port}", spike
    finally:
        run_cli("stop", "--port", str(port), "--workspace", str(ws))


PLOTTED = """([id, kind]) => {
  const out = {}
  for (const s of window.__charts[id].instance().getOption().series)
    if (String(s.id).startsWith(kind + ':')) out[String(s.id).slice(kind.length + 1)] = (s.data || []).map(d => [d[2], d[1]])
  return out
}"""


def wait_loaded(page: Any, chart: str) -> None:
    page.wait_for_function(
        f"() => {{ const c = window.__charts && window.__charts['{chart}']; "
        f"return !!c && c.series.length === 2 && c.series.every(s => s.lastX === {STEPS}) }}", timeout=90_000)


def box_zoom(page: Any, chart: str, step: int) -> Any:
    """Box-zoom ±6 px around `step` over the plot's full height, as a user drags; returns the canvas."""
    canvas = page.locator(f"[data-chart-id='{chart}']")
    card = page.get_by_test_id("scalar-card").filter(has=canvas)
    box = canvas.bounding_box()
    px, _ = page.evaluate(f"() => window.__charts['{chart}'].instance().convertToPixel({{gridIndex: 0}}, [{step}, 1])")
    grid = page.evaluate(f"""() => {{
        const r = window.__charts['{chart}'].instance().getModel().getComponent('grid').coordinateSystem.getRect()
        return [r.y, r.y + r.height] }}""")
    card.get_by_test_id("chart-zoom").click()
    x0, x1 = box["x"] + px - 6, box["x"] + px + 6
    y0, y1 = box["y"] + grid[0] + 2, box["y"] + grid[1] - 2
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    page.mouse.move(x1, y1, steps=4)
    page.mouse.up()
    page.wait_for_function(f"() => document.querySelector(\"[data-chart-id='{chart}']\").dataset.windowPoints > 0",
                           timeout=30_000)
    return canvas


def assert_spike_plotted(page: Any, chart: str, spike: int) -> None:
    plotted = page.evaluate(PLOTTED, [chart, 'raw'])
    assert set(plotted) == set(RUNS)
    assert [spike, SPIKE_VALUE] in plotted[SPIKY]  # the spike's step with its real value, for the run that has it
    assert all(v != SPIKE_VALUE for _, v in plotted[RUNS[0]])  # and not for the other
    y_max = page.evaluate(f"() => window.__charts['{chart}'].instance().getModel().getComponent('yAxis')"
                          ".axis.scale.getExtent()[1]")
    assert y_max >= SPIKE_VALUE


def hover_tooltip(page: Any, chart: str, step: int, value: float) -> str:
    """The tooltip's text with the mouse on the point (step, value)."""
    canvas = page.locator(f"[data-chart-id='{chart}']")
    box = canvas.bounding_box()
    px, py = page.evaluate(f"() => window.__charts['{chart}'].instance().convertToPixel({{gridIndex: 0}}, "
                           f"[{step}, {value}])")
    page.mouse.move(box["x"] + px, box["y"] + py)
    tip = page.locator(".chart-tooltip").filter(has_text=str(step))
    tip.first.wait_for(state="visible")
    return str(tip.first.inner_text())


def api_window(base: str, run: str, start: int, end: int) -> dict[str, Any]:
    query = urllib.parse.urlencode({"train_id": run, "tag": TAG, "start_step": start, "end_step": end,
                                    "points": 100_000})
    with urllib.request.urlopen(f"{base}/v1/mindinsight/datavisual/scalar/metadata?{query}", timeout=30) as r:
        return dict(json.loads(r.read()))


def download(page: Any, card: Any, testid: str) -> tuple[str, str]:
    """Click an export button; returns (file name, text) once the note says what it holds."""
    with page.expect_download(timeout=60_000) as info:
        card.get_by_test_id(testid).click()
    dl = info.value
    text = Path(dl.path()).read_text()
    return dl.suggested_filename, text


def csv_by_series(text: str) -> dict[str, list[tuple[int, float, float]]]:
    rows = list(csv.DictReader(io.StringIO(text)))
    out: dict[str, list[tuple[int, float, float]]] = {}
    for r in rows:
        out.setdefault(r["series"], []).append((int(r["step"]), float(r["wall_time"]), float(r["value"])))
    return out


def test_compare_zoom_shows_the_spike_and_exports_the_windows_real_points(
        page: Any, ranks_server: tuple[str, int], screenshot: Any) -> None:
    base, spike = ranks_server
    chart = f"compare:{TAG}"
    runs = "&".join(f"run={urllib.parse.quote(r)}" for r in RUNS)
    page.goto(f"{base}/#/compare-plate?{runs}&tag={urllib.parse.quote(TAG)}&smooth=0.5")
    wait_loaded(page, chart)
    before = page.evaluate(PLOTTED, [chart, 'raw'])
    assert all(step != spike for pts in before.values() for step, _ in pts)  # the samples miss the spike

    canvas = box_zoom(page, chart, spike)
    card = page.get_by_test_id("scalar-card").filter(has=canvas)
    assert_spike_plotted(page, chart, spike)
    # smoothing applies to the window's points: the smoothed line of rank_1 rises towards the spike
    smoothed = page.evaluate(PLOTTED, [chart, "sm"])
    top = max(v for _, v in smoothed[SPIKY] if v is not None)
    assert 2 < top < SPIKE_VALUE
    assert max(v for _, v in smoothed[RUNS[0]] if v is not None) < 2
    # the tooltip shows the real step and value (the smoothed value beside it)
    tip = hover_tooltip(page, chart, spike, SPIKE_VALUE)
    assert f"Step {spike}" in tip and "37.5" in tip
    lo, hi = (int(x) for x in canvas.get_attribute("data-window-range").split(","))
    assert lo <= spike <= hi and hi - lo < STEPS // 10
    windows = {run: api_window(base, run, lo, hi) for run in RUNS}
    assert int(canvas.get_attribute("data-window-total")) == sum(w["window"]["total"] for w in windows.values())
    expect_window = card.get_by_test_id("chart-window-note")
    assert expect_window.is_visible()

    # CSV of the zoomed window: exactly the real points the API holds for those steps, per run
    name, text = download(page, card, "chart-download-csv")
    assert name == f"compare_loss_scalar_steps{lo}-{hi}_all.csv"
    got = csv_by_series(text)
    assert set(got) == set(RUNS)
    for run, answer in windows.items():
        assert answer["window"]["exact"] is True and answer["window"]["total"] == len(answer["metadatas"])
        want = [(p["step"], p["wall_time"], p["value"]) for p in answer["metadatas"]]
        assert got[run] == want
        assert [s for s, _, _ in want] == list(range(lo, hi + 1))  # every step of the window
    assert any(s == spike and v == SPIKE_VALUE for s, _, v in got[SPIKY])
    # JSON of the same window: the same real points
    name, text = download(page, card, "chart-download-json")
    assert name == f"compare_loss_scalar_steps{lo}-{hi}_all.json"
    doc = json.loads(text)
    assert doc["smoothing"] == 0.5
    assert {s["name"]: [(p["step"], p["wall_time"], p["value"]) for p in s["points"]] for s in doc["series"]} == got
    note = card.get_by_test_id("chart-export-note")
    assert note.get_attribute("data-kind") == "all"
    assert int(note.get_attribute("data-rows")) == sum(len(v) for v in got.values())
    assert "Every real step" in note.inner_text()
    screenshot(page, "compare_zoom_export_en_light")

    # Chinese, dark: the same notes, translated; the chart keeps its window
    page.get_by_test_id("lang-zh").click()
    page.get_by_test_id("theme-select").select_option("dark")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert "已导出" in note.inner_text() and "每一个真实步" in note.inner_text()
    assert "已缩放" in expect_window.inner_text()
    assert_spike_plotted(page, chart, spike)
    screenshot(page, "compare_zoom_export_zh_dark")

    # no zoom: every real step of both series, fetched window by window (server maximum 100,000 points)
    card.get_by_test_id("chart-zoom-reset").click()
    page.wait_for_function(f"() => document.querySelector(\"[data-chart-id='{chart}']\").dataset.windowPoints === ''")
    name, text = download(page, card, "chart-download-csv")
    assert name == "compare_loss_scalar_all.csv"
    got = csv_by_series(text)
    for rank, run in enumerate(RUNS):
        steps = np.array([s for s, _, _ in got[run]])
        values = np.array([v for _, _, v in got[run]])
        assert np.array_equal(steps, np.arange(1, STEPS + 1))
        want = np.array([curve(rank, int(s)) for s in steps], dtype=np.float32).astype(np.float64)
        if run == SPIKY:
            want[spike - 1] = SPIKE_VALUE
        assert np.array_equal(values, want)  # the values written (float32), the spike included
    assert int(note.get_attribute("data-rows")) == 2 * STEPS


def test_rank_overlay_zoom_shows_the_spike(page: Any, ranks_server: tuple[str, int], screenshot: Any) -> None:
    base, spike = ranks_server
    chart = "dashboard:ranks"
    page.goto(f"{base}/#/train-dashboard?train_id={urllib.parse.quote(RUNS[0])}")
    wait_loaded(page, chart)
    box_zoom(page, chart, spike)
    assert_spike_plotted(page, chart, spike)
    assert page.get_by_test_id("dashboard-card-ranks").get_by_test_id("chart-window-note").is_visible()
    page.get_by_test_id("theme-select").select_option("dark")
    screenshot(page, "rank_overlay_zoom_dark")
