"""Core pages in Chromium against our real server: summary list, training dashboard, scalars,
images, histograms, tensors, loss landscape and the comparison dashboard.

Every test opens its page through `page` (fails on any console error or uncaught page error),
drives one or more controls and checks that what is shown changed, through the test hooks the
SPA publishes (frontend/README.md "Test hooks": data-testids, chart container data-attributes,
`window.__charts`). Runs are looked up through the API, so the generic checks also pass on demo
data; checks of specific MindSpore fixtures (`./record_api`, `./truncated`, ...) use
`require_shared`.
"""

from __future__ import annotations

import json
import re
import urllib.parse
import urllib.request
from functools import cache
from typing import Any

import pytest

from tests.conftest import FIXTURES, require_shared

DV = "/v1/mindinsight/datavisual/"


# ---------------------------------------------------------------------------------------------- helpers
def get_json(base: str, path: str, **query: Any) -> Any:
    url = f"{base}{DV}{path}?{urllib.parse.urlencode(query, doseq=True)}"
    with urllib.request.urlopen(url, timeout=15) as resp:
        return json.loads(resp.read())


@cache
def catalog(base: str) -> dict[str, dict[str, list[str]]]:
    """train_id -> plugin -> tags, for every run the server lists (cached per server)."""
    jobs = get_json(base, "train-jobs", offset=0, limit=999)["train_jobs"]
    out: dict[str, dict[str, list[str]]] = {}
    for job in jobs:
        if not job.get("summary_files"):
            continue
        out[job["train_id"]] = get_json(base, "plugins", train_id=job["train_id"], manual_update="true")["plugins"]
    return out


def pick_run(base: str, plugin: str, min_tags: int = 1, prefer: str = "./record_api") -> tuple[str, list[str]]:
    runs = catalog(base)
    if FIXTURES.exists() and len(runs.get(prefer, {}).get(plugin, [])) >= min_tags:
        return prefer, runs[prefer][plugin]
    for train_id, plugins in sorted(runs.items()):
        if len(plugins.get(plugin, [])) >= min_tags:
            return train_id, plugins[plugin]
    pytest.skip(f"no run with {min_tags} {plugin} tag(s)")


def goto(page: Any, base: str, route: str) -> None:
    """Opens `#<route>` with a 1 s auto-refresh (the `?refresh=` override before the hash)."""
    page.goto(f"{base}/?refresh=1#{route}")


def q(route: str, **params: Any) -> str:
    return f"{route}?{urllib.parse.urlencode(params, doseq=True)}"


def wait_chart(page: Any, chart_id: str, min_series: int = 1) -> dict[str, Any]:
    """Waits until chart `chart_id` plots at least `min_series` series; returns its summary."""
    page.wait_for_function(
        """([id, n]) => { const c = window.__charts && window.__charts[id];
                          return !!c && c.series.length >= n && c.series.every(s => s.points > 0) }""",
        arg=[chart_id, min_series],
    )
    return chart(page, chart_id)


def chart(page: Any, chart_id: str) -> dict[str, Any]:
    return page.evaluate(
        """id => { const c = window.__charts[id];
                   return { series: c.series, extra: c.extra || {}, updatedAt: c.updatedAt } }""",
        chart_id,
    )


def option(page: Any, chart_id: str, expr: str) -> Any:
    """Evaluates `expr` on the chart's ECharts option (`o`)."""
    return page.evaluate(f"id => {{ const o = window.__charts[id].instance().getOption(); return {expr} }}", chart_id)


def container(page: Any, chart_id: str) -> Any:
    return page.locator(f"[data-chart-id={json.dumps(chart_id)}]")


def wait_attr(page: Any, chart_id: str, attr: str, value: str) -> None:
    page.wait_for_function(
        """([id, attr, v]) => { const el = document.querySelector(`[data-chart-id="${CSS.escape(id)}"]`);
                                return !!el && el.getAttribute(attr) === v }""",
        arg=[chart_id, attr, value],
    )


