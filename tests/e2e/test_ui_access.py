"""Keyboard, small screens, labels, the not-found page and icon glyphs, in Chromium (issue 15).

* every input/select/textarea of every page has an accessible name, as Chromium's own
  accessibility tree computes it (CDP `Accessibility.getFullAXTree`);
* lineage column headers sort from the keyboard;
* at 1024 px the header stays on one line, the lineage axis labels do not overlap (text boxes
  taken from the chart's own scene graph), and every lineage column can be scrolled into view;
* an unknown route shows the not-found page with a way back;
* icon buttons use plain ASCII text or SVG (no glyph a font may lack).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_shared

GRAPH_RUN = "./lenet_collector"
PROFILER_RUN = "./profiler_cpu"
PROFILER_TABS = ["overview", "ops", "timeline", "steps", "memory", "pipeline"]


def _pages() -> list[tuple[str, str]]:
    """(route, selector that shows the page has drawn its controls) for every page of the app."""
    return [
        ("/summary-manage", "[data-testid=summary-row]"),
        (f"/train-dashboard?train_id={GRAPH_RUN}", "[data-testid=dashboard-cards]"),
        (f"/scalars?train_id={GRAPH_RUN}", "[data-testid=scalar-card]"),
        (f"/images?train_id={GRAPH_RUN}", "[data-testid=image-card]"),
        (f"/histograms?train_id={GRAPH_RUN}", "[data-testid=histogram-card]"),
        ("/tensors?train_id=./record_api", "[data-testid=tensor-dim-0]"),
        ("/loss-landscape?train_id=./landscape", "[data-testid=landscape-interval]"),
        ("/compare-plate", "[data-testid=run-option]"),
        (f"/graph?train_id={GRAPH_RUN}", "[data-testid=graph-canvas][data-state=ready]"),
        (f"/data-map?train_id={GRAPH_RUN}", "[data-testid=data-map-canvas][data-state=ready]"),
        ("/model-lineage", "[data-testid=lineage-row]"),
        ("/data-lineage", "[data-testid=lineage-row]"),
        *[(f"/profiler?train_id={PROFILER_RUN}&tab={tab}", '[data-testid=profiler-page][data-status="ready"]')
          for tab in PROFILER_TABS],
        ("/debugger", '[data-testid=debugger-page][data-status="ready"]'),  # no dump here: its calm empty state
        ("/models", '[data-testid=models-page][data-status="ready"]'),
        ("/no-such-page", "[data-testid=not-found-page]"),
    ]


FORM_CONTROLS = "input:not([type=hidden]), select, textarea"


def _unnamed_controls(page: Any, cdp: Any) -> tuple[int, list[str]]:
    """Form controls whose accessible name (Chromium's accessibility tree) is empty."""
    described = page.eval_on_selector_all(
        FORM_CONTROLS,
        """els => els.map((e, i) => { e.setAttribute('data-a11y-probe', String(i));
             return `${e.tagName.toLowerCase()}[type=${e.type}] ${e.dataset.testid || e.className}` })""",
    )
    names: dict[int, str] = {}
    for node in cdp.send("Accessibility.getFullAXTree")["nodes"]:
        if not node.get("ignored") and "backendDOMNodeId" in node:
            names[node["backendDOMNodeId"]] = str(node.get("name", {}).get("value") or "").strip()
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    bad = []
    for i, text in enumerate(described):
        node_id = cdp.send("DOM.querySelector", {"nodeId": root, "selector": f'[data-a11y-probe="{i}"]'})["nodeId"]
        backend = cdp.send("DOM.describeNode", {"nodeId": node_id})["node"]["backendNodeId"]
        if backend in names and not names[backend]:  # absent = not rendered (display: none)
            bad.append(text)
    return len(described), bad


# Controls that only appear after a click: (route, ready selector, what to click first).
OPENED = [
    ("/model-lineage", "[data-testid=lineage-row]", ["[data-testid=lineage-columns-button]"]),
    ("/model-lineage", "[data-testid=lineage-row]", ["[data-testid=lineage-remark-edit] >> nth=0"]),
    (f"/scalars?train_id={GRAPH_RUN}", "[data-testid=scalar-card]", ["[data-testid=chart-threshold-set] >> nth=0"]),
]


def test_every_form_control_of_every_page_has_an_accessible_name(page: Any, ui_server: str) -> None:
    require_shared()
    cdp = page.context.new_cdp_session(page)
    unnamed: dict[str, list[str]] = {}
    glyphs: dict[str, list[str]] = {}
    total = 0
    walk = [(route, ready, []) for route, ready in _pages()] + OPENED
    for route, ready, clicks in walk:
        page.goto(f"{ui_server}/#{route}")
        page.wait_for_selector(ready)
        for sel in clicks:
            page.click(sel)
        page.wait_for_timeout(300)  # let late panels (pagers, sliders, editors) render
        count, bad = _unnamed_controls(page, cdp)
        total += count
        if bad:
            unnamed[f"{route} {clicks}"] = bad
        odd = sorted(set(_non_ascii_icon_buttons(page)))
        if odd:
            glyphs[f"{route} {clicks}"] = odd
    assert total > 50  # the walk really met the controls
    assert not unnamed, unnamed
    assert not glyphs, glyphs  # icon buttons: ASCII text or SVG only


def _lineage_order(page: Any) -> list[str]:
    return page.eval_on_selector_all("[data-testid=lineage-row]", "rows => rows.map(r => r.dataset.trainId)")


@pytest.mark.parametrize("route", ["/model-lineage", "/data-lineage"])
def test_lineage_headers_sort_from_the_keyboard(page: Any, ui_server: str, route: str) -> None:
    require_shared()
    page.goto(f"{ui_server}/#{route}")
    page.wait_for_selector("[data-testid=lineage-row]")
    header = page.locator('[data-testid=lineage-th][data-col="summary_dir"]')
    assert header.get_attribute("aria-sort") == "none"
    header.focus()
    assert page.evaluate("() => document.activeElement.dataset.col") == "summary_dir"
    page.keyboard.press("Enter")
    assert header.get_attribute("aria-sort") == "ascending"
    ascending = _lineage_order(page)
    page.keyboard.press(" ")
    assert header.get_attribute("aria-sort") == "descending"
    assert _lineage_order(page) == ascending[::-1]  # summary paths are unique: an exact reversal
    page.keyboard.press("Enter")
    assert header.get_attribute("aria-sort") == "none"
    # The keyboard sorts exactly as a mouse click does.
    header.click()
    assert header.get_attribute("aria-sort") == "ascending"
    assert _lineage_order(page) == ascending
    header.click()
    header.click()
    header.focus()
    # Tab moves on to the next header, which sorts the same way.
    page.keyboard.press("Tab")
    nxt = page.evaluate("() => document.activeElement.dataset.testid")
    assert nxt == "lineage-th"
    page.keyboard.press("Enter")
    assert page.locator("[data-testid=lineage-th][aria-sort=ascending]").count() == 1
    assert header.get_attribute("aria-sort") == "none"


def _header_is_one_line(page: Any) -> None:
    info = page.evaluate(
        """() => {
          const h = document.querySelector('[data-testid=app-header]');
          const parts = [h.querySelector('[data-testid=logo]'), ...h.querySelectorAll('.nav-link'),
                         h.querySelector('[data-testid=auto-refresh-switch]'), h.querySelector('[data-testid=theme-select]'),
                         h.querySelector('[data-testid=lang-switch]')];
          return { height: h.getBoundingClientRect().height, scroll: h.scrollWidth, width: h.clientWidth,
                   parts: parts.map(p => { const r = p.getBoundingClientRect();
                     return [p.dataset.testid || p.textContent.trim(), Math.round(r.height), Math.round(r.right)] }) }
        }"""
    )
    assert info["height"] <= 56, info
    assert info["scroll"] <= info["width"], info
    # One text line each (the nav links fill the header's height by design), nothing pushed out.
    for name, height, right in info["parts"]:
        assert right <= info["width"], info
        if name in ("logo", "auto-refresh-switch", "theme-select", "lang-switch"):
            assert height <= 40, (name, info)
    texts = page.eval_on_selector_all(
        "[data-testid=app-header] .logo-text, [data-testid=app-header] .nav-link",
        "els => els.map(e => { const r = document.createRange(); r.selectNodeContents(e); return r.getClientRects().length })")
    assert all(n == 1 for n in texts), texts


@pytest.mark.parametrize("lang", ["lang-en", "lang-zh"])
def test_header_stays_on_one_line_at_1024px(page: Any, ui_server: str, lang: str) -> None:
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(f"{ui_server}/#/model-lineage")  # the longest active nav entry
    page.get_by_test_id(lang).click()
    page.wait_for_selector("[data-testid=model-lineage-page]")
    _header_is_one_line(page)


OVERLAPS = """id => {
  const zr = window.__charts[id].instance().getZr();
  const boxes = [];
  zr.storage.getDisplayList(true).forEach(el => {
    if (el.ignore || el.invisible || !el.style || !el.style.text) return;
    const r = el.getBoundingRect().clone();
    const m = el.getComputedTransform();
    if (m) r.applyTransform(m);
    boxes.push([String(el.style.text), r.x, r.y, r.width, r.height]);
  });
  const hits = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const [a, ax, ay, aw, ah] = boxes[i], [b, bx, by, bw, bh] = boxes[j];
    if (ax < bx + bw - 1 && bx < ax + aw - 1 && ay < by + bh - 1 && by < ay + ah - 1) hits.push([a, b]);
  }
  return { count: boxes.length, hits };
}"""


@pytest.mark.parametrize("width", [1024, 1400])
@pytest.mark.parametrize(("route", "chart"), [("/model-lineage", "model-lineage-parallel"),
                                              ("/data-lineage", "data-lineage-parallel")])
def test_lineage_axis_labels_do_not_overlap(page: Any, ui_server: str, route: str, chart: str, width: int,
                                            screenshot: Callable[..., Path]) -> None:
    require_shared()
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{ui_server}/#{route}")
    page.wait_for_selector(f'[data-chart-id="{chart}"][data-rendered="true"]')
    result = page.evaluate(OVERLAPS, chart)
    assert result["count"] > 20  # axis names, ticks and category labels were found
    assert not result["hits"], result["hits"]
    if width == 1024:
        screenshot(page, f"{route.strip('/')}_1024")


@pytest.mark.parametrize("route", ["/model-lineage", "/data-lineage"])
def test_lineage_table_scrolls_sideways_at_1024px(page: Any, ui_server: str, route: str) -> None:
    require_shared()
    page.set_viewport_size({"width": 1024, "height": 800})
    page.goto(f"{ui_server}/#{route}")
    page.wait_for_selector("[data-testid=lineage-row]")
    cols = page.eval_on_selector_all("[data-testid=lineage-th]", "els => els.map(e => e.dataset.col)")
    assert len(cols) > 4
    scroller = page.evaluate("() => { const s = document.querySelector('.table-scroll'); return [s.scrollWidth, s.clientWidth] }")
    assert scroller[0] > scroller[1]  # wider than the window: it scrolls
    hidden = []
    for col in cols:
        # Scroll the header into view the way a user would, then ask what is drawn at its centre.
        top = page.evaluate(
            """col => { const th = document.querySelector(`[data-testid=lineage-th][data-col="${col}"]`);
                 th.scrollIntoView({ block: 'nearest', inline: 'nearest' });
                 const r = th.getBoundingClientRect();
                 const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                 return hit && (hit === th || th.contains(hit)) }""",
            col,
        )
        if not top:
            hidden.append(col)
    assert not hidden, f"columns covered by others at 1024 px: {hidden}"


def test_unknown_route_shows_not_found_with_a_way_back(page: Any, ui_server: str) -> None:
    page.goto(f"{ui_server}/#/summary-manage")
    page.wait_for_selector("[data-testid=summary-page]")
    page.goto(f"{ui_server}/#/no-such-page/deeper?x=1")
    nf = page.get_by_test_id("not-found-page")
    nf.wait_for()
    assert "#/no-such-page/deeper" in nf.inner_text()  # it names what was asked for
    assert page.get_by_test_id("app-header").is_visible()  # still inside the app
    page.get_by_test_id("not-found-back").click()
    page.wait_for_selector("[data-testid=summary-page]")
    page.goto(f"{ui_server}/#/graphs")  # a near miss of a real route
    page.get_by_test_id("not-found-home").click()
    page.wait_for_selector("[data-testid=summary-page]")
    assert page.url.endswith("#/summary-manage")
    # A page path typed without the '#' reaches the app too (the server redirects browsers).
    page.goto(f"{ui_server}/no-such-page")
    page.get_by_test_id("not-found-page").wait_for()
    assert "#/no-such-page" in page.get_by_test_id("not-found-page").inner_text()
    page.goto(f"{ui_server}/model-lineage")  # an old-style link to a real page opens it
    page.wait_for_selector("[data-testid=model-lineage-page]")


def _non_ascii_icon_buttons(page: Any) -> list[str]:
    return page.eval_on_selector_all(
        ".icon-btn",
        """els => els.filter(e => /[^\\x20-\\x7e]/.test(e.textContent.trim()) || (!e.textContent.trim() && !e.querySelector('svg')))
                     .map(e => `${e.dataset.testid}: ${JSON.stringify(e.textContent.trim())}`)""",
    )


def test_zoom_buttons_use_glyphs_every_font_has(page: Any, ui_server: str, screenshot: Callable[..., Path]) -> None:
    require_shared()
    page.goto(f"{ui_server}/#/profiler?train_id={PROFILER_RUN}&tab=timeline")
    page.wait_for_selector("[data-testid=timeline-zoom-in]")
    for tid in ("timeline-zoom-in", "timeline-zoom-out", "timeline-reset"):
        button = page.get_by_test_id(tid)
        assert button.locator("svg").count() == 1, tid
        assert button.get_attribute("title"), tid  # its accessible name
    assert not _non_ascii_icon_buttons(page)
    window = page.get_by_test_id("timeline-window").inner_text()
    page.get_by_test_id("timeline-zoom-in").click()
    page.wait_for_function("w => document.querySelector('[data-testid=timeline-window]').textContent !== w", arg=window)
    screenshot(page, "timeline_zoom_buttons")
    page.goto(f"{ui_server}/#/graph?train_id={GRAPH_RUN}")
    page.wait_for_selector("[data-testid=graph-canvas][data-state=ready]")
    assert not _non_ascii_icon_buttons(page)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("width", [1400, 1024])
def test_graph_page_fits_small_screens(page: Any, ui_server: str, theme: str, width: int,
                                       screenshot: Callable[..., Path]) -> None:
    """The graph page at 1024 and 1400 px, light and dark: toolbar controls and side panel stay
    inside their boxes; the screenshots are kept for review."""
    require_shared()
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{ui_server}/#/graph?train_id={GRAPH_RUN}")
    page.get_by_test_id("theme-select").select_option(theme)
    page.wait_for_selector("[data-testid=graph-canvas][data-state=ready]")
    assert page.evaluate("() => document.documentElement.dataset.theme") == theme
    _header_is_one_line(page)
    clipped = page.evaluate(
        """() => { const out = [];
             for (const sel of ['[data-testid=graph-mode]', '[data-testid=graph-guide-open]', '[data-testid=graph-fullscreen]']) {
               const e = document.querySelector(sel), card = e.closest('.chart-card').getBoundingClientRect(), r = e.getBoundingClientRect();
               if (e.scrollWidth > e.clientWidth + 1 || r.right > card.right || r.left < card.left) out.push(sel); }
             return out }""")
    assert not clipped, clipped
    screenshot(page, f"graph_{width}_{theme}")
