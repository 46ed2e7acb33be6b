"""Zooming into a one-step spike of a 200,000-step run shows the spike's real value (issue 13).

The run is written by our SummaryWriter; the spike sits at a step the 1,000-point reservoir sample does not
keep, so before the zoom the chart cannot show it. The test box-zooms around the spike's x position with the
mouse, as a user does; the chart then asks `scalar/metadata?start_step=&end_step=&points=` for the window and
plots its real points (M4: per pixel column the first, last, min and max), so the spike's exact value is in
the plotted series and inside the y range.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mindinsight_clone.store.reservoir import Reservoir, Sample
from mindinsight_clone.summary import SummaryWriter
from tests.conftest import REPO, free_port, run_cli

STEPS = 200_000
SPIKE_VALUE = 37.5  # float32-exact
CHART = "scalar:loss/scalar"


def spike_step() -> int:
    """A step near 123,457 that MindInsight's reservoir (1,000 of 200,000) does not keep."""
    res = Reservoir(1000)
    res.extend_increasing_lazy(STEPS, lambda i: Sample(i + 1, 0.0, 0.0))
    kept = {s.step for s in res.samples}
    return next(s for s in range(123_457, STEPS) if s not in kept and s - 1 not in kept and s + 1 not in kept)


@pytest.fixture
def big_run_server(tmp_path: Path) -> Iterator[tuple[str, int]]:
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    base, ws, port = tmp_path / "logs", tmp_path / "ws", free_port()
    spike = spike_step()
    writer = SummaryWriter(base / "big", timestamp=1_795_000_000)
    try:
        for step in range(1, STEPS + 1):
            value = SPIKE_VALUE if step == spike else 1.0 + 0.5 * math.exp(-step / 30_000) + 0.01 * math.sin(step)
            writer.add_scalar("loss", value, step)
    finally:
        writer.close()
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws),
                      "--reload-interval", "0")
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        yield f"http://127.0.0.1:{port}", spike
    finally:
        run_cli("stop", "--port", str(port), "--workspace", str(ws))


PLOTTED = """id => {
  const opt = window.__charts[id].instance().getOption()
  const out = []
  for (const s of opt.series) for (const d of (s.data || [])) if (Array.isArray(d) && d.length >= 4) out.push([d[2], d[1]])
  return out
}"""


def test_zoom_into_a_spike_shows_its_real_value(page: Any, big_run_server: tuple[str, int], screenshot: Any) -> None:
    base, spike = big_run_server
    page.goto(f"{base}/#/scalars?train_id=./big&tag=loss/scalar&band=0")
    page.wait_for_function(f"() => {{ const c = window.__charts && window.__charts['{CHART}']; "
                           f"return !!c && c.series[0]?.lastX === {STEPS} }}", timeout=90_000)
    before = page.evaluate(PLOTTED, CHART)
    assert before and all(step != spike for step, _ in before)  # the sample does not hold the spike
    assert max(v for _, v in before if v is not None) < 2

    card = page.locator(f"[data-chart-id='{CHART}']")
    box = card.bounding_box()
    # pixel of the spike's step on the x axis and of the plot's vertical extent (chart coordinates)
    px, _ = page.evaluate(f"() => window.__charts['{CHART}'].instance().convertToPixel({{gridIndex: 0}}, [{spike}, 1])")
    grid = page.evaluate(f"""() => {{
        const r = window.__charts['{CHART}'].instance().getModel().getComponent('grid').coordinateSystem.getRect()
        return [r.y, r.y + r.height] }}""")
    page.get_by_test_id("chart-zoom").first.click()
    x0, x1 = box["x"] + px - 6, box["x"] + px + 6
    y0, y1 = box["y"] + grid[0] + 2, box["y"] + grid[1] - 2
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    page.mouse.move(x1, y1, steps=4)
    page.mouse.up()

    page.wait_for_function(f"() => document.querySelector(\"[data-chart-id='{CHART}']\").dataset.windowPoints > 0",
                           timeout=30_000)
    total = int(card.get_attribute("data-window-total"))
    shown = int(card.get_attribute("data-window-points"))
    assert card.get_attribute("data-zoom-depth") == "1"
    assert 0 < shown <= box["width"] + 1 and shown <= total < STEPS  # a window, at most ~one point per pixel
    after = page.evaluate(PLOTTED, CHART)
    assert [spike, SPIKE_VALUE] in after  # the spike's step with its real value
    y_max = page.evaluate(f"() => window.__charts['{CHART}'].instance().getModel().getComponent('yAxis')"
                          ".axis.scale.getExtent()[1]")
    assert y_max >= SPIKE_VALUE  # and inside the visible y range
    assert page.get_by_test_id("chart-window-note").is_visible()
    screenshot(page, "scalar_zoom_spike")

    page.get_by_test_id("chart-zoom-reset").first.click()  # back to the sample
    page.wait_for_function(f"() => document.querySelector(\"[data-chart-id='{CHART}']\").dataset.windowPoints === ''")
