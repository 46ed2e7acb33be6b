"""Browser tests of the computational graph (#/graph) and the dataset graph (#/data-map) pages."""

from __future__ import annotations

from typing import Any

from tests.conftest import require_shared

RUN = "./lenet_collector"


def _open_graph(page: Any, ui_server: str) -> Any:
    page.goto(f"{ui_server}/#/graph?train_id={RUN}")
    canvas = page.get_by_test_id("graph-canvas")
    canvas.and_(page.locator("[data-state=ready]")).wait_for()
    return canvas


def test_graph_opens_and_expands_a_scope(page: Any, ui_server: str, screenshot: Any) -> None:
    require_shared()
    canvas = _open_graph(page, ui_server)
    # lenet_collector's root holds the Default and Gradients scopes (MindSpore training graph).
    nodes = page.get_by_test_id("graph-node")
    names = set(nodes.evaluate_all("els => els.map(e => e.dataset.name)"))
    assert {"Default", "Gradients"} <= names
    assert page.get_by_test_id("graph-cluster").count() == 0
    assert page.get_by_test_id("graph-legend").is_visible()
    assert page.get_by_test_id("graph-minimap").is_visible()
    tag = page.get_by_test_id("graph-tag")
    assert tag.input_value().endswith("_MS")
    before = int(canvas.get_attribute("data-nodes"))

    page.locator('[data-testid=graph-node][data-name="Default"]').dblclick()
    page.locator('[data-testid=graph-cluster][data-name="Default"]').wait_for()
    canvas.and_(page.locator("[data-state=ready]")).wait_for()
    after = int(canvas.get_attribute("data-nodes"))
    assert after > before
    assert page.locator('[data-testid=graph-node][data-name="Default/network-WithLossCell"]').count() == 1
    screenshot(page, "graph_expanded")

    # Double-clicking the expanded scope's box collapses it again.
    page.locator('[data-testid=graph-cluster][data-name="Default"] rect').dblclick(position={"x": 20, "y": 8})
    page.locator('[data-testid=graph-node][data-name="Default"]').wait_for()
    assert page.get_by_test_id("graph-cluster").count() == 0


def test_graph_search_jumps_to_a_node_and_shows_details(page: Any, ui_server: str, screenshot: Any) -> None:
    require_shared()
    canvas = _open_graph(page, ui_server)
    assert page.get_by_test_id("graph-node-none").is_visible()
    page.get_by_test_id("graph-search").fill("conv2d-op")
    first = page.get_by_test_id("graph-search-result").first
    first.wait_for()
    name = first.get_attribute("data-name")
    assert name and name.endswith("/Conv2D-op0")
    first.click()

    target = page.locator(f'[data-testid=graph-node][data-name="{name}"]')
    target.wait_for()
    canvas.and_(page.locator("[data-state=ready]")).wait_for()
    assert "gc-selected" in (target.get_attribute("class") or "")
    assert page.get_by_test_id("graph-node-name").inner_text() == name
    assert page.get_by_test_id("graph-node-type").inner_text() == "Conv2D"
    attrs = page.get_by_test_id("graph-node-attrs").inner_text()
    assert "kernel_size" in attrs and "[5, 5]" in attrs
    inputs = page.get_by_test_id("graph-node-inputs").inner_text()
    assert "float32" in inputs and "32×1×32×32" in inputs  # the input batch, NCHW
    # Every scope down to the node is open, and the URL keeps the selection.
    assert page.locator('[data-testid=graph-cluster][data-name="Default/network-WithLossCell/_backbone-LeNet5"]').count() == 1
    assert "node=" in page.url
    screenshot(page, "graph_search_node")

    # Clicking an output in the panel moves the selection to that node.
    page.get_by_test_id("graph-node-output").first.click()
    page.wait_for_function(
        "n => document.querySelector('[data-testid=graph-node-name]')?.textContent !== n", arg=name
    )
    assert page.get_by_test_id("graph-node-name").inner_text() != name


def test_graph_optimize_mode_and_export(page: Any, ui_server: str) -> None:
    require_shared()
    canvas = _open_graph(page, ui_server)
    normal = int(canvas.get_attribute("data-nodes"))
    page.get_by_test_id("graph-mode-optimize").click()
    page.wait_for_url("**mode=optimize**")
    canvas.and_(page.locator("[data-state=ready]")).wait_for()
    # The optimized view drops the Gradients scope: a single Default scope, opened at once.
    page.locator('[data-testid=graph-cluster][data-name="Default"]').wait_for()
    assert page.locator('[data-testid=graph-node][data-name="Gradients"]').count() == 0
    assert int(canvas.get_attribute("data-nodes")) != normal
    with page.expect_download() as dl:
        page.get_by_test_id("graph-export-svg").click()
    assert dl.value.suggested_filename.endswith("_graph_optimized.svg")
    with page.expect_download() as dl:
        page.get_by_test_id("graph-export-png").click()
    assert dl.value.suggested_filename.endswith(".png")


def test_dataset_graph_shows_the_pipeline_and_parameters(page: Any, ui_server: str, screenshot: Any) -> None:
    require_shared()
    page.goto(f"{ui_server}/#/data-map?train_id={RUN}")
    canvas = page.get_by_test_id("data-map-canvas")
    canvas.and_(page.locator("[data-state=ready]")).wait_for()
    labels = page.get_by_test_id("graph-node").evaluate_all("els => els.map(e => e.querySelector('text').textContent.trim())")
    # GeneratorDataset -> Map x3 -> Shuffle -> Batch (the SummaryCollector LeNet run).
    assert sorted(labels) == sorted(["GeneratorDataset", "Map", "Map", "Map", "Shuffle", "Batch"])
    assert page.get_by_test_id("data-map-node-none").is_visible()
    batch = page.get_by_test_id("graph-node").filter(has_text="Batch")
    batch.click()
    assert page.get_by_test_id("data-map-node-type").inner_text() == "Batch"
    assert page.get_by_test_id("data-map-param-batch_size").inner_text() == "32"
    assert page.get_by_test_id("data-map-param-drop_remainder").inner_text() == "true"
    page.get_by_test_id("graph-node").filter(has_text="Shuffle").click()
    assert page.get_by_test_id("data-map-param-buffer_size").inner_text() == "64"
    screenshot(page, "dataset_graph")


def test_dataset_graph_empty_run(page: Any, ui_server: str) -> None:
    require_shared()
    page.goto(f"{ui_server}/#/data-map?train_id=./summary_ops")
    page.get_by_test_id("data-map-empty").wait_for()