# ---------------------------------------------------------------------------------------------- summary
def test_summary_list_search_language_theme(page: Any, ui_server: str, screenshot: Any) -> None:
    goto(page, ui_server, "/summary-manage")
    rows = page.locator("[data-testid=summary-row]")
    rows.first.wait_for()
    total = rows.count()
    assert total >= 1
    screenshot(page, "core_summary_list")

    # The search box filters the list (server side, `q` in the URL).
    first_id = rows.first.get_attribute("data-train-id")
    needle = first_id.removeprefix("./")
    page.get_by_test_id("summary-search").fill(needle)
    page.wait_for_function(
        """n => [...document.querySelectorAll('[data-testid=summary-row]')]
                 .every(r => r.dataset.trainId.includes(n))""", arg=needle)
    assert "q=" in page.url
    page.get_by_test_id("summary-search").fill("")
    page.wait_for_function("n => document.querySelectorAll('[data-testid=summary-row]').length === n", arg=total)

    # Language switch changes the labels; theme switch changes the document theme.
    page.get_by_test_id("lang-zh").click()
    page.wait_for_function("() => document.querySelector('[data-testid=nav-summary]').textContent.includes('训练')")
    page.get_by_test_id("lang-en").click()
    page.wait_for_function("() => document.querySelector('[data-testid=nav-summary]').textContent.includes('Summary')")
    page.get_by_test_id("theme-select").select_option("dark")
    page.wait_for_function("() => document.documentElement.dataset.theme === 'dark'")
    page.reload()
    page.locator("[data-testid=summary-row]").first.wait_for()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"  # kept in localStorage
    page.get_by_test_id("theme-select").select_option("light")

    if FIXTURES.exists():
        damaged = page.locator("[data-testid=summary-row][data-train-id='./truncated']")
        assert damaged.get_attribute("data-integrity") == "false"
        assert damaged.get_by_test_id("summary-damaged").is_visible()
        # empty_run has no summary file: MindInsight does not list it.
        assert page.locator("[data-testid=summary-row][data-train-id='./empty_run']").count() == 0

    page.locator("[data-testid=summary-dashboard-link]").first.click()
    page.get_by_test_id("dashboard-page").wait_for()
    assert "#/train-dashboard?train_id=" in page.url


# ---------------------------------------------------------------------------------------------- dashboard
def test_dashboard_cards_and_damaged_run(page: Any, ui_server: str, screenshot: Any) -> None:
    train_id, _ = pick_run(ui_server, "scalar", prefer="./lenet_collector")
    goto(page, ui_server, q("/train-dashboard", train_id=train_id))
    page.get_by_test_id("dashboard-cards").wait_for()
    wait_chart(page, "dashboard:scalar")
    plugins = catalog(ui_server)[train_id]
    if plugins.get("histogram"):
        wait_chart(page, "dashboard:histogram")
    if plugins.get("image"):
        page.get_by_test_id("dashboard-image").wait_for()
    screenshot(page, "core_dashboard")
    page.get_by_test_id("dashboard-card-scalar").click()
    page.get_by_test_id("scalars-page").wait_for()

    require_shared(FIXTURES)
    # A truncated file: banner with the server's problem list, data before the cut still shown.
    goto(page, ui_server, q("/train-dashboard", train_id="./truncated"))
    page.get_by_test_id("run-damaged").wait_for()
    page.get_by_test_id("run-problems").locator("summary").click()
    assert page.locator("[data-testid=run-problem][data-kind=truncated]").count() == 1
    wait_chart(page, "dashboard:scalar", min_series=2)
    goto(page, ui_server, q("/scalars", train_id="./crc_corrupt"))
    page.get_by_test_id("run-damaged").wait_for()
    page.get_by_test_id("run-problems").locator("summary").click()
    assert page.locator("[data-testid=run-problem][data-kind=payload_crc]").count() >= 1
    # A directory without summary files is "not found", without a failed request in the console.
    goto(page, ui_server, q("/scalars", train_id="./empty_run"))
    page.get_by_test_id("state-notFound").wait_for()
    page.wait_for_timeout(1200)  # an auto-refresh tick: still no failed request
    assert page.get_by_test_id("state-notFound").is_visible()


