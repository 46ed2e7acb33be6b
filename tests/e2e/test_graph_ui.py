"""Browser tests of the computational graph (#/graph) and the dataset graph (#/data-map) pages."""

from __future__ import annotations

from typing import Any

from tests.conftest import require_shared

RUN = "./lenet_collector"


def _open_graph(page: Any, ui_server: str, query: str = "") -> Any:
    page.goto(f"{ui_server}/#/graph?train_id={RUN}{query}")
    canvas = page.get_by_test_id("graph-canvas")
    canvas.and_(page.locator("[data-state=ready]")).wait_for()
    # A fresh browser profile sees the user guide first (test_graph_user_guide covers it).
    if page.get_by_test_id("graph-guide").is_visible():
        page.get_by_test_id("graph-guide-skip").click()
    return canvas


def _api_json(page: Any, ui_server: str, path: str, params: dict[str, str]) -> tuple[int, Any]:
    resp = page.request.get(f"{ui_server}/v1/mindinsight/datavisual/{path}", params=params)
    return resp.status, resp.json()


def _node(page: Any, name: str) -> Any:
    return page.locator(f'[data-testid=graph-node][data-name="{name}"]')


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


def test_graph_failed_node_request_shows_in_the_node_panel(page: Any, ui_server: str, screenshot: Any) -> None:
    """Gradients exists in the normal graph only: after switching to Optimize with it selected,
    graphs/single-node answers 400 and the node panel says so (with the server's message)."""
    require_shared()
    canvas = _open_graph(page, ui_server)
    _node(page, "Gradients").click()
    assert page.get_by_test_id("graph-node-name").inner_text() == "Gradients"
    page.wait_for_url("**node=Gradients**")
    tag = page.get_by_test_id("graph-tag").input_value()
    status, body = _api_json(page, ui_server, "graphs/single-node",
                             {"train_id": RUN, "tag": f"{tag} (optimized)", "name": "Gradients", "mode": "optimize"})
    assert status == 400, body

    page.get_by_test_id("graph-mode-optimize").click()
    page.wait_for_url("**mode=optimize**")
    error = page.get_by_test_id("graph-node-error")
    error.wait_for()
    canvas.and_(page.locator("[data-state=ready]")).wait_for()
    assert error.get_attribute("role") == "alert"
    assert error.get_attribute("data-name") == "Gradients"
    assert "Gradients" in error.inner_text()
    detail = page.get_by_test_id("graph-node-error-detail").inner_text()
    assert body["error_msg"] in detail and body["error_code"] in detail
    # The optimized graph is still drawn, and the stale node left the URL.
    assert int(canvas.get_attribute("data-nodes")) > 0
    assert "node=" not in page.url
    screenshot(page, "graph_node_error")
    # Selecting another node clears the message.
    page.get_by_test_id("graph-node").first.click()
    page.get_by_test_id("graph-node-info").wait_for()
    assert page.get_by_test_id("graph-node-error").count() == 0
    # The browser logs the 400 itself; that is the request under test, not a page error.
    page.console_errors[:] = [e for e in page.console_errors if "400" not in e]


def test_graph_node_tree_opens_scopes_and_jumps(page: Any, ui_server: str, screenshot: Any) -> None:
    require_shared()
    canvas = _open_graph(page, ui_server)
    status, root = _api_json(page, ui_server, "graphs/nodes",
                             {"train_id": RUN, "tag": page.get_by_test_id("graph-tag").input_value()})
    assert status == 200
    rows = page.get_by_test_id("graph-tree-row")
    top = rows.evaluate_all("els => els.map(e => e.dataset.name)")
    assert top == [n["name"] for n in root["nodes"]]  # the tree starts as the root listing

    default = page.locator('[data-testid=graph-tree-row][data-name="Default"]')
    assert default.get_attribute("data-open") == "false"
    default.get_by_test_id("graph-tree-toggle").click()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=graph-tree-row][data-name=\"Default\"]').dataset.open === 'true'")
    status, listing = _api_json(page, ui_server, "graphs/nodes",
                                {"train_id": RUN, "tag": page.get_by_test_id("graph-tag").input_value(), "name": "Default"})
    children = page.locator('[data-testid=graph-tree-row][data-depth="1"]').evaluate_all("els => els.map(e => e.dataset.name)")
    assert children == [n["name"] for n in listing["nodes"]]
    assert default.get_by_test_id("graph-tree-toggle").get_attribute("aria-expanded") == "true"
    # Opening a scope in the tree leaves the graph as it is.
    assert page.get_by_test_id("graph-cluster").count() == 0

    # Choosing a row jumps there: the graph opens Default and selects the node.
    child = children[0]
    page.locator(f'[data-testid=graph-tree-row][data-name="{child}"]').get_by_test_id("graph-tree-node").click()
    _node(page, child).wait_for()
    canvas.and_(page.locator("[data-state=ready]")).wait_for()
    assert page.get_by_test_id("graph-node-name").inner_text() == child
    assert page.locator('[data-testid=graph-cluster][data-name="Default"]').count() == 1
    assert "selected" in (page.locator(f'[data-testid=graph-tree-row][data-name="{child}"]').get_attribute("class") or "")
    screenshot(page, "graph_tree")

    # A search jump opens the tree down to the found node.
    page.get_by_test_id("graph-search").fill("conv2d-op")
    hit = page.get_by_test_id("graph-search-result").first
    hit.wait_for()
    name = hit.get_attribute("data-name")
    hit.click()
    row = page.locator(f'[data-testid=graph-tree-row][data-name="{name}"]')
    row.wait_for()
    assert int(row.get_attribute("data-depth")) == name.count("/")

    # Collapsing Default in the tree hides its rows again.
    default.get_by_test_id("graph-tree-toggle").click()
    page.wait_for_function("() => !document.querySelector('[data-testid=graph-tree-row][data-depth=\"1\"]')")


