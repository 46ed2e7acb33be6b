"""Issue 15's page items for loss landscape, tensors, histograms and comparison, in real Chromium.

The server is our real gunicorn (tests/e2e/conftest.py) over ../shared/fixtures/mindspore read in place;
every test that needs a particular fixture run skips with a reason when ../shared is absent.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from PIL import Image

from tests.conftest import FIXTURES, require_shared
from tests.e2e.test_core_pages import goto, q


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