# ---------------------------------------------------------------------------------------------- scalars
def test_scalars_controls(page: Any, ui_server: str, screenshot: Any) -> None:
    train_id, tags = pick_run(ui_server, "scalar", min_tags=3)
    prefer = "train/loss/scalar" if "train/loss/scalar" in tags else next((x for x in tags if "loss" in x), tags[0])
    cid = f"scalar:{prefer}"
    goto(page, ui_server, q("/scalars", train_id=train_id))
    before = wait_chart(page, cid)
    cards = page.locator("[data-testid=scalar-card]")
    assert cards.count() == len(tags)

    # Smoothing changes the plotted smoothed series (a last point after a long step gap keeps its
    # raw value: smoothing is weighted by step distance; so compare every chart and the whole line).
    last_smoothed = "() => [...document.querySelectorAll('[data-testid=scalar-chart]')].map(e => e.dataset.lastSmoothedY)"
    smoothed_line = "JSON.stringify(o.series.find(s => s.id.startsWith('sm:')).data.map(d => d[1]))"
    raw_last = page.evaluate(last_smoothed)
    raw_line = option(page, cid, smoothed_line)
    assert container(page, cid).get_attribute("data-last-smoothed-y") == str(before["series"][0]["lastY"])
    page.get_by_test_id("smoothing-input").fill("0.95")
    page.get_by_test_id("smoothing-input").press("Enter")
    wait_attr(page, cid, "data-smoothing", "0.95")
    smoothed_last = page.evaluate(last_smoothed)
    assert sum(a != b for a, b in zip(raw_last, smoothed_last, strict=True)) >= 1, (raw_last, smoothed_last)
    assert option(page, cid, smoothed_line) != raw_line

    # x-axis switch changes the axis type.
    assert option(page, cid, "o.xAxis[0].type") == "value"
    page.get_by_test_id("x-axis-absolute").click()
    wait_attr(page, cid, "data-x-mode", "absolute")
    assert option(page, cid, "o.xAxis[0].type") == "time"
    page.get_by_test_id("x-axis-relative").click()
    wait_attr(page, cid, "data-x-mode", "relative")
    assert option(page, cid, "o.xAxis[0].type") == "value"

    # Tag filter (regex) narrows the charts; unchecking a tag removes its chart.
    page.get_by_test_id("tag-filter").fill(re.escape(prefer))
    page.wait_for_function("() => document.querySelectorAll('[data-testid=scalar-card]').length === 1")
    page.get_by_test_id("tag-filter").fill("")
    page.wait_for_function("n => document.querySelectorAll('[data-testid=scalar-card]').length === n", arg=len(tags))
    page.locator(f"[data-testid=tag-option][data-tag={json.dumps(prefer)}] input").uncheck()
    page.wait_for_function("n => document.querySelectorAll('[data-testid=scalar-card]').length === n",
                           arg=len(tags) - 1)
    page.locator(f"[data-testid=tag-option][data-tag={json.dumps(prefer)}] input").check()
    wait_chart(page, cid)

    # Min/max band from the server envelope; toggled off it is gone.
    wait_attr(page, cid, "data-x-mode", "relative")
    assert int(container(page, cid).get_attribute("data-envelope")) > 0
    assert option(page, cid, "o.series.filter(s => s.type === 'custom').length") == 1
    page.get_by_test_id("envelope-toggle").uncheck()
    wait_attr(page, cid, "data-envelope", "0")
    page.get_by_test_id("envelope-toggle").check()

    # Threshold line: points above it are counted and marked.
    card = page.locator(f"[data-testid=scalar-card][data-tag={json.dumps(prefer)}]")
    card.get_by_test_id("chart-threshold-set").click()
    card.get_by_test_id("chart-threshold-input").fill(str(before["series"][0]["lastY"]))
    card.get_by_test_id("chart-threshold-apply").click()
    page.wait_for_function(
        """id => { const el = document.querySelector(`[data-chart-id="${CSS.escape(id)}"]`);
                   return el.dataset.threshold !== '' && Number(el.dataset.aboveThreshold) > 0 }""", arg=cid)
    assert option(page, cid, "o.series.some(s => s.id === 'threshold')")

    # Scalar synthesis: two tags on one chart with two y-axes.
    page.get_by_test_id("scalar-synthesis-toggle").click()
    syn = wait_chart(page, "scalar-synthesis", min_series=2)
    assert len(syn["series"]) == 2
    assert option(page, "scalar-synthesis", "o.yAxis.length") == 2
    other = next(x for x in tags if x not in (syn["series"][0]["name"], syn["series"][1]["name"]))
    page.get_by_test_id("synthesis-tag-1").select_option(other)
    page.wait_for_function("t => window.__charts['scalar-synthesis'].series[1]?.name === t", arg=other)
    screenshot(page, "core_scalars")

    # URL state survives a reload: smoothing, x-axis, synthesis.
    page.reload()
    wait_chart(page, cid)
    assert container(page, cid).get_attribute("data-smoothing") == "0.95"
    assert container(page, cid).get_attribute("data-x-mode") == "relative"
    assert wait_chart(page, "scalar-synthesis", min_series=2)["series"][1]["name"] == other

    if FIXTURES.exists() and train_id == "./record_api":
        # Unicode / space tags survive the round trip to the server and the URL.
        wait_chart(page, "scalar:ünïcode/标量 µ/scalar")
        wait_chart(page, "scalar:metrics/accuracy (top-1)/scalar")