def test_graph_user_guide_three_steps(page: Any, ui_server: str, screenshot: Any) -> None:
    require_shared()
    page.goto(f"{ui_server}/#/graph?train_id={RUN}")
    guide = page.get_by_test_id("graph-guide")
    guide.wait_for()  # first visit: shown by itself
    texts = []
    for step in (1, 2, 3):
        assert guide.get_attribute("data-step") == str(step)
        assert page.locator(".guide-focus").count() == 1  # the area this step explains is outlined
        texts.append(page.get_by_test_id("graph-guide-text").inner_text())
        if step == 2:
            screenshot(page, "graph_guide_step2")
        if step < 3:
            page.get_by_test_id("graph-guide-next").click()
    assert len(set(texts)) == 3
    page.get_by_test_id("graph-guide-prev").click()
    assert guide.get_attribute("data-step") == "2"
    page.get_by_test_id("graph-guide-next").click()
    page.get_by_test_id("graph-guide-done").click()
    assert guide.count() == 0
    # Remembered: not shown again on the next visit, but the button reopens it at step 1.
    page.reload()
    page.get_by_test_id("graph-canvas").and_(page.locator("[data-state=ready]")).wait_for()
    assert page.get_by_test_id("graph-guide").count() == 0
    page.get_by_test_id("graph-guide-open").click()
    assert guide.get_attribute("data-step") == "1"


def test_graph_nodes_are_reachable_and_selectable_by_keyboard(page: Any, ui_server: str) -> None:
    require_shared()
    canvas = _open_graph(page, ui_server)
    # Tab from the last toolbar button lands on a node of the graph.
    page.get_by_test_id("graph-fullscreen").focus()
    page.keyboard.press("Tab")
    focused = page.evaluate("() => [document.activeElement.dataset.testid, document.activeElement.dataset.name]")
    assert focused[0] == "graph-node", focused
    # Enter selects the focused node; Enter again on a selected scope expands it.
    page.keyboard.press("Enter")
    assert page.get_by_test_id("graph-node-name").inner_text() == focused[1]
    page.keyboard.press("Enter")
    page.locator(f'[data-testid=graph-cluster][data-name="{focused[1]}"]').wait_for()
    canvas.and_(page.locator("[data-state=ready]")).wait_for()
    # Every drawn node and scope box is in the tab order with a name.
    for kind in ("graph-node", "graph-cluster"):
        attrs = page.get_by_test_id(kind).evaluate_all(
            "els => els.map(e => [e.getAttribute('tabindex'), e.getAttribute('aria-label')])")
        assert attrs and all(t == "0" and label for t, label in attrs), attrs


def test_graph_unknown_node_in_the_url_is_reported_in_the_node_panel(page: Any, ui_server: str,
                                                                     screenshot: Any) -> None:
    require_shared()
    page.goto(f"{ui_server}/?refresh=600#/graph?train_id={RUN}&node=Default/NoSuchNode-op9")
    page.get_by_test_id("theme-select").select_option("dark")
    error = page.get_by_test_id("graph-node-error")
    error.wait_for()
    page.get_by_test_id("graph-canvas").and_(page.locator("[data-state=ready]")).wait_for()
    assert error.get_attribute("data-name") == "Default/NoSuchNode-op9"
    assert "Default/NoSuchNode-op9" in error.inner_text()
    # The graph is drawn from its root and the node tree lists the same top nodes.
    drawn = set(page.get_by_test_id("graph-node").evaluate_all("els => els.map(e => e.dataset.name)"))
    tree = page.locator('[data-testid=graph-tree-row][data-depth="0"]').evaluate_all("els => els.map(e => e.dataset.name)")
    assert drawn and set(tree) <= drawn | {"Default"}
    assert "node=" not in page.url
    screenshot(page, "graph_unknown_node_dark")
    page.console_errors[:] = [e for e in page.console_errors if "400" not in e]
