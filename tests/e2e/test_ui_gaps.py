"""Issue 15's page items for loss landscape, tensors, histograms and comparison, in real Chromium.

The server is our real gunicorn (tests/e2e/conftest.py) over ../shared/fixtures/mindspore read in place;
every test that needs a particular fixture run skips with a reason when ../shared is absent.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from mindinsight_clone.summary.writer import SummaryWriter
from tests.conftest import FIXTURES, free_port, require_shared, run_cli
from tests.e2e.test_core_pages import catalog, get_json, goto, q


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


def wait_drawn(page: Any, canvas: Any, measure: Callable[[bytes], tuple[Any, Any]],
               enough: Callable[[Any, Any], bool]) -> tuple[Any, Any]:
    """`measure` of the canvas's screenshot, polled until `enough` of it or ~10 s passed (a wait for the GL layer's
    drawing, not a timing assertion); an AssertionError names the last figures."""
    figures = measure(canvas.screenshot())
    for _ in range(40):
        if enough(*figures):
            return figures
        page.wait_for_timeout(250)
        figures = measure(canvas.screenshot())
    raise AssertionError(f"the 3-D canvas is not drawn yet: {figures}")


def _assert_drawn(page: Any, canvas: Any) -> None:
    """The canvas shows a chart: >5% of its pixels differ from the background, in >50 colours."""
    wait_drawn(page, canvas, _drawn_fraction, lambda fraction, ncolors: fraction > 0.05 and ncolors > 50)


# ---------------------------------------------------------------------------------------------- landscape 3-D
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_landscape_surface_draws_under_the_csp(page: Any, ui_server: str, screenshot: Any, theme: str) -> None:
    require_shared(FIXTURES)
    page.add_init_script(f"localStorage.setItem('mitheme', {json.dumps(theme)})")
    goto(page, ui_server, q("/loss-landscape", train_id="./landscape", mode="surface"))
    page.wait_for_function("() => window.__charts?.landscape?.extra?.mode === 'surface'")
    _assert_drawn(page, _gl_canvas(page))
    assert page.get_by_test_id("landscape-chart").locator("xpath=..").get_by_text("WebGL").count() == 0
    # issue 34: the z labels clear of the ticks (nice ticks only, a margin, the name further out), and the Start
    # and End pins stand above the surface on stems from the path's ends, labelled
    got = page.evaluate("""() => { const o = window.__charts.landscape.instance().getOption()
        const z = o.zAxis3D[0], surface = o.series.find(s => s.type === 'surface').data
        const pins = o.series.find(s => s.id === 'pins'), path = o.series.find(s => s.id === 'path').data
        return { min: z.min ?? null, max: z.max ?? null, gap: z.nameGap, margin: z.axisLabel.margin,
                 top: Math.max(...surface.map(d => d[2]).filter(Number.isFinite)),
                 heads: pins.data.map(d => d.value), labels: pins.data.map((d, i) => pins.label.formatter({ dataIndex: i })),
                 ends: [path[0], path[path.length - 1]],
                 stems: ['pin:start', 'pin:end'].map(id => o.series.find(s => s.id === id).data) } }""")
    assert got["min"] is None and got["max"] is None and got["gap"] >= 40 and got["margin"] >= 12, got
    assert got["labels"] == ["Start", "End"]
    for head, end, stem in zip(got["heads"], got["ends"], got["stems"], strict=True):
        assert head[:2] == pytest.approx(end[:2]) and head[2] > end[2]
        assert stem == [pytest.approx(end), pytest.approx(head)]
    assert got["heads"][1][2] > got["ends"][1][2] + 0.05 * (got["top"] - min(e[2] for e in got["ends"]))
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
        _assert_drawn(page, _gl_canvas(page, f"[data-testid=landscape-compare-card][data-train-id={json.dumps(train_id)}]"))
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


# ---------------------------------------------------------------------------------------------- tensors
def _api_slice(base: str, tag: str, step: int, dims: str) -> dict[str, Any]:
    body = get_json(base, "tensors", train_id="./record_api", tag=tag, detail="data", step=step, dims=dims)
    return body["tensors"][0]["values"][0]["value"]


def _rows(data: Any) -> list[list[Any]]:
    if not isinstance(data, list):
        return [[data]]
    return [data] if data and not isinstance(data[0], list) else data


def test_tensor_comparison_stats_scope_range_error_and_csv(page: Any, ui_server: str, screenshot: Any,
                                                           tmp_path: Path) -> None:
    require_shared(FIXTURES)
    tag = "tensor/4d_float32/tensor"
    goto(page, ui_server, q("/tensors", train_id="./record_api", tag=tag))
    card = page.locator(f"[data-testid=tensor-card][data-tag={json.dumps(tag)}]")
    card.get_by_test_id("tensor-table").wait_for()
    step = int(card.get_attribute("data-step"))

    # An out-of-range index names the dimension and its size.
    card.get_by_test_id("tensor-dim-1").fill("7")
    card.get_by_test_id("tensor-dims-apply").click()
    error = card.get_by_test_id("tensor-dims-error")
    error.wait_for()
    assert "Dimension 1" in error.text_content() and "size is 3" in error.text_content()
    card.get_by_test_id("tensor-dim-1").fill("1")
    card.get_by_test_id("tensor-dims-apply").click()
    page.wait_for_function("el => el.dataset.dims === '[0,1,:,:]'", arg=card.element_handle())
    dims = "[0,1,:,:]"

    # The statistics say what they describe: the slice (max, min, ...) and the whole tensor (overall_*).
    stats = _api_slice(ui_server, tag, step, dims)["statistics"]
    assert stats["max"] != stats["overall_max"]
    page.wait_for_function(
        "([el, m]) => el.querySelector('[data-testid=tensor-stats][data-scope=slice]')?.textContent.includes(m)",
        arg=[card.element_handle(), f"{stats['max']:g}"])
    slice_line = card.locator("[data-testid=tensor-stats][data-scope=slice]").text_content()
    whole_line = card.locator("[data-testid=tensor-stats][data-scope=whole]").text_content()
    assert "Slice [0,1,:,:]" in slice_line and f"max {stats['max']:g}" in slice_line
    assert "Whole tensor" in whole_line and f"max {stats['overall_max']:g}" in whole_line

    # Comparison with another step: the table shows this step minus the chosen step, cell by cell.
    card.get_by_test_id("tensor-type").select_option("compare")
    other_select = card.get_by_test_id("tensor-compare-step")
    other_select.wait_for()
    other_step = int(other_select.locator("option:checked").text_content())
    assert other_step != step
    page.wait_for_function("el => el.querySelector('[data-testid=tensor-table]')?.dataset.type === 'compare'",
                           arg=card.element_handle())
    mine = _rows(_api_slice(ui_server, tag, step, dims)["data"])
    theirs = _rows(_api_slice(ui_server, tag, other_step, dims)["data"])
    expected = [[a - b for a, b in zip(r1, r2, strict=True)] for r1, r2 in zip(mine, theirs, strict=True)]
    page.get_by_test_id("tensor-decimals").select_option("5")
    page.wait_for_function(
        """([el, n]) => el.querySelectorAll('[data-testid=tensor-cell]').length === n""",
        arg=[card.element_handle(), sum(len(r) for r in expected)])
    cells = [float(x) for x in card.locator("[data-testid=tensor-cell]").all_text_contents()]
    assert cells == pytest.approx([v for r in expected for v in r], abs=1e-5)
    card.get_by_test_id("tensor-compare-note").wait_for()
    screenshot(page, "gaps_tensor_compare")

    # CSV export of the shown (difference) table, full precision.
    with page.expect_download() as info:
        card.get_by_test_id("tensor-export-csv").click()
    path = tmp_path / "slice.csv"
    info.value.save_as(path)
    lines = path.read_text().splitlines()
    assert lines[0] == "," + ",".join(str(j) for j in range(len(expected[0])))
    got = [[float(x) for x in line.split(",")[1:]] for line in lines[1:]]
    assert [len(r) for r in got] == [len(r) for r in expected]
    assert [v for r in got for v in r] == pytest.approx([v for r in expected for v in r])
    assert info.value.suggested_filename.endswith(".csv") and f"step{step}-minus-step{other_step}" in \
        info.value.suggested_filename

    # Value type again: the CSV is the slice itself.
    card.get_by_test_id("tensor-type").select_option("value")
    page.wait_for_function("el => el.querySelector('[data-testid=tensor-table]')?.dataset.type === 'value'",
                           arg=card.element_handle())
    with page.expect_download() as info:
        card.get_by_test_id("tensor-export-csv").click()
    info.value.save_as(path)
    got = [[float(x) for x in line.split(",")[1:]] for line in path.read_text().splitlines()[1:]]
    assert [len(r) for r in got] == [len(r) for r in mine]
    assert [v for r in got for v in r] == pytest.approx([v for r in mine for v in r])


# ---------------------------------------------------------------------------------------------- histograms
def test_histogram_nonfinite_counts_snap_and_translated_tooltip(page: Any, ui_server: str, screenshot: Any) -> None:
    require_shared(FIXTURES)
    tag = "hist/with_nan_inf/histogram"
    rows = get_json(ui_server, "histograms", train_id="./record_api", tag=tag)["histograms"]
    with_counts = [r for r in rows if r.get("nan_count") or r.get("pos_inf_count") or r.get("neg_inf_count")]
    assert with_counts
    goto(page, ui_server, q("/histograms", train_id="./record_api", tag=tag, view="front"))
    cid = f"histogram:{tag}"
    card = page.locator(f"[data-testid=histogram-card][data-tag={json.dumps(tag)}]")
    page.wait_for_function("id => window.__charts?.[id]?.extra?.view === 'front'", arg=cid)

    # NaN / ±Inf counts per step, as the API sends them.
    note = card.get_by_test_id("histogram-nonfinite")
    note.wait_for()
    assert note.get_attribute("data-steps") == str(len(with_counts))
    note.locator("summary").click()
    last = with_counts[-1]
    cells = note.locator(f"[data-testid=histogram-nonfinite-row][data-step='{last['step']}'] td").all_text_contents()
    assert cells == [str(last["step"]), str(last["nan_count"]), str(last["pos_inf_count"]), str(last["neg_inf_count"])]

    # Front view: hovering between two buckets, off the line, shows the nearest bucket's tooltip.
    newest = rows[-1]
    k = max(range(len(newest["buckets"])), key=lambda j: newest["buckets"][j][2])
    left, width, count = newest["buckets"][k]
    point = page.evaluate(
        """([id, x, y]) => window.__charts[id].instance().convertToPixel('grid', [x, y])""",
        [cid, left + width * 0.85, count * 0.5])  # closer to bucket k's centre than to k+1's, half-way down
    box = page.get_by_test_id("histogram-chart").first.bounding_box()
    page.mouse.move(box["x"] + point[0], box["y"] + point[1])
    tooltip = page.locator(".tt").first
    tooltip.wait_for()
    text = tooltip.text_content()
    assert f"{newest['step']}" in text and "NaN" in text
    screenshot(page, "gaps_histogram_front_snap")

    # Top view tooltip in Chinese: no English left over.
    page.evaluate("() => localStorage.setItem('milang', 'zh-cn')")
    goto(page, ui_server, q("/histograms", train_id="./record_api", tag=tag, view="top"))
    page.reload()
    page.wait_for_function("id => window.__charts?.[id]?.extra?.view === 'top'", arg=cid)
    page.evaluate("id => window.__charts[id].instance().dispatchAction({type: 'showTip', seriesIndex: 0, dataIndex: 0})",
                  cid)
    tip = page.locator(".tt").first
    tip.wait_for()
    zh = tip.text_content()
    assert "峰值区间" in zh and "步骤" in zh and "max @" not in zh and "Step" not in zh
    screenshot(page, "gaps_histogram_top_zh")