# ---------------------------------------------------------------------------------------------- images
def test_images_step_slider_and_brightness(page: Any, ui_server: str, screenshot: Any) -> None:
    train_id, tags = pick_run(ui_server, "image")
    goto(page, ui_server, q("/images", train_id=train_id))
    page.locator("[data-testid=image-img]").first.wait_for()
    tag = next((x for x in tags if "size_changes" in x), tags[0])
    card = page.locator(f"[data-testid=image-card][data-tag={json.dumps(tag)}]")
    img = card.get_by_test_id("image-img")
    img.wait_for()
    src = img.get_attribute("src")
    step = card.get_attribute("data-step")
    slider = card.get_by_test_id("image-step-slider")
    slider.fill("0")  # the oldest kept step
    page.wait_for_function("([el, s]) => el.getAttribute('src') !== s", arg=[img.element_handle(), src])
    assert card.get_attribute("data-step") != step
    assert f"s.{tag}" in urllib.parse.unquote(page.url)
    page.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=img.element_handle())

    style = img.get_attribute("style") or ""
    page.get_by_test_id("image-brightness").fill("1.5")
    page.wait_for_function("el => el.style.filter.includes('brightness(1.5)')", arg=img.element_handle())
    assert img.get_attribute("style") != style
    page.get_by_test_id("image-brightness-reset").click()
    page.wait_for_function("el => el.style.filter.includes('brightness(1)')", arg=img.element_handle())
    screenshot(page, "core_images")

    if FIXTURES.exists() and train_id == "./record_api":
        # Images of several sizes: the size read-out follows the step.
        sizes = set()
        n = int(card.get_by_test_id("image-step-slider").get_attribute("max")) + 1
        for i in range(min(n, 3)):
            card.get_by_test_id("image-step-slider").fill(str(i))
            page.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=img.element_handle())
            sizes.add(page.evaluate("el => `${el.naturalWidth}x${el.naturalHeight}`", img.element_handle()))
        assert len(sizes) >= 2, sizes
        assert page.locator("[data-testid=image-card]").count() == len(tags)


