"""A full workspace disk in real Chromium (issue 21): a zoomed scalar window says it shows the sample because the
disk is full, and shows every real point again by itself once space is freed.

The disk is a real one: the workspace's point store (`<workspace>/cache/points`) is a 256 KiB tmpfs filled with a
filler file before the server starts, so the store's writes fail with a real ENOSPC; deleting the filler frees the
space. Mounting needs root with CAP_SYS_ADMIN: elsewhere the test skips, and
tests/integration/test_points_disk_full.py covers the same through the store's fault hook.
"""

from __future__ import annotations

import errno
import math
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mindinsight_clone.store.point_store import SPILL_ROWS
from mindinsight_clone.store.reservoir import Reservoir, Sample
from mindinsight_clone.summary import SummaryWriter
from tests.conftest import REPO, free_port, run_cli

STEPS = SPILL_ROWS + 2_000  # longer than a series the store keeps in memory: its rows must go to the disk
SPIKE_VALUE = 37.5
CHART = "scalar:loss/scalar"
PLOTTED = """id => {
  const opt = window.__charts[id].instance().getOption()
  const out = []
  for (const s of opt.series) for (const d of (s.data || [])) if (Array.isArray(d) && d.length >= 4) out.push([d[2], d[1]])
  return out
}"""


def spike_step() -> int:
    """A step the 1,000-point reservoir sample does not keep (nor its neighbours)."""
    res = Reservoir(1000)
    res.extend_increasing_lazy(STEPS, lambda i: Sample(i + 1, 0.0, 0.0))
    kept = {s.step for s in res.samples}
    return next(s for s in range(STEPS // 2, STEPS) if not {s - 1, s, s + 1} & kept)


def _fill(directory: Path) -> Path:
    """Write a filler file until the filesystem says ENOSPC."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC, exc
    finally:
        os.close(fd)
    return filler


@pytest.fixture
def full_disk_server(tmp_path: Path) -> Iterator[tuple[str, int, Path]]:
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    base, ws, port = tmp_path / "logs", tmp_path / "ws", free_port()
    points = ws / "cache" / "points"
    points.mkdir(parents=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(points)], capture_output=True,
                             text=True, check=False)
    if mounted.returncode:
        pytest.skip(f"cannot mount a tiny tmpfs here ({mounted.stderr.strip()}): needs root with CAP_SYS_ADMIN; "
                    "tests/integration/test_points_disk_full.py covers this through the store's fault hook")
    try:
        spike = spike_step()
        with SummaryWriter(base / "long", timestamp=1_795_000_000) as writer:
            for step in range(1, STEPS + 1):
                writer.add_scalar("loss", SPIKE_VALUE if step == spike else 1.0 + 0.5 * math.exp(-step / 3000), step)
        filler = _fill(points)
        started = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws),
                          "--reload-interval", "1")
        assert started.returncode == 0, started.stdout + started.stderr
        try:
            yield f"http://127.0.0.1:{port}", spike, filler
        finally:
            run_cli("stop", "--port", str(port), "--workspace", str(ws))
    finally:
        subprocess.run(["umount", "-l", str(points)], check=False)


def _box_zoom(page: Any, x_step: int) -> None:
    card = page.locator(f"[data-chart-id='{CHART}']")
    box = card.bounding_box()
    px, _ = page.evaluate(f"() => window.__charts['{CHART}'].instance().convertToPixel({{gridIndex: 0}}, [{x_step}, 1])")
    grid = page.evaluate(f"""() => {{
        const r = window.__charts['{CHART}'].instance().getModel().getComponent('grid').coordinateSystem.getRect()
        return [r.y, r.y + r.height] }}""")
    page.get_by_test_id("chart-zoom").first.click()
    x0, x1 = box["x"] + px - 8, box["x"] + px + 8
    y0, y1 = box["y"] + grid[0] + 2, box["y"] + grid[1] - 2
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    page.mouse.move(x1, y1, steps=4)
    page.mouse.up()


def test_a_full_disk_is_said_on_the_chart_and_full_resolution_returns(page: Any, full_disk_server: tuple[str, int, Path],
                                                                      screenshot: Any) -> None:
    base, spike, filler = full_disk_server
    page.goto(f"{base}/?refresh=1#/scalars?train_id=./long&tag=loss/scalar&band=0")
    page.wait_for_function(f"() => window.__charts?.['{CHART}']?.series[0]?.lastX === {STEPS}", timeout=60_000)
    _box_zoom(page, spike)
    note = page.get_by_test_id("chart-window-sampled")
    note.wait_for()
    assert note.get_attribute("data-reason") == "disk_full"
    assert "disk is full" in note.inner_text()
    assert "sample" in page.get_by_test_id("chart-window-note").inner_text()
    assert all(step != spike for step, _ in page.evaluate(PLOTTED, CHART))  # the sample misses the spike
    screenshot(page, "audit_disk_full_window")

    filler.unlink()  # space is back: the server refills its store, the chart asks again on its refresh
    note.wait_for(state="detached", timeout=30_000)
    page.wait_for_function(f"() => document.querySelector(\"[data-chart-id='{CHART}']\").dataset.windowSampled === ''")
    assert [spike, SPIKE_VALUE] in page.evaluate(PLOTTED, CHART)
    assert "real points" in page.get_by_test_id("chart-window-note").inner_text()
