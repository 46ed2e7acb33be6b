"""Issue 21's page defects outside the profiler, in real Chromium, each reproduced on the demo data
(`scripts/make_demo_data`, written once for this module) or on the MindSpore fixtures (`ui_server`).

Every expected value is computed here from the API or the files, not copied from the page. One server on the
demo data serves the whole module (its reload interval is the default 3 s: the header must say so).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, REPO, free_port, require_shared, run_cli
from tests.e2e.test_core_pages import catalog, get_json, q

RESTARTED = "./lenet_lr0.1_bs16_sgd"  # the demo run trained in two sessions
LANDSCAPE_RUN = "./mlp_lr0.02_bs32_adam"


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    demo = tmp_path_factory.mktemp("audit-demo") / "demo"
    subprocess.run([sys.executable, str(REPO / "scripts" / "make_demo_data"), str(demo), "--steps", "600"],
                   check=True, timeout=120, capture_output=True)
    return demo


@pytest.fixture(scope="module")
def demo_server(demo_dir: Path) -> Iterator[str]:
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    port, ws = free_port(), demo_dir.parent / "ws"
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(demo_dir), "--workspace", str(ws),
                      "--reload-interval", "3")
    assert started.returncode == 0, started.stdout + started.stderr
    base = f"http://127.0.0.1:{port}"
    for train_id in catalog(base):  # every run cached before the pages ask
        get_json(base, "plugins", train_id=train_id, manual_update="true")
    yield base
    run_cli("stop", "--port", str(port), "--workspace", str(ws))


def open_page(page: Any, base: str, route: str, refresh: float | None = 1) -> None:
    page.goto(f"{base}/{'?refresh=%s' % refresh if refresh else ''}#{route}")


def api_json(base: str, path: str, **query: Any) -> Any:
    """GET /v1/mindinsight/<path>?<query> (any area, where get_json is datavisual/ only)."""
    url = f"{base}/v1/mindinsight/{path}?{urllib.parse.urlencode(query, doseq=True)}"
    with urllib.request.urlopen(url, timeout=15) as resp:
        return json.loads(resp.read())


def post_json(base: str, path: str, body: dict[str, Any]) -> Any:
    req = urllib.request.Request(f"{base}/v1/mindinsight/{path}", data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=15) as resp:
        return json.loads(resp.read())


def texts(page: Any, testid: str) -> list[str]:
    return page.get_by_test_id(testid).evaluate_all("els => els.map(e => e.textContent.trim())")


# ---------------------------------------------------------------------------------------------- summary list
def test_summary_list_counts_in_words_sorts_by_column_and_fits_1024(page: Any, demo_server: str,
                                                                   screenshot: Any) -> None:
    jobs = get_json(demo_server, "train-jobs", offset=0, limit=999)["train_jobs"]
    open_page(page, demo_server, q("/summary-manage", q="resnet"))
    page.wait_for_function("() => document.querySelector('[data-testid=summary-count]')?.textContent.includes('1 ')")
    assert page.get_by_test_id("summary-count").inner_text() == "1 entry"
    page.get_by_test_id("summary-search").fill("")
    count = page.get_by_test_id("summary-count")
    page.wait_for_function("n => document.querySelectorAll('[data-testid=summary-row]').length === n", arg=len(jobs))
    assert count.inner_text() == f"{len(jobs)} entries"

    def shown() -> list[str]:
        return page.locator("[data-testid=summary-row]").evaluate_all("els => els.map(e => e.dataset.trainId)")

    assert shown() == [j["train_id"] for j in jobs]  # the server's order: most recently updated first
    header = page.get_by_test_id("summary-sort-train_id")
    header.click()
    page.wait_for_function("() => document.querySelector('[data-testid=summary-sort-train_id]').closest('[aria-sort]')"
                           ".getAttribute('aria-sort') === 'ascending'")
    page.wait_for_function("ids => JSON.stringify([...document.querySelectorAll('[data-testid=summary-row]')]"
                           ".map(e => e.dataset.trainId)) === JSON.stringify(ids)",
                           arg=sorted(j["train_id"] for j in jobs))
    header.click()
    page.wait_for_function("ids => JSON.stringify([...document.querySelectorAll('[data-testid=summary-row]')]"
                           ".map(e => e.dataset.trainId)) === JSON.stringify(ids)",
                           arg=sorted((j["train_id"] for j in jobs), reverse=True))
    assert "sort=train_id" in page.url and "order=desc" in page.url
    page.get_by_test_id("summary-sort-create_time").click()
    by_create = [j["train_id"] for j in sorted(jobs, key=lambda j: (j["create_time"], j["train_id"]))]
    page.wait_for_function("ids => JSON.stringify([...document.querySelectorAll('[data-testid=summary-row]')]"
                           ".map(e => e.dataset.trainId)) === JSON.stringify(ids)", arg=by_create)

    page.get_by_test_id("lang-zh").click()
    page.wait_for_function("() => document.querySelector('[data-testid=summary-count]').textContent.includes('项')")
    page.get_by_test_id("lang-en").click()

    page.set_viewport_size({"width": 1024, "height": 768})
    page.wait_for_timeout(300)
    overflow = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert overflow[0] <= overflow[1], f"the page is wider than the window at 1024 px: {overflow}"
    ops = page.locator("[data-testid=summary-row] .ops").first
    assert ops.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), "the operation links are cut"
    screenshot(page, "audit_summary_1024")


def test_a_profile_only_job_explains_its_badge_and_disabled_link(page: Any, ui_server: str) -> None:
    require_shared(FIXTURES)
    open_page(page, ui_server, "/summary-manage")
    row = page.locator("[data-testid=summary-row][data-train-id='./profiler_only_legacy_api']")
    row.wait_for()
    badge = row.get_by_test_id("summary-cache-status")
    assert badge.inner_text() != "Not loaded"  # a profile-only job has nothing to load
    assert "profil" in badge.inner_text().lower()
    assert "summary" in (badge.get_attribute("title") or "").lower()
    link = row.get_by_test_id("summary-dashboard-link")
    assert link.get_attribute("aria-disabled") == "true"
    why = link.get_attribute("title") or ""
    assert "summary" in why.lower() and "profil" in why.lower()


# ---------------------------------------------------------------------------------------------- scalars
def test_the_selected_counter_follows_the_tag_filter(page: Any, demo_server: str) -> None:
    tags = catalog(demo_server)[RESTARTED]["scalar"]
    matching = [t for t in tags if "loss" in t]
    open_page(page, demo_server, q("/scalars", train_id=RESTARTED, filter="loss"))
    counter = page.get_by_test_id("tag-selected-count")
    page.locator("[data-testid=tag-option]").first.wait_for()
    assert page.locator("[data-testid=tag-option]").count() == len(matching)
    assert counter.get_attribute("data-count") == str(len(matching))
    assert counter.inner_text().startswith(f"{len(matching)} of {len(matching)} ")
    page.locator("[data-testid=tag-option] input").first.click()
    page.wait_for_function("() => document.querySelector('[data-testid=tag-selected-count]').dataset.count === '0'")
    assert counter.inner_text().startswith(f"0 of {len(matching)} ")


def test_auto_refresh_names_the_servers_interval_even_without_ui_config(page: Any, demo_server: str) -> None:
    """The label must not claim MindInsight's 10 s while the server reloads every 3 s, even when its ui-config
    answer is slow or lost (here: aborted)."""
    page.route("**/v1/mindinsight/ui-config", lambda route: route.abort())
    open_page(page, demo_server, q("/scalars", train_id=RESTARTED), refresh=None)
    page.get_by_test_id("scalars-page").wait_for()
    assert page.get_by_test_id("auto-refresh-label").inner_text() == "Auto Refresh (3 Seconds)"
    page.wait_for_timeout(300)
    page.console_errors.clear()  # the aborted ui-config request is logged by the browser


@pytest.mark.parametrize("route", ["/compare-plate", f"/tensors?train_id={RESTARTED}",
                                   f"/train-dashboard?train_id={RESTARTED}"])
def test_a_page_asks_each_request_once(page: Any, demo_server: str, route: str) -> None:
    started: list[str] = []
    aborted: list[str] = []
    page.on("request", lambda r: started.append(r.url) if "/v1/" in r.url and r.method == "GET" else None)
    page.on("requestfailed", lambda r: aborted.append(f"{r.url} {r.failure}"))
    open_page(page, demo_server, route, refresh=60)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(500)
    twice = sorted({u for u in started if started.count(u) > 1})
    assert not twice, f"started twice: {twice}"
    assert not aborted, aborted


def test_a_refresh_of_an_unchanged_comparison_asks_only_the_listing(page: Any, demo_server: str) -> None:
    """Refresh ticks (1 s here) while the compared runs' data stays the same (their data_version): the page asks
    train-jobs again, and no tags, cache or scalars request, which could name a run deleted meanwhile."""
    open_page(page, demo_server, q("/compare-plate", run=[RESTARTED, LANDSCAPE_RUN]), refresh=1)
    page.locator(f"[data-testid=run-option][data-train-id='{LANDSCAPE_RUN}'][data-checked=true]").wait_for()
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(1500)  # the first ticks may still find a run caching
    asked: list[str] = []
    page.on("request", lambda r: asked.append(urllib.parse.urlparse(r.url).path) if "/v1/" in r.url else None)
    page.wait_for_timeout(3500)  # three ticks or more
    listings = [a for a in asked if a.endswith("/datavisual/train-jobs")]
    assert len(listings) >= 2, asked
    assert [a for a in asked if not a.endswith(("/datavisual/train-jobs", "/ui-config"))] == [], asked


# ---------------------------------------------------------------------------------------------- tensors, data map
def test_an_int32_tensor_shows_integers(page: Any, ui_server: str) -> None:
    require_shared(FIXTURES)
    tag = "tensor/int32_matrix/tensor"
    stats = get_json(ui_server, "tensors", train_id="./record_api", tag=tag, detail="stats")
    last = stats["tensors"][0]["values"][-1]
    assert last["value"]["data_type"] == "DT_INT32"
    open_page(page, ui_server, q("/tensors", train_id="./record_api", tag=tag))
    page.locator("[data-testid=tensor-cell]").first.wait_for()
    cells = [c for c in texts(page, "tensor-cell") if c]
    assert cells and all(re.fullmatch(r"-?\d+", c) for c in cells), cells[:10]


def test_dataset_graph_parameters_read_as_names_not_escaped_json(page: Any, demo_server: str) -> None:
    graph = api_json(demo_server, "datasets/dataset_graph", train_id=RESTARTED)["dataset_graph"]
    node = graph["children"][0]  # Map, as MindSpore writes it: column names are JSON strings
    assert node["op_type"] == "Map" and node["input_columns"] == ['"image"']
    open_page(page, demo_server, q("/data-map", train_id=RESTARTED))
    page.locator("[data-testid=graph-node]").filter(has_text="Map").click()
    assert page.get_by_test_id("data-map-param-input_columns").inner_text() == "[image]"


# ---------------------------------------------------------------------------------------------- landscape
def test_landscape_info_names_each_value_once_and_pins_are_readable(page: Any, demo_server: str,
                                                                   screenshot: Any) -> None:
    lineage = post_json(demo_server, "lineagemgr/lineages", {"summary_dir": {"eq": LANDSCAPE_RUN}})
    metrics = lineage["object"][0]["model_lineage"]["metric"]
    assert "loss" in metrics  # the eval metric `loss` next to the training loss
    open_page(page, demo_server, q("/loss-landscape", train_id=LANDSCAPE_RUN))
    info = page.get_by_test_id("landscape-info")
    info.wait_for()
    names = info.locator("dt").evaluate_all("els => els.map(e => e.textContent.trim())")
    assert len({n.lower() for n in names}) == len(names), f"a name is shown twice: {names}"
    assert not set(metrics) & set(names), f"raw metric keys: {names}"
    keys = info.locator("dt[data-key]").evaluate_all("els => els.map(e => e.dataset.key)")
    assert sorted(k for k in keys if k.startswith("metric/")) == sorted(f"metric/{k}" for k in metrics)
    page.wait_for_function("() => window.__charts?.landscape?.extra?.mode === 'contour'")
    for theme in ("light", "dark"):
        page.get_by_test_id("theme-select").select_option(theme)
        page.wait_for_function("t => document.documentElement.dataset.theme === t", arg=theme)
        page.wait_for_timeout(300)
        # the Start/End pins stand out from the chart's background (WCAG 1.4.11: 3:1) and their label from the pin
        pins = page.evaluate("""() => {
            const o = window.__charts.landscape.instance().getOption()
            const out = []
            for (const s of o.series) for (const d of (s.markPoint?.data || [])) {
                const fill = d.itemStyle?.color ?? s.markPoint.itemStyle?.color
                const text = d.label?.color ?? s.markPoint.label?.color
                out.push([d.value, fill, text]) }
            let el = document.querySelector('[data-chart-id=landscape]'), bg = 'rgba(0, 0, 0, 0)'
            while (el && /rgba\\(.*, 0\\)$|transparent/.test(bg = getComputedStyle(el).backgroundColor)) el = el.parentElement
            return { pins: out, background: bg } }""")
        assert pins["pins"], "no pins found"
        for name, fill, text in pins["pins"]:
            assert _contrast(fill, pins["background"]) >= 3, (theme, name, fill, pins["background"])
            assert _contrast(fill, text) >= 4.5, (theme, name, fill, text)
        screenshot(page, f"audit_landscape_{theme}")
    page.get_by_test_id("theme-select").select_option("light")


def _contrast(a: str, b: str) -> float:
    def lum(color: str) -> float:
        color = color.strip()
        if color.startswith("#"):
            h = color[1:]
            if len(h) == 3:
                h = "".join(c * 2 for c in h)
            rgb = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
        else:
            rgb = [float(x) / 255 for x in re.findall(r"[\d.]+", color)[:3]]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)



# ---------------------------------------------------------------------------------------------- lineage
def test_a_restarted_run_keeps_its_lineage_on_every_page(page: Any, demo_server: str) -> None:
    """Session 1 of the demo's restarted run wrote the dataset graph and user-defined values, session 2 the train
    and eval lineage: Data Lineage lists all 5 runs, the dashboard draws its data graph, the table its seed."""
    jobs = api_json(demo_server, "datavisual/train-jobs", offset=0, limit=999)["train_jobs"]
    runs = [j["train_id"] for j in jobs if j.get("lineage_files")]  # the MindSpore runs (tb_* runs have none)
    assert RESTARTED in runs and len(runs) >= 5
    open_page(page, demo_server, "/data-lineage")
    page.locator("[data-testid=lineage-row]").first.wait_for()
    assert sorted(page.locator("[data-testid=lineage-row]").evaluate_all("els => els.map(e => e.dataset.trainId)")) \
        == sorted(runs)
    open_page(page, demo_server, q("/model-lineage", cols=["user_defined/seed"]))
    cell = page.locator(f"[data-testid=lineage-row][data-train-id='{RESTARTED}'] td[data-col='user_defined/seed']")
    assert re.fullmatch(r"\d+", cell.inner_text().strip()), cell.inner_text()
    open_page(page, demo_server, q("/train-dashboard", train_id=RESTARTED))
    card = page.get_by_test_id("dashboard-card-data-graph")
    card.wait_for()
    assert "MnistDataset" in card.inner_text() and "Batch" in card.inner_text()


def _opaque(color: str) -> bool:
    nums = re.findall(r"[\d.]+", color)
    return color.startswith("rgb(") or (len(nums) == 4 and float(nums[3]) == 1)


def test_lineage_table_pinned_cells_are_opaque_and_a_remark_moves_no_column(page: Any, demo_server: str,
                                                                           screenshot: Any) -> None:
    open_page(page, demo_server, q("/model-lineage", train_id=RESTARTED), refresh=60)  # the run's row is highlighted
    focus = page.locator(f"[data-testid=lineage-row][data-train-id='{RESTARTED}']")
    focus.wait_for()
    assert "focus" in (focus.get_attribute("class") or "")
    backgrounds = focus.locator("td.sticky-col, td.sticky-right, td.sticky-right-2").evaluate_all(
        "els => els.map(e => getComputedStyle(e).backgroundColor)")
    assert len(backgrounds) == 3 and all(_opaque(c) for c in backgrounds), backgrounds

    def widths() -> dict[str, float]:
        return dict(page.locator("[data-testid=lineage-th]").evaluate_all(
            "els => els.map(e => [e.dataset.col, Math.round(e.getBoundingClientRect().width)])"))

    before = widths()
    other = page.locator("[data-testid=lineage-row]").filter(has_not_text=RESTARTED).first
    other.get_by_test_id("lineage-remark-edit").click()
    other.get_by_test_id("lineage-remark-input").fill("a long remark: the fourth try, with the learning rate halved")
    other.get_by_test_id("lineage-remark-input").press("Enter")
    other.locator("[data-testid=lineage-remark-text]").filter(has_text="fourth try").wait_for()
    after = widths()
    moved = {k: (before[k], after[k]) for k in before if abs(before[k] - after.get(k, 0)) > 1}
    assert not moved, f"columns resized by a remark: {moved}"
    screenshot(page, "audit_lineage_remark")
    other.get_by_test_id("lineage-remark-edit").click()  # leave the shared demo data as it was
    other.get_by_test_id("lineage-remark-input").fill("")
    other.get_by_test_id("lineage-remark-input").press("Enter")


def test_data_lineage_shows_the_columns_that_differ(page: Any, demo_server: str) -> None:
    open_page(page, demo_server, "/data-lineage", refresh=60)
    page.locator("[data-testid=lineage-row]").first.wait_for()
    differing = sorted(set(page.locator("td[data-differs=true]").evaluate_all("els => els.map(e => e.dataset.col)")))
    assert differing, "the demo pipelines differ in their batch size"
    for width in (1400, 1024):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(200)
        covered = page.evaluate("""cols => cols.filter(col => {
            const th = document.querySelector(`[data-testid=lineage-th][data-col="${col}"]`)
            const r = th.getBoundingClientRect()
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)
            return !(hit && (hit === th || th.contains(hit))) })""", differing)
        assert not covered, f"differing columns hidden without scrolling at {width} px: {covered}"


def test_lineage_and_landscape_name_metrics_and_fields_in_chinese(page: Any, demo_server: str) -> None:
    page.add_init_script("localStorage.setItem('milang', 'zh-cn')")
    open_page(page, demo_server, q("/model-lineage", cols=["metric/accuracy", "epoch", "batch_size"]), refresh=60)
    th = page.locator("[data-testid=lineage-th][data-col='metric/accuracy']")
    th.wait_for()
    assert th.inner_text().strip().startswith("[M]准确率") and th.get_attribute("title") == "metric/accuracy"
    for col in ("epoch", "batch_size"):
        head = page.locator(f"[data-testid=lineage-th][data-col='{col}']")
        assert not re.search(r"[A-Za-z]", head.inner_text()), head.inner_text()
        assert head.get_attribute("title") == col
    labels = page.evaluate("() => window.__charts['model-lineage-parallel'].extra.axes.map(a => a.label)")
    assert "[M]准确率" in labels
    # the landscape's info panel: eval metrics and the unit in Chinese, raw keys in the tooltips
    open_page(page, demo_server, q("/loss-landscape", train_id=LANDSCAPE_RUN), refresh=60)
    accuracy = page.locator("[data-testid=landscape-info] dt[data-key='metric/accuracy']")
    assert accuracy.inner_text() == "评估准确率" and accuracy.get_attribute("title") == "metric/accuracy"
    assert page.get_by_text("单位：步").count() == 1


ALL_TEXT = """id => {
  const zr = window.__charts[id].instance().getZr();
  const out = [];
  zr.storage.getDisplayList(true).forEach(el => {
    if (!el.ignore && !el.invisible && el.style && el.style.text) out.push(String(el.style.text));
  });
  return out;
}"""


@pytest.mark.parametrize(("route", "chart"), [("/model-lineage", "model-lineage-parallel"),
                                              ("/data-lineage", "data-lineage-parallel")])
def test_parallel_axes_show_names_and_values_whole(page: Any, demo_server: str, route: str, chart: str,
                                                   screenshot: Any) -> None:
    from tests.e2e.test_ui_access import OVERLAPS
    for width in (1024, 1400):  # the chart lays its axes out again when its box is resized
        page.set_viewport_size({"width": width, "height": 900})
        if width == 1024:
            open_page(page, demo_server, route, refresh=60)
        page.wait_for_selector(f'[data-chart-id="{chart}"][data-rendered="true"]')
        page.wait_for_timeout(400)
        axes = page.evaluate("id => window.__charts[id].extra.axes", chart)
        lines = page.evaluate(ALL_TEXT, chart)
        cut = [x for x in lines if x.endswith(("…", "..."))]
        assert not cut, f"cut labels at {width} px: {cut}"
        flat = "".join("".join(x.split()) for x in lines)
        wanted = [a["label"] for a in axes] + [c for a in axes for c in (a.get("categories") or [])]
        missing = [w for w in wanted if "".join(w.split()) not in flat]
        assert not missing, f"not shown whole at {width} px: {missing}"
        result = page.evaluate(OVERLAPS, chart)
        assert not result["hits"], (width, result["hits"])
        screenshot(page, f"audit_parallel_{chart}_{width}")


# ---------------------------------------------------------------------------------------------- dashboard
def test_dashboard_scalar_card_draws_loss_and_says_how_many_it_draws(page: Any, demo_server: str) -> None:
    tags = catalog(demo_server)[RESTARTED]["scalar"]
    loss = [t for t in tags if "loss" in t.lower()]
    assert len(tags) > 2 and loss
    open_page(page, demo_server, q("/train-dashboard", train_id=RESTARTED), refresh=60)
    page.wait_for_function("() => window.__charts?.['dashboard:scalar']?.series.length > 0")
    drawn = page.evaluate("() => window.__charts['dashboard:scalar'].series.map(s => s.name)")
    assert set(loss) <= set(drawn), drawn
    head = page.get_by_test_id("dashboard-card-scalar").locator(".dash-card-head")
    assert head.inner_text().endswith(f"{len(drawn)} of {len(tags)} tags"), head.inner_text()


def test_an_all_nan_histogram_says_so(page: Any, ui_server: str) -> None:
    require_shared(FIXTURES)
    tag = "hist/all_nan/histogram"
    steps = get_json(ui_server, "histograms", train_id="./record_api", tag=tag)["histograms"]
    assert steps and all(sum(b[2] for b in s["buckets"]) == 0 and s.get("nan_count") for s in steps)
    open_page(page, ui_server, q("/histograms", train_id="./record_api", tag=tag), refresh=60)
    card = page.locator(f"[data-testid=histogram-card][data-tag='{tag}']")
    card.get_by_text("All values are NaN").wait_for()
    assert page.evaluate(f"() => window.__charts['histogram:{tag}'].series.length") == 0  # no flat lines
    # the dashboard's card draws a histogram that has values, not the all-NaN one listed first (issue 34)
    open_page(page, ui_server, q("/train-dashboard", train_id="./record_api"), refresh=60)
    chart = page.locator("[data-testid=dashboard-histogram-chart]")
    page.wait_for_function("() => window.__charts?.['dashboard:histogram']?.series?.length > 0")
    assert chart.get_attribute("data-tag") != tag


def _graph_level(base: str, train_id: str) -> tuple[list[str], list[str]]:
    """The chain of lone scopes from the root and the nodes of the first scope holding more than one, via the API."""
    tag = catalog(base)[train_id]["graph"][0]
    chain: list[str] = []
    nodes = get_json(base, "graphs/nodes", train_id=train_id, tag=tag)["nodes"]
    while len(nodes) == 1 and nodes[0]["type"] == "name_scope" and len(chain) < 8:
        chain.append(nodes[0]["name"])
        nodes = get_json(base, "graphs/nodes", train_id=train_id, tag=tag, name=nodes[0]["name"])["nodes"]
    return chain, [n["name"] for n in nodes]


def test_dashboard_graph_card_shows_the_graphs_first_level(page: Any, demo_server: str) -> None:
    chain, level = _graph_level(demo_server, RESTARTED)
    assert chain and len(level) > 1
    open_page(page, demo_server, q("/train-dashboard", train_id=RESTARTED), refresh=60)
    card = page.get_by_test_id("dashboard-card-graph")
    card.locator("[data-testid=dashboard-graph-node]").first.wait_for()
    shown = card.locator("[data-testid=dashboard-graph-node]").evaluate_all("els => els.map(e => e.dataset.name)")
    assert sorted(shown) == sorted(level)
    assert card.get_by_test_id("dashboard-graph-path").inner_text().split(" › ") == [n.split("/")[-1] for n in chain]


# ---------------------------------------------------------------------------------------------- graph page
def _boxes_overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] and \
        a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]


def test_graph_page_hint_tree_count_and_file_name(page: Any, demo_server: str) -> None:
    page.add_init_script("localStorage.setItem('mi-graph-guide', 'seen')")
    tag = catalog(demo_server)[RESTARTED]["graph"][0]
    chain, _ = _graph_level(demo_server, RESTARTED)
    open_page(page, demo_server, q("/graph", train_id=RESTARTED), refresh=60)
    canvas = page.get_by_test_id("graph-canvas")
    canvas.and_(page.locator("[data-state=ready]")).wait_for()
    # "1 node", not "1 nodes"
    stats = page.get_by_test_id("graph-stats").inner_text()
    assert re.search(r"\d", stats) and not re.search(r"\b1 nodes\b|\b1 edges\b", stats), stats
    # the canvas opened the lone top scope(s): so did the tree
    opened = page.locator("[data-testid=graph-cluster]").evaluate_all("els => els.map(e => e.dataset.name)")
    assert chain[0] in opened
    row = page.locator(f"[data-testid=graph-tree-row][data-name='{chain[0]}']")
    assert row.get_attribute("data-open") == "true"
    # the whole file name can be read
    assert page.get_by_test_id("graph-tag-name").inner_text() == tag
    for width in (1400, 1024):
        page.set_viewport_size({"width": width, "height": 800})
        page.wait_for_timeout(200)
        # the hint line lies outside the drawing, never over a node
        hint = page.get_by_test_id("graph-hint").bounding_box()
        assert not _boxes_overlap(hint, page.get_by_test_id("graph-body").locator("svg").first.bounding_box())
        fits = page.get_by_test_id("graph-tag").evaluate("""s => { const c = document.createElement('canvas').getContext('2d')
            const st = getComputedStyle(s); c.font = `${st.fontSize} ${st.fontFamily}`
            return c.measureText(s.options[s.selectedIndex].text).width <= s.clientWidth - 28 }""")
        assert fits, f"the file select cuts its label at {width} px"


# ---------------------------------------------------------------------------------------------- comparison
def test_compare_picks_runs_that_share_tags(page: Any, ui_server: str) -> None:
    runs = {r: set(p.get("scalar", [])) for r, p in catalog(ui_server).items() if p.get("scalar")}
    counts: dict[str, int] = {}
    for tags in runs.values():
        for tag in tags:
            counts[tag] = counts.get(tag, 0) + 1
    best = max(counts.values())
    open_page(page, ui_server, "/compare-plate", refresh=60)
    page.wait_for_function("() => document.querySelectorAll('[data-testid=run-option][data-checked=true]').length")
    chosen = page.locator("[data-testid=run-option][data-checked=true]").evaluate_all(
        "els => els.map(e => e.dataset.trainId)")
    shared = set.intersection(*(runs[r] for r in chosen))
    assert shared, f"the default runs share no scalar tag: {chosen}"
    assert len(chosen) == min(5, best) if best >= 5 else len(chosen) >= best
    if FIXTURES.exists():
        assert "loss/auto/scalar" in shared  # 9 fixture runs record it; the first five listed share nothing


def test_compare_legend_shows_every_run_whole(page: Any, demo_server: str, screenshot: Any) -> None:
    tag = next(t for t in catalog(demo_server)[RESTARTED]["scalar"] if "loss" in t)
    runs = sorted(r for r, plugins in catalog(demo_server).items() if tag in plugins.get("scalar", []))
    assert len(runs) >= 5  # the MindSpore runs share it
    open_page(page, demo_server, q("/compare-plate", run=runs, tag=tag), refresh=60)
    chart = f"compare:{tag}"
    page.wait_for_function("([id, n]) => window.__charts?.[id]?.series.length >= n", arg=[chart, len(runs)])
    legend = page.evaluate("""id => { const inst = window.__charts[id].instance()
        const o = inst.getOption().legend[0]
        const texts = []
        inst.getZr().storage.getDisplayList(true).forEach(el => {
            if (el.style && el.style.text && !el.ignore && !el.invisible) {
                const r = el.getBoundingRect().clone(); const m = el.getComputedTransform(); if (m) r.applyTransform(m)
                texts.push([String(el.style.text), r.y, r.y + r.height]) } })
        const grid = inst.getModel().getComponent('grid').coordinateSystem.getRect()
        return { type: o.type, texts, gridTop: grid.y } }""", chart)
    assert legend["type"] != "scroll", "the legend pages its runs"
    shown = {text: (top, bottom) for text, top, bottom in legend["texts"]}
    for run in runs:
        assert run in shown, f"{run} is not in the legend (whole): {sorted(shown)}"
        top, bottom = shown[run]
        assert top >= 0 and bottom <= legend["gridTop"], (run, top, bottom, legend["gridTop"])
    screenshot(page, "audit_compare_legend")


# ---------------------------------------------------------------------------------------------- axes
LABEL_GAPS = """id => {
  // text boxes of the chart grouped in rows (same vertical centre): the gap between neighbours in each row
  const zr = window.__charts[id].instance().getZr()
  const rows = {}
  zr.storage.getDisplayList(true).forEach(el => {
    if (el.ignore || el.invisible || !el.style || !el.style.text) return
    const r = el.getBoundingRect().clone(); const m = el.getComputedTransform(); if (m) r.applyTransform(m)
    ;(rows[Math.round(r.y + r.height / 2)] ??= []).push([String(el.style.text), r.x, r.width])
  })
  const close = []
  for (const row of Object.values(rows)) {
    row.sort((a, b) => a[1] - b[1])
    for (let i = 1; i < row.length; i++) {
      const gap = row[i][1] - (row[i - 1][1] + row[i - 1][2])
      if (gap < 10) close.push([row[i - 1][0], row[i][0], Math.round(gap)])
    }
  }
  return close
}"""


AXIS_ROUTES = [(1024, f"/histograms?train_id={RESTARTED}"), (1400, f"/histograms?train_id={RESTARTED}"),
               (1024, f"/histograms?train_id={RESTARTED}&view=front"), (1024, f"/train-dashboard?train_id={RESTARTED}"),
               (1024, f"/scalars?train_id={RESTARTED}&x=relative"), (1400, f"/loss-landscape?train_id={LANDSCAPE_RUN}")]


def test_axis_labels_leave_room_between_them(page: Any, demo_server: str) -> None:
    crowded = {}
    for width, route in AXIS_ROUTES:
        page.set_viewport_size({"width": width, "height": 900})
        open_page(page, demo_server, route, refresh=60)
        page.wait_for_function("() => Object.values(window.__charts || {}).some(c => c.series.length)")
        page.wait_for_timeout(300)
        for chart in page.evaluate("() => Object.keys(window.__charts)"):
            if page.evaluate("id => window.__charts[id].series.length", chart):
                close = page.evaluate(LABEL_GAPS, chart)
                if close:
                    crowded[f"{width} {route} {chart}"] = close
    assert not crowded, crowded


# ---------------------------------------------------------------------------------------------- a run disappears
VANISH_ROUTES = ["/train-dashboard", "/scalars", "/images", "/histograms", "/tensors", "/graph", "/data-map",
                 "/loss-landscape", "/compare-plate"]


def test_every_page_follows_a_deleted_run_the_same_way(page: Any, demo_server: str, demo_dir: Path) -> None:
    """One copy of a demo run per page, each page open in its own tab; the copies are deleted: every run page shows
    "Run not found" naming the run (the compare page a banner naming it), with no failed request in the console."""
    names = {route: "vanish_" + route.strip("/").replace("-", "_") for route in VANISH_ROUTES}
    for name in names.values():
        shutil.copytree(demo_dir / LANDSCAPE_RUN[2:], demo_dir / name)
    deadline = time.monotonic() + 30
    while not all(get_json(demo_server, "train-jobs", train_id=f"./{n}")["train_jobs"] for n in names.values()):
        assert time.monotonic() < deadline, "the copies were not listed"
        time.sleep(0.3)
    tabs = {}
    for route, name in names.items():
        tab = page if not tabs else page.context.new_page()
        errors: list[str] = []
        tab.on("console", lambda msg, errors=errors: errors.append(msg.text) if msg.type == "error" else None)
        tab.on("response", lambda r, errors=errors: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        query = {"run": [f"./{name}", RESTARTED]} if route == "/compare-plate" else {"train_id": f"./{name}"}
        open_page(tab, demo_server, q(route, **query))
        tabs[route] = (tab, errors)
    for route, (tab, _) in tabs.items():  # each page shows its run before it goes
        if route == "/compare-plate":
            tab.locator(f"[data-testid=run-option][data-train-id='./{names[route]}'][data-checked=true]").wait_for()
        else:
            tab.get_by_test_id("summary-path").filter(has_text=names[route]).wait_for()
            tab.wait_for_function("() => !document.querySelector("
                                  "'[data-testid=state-loading],[data-testid=state-caching],[data-testid=state-notFound]')")
    for name in names.values():
        shutil.rmtree(demo_dir / name)
    for route, (tab, _errors) in tabs.items():
        if route == "/compare-plate":
            banner = tab.get_by_test_id("compare-run-gone")
            banner.wait_for(timeout=20_000)
            assert f"./{names[route]}" in banner.inner_text()
        else:
            state = tab.get_by_test_id("state-notFound")
            state.wait_for(timeout=20_000)
            assert f"./{names[route]}" in state.inner_text(), route
    page.wait_for_timeout(1500)  # a refresh tick after: still nothing asked about the gone runs
    noise = {route: errors for route, (_, errors) in tabs.items() if errors}
    assert not noise, noise