# ---------------------------------------------------------------------------------------------- histograms
def test_histograms_view_toggle(page: Any, ui_server: str, screenshot: Any) -> None:
    train_id, tags = pick_run(ui_server, "histogram")
    tag = next((x for x in tags if "normal" in x), tags[0])
    cid = f"histogram:{tag}"
    goto(page, ui_server, q("/histograms", train_id=train_id))
    wait_chart(page, cid)
    assert container(page, cid).get_attribute("data-view") == "top"
    top_series = option(page, cid, "o.series.length")
    # A control whose state lives in the URL keeps the scroll (issue 34: the router scrolled to the top on
    # every query change). Clicked from script: Playwright's click would scroll the control into view itself.
    page.set_viewport_size({"width": 1280, "height": 420})
    scrolled = page.evaluate("() => { window.scrollTo(0, document.body.scrollHeight); return window.scrollY }")
    assert scrolled > 0
    page.evaluate("() => document.querySelector('[data-testid=histogram-view-front]').click()")
    wait_attr(page, cid, "data-view", "front")
    page.wait_for_function("() => location.hash.includes('view=front')")
    page.wait_for_timeout(100)  # the router's scroll runs after the navigation settles
    assert page.evaluate("window.scrollY") == scrolled
    page.set_viewport_size({"width": 1400, "height": 900})
    page.wait_for_function("id => window.__charts[id]?.extra?.view === 'front'", arg=cid)
    assert option(page, cid, "JSON.stringify(o.series.map(s => s.type))") != "" and top_series >= 1
    page.get_by_test_id("histogram-y-axis-relative").click()
    wait_attr(page, cid, "data-y-mode", "relative")
    screenshot(page, "core_histograms")
    page.reload()
    wait_chart(page, cid)
    assert container(page, cid).get_attribute("data-view") == "front"

    if FIXTURES.exists() and train_id == "./record_api":
        # NaN / Inf buckets and an all-NaN histogram render without errors.
        page.get_by_test_id("histogram-view-top").click()
        wait_chart(page, "histogram:hist/with_nan_inf/histogram")
        page.locator("[data-testid=histogram-card][data-tag='hist/all_nan/histogram']").wait_for()


# ---------------------------------------------------------------------------------------------- tensors
def test_tensor_dims_change_table(page: Any, ui_server: str, screenshot: Any) -> None:
    train_id, tags = pick_run(ui_server, "tensor")
    tag = next((x for x in tags if "4d" in x), tags[0])
    goto(page, ui_server, q("/tensors", train_id=train_id, tag=tag))
    card = page.locator(f"[data-testid=tensor-card][data-tag={json.dumps(tag)}]")
    table = card.get_by_test_id("tensor-table")
    table.wait_for()
    dims = card.get_attribute("data-dims")
    cells = card.locator("[data-testid=tensor-cell]").all_text_contents()
    ndim = card.locator("[data-testid^=tensor-dim-]").count()
    assert ndim >= 1
    if ndim >= 3:
        # [0,0,:,:] -> [1,:,0,:]: another slice (other rows / values).
        card.get_by_test_id("tensor-dim-0").fill("1")
        card.get_by_test_id("tensor-dim-1").fill(":")
        card.get_by_test_id("tensor-dim-2").fill("0")
    else:
        card.get_by_test_id("tensor-dim-0").fill("0")
    card.get_by_test_id("tensor-dims-apply").click()
    page.wait_for_function("([el, d]) => el.dataset.dims !== d", arg=[card.element_handle(), dims])
    page.wait_for_function(
        "([el, c]) => JSON.stringify([...el.querySelectorAll('[data-testid=tensor-cell]')].map(x => x.textContent)) !== c",
        arg=[card.element_handle(), json.dumps(cells)])
    # Three ':' is refused with a message (at most two).
    if ndim >= 3:
        for i in range(3):
            card.get_by_test_id(f"tensor-dim-{i}").fill(":")
        card.get_by_test_id("tensor-dims-apply").click()
        card.get_by_test_id("tensor-dims-error").wait_for()
    # Decimal places change the cells' text.
    before = card.locator("[data-testid=tensor-cell]").first.text_content()
    page.get_by_test_id("tensor-decimals").select_option("1")
    page.wait_for_function("([el, b]) => el.querySelector('[data-testid=tensor-cell]').textContent !== b",
                           arg=[card.element_handle(), before])
    screenshot(page, "core_tensors")
    page.get_by_test_id("tensor-view-histogram").click()
    wait_chart(page, f"tensor-histogram:{tag}")

    if FIXTURES.exists() and train_id == "./record_api":
        assert "[2, 3, 4, 5]" in card.get_by_test_id("tensor-shape").text_content()


