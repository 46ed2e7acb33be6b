"""Issue 15's page items for loss landscape, tensors, histograms and comparison, in real Chromium.

The server is our real gunicorn (tests/e2e/conftest.py) over ../shared/fixtures/mindspore read in place;
every test that needs a particular fixture run skips with a reason when ../shared is absent.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from mindinsight_clone.summary.writer import SummaryWriter
from tests.conftest import FIXTURES, free_port, require_shared, run_cli
from tests.e2e.test_core_pages import catalog, goto, q


def _drawn_fraction(png: bytes) -> tuple[float, int]:
    """Share of pixels that differ from the most common (background) colour, and how many colours there are."""
    img = Image.open(io.BytesIO(png)).convert("RGB")
    colors = img.getcolors(maxcolors=1 << 24) or []
    total = img.width * img.height
    background = max(colors)[0] if colors else total
    return 1 - background / total, len(colors)


def _gl_canvas(page: Any, scope: str = "[data-testid=landscape-chart]") -> Any:
    """The WebGL canvas echarts-gl draws into, inside `scope` (marked so Playwright can screenshot it)."""
    page.wait_for_function(
        """scope => [...document.querySelectorAll(scope + ' canvas')].some(c => {
               try { return !!c.getContext('webgl') || !!c.getContext('webgl2') } catch { return false } })""",
        arg=scope,
    )
    page.evaluate(
        """scope => { for (const c of document.querySelectorAll(scope + ' canvas')) {
               let gl = null
               try { gl = c.getContext('webgl') || c.getContext('webgl2') } catch {}
               if (gl) { c.dataset.gl = 'true'; break } } }""",
        scope,
    )
    return page.locator(f"{scope} canvas[data-gl=true]").first


# ---------------------------------------------------------------------------------------------- landscape 3-D
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_landscape_surface_draws_under_the_csp(page: Any, ui_server: str, screenshot: Any, theme: str) -> None:
    require_shared(FIXTURES)
    page.add_init_script(f"localStorage.setItem('mitheme', {json.dumps(theme)})")
    goto(page, ui_server, q("/loss-landscape", train_id="./landscape", mode="surface"))
    page.wait_for_function("() => window.__charts?.landscape?.extra?.mode === 'surface'")
    canvas = _gl_canvas(page)
    # The surface is drawn once the GL layer has content: poll the pixels (no timing assumption).
    fraction, ncolors = 0.0, 0
    for _ in range(40):
        fraction, ncolors = _drawn_fraction(canvas.screenshot())
        if fraction > 0.05 and ncolors > 50:
            break
        page.wait_for_timeout(250)
    assert fraction > 0.05 and ncolors > 50, (fraction, ncolors)
    assert page.get_by_test_id("landscape-chart").locator("xpath=..").get_by_text("WebGL").count() == 0
    screenshot(page, f"gaps_landscape_surface_{theme}")


# ---------------------------------------------------------------------------------------------- landscape track
@pytest.mark.parametrize("mode", ["contour", "surface"])
def test_landscape_track_animation(page: Any, ui_server: str, screenshot: Any, mode: str) -> None:
    require_shared(FIXTURES)
    goto(page, ui_server, q("/loss-landscape", train_id="./landscape", mode=mode))
    page.wait_for_function("m => window.__charts?.landscape?.extra?.mode === m", arg=mode)
    full = page.evaluate("() => window.__charts.landscape.instance().getOption().series.find(s => s.id === 'path').data.length")
    assert full >= 2
    page.get_by_test_id("landscape-play").click()
    # While playing, the path is drawn only up to the moving head (shorter than the whole path) ...
    page.wait_for_function(
        """n => { const c = window.__charts.landscape
                  const o = c.instance().getOption()
                  return c.extra.track === 'playing' && o.series.find(s => s.id === 'path').data.length < n
                         && o.series.find(s => s.id === 'head').data.length === 1 }""",
        arg=full,
    )
    assert page.get_by_test_id("landscape-play").get_attribute("aria-pressed") == "true"
    # ... and at the end it is whole again, without the head.
    page.wait_for_function("() => window.__charts.landscape.extra.track === 'done'", timeout=60_000)
    final = page.evaluate("""() => { const o = window.__charts.landscape.instance().getOption()
                                     return [o.series.find(s => s.id === 'path').data.length,
                                             o.series.find(s => s.id === 'head').data.length] }""")
    assert final == [full, 0]
    screenshot(page, f"gaps_landscape_track_{mode}")


# ---------------------------------------------------------------------------------------------- compare
def test_compare_default_selection_has_only_runs_with_scalars(page: Any, ui_server: str, screenshot: Any) -> None:
    runs = catalog(ui_server)
    with_scalars = {r for r, p in runs.items() if p.get("scalar")}
    without = sorted(set(runs) - with_scalars)
    if FIXTURES.exists():
        assert "./not_summary" in without  # the fixture run the issue names
    goto(page, ui_server, "/compare-plate")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=run-option][data-checked=true]').length > 0")
    chosen = page.locator("[data-testid=run-option][data-checked=true]").evaluate_all(
        "els => els.map(e => e.dataset.trainId)")
    assert set(chosen) <= with_scalars, set(chosen) - with_scalars
    assert len(chosen) == min(5, len(with_scalars))
    screenshot(page, "gaps_compare_defaults")


def _write_landscape_run(run_dir: Path, shift: float) -> None:
    """A run with a loss scalar and two interval landscapes (with a path) plus a final one, by our writer."""
    axis = np.linspace(-1, 1, 15, dtype=np.float32)
    xx, yy = np.meshgrid(axis, axis)
    with SummaryWriter(run_dir, timestamp=1_700_000_000) as writer:
        for step in range(1, 7):
            writer.add_scalar("loss", 1.0 / step + shift, step)
        for k, (a, b) in enumerate(((1, 3), (3, 6))):
            t = np.linspace(0.9, 0.0, 4, dtype=np.float32)
            z = (xx - shift) ** 2 + 0.5 * yy**2 + 0.1 * k
            writer.add_landscape(f"landscape_{[a, b]}", {
                "x": axis, "y": axis, "z": z.astype(np.float64), "decomposition": "PCA", "unit": "step",
                "path": {"x": t, "y": t * 0.5, "z": (t**2).astype(np.float32), "intervals": list(range(a, a + 4))},
            }, step=0)
            writer.flush()
        writer.add_landscape("landscape_[6]", {"x": axis, "y": axis, "z": (xx**2 + yy**2).astype(np.float64),
                                               "decomposition": "Random", "unit": "step"}, step=0)


@pytest.fixture(scope="module")
def landscape_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Our server over 4 landscape runs and one scalar-only run (the comparison shows at most 3 landscapes)."""
    base = tmp_path_factory.mktemp("landscapes")
    for i in range(4):
        _write_landscape_run(base / f"ls_{i}", shift=0.2 * i)
    with SummaryWriter(base / "scalars_only", timestamp=1_700_000_000) as writer:
        writer.add_scalar("loss", 1.0, 1)
    port, ws = free_port(), tmp_path_factory.mktemp("ls-ws")
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws),
                      "--reload-interval", "1")
    assert started.returncode == 0, started.stdout + started.stderr
    yield f"http://127.0.0.1:{port}"
    run_cli("stop", "--port", str(port), "--workspace", str(ws))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_compare_loss_graph_tab(page: Any, landscape_server: str, screenshot: Any, theme: str) -> None:
    page.add_init_script(f"localStorage.setItem('mitheme', {json.dumps(theme)})")
    goto(page, landscape_server, q("/compare-plate", tab="scalar"))
    page.get_by_test_id("compare-tab-landscape").click()
    page.get_by_test_id("landscape-compare").wait_for()
    # Only runs with a landscape are offered; at most 3 are selected, the 4th is disabled.
    options = page.get_by_test_id("landscape-run-option")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=landscape-run-option]').length === 4")
    offered = options.evaluate_all("els => els.map(e => e.dataset.trainId)")
    assert sorted(offered) == [f"./ls_{i}" for i in range(4)]
    cards = page.get_by_test_id("landscape-compare-card")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=landscape-compare-card]').length === 3")
    shown = cards.evaluate_all("els => els.map(e => e.dataset.trainId)")
    unchecked = page.locator("[data-testid=landscape-run-option][data-checked=false] input")
    assert unchecked.count() == 1 and unchecked.is_disabled()
    # Each card draws its run's 3-D surface (the default view) side by side.
    for train_id in shown:
        cid = f"compare-landscape:{train_id}"
        page.wait_for_function("id => window.__charts?.[id]?.extra?.mode === 'surface'", arg=cid)
        canvas = _gl_canvas(page, f"[data-testid=landscape-compare-card][data-train-id={json.dumps(train_id)}]")
        fraction, ncolors = 0.0, 0
        for _ in range(40):
            fraction, ncolors = _drawn_fraction(canvas.screenshot())
            if fraction > 0.05 and ncolors > 50:
                break
            page.wait_for_timeout(250)
        assert fraction > 0.05 and ncolors > 50, (train_id, fraction, ncolors)
    boxes = [cards.nth(i).bounding_box() for i in range(3)]
    assert len({round(b["y"]) for b in boxes}) == 1  # one row
    screenshot(page, f"gaps_compare_landscapes_{theme}")
    # Another range of one run, and the 2-D view for all: each chart follows.
    first = shown[0]
    card = page.locator(f"[data-testid=landscape-compare-card][data-train-id={json.dumps(first)}]")
    cid = f"compare-landscape:{first}"
    before = page.evaluate("id => window.__charts[id].extra.zMax", cid)
    card.get_by_test_id("landscape-compare-interval").select_option("final")
    page.wait_for_function("([id, b]) => window.__charts[id].extra.zMax !== b", arg=[cid, before])
    page.get_by_test_id("landscape-compare-mode-contour").click()
    for train_id in shown:
        page.wait_for_function("id => window.__charts[id].extra.mode === 'contour'", arg=f"compare-landscape:{train_id}")
    # Unselect one: the 4th run can be chosen now.
    page.locator(f"[data-testid=landscape-run-option][data-train-id={json.dumps(shown[1])}] input").uncheck()
    page.wait_for_function("() => document.querySelectorAll('[data-testid=landscape-compare-card]').length === 2")
    assert not unchecked.first.is_disabled()
