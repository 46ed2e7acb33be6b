"""The TensorBoard kinds' pages in Chromium, over ../shared/fixtures/tensorboard read in place (issue 20, Views):
the config diff of the two Megatron runs shows exactly their 5 differences, the projector draws and colours the
200 points, PR and ROC curves render from the counts, the `vs samples` axis switches, and the Text, audio, mesh,
custom scalars, dashboard and model lineage (hparams sessions) pages show what EXPECTED.json says, with no
console error (the `page` fixture fails on any). One server for the module.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from PIL import Image

from tests.conftest import REPO, SHARED, free_port, run_cli
from tests.e2e.test_core_pages import chart, goto, option, q, wait_chart
from tests.e2e.test_ui_access import _non_ascii_icon_buttons, _unnamed_controls
from tests.e2e.test_ui_gaps import _drawn_fraction, _gl_canvas, wait_drawn

TB = SHARED / "fixtures" / "tensorboard"
RUN_A, RUN_B = "./mindspeed_llama2_7b_run_a", "./mindspeed_llama2_7b_run_b"
MF = "./mindformers_mixtral_8x7b/rank_0"


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    if not TB.exists():
        pytest.skip(f"{TB} is absent: the TensorBoard fixtures live in ../shared (present in CI)")
    data: dict[str, Any] = json.loads((TB / "EXPECTED.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def tb_server(tmp_path_factory: pytest.TempPathFactory, expected: dict[str, Any]) -> Iterator[str]:
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    port, ws = free_port(), tmp_path_factory.mktemp("tb-ui-ws")
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(TB), "--workspace", str(ws),
                      "--reload-interval", "0", "--max-depth", "2")
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        run_cli("stop", "--port", str(port), "--workspace", str(ws))


def _texts(page: Any, selector: str, attr: str) -> list[str]:
    return page.eval_on_selector_all(selector, f"els => els.map(e => e.getAttribute('{attr}'))")


# ------------------------------------------------------------------------------ config diff
def test_config_diff_of_the_megatron_runs_shows_exactly_the_five_differences(
        page: Any, tb_server: str, expected: dict[str, Any], screenshot: Any) -> None:
    diff = expected["groups"]["megatron"]["args_diff"]
    args = expected["groups"]["megatron"]["args"]
    want_kind = {**{k: "changed" for k in diff["changed"]}, **{k: "removed" for k in diff["only_in_first"]},
                 **{k: "added" for k in diff["only_in_second"]}}
    assert len(want_kind) == diff["count"] == 5

    # picked in the summary list, opened with its "Config diff" button
    goto(page, tb_server, "/summary-manage")
    for run in (RUN_A, RUN_B):
        page.locator(f"[data-testid=summary-row][data-train-id='{run}'] [data-testid=summary-diff-pick]").check()
    page.get_by_test_id("summary-config-diff").click()
    page.get_by_test_id("diff-table").wait_for()
    rows = page.locator("[data-testid=diff-row]")
    assert dict(zip(_texts(page, "[data-testid=diff-row]", "data-key"),
                    _texts(page, "[data-testid=diff-row]", "data-kind"), strict=True)) == want_kind
    assert page.get_by_test_id("diff-count").get_attribute("data-count") == "5"
    for i in range(rows.count()):
        row = rows.nth(i)
        key = row.get_attribute("data-key")
        cells = row.locator("[data-testid=diff-cell]")
        for j, run in enumerate((RUN_A, RUN_B)):
            value = args[run.removeprefix("./")].get(key)
            text = cells.nth(j).locator(".diff-value")
            assert (text.inner_text() if text.count() else None) == value, (key, run)
    marks = _texts(page, "[data-testid=diff-row][data-key=jit_compile] [data-testid=diff-cell]", "data-mark")
    assert marks == ["base", "removed"]
    screenshot(page, "tb_config_diff")

    # every key when asked; the search narrows to one
    page.get_by_test_id("diff-show-all").check()
    page.wait_for_function("() => document.querySelectorAll('[data-testid=diff-row]').length > 100")
    page.get_by_test_id("diff-search").fill("micro_batch")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=diff-row]').length === 1")

    # from the comparison page: its "Config diff" link carries the selected runs
    goto(page, tb_server, q("/compare-plate", run=[RUN_A, RUN_B]))
    page.get_by_test_id("compare-config-diff").click()
    page.get_by_test_id("diff-table").wait_for()
    assert rows.count() == 5


# ------------------------------------------------------------------------------ projector
def test_projector_draws_and_colours_the_points(page: Any, tb_server: str, expected: dict[str, Any],
                                               screenshot: Any) -> None:
    info = expected["runs"]["kind_embedding"]["embeddings"]["token_embedding"]
    n = info["shape"][0]
    goto(page, tb_server, q("/projector", train_id="./kind_embedding"))
    summary = wait_chart(page, "projector", min_series=len(info["label_counts"]))
    # PCA of every point, one series (colour) per label, as many points per label as metadata.tsv has
    assert summary["extra"]["method"] == "pca" and summary["extra"]["points"] == n
    assert {s["name"]: s["points"] for s in summary["series"]} == info["label_counts"]
    assert len({s["color"] for s in summary["series"]}) == len(info["label_counts"])
    assert page.locator("[data-chart-id=projector]").get_attribute("data-point-count") == str(n)

    # hover shows the point's label; a click shows its metadata and nearest neighbours
    first = info["metadata_first_row"]
    xy = page.evaluate("""() => { const c = window.__charts.projector.instance();
        for (const s of c.getOption().series) for (const d of (s.data || [])) if (d[2] === 0) return c.convertToPixel('grid', [d[0], d[1]]);
        return null }""")
    box = page.get_by_test_id("projector-chart").bounding_box()
    page.mouse.move(box["x"] + xy[0], box["y"] + xy[1])
    tooltip = page.locator(".chart-tooltip").filter(has_text="#0")
    tooltip.wait_for()
    assert first[0] in tooltip.inner_text()
    page.mouse.click(box["x"] + xy[0], box["y"] + xy[1])
    panel = page.get_by_test_id("projector-point")
    panel.locator(".proj-label").filter(has_text=first[0]).wait_for()
    assert page.get_by_test_id("projector-neighbours").locator("li").count() == 8
    # the neighbours are ringed on the chart too, and PCA says how much of the variance each axis holds (numpy's
    # PCA of tensors.tsv: eigenvalues of the covariance over its trace)
    page.wait_for_function("() => window.__charts.projector.extra.neighbours === 8")
    ringed = page.evaluate("() => window.__charts.projector.instance().getOption().series"
                           ".find(s => s.id === 'neighbours').data.length")
    assert ringed == 8
    values = np.loadtxt(TB / info["tensors_tsv"], delimiter="\t", dtype=np.float64)
    eig = np.sort(np.linalg.eigvalsh(np.cov(values, rowvar=False)))[::-1]
    shares = page.evaluate("() => window.__charts.projector.extra.explained")
    assert shares == pytest.approx((eig[:2] / eig.sum()).tolist(), abs=2e-3)
    assert page.get_by_test_id("projector-explained").is_visible()
    screenshot(page, "tb_projector_pca")

    # colour by the other column: its categories, counted from metadata.tsv itself
    with (TB / info["metadata_tsv"]).open(encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t"))[1:]
    splits = {v: sum(1 for r in rows if r[1] == v) for v in {r[1] for r in rows}}
    page.get_by_test_id("projector-color-by").select_option("split")
    page.wait_for_function("k => window.__charts.projector.series.length === k", arg=len(splits))
    assert {s["name"]: s["points"] for s in chart(page, "projector")["series"]} == splits

    # t-SNE in the worker: the chart follows it to the end, every point drawn
    page.get_by_test_id("projector-method-tsne").click()
    page.wait_for_function("() => { const e = window.__charts.projector.extra; return e.method === 'tsne' && e.done }",
                           timeout=90_000)
    assert chart(page, "projector")["extra"]["points"] == n


def test_projector_in_3d(page: Any, tb_server: str, expected: dict[str, Any], screenshot: Any) -> None:
    info = expected["runs"]["kind_embedding"]["embeddings"]["token_embedding"]
    n, first = info["shape"][0], info["metadata_first_row"]
    goto(page, tb_server, q("/projector", train_id="./kind_embedding"))
    wait_chart(page, "projector", min_series=len(info["label_counts"]))
    assert chart(page, "projector")["extra"]["dims"] == 2
    page.get_by_test_id("projector-dims-3").click()
    page.wait_for_function("() => { const e = window.__charts.projector.extra; return e.dims === 3 && e.done }")
    assert "d=3" in page.url
    # every point drawn once with 3 finite coordinates (then its index), still one series (colour) per label
    summary = chart(page, "projector")
    assert {s["name"]: s["points"] for s in summary["series"]} == info["label_counts"]
    drawn = page.evaluate("""() => window.__charts.projector.instance().getOption().series
        .filter(s => String(s.id).startsWith('cat:')).map(s => [s.type, s.data])""")
    assert {kind for kind, _ in drawn} == {"scatter3D"}
    points = [d for _, data in drawn for d in data]
    assert len(points) == n and sorted(d[3] for d in points) == list(range(n))
    assert all(len(d) == 4 and all(np.isfinite(d[:3])) for d in points)
    assert len({tuple(round(x, 6) for x in d[:3]) for d in points}) > n * 0.9  # spread, not collapsed
    # PCA: three axes, each with its share of the variance
    values = np.loadtxt(TB / info["tensors_tsv"], delimiter="\t", dtype=np.float64)
    eig = np.sort(np.linalg.eigvalsh(np.cov(values, rowvar=False)))[::-1]
    assert summary["extra"]["explained"] == pytest.approx((eig[:3] / eig.sum()).tolist(), abs=2e-3)
    assert "PC3" in page.get_by_test_id("projector-explained").inner_text()
    # the tooltip names the point; the search's first match is selected, its neighbours ringed, all in 3-D
    tip = page.evaluate("""() => { const o = window.__charts.projector.instance().getOption()
        const d = o.series.flatMap(s => s.data).find(d => d[3] === 0); return o.tooltip[0].formatter({ data: d }) }""")
    assert first[0] in tip and "#0" in tip
    page.get_by_test_id("projector-search").fill(first[0])
    page.get_by_test_id("projector-search").press("Enter")
    page.wait_for_function("() => window.__charts.projector.extra.neighbours === 8")
    rings = page.evaluate("""() => Object.fromEntries(window.__charts.projector.instance().getOption().series
        .filter(s => ['matches', 'neighbours', 'selected'].includes(s.id)).map(s => [s.id, [s.type, s.data]]))""")
    assert rings["selected"][0] == "scatter3D" and [d[3] for d in rings["selected"][1]] == [0]
    assert len(rings["neighbours"][1]) == 8 and all(len(d) == 4 for d in rings["neighbours"][1])
    assert rings["matches"][0] == "scatter3D" and len(rings["matches"][1]) >= 1
    # drawn: the WebGL canvas shows the points (a sparse cloud: >1 % of its pixels, in many colours)
    canvas = _gl_canvas(page, "[data-testid=projector-chart]")
    wait_drawn(page, canvas, _drawn_fraction, lambda fraction, ncolors: fraction > 0.01 and ncolors > 50)
    screenshot(page, "tb_projector_3d")
    # UMAP in 3-D too
    page.get_by_test_id("projector-method-umap").click()
    page.wait_for_function("""() => { const e = window.__charts.projector.extra
                                      return e.method === 'umap' && e.dims === 3 && e.done }""", timeout=90_000)
    umap = page.evaluate("""() => window.__charts.projector.instance().getOption().series
        .filter(s => String(s.id).startsWith('cat:')).flatMap(s => s.data)""")
    assert len(umap) == n and all(len(d) == 4 and all(np.isfinite(d[:3])) for d in umap)


NO_WEBGL = """(() => { const get = HTMLCanvasElement.prototype.getContext
    HTMLCanvasElement.prototype.getContext = function (kind, ...rest) {
        return /webgl/.test(String(kind)) ? null : get.call(this, kind, ...rest) } })()"""


def test_3d_views_without_webgl(page: Any, tb_server: str, expected: dict[str, Any]) -> None:
    """No WebGL: the mesh says so calmly; the projector asked for 3-D says so and draws its points in 2-D."""
    page.add_init_script(NO_WEBGL)
    goto(page, tb_server, q("/mesh", train_id="./kind_mesh"))
    page.get_by_test_id("mesh-no-gl").wait_for()
    assert page.get_by_test_id("mesh-points-toggle").count() == 0
    info = expected["runs"]["kind_embedding"]["embeddings"]["token_embedding"]
    goto(page, tb_server, q("/projector", train_id="./kind_embedding", d="3"))
    summary = wait_chart(page, "projector", min_series=len(info["label_counts"]))
    page.get_by_test_id("projector-no-gl").wait_for()
    assert summary["extra"]["dims"] == 2
    assert {s["name"]: s["points"] for s in summary["series"]} == info["label_counts"]
    assert option(page, "projector", "o.series.map(s => s.type)")[0] == "scatter"


# ------------------------------------------------------------------------------ PR / ROC
def test_pr_and_roc_curves_render_from_the_counts(page: Any, tb_server: str, expected: dict[str, Any],
                                                  screenshot: Any) -> None:
    curves = expected["runs"]["kind_pr_curve"]["pr_curves"]
    goto(page, tb_server, q("/pr-curves", train_id="./kind_pr_curve"))
    for tag, info in curves.items():
        wait_chart(page, f"roc:{tag}")
        wait_chart(page, f"pr:{tag}")
        at = info["at_threshold"]
        steps = sorted(int(s) for s in at["per_step"])
        card = page.locator(f"[data-testid=pr-card][data-tag='{tag}']")
        assert card.get_attribute("data-step") == str(steps[-1])  # the newest step first
        for step in (steps[-1], steps[0]):
            if step != steps[-1]:
                card.get_by_test_id("pr-step-slider").fill(str(steps.index(step)))
                page.wait_for_function("([t, s]) => window.__charts['roc:' + t].extra.step === s", arg=[tag, step])
            c = at["per_step"][str(step)]
            tpr, fpr = c["tp"] / (c["tp"] + c["fn"]), c["fp"] / (c["fp"] + c["tn"])
            point = option(page, f"roc:{tag}",
                           f"o.series[0].data.find(d => Math.abs(d[2] - {at['threshold']}) < 1e-9)")
            assert point[0] == pytest.approx(fpr) and point[1] == pytest.approx(tpr), (tag, step)
            assert point[3:7] == [c["tp"], c["fp"], c["tn"], c["fn"]]
            pr = option(page, f"pr:{tag}", f"o.series[0].data.find(d => Math.abs(d[2] - {at['threshold']}) < 1e-9)")
            assert pr[0] == pytest.approx(c["recall"]) and pr[1] == pytest.approx(c["precision"])
        auc = float(card.get_by_test_id("roc-auc").get_attribute("data-value"))
        assert 0.5 < auc <= 1
    screenshot(page, "tb_pr_roc")


# ------------------------------------------------------------------------------ samples axis, groups
def test_samples_axis_switches(page: Any, tb_server: str, expected: dict[str, Any], screenshot: Any) -> None:
    scalars = expected["runs"]["mindspeed_llama2_7b_run_a"]["scalars"]
    cid = "scalar:lm loss/scalar"
    goto(page, tb_server, q("/scalars", train_id=RUN_A, tag=["lm loss/scalar", "iteration-time/scalar"]))
    summary = wait_chart(page, cid)
    assert summary["series"][0]["lastX"] == scalars["lm loss"]["steps"]["last"]
    # the twins are an axis, not charts of their own
    listed = _texts(page, "[data-testid=tag-option]", "data-tag")
    assert listed and not [t for t in listed if "vs samples" in t]
    assert len(listed) == len([k for k in scalars if "vs samples" not in k])

    page.get_by_test_id("x-axis-samples").click()
    page.wait_for_function("id => window.__charts[id].extra.xMode === 'samples'", arg=cid)
    twin = scalars["lm loss vs samples"]
    wait = "([id, x]) => window.__charts[id].series[0].lastX === x"
    page.wait_for_function(wait, arg=[cid, twin["steps"]["last"]])
    assert chart(page, cid)["series"][0]["points"] == twin["count"]
    assert "x=samples" in page.url
    # a metric without a twin keeps its steps, and says so
    it_card = page.locator("[data-testid=scalar-card][data-tag='iteration-time/scalar']")
    assert it_card.get_by_test_id("scalar-chart").get_attribute("data-x-mode") == "step"
    assert it_card.get_by_test_id("chart-note").is_visible()
    screenshot(page, "tb_samples_axis")
    page.get_by_test_id("x-axis-step").click()
    page.wait_for_function(wait, arg=[cid, scalars["lm loss"]["steps"]["last"]])


def test_add_scalars_group_is_one_chart(page: Any, tb_server: str, expected: dict[str, Any]) -> None:
    group = expected["groups"]["mindformers"]["add_scalars"]
    main = group["main_tags"][0]
    goto(page, tb_server, q("/scalars", train_id=MF, filter="expert"))
    summary = wait_chart(page, f"scalar:{main}", min_series=len(group["children"]))
    assert [s["name"] for s in summary["series"]] == group["children"]
    assert _texts(page, "[data-testid=tag-option]", "data-tag") == [main]


# ------------------------------------------------------------------------------ text
def test_text_page_tree_table_and_safe_markdown(page: Any, tb_server: str, expected: dict[str, Any],
                                                screenshot: Any) -> None:
    megatron = expected["groups"]["megatron"]["args"]["mindspeed_llama2_7b_run_a"]
    goto(page, tb_server, q("/text", train_id=RUN_A))
    table = page.get_by_test_id("text-args-table")
    table.wait_for()
    assert table.get_attribute("data-rows") == str(len(megatron))
    page.get_by_test_id("text-search").fill("micro_batch_size")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=text-arg-row]').length === 1")
    row = page.locator("[data-testid=text-arg-row]")
    assert row.get_attribute("data-key") == "micro_batch_size" and megatron["micro_batch_size"] in row.inner_text()

    # MindFormers: each str(dict) config key is a tree, searchable
    goto(page, tb_server, q("/text", train_id=MF))
    page.get_by_test_id("text-config-tree").wait_for()
    model = page.locator("[data-testid=text-tree-node][data-path=model]")
    assert model.get_attribute("open") is not None
    page.get_by_test_id("text-search").fill("hidden_size")
    leaf = page.locator("[data-testid=text-tree-leaf][data-path='model.model_config.hidden_size']")
    leaf.wait_for()
    value = expected["runs"]["mindformers_mixtral_8x7b/rank_0"]["text"]["model/text_summary"]["values"][-1]
    assert f"'hidden_size': {leaf.locator('.cfg-value').inner_text()}," in value
    screenshot(page, "tb_text_tree")

    # markdown: a table rendered, raw HTML never
    goto(page, tb_server, q("/text", train_id="./kind_text_markdown"))
    card = page.locator("[data-testid=text-markdown-card][data-tag='notes/markdown_table/text_summary']")
    card.locator("table").wait_for()
    assert card.locator("td").filter(has_text="0.351").count() == 1
    plain = page.locator("[data-testid=text-markdown-card][data-tag='notes/plain/text_summary']")
    assert "<angle brackets>" in plain.inner_text() and plain.locator("angle").count() == 0


# ------------------------------------------------------------------------------ mesh faces
def _filled_share(png: bytes) -> tuple[float, float]:
    """(share of the whole image, share of its central 41x41 patch) whose pixels differ from the corner pixel
    (the background behind the transparent GL canvas) by more than 24 in some channel."""
    img = Image.open(io.BytesIO(png)).convert("RGB")
    px = np.asarray(img).astype(int)
    diff = (np.abs(px - px[2, 2]).max(axis=2) > 24)
    h, w = diff.shape
    return float(diff.mean()), float(diff[h // 2 - 20:h // 2 + 21, w // 2 - 20:w // 2 + 21].mean())


def test_mesh_draws_its_faces_as_filled_triangles(page: Any, tb_server: str, expected: dict[str, Any],
                                                   screenshot: Any) -> None:
    mesh = expected["runs"]["kind_mesh"]["mesh"]
    faces, vertices = mesh["cube_2"]["shape"][1], mesh["cube_1"]["shape"][1]
    goto(page, tb_server, q("/mesh", train_id="./kind_mesh"))
    page.wait_for_selector("[data-testid=mesh-chart][data-rendered=true], [data-testid=mesh-no-gl]")
    if page.get_by_test_id("mesh-no-gl").count():
        pytest.skip("this Chromium has no WebGL")
    summary = wait_chart(page, "mesh:cube")
    # every face drawn: one `surface` whose grid holds each face as a quad (2 rows x 3 columns a face, 2 the last)
    assert [(x["name"], x["points"]) for x in summary["series"]] == [("faces", faces)]
    assert summary["extra"]["facesDrawn"] == summary["extra"]["faces"] == faces
    assert option(page, "mesh:cube", "o.series.map(s => [s.type, s.data.length, s.dataShape])") == [
        ["surface", 2 * (3 * faces - 1), [2, 3 * faces - 1]]]
    # ... and filled: the cube (centred in the box) covers the middle of the canvas and a good part of it
    canvas = _gl_canvas(page, "[data-testid=mesh-chart]")
    wait_drawn(page, canvas, _filled_share, lambda whole, middle: middle > 0.98 and whole > 0.12)
    screenshot(page, "tb_mesh_faces")
    # the vertices on request, as points over the faces
    page.get_by_test_id("mesh-points-toggle").check()
    page.wait_for_function("() => window.__charts['mesh:cube'].series.length === 2")
    assert [(x["name"], x["points"]) for x in chart(page, "mesh:cube")["series"]] == [
        ("faces", faces), ("vertices", vertices)]
    assert option(page, "mesh:cube", "o.series.map(s => s.type)") == ["surface", "scatter3D"]


# ------------------------------------------------------------------------------ the other kinds, navigation
def test_dashboard_cards_open_every_kind(page: Any, tb_server: str, expected: dict[str, Any],
                                         screenshot: Any) -> None:
    runs = expected["runs"]
    # the kind's card on the run's dashboard opens its page (keyboard: Enter)
    for run, card, page_id in (("kind_audio", "audio", "audio-page"), ("kind_mesh", "mesh", "mesh-page"),
                               ("kind_custom_scalars", "custom-scalars", "custom-scalars-page")):
        goto(page, tb_server, q("/train-dashboard", train_id=f"./{run}"))
        page.get_by_test_id(f"dashboard-card-{card}").focus()
        page.keyboard.press("Enter")
        page.get_by_test_id(page_id).wait_for()

        if card == "audio":
            audio = runs[run]["audio"]["audio/sine_440hz"]
            player = page.get_by_test_id("audio-player")
            page.wait_for_function("el => el.readyState >= 1 && el.duration > 0", arg=player.element_handle())
            assert player.evaluate("el => el.duration") == pytest.approx(audio["length_frames"] / audio["sample_rate"])
            assert f"{audio['sample_rate']} Hz" in page.get_by_test_id("audio-info").inner_text()
        elif card == "mesh":
            shape = runs[run]["mesh"]["cube_1"]["shape"]
            page.wait_for_selector("[data-testid=mesh-chart][data-rendered=true], [data-testid=mesh-no-gl]")
            if page.get_by_test_id("mesh-no-gl").count() == 0:
                faces = runs[run]["mesh"]["cube_2"]["shape"][1]
                assert [(x["name"], x["points"]) for x in chart(page, "mesh:cube")["series"]] == [("faces", faces)]
                page.get_by_test_id("mesh-points-toggle").check()
                page.wait_for_function("() => window.__charts['mesh:cube'].series.length === 2")
                assert chart(page, "mesh:cube")["series"][1]["points"] == shape[1]
        else:
            layout = runs[run]["custom_scalars"]["custom_scalars__config__"]["categories"]
            charts = page.locator("[data-testid=custom-chart]")
            charts.first.wait_for()
            assert charts.count() == sum(len(c["charts"]) for c in layout)
            loss = page.locator("[data-testid=custom-chart][data-title='Loss train vs valid']")
            assert loss.get_attribute("data-lines") == "2"
            # `accuracy/.*` (re.match) over the run's scalar tags as written
            regex = page.locator("[data-testid=custom-chart][data-title='All accuracy']")
            matching = [t for t in runs[run]["tags"]["scalars"] if t.startswith("accuracy/")]
            assert regex.get_attribute("data-lines") == str(len(matching))
            assert page.get_by_test_id("custom-pattern-problem").count() == 0

    # hparams: the parent's card opens the model lineage page with its sessions beside MindSpore lineage
    sessions = expected["groups"]["hparams"]["sessions"]
    goto(page, tb_server, q("/train-dashboard", train_id="./kind_hparams"))
    page.get_by_test_id("dashboard-card-hparams").click()
    page.get_by_test_id("model-lineage-page").wait_for()
    page.wait_for_function("n => document.querySelectorAll('[data-testid=lineage-hparams-badge]').length === n",
                           arg=len(sessions))
    assert page.get_by_test_id("lineage-source").get_attribute("data-value") == "hparams"
    wait_chart(page, "lineage-importance")
    screenshot(page, "tb_hparams_lineage")


def test_pages_in_chinese_and_dark(page: Any, tb_server: str, screenshot: Any) -> None:
    goto(page, tb_server, q("/config-diff", run=[RUN_A, RUN_B]))
    page.get_by_test_id("diff-table").wait_for()
    page.get_by_test_id("lang-zh").click()
    page.get_by_test_id("theme-select").select_option("dark")
    page.get_by_text("配置对比").first.wait_for()
    assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
    screenshot(page, "tb_config_diff_zh_dark")
    goto(page, tb_server, q("/text", train_id=MF))
    page.get_by_test_id("text-config-tree").wait_for()
    assert "配置" in page.get_by_test_id("text-config-tree").inner_text()
    screenshot(page, "tb_text_zh_dark")
    page.get_by_test_id("lang-en").click()
    page.get_by_test_id("theme-select").select_option("light")



def test_every_control_has_a_name_and_the_pages_are_keyboard_reachable(page: Any, tb_server: str) -> None:
    """The accessibility walk of test_ui_access.py over the new pages (Chromium's own accessibility tree)."""
    cdp = page.context.new_cdp_session(page)
    walk = [
        (q("/text", train_id=MF), "[data-testid=text-config-tree]"),
        (q("/config-diff", run=[RUN_A, RUN_B]), "[data-testid=diff-table]"),
        (q("/pr-curves", train_id="./kind_pr_curve"), "[data-testid=pr-step-slider]"),
        (q("/audio", train_id="./kind_audio"), "[data-testid=audio-player]"),
        (q("/projector", train_id="./kind_embedding"), "[data-chart-id=projector][data-rendered=true]"),
        (q("/custom-scalars", train_id="./kind_custom_scalars"), "[data-testid=custom-chart]"),
        (q("/mesh", train_id="./kind_mesh"), "[data-testid=mesh-card]"),
        (q("/scalars", train_id=RUN_A), "[data-testid=x-axis-samples]"),
        (q("/train-dashboard", train_id="./kind_pr_curve"), "[data-testid=dashboard-card-pr-curve]"),
    ]
    unnamed: dict[str, list[str]] = {}
    glyphs: dict[str, list[str]] = {}
    total = 0
    for route, ready in walk:
        goto(page, tb_server, route)
        page.wait_for_selector(ready)
        page.wait_for_timeout(200)
        count, bad = _unnamed_controls(page, cdp)
        total += count
        if bad:
            unnamed[route] = bad
        if odd := sorted(set(_non_ascii_icon_buttons(page))):
            glyphs[route] = odd
    assert total > 20
    assert not unnamed, unnamed
    assert not glyphs, glyphs
    # the run tabs reach the new pages from the keyboard
    goto(page, tb_server, q("/train-dashboard", train_id="./kind_pr_curve"))
    page.get_by_test_id("run-tab-pr-curves").focus()
    page.keyboard.press("Enter")
    page.get_by_test_id("pr-curves-page").wait_for()