# ---------------------------------------------------------------------------------------------- landscape
def test_landscape_interval_select(page: Any, ui_server: str, screenshot: Any) -> None:
    train_id, _ = pick_run(ui_server, "loss_landscape", prefer="./landscape")
    goto(page, ui_server, q("/loss-landscape", train_id=train_id))
    select = page.get_by_test_id("landscape-interval")
    select.wait_for()
    page.wait_for_function("() => window.__charts.landscape && window.__charts.landscape.series.length > 0")
    options = select.locator("option").evaluate_all("os => os.map(o => o.value)")
    assert len(options) >= 2, options
    first = page.evaluate("() => JSON.stringify(window.__charts.landscape.series)")
    select.select_option(options[-1])
    page.wait_for_function("f => JSON.stringify(window.__charts.landscape.series) !== f", arg=first)
    assert "interval=" in page.url
    page.get_by_test_id("landscape-mode-topo").click()
    page.wait_for_function("() => window.__charts.landscape.extra.mode === 'topo'")
    screenshot(page, "core_landscape")
    page.reload()
    page.get_by_test_id("landscape-interval").wait_for()
    # the choice comes back from the URL once the intervals are listed (the select exists before its options)
    page.wait_for_function("v => document.querySelector('[data-testid=landscape-interval]').value === v", arg=options[-1])
    assert page.get_by_test_id("landscape-interval").input_value() == options[-1]

    if FIXTURES.exists():
        goto(page, ui_server, q("/loss-landscape", train_id="./record_api"))
        page.get_by_test_id("landscape-empty").wait_for()


# ---------------------------------------------------------------------------------------------- compare
def test_compare_runs_stable_colors(page: Any, ui_server: str, screenshot: Any) -> None:
    runs = catalog(ui_server)
    counts: dict[str, int] = {}
    for plugins in runs.values():
        for t in plugins.get("scalar", []):
            counts[t] = counts.get(t, 0) + 1
    tag = max(sorted(counts), key=lambda t: (counts[t], "loss" in t), default="")
    with_tag = sorted(r for r, p in runs.items() if tag in p.get("scalar", []))
    if len(with_tag) < 3:
        pytest.skip("fewer than 3 runs share a scalar tag")
    a, b, c = with_tag[:3]
    goto(page, ui_server, q("/compare-plate", run=a, tag=tag))
    cid = f"compare:{tag}"
    assert len(wait_chart(page, cid)["series"]) == 1

    def color(run: str) -> str:
        return page.locator(f"[data-testid=run-option][data-train-id={json.dumps(run)}]").get_attribute("data-color")

    color_a = color(a)
    assert color_a
    for n, run in enumerate((b, c), start=2):
        page.locator(f"[data-testid=run-option][data-train-id={json.dumps(run)}] input").check()
        page.wait_for_function("([id, n]) => window.__charts[id] && window.__charts[id].series.length === n",
                               arg=[cid, n])
        assert color(a) == color_a  # a run keeps its colour when others are added
    series = chart(page, cid)["series"]
    by_name = {s["name"]: s["color"] for s in series}
    assert by_name[a] == color_a
    assert len(set(by_name.values())) == len(by_name)
    color_c = color(c)
    # Removing the second run keeps the colours of the others.
    page.locator(f"[data-testid=run-option][data-train-id={json.dumps(b)}] input").uncheck()
    page.wait_for_function("id => window.__charts[id]?.series.length === 2", arg=cid)
    assert color(a) == color_a and color(c) == color_c
    page.get_by_test_id("smoothing-input").fill("0.8")
    page.get_by_test_id("smoothing-input").press("Enter")
    wait_attr(page, cid, "data-smoothing", "0.8")
    screenshot(page, "core_compare")
    page.reload()
    wait_chart(page, cid, min_series=2)
    assert page.locator("[data-testid=run-option][data-checked=true]").count() == 2
    assert container(page, cid).get_attribute("data-smoothing") == "0.8"
