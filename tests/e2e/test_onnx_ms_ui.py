"""Browser test of the Model Files page (#/models) over the real ONNX and MindSpore Lite models of
../shared/fixtures/model_formats: the ONNX graph draws in the graph explorer and a node opens its attributes, its
initializers list with statistics; the .ms graph (the converter's fused operators) draws and a node opens its
attributes. Expected values come from
the fixture's EXPECTED.json.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import SHARED, require_shared
from tests.e2e.conftest import serve

FORMATS = SHARED / "fixtures" / "model_formats"


@pytest.fixture(scope="module")
def formats_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    require_shared(FORMATS)
    yield from serve(FORMATS, tmp_path_factory.mktemp("onnx-ui-ws"), "--max-depth", "3")


def _graph_ready(page: Any) -> None:
    page.get_by_test_id("graph-canvas").and_(page.locator("[data-state=ready]")).wait_for()
    if page.get_by_test_id("graph-guide").is_visible():
        page.get_by_test_id("graph-guide-skip").click()


def test_onnx_and_ms_graphs_draw(page: Any, formats_server: str, screenshot: Any) -> None:
    files = json.loads((FORMATS / "EXPECTED.json").read_text())["files"]
    onnx, ms = files["lenet.onnx"], files["lenet.ms"]
    page.goto(f"{formats_server}/#/models?model_id=./lenet.onnx")
    _graph_ready(page)
    assert int(page.get_by_test_id("model-facts").get_attribute("data-nodes")) == onnx["node_count"]
    assert "ai.onnx 11" in page.get_by_test_id("model-format-facts").inner_text()
    drawn = set(page.get_by_test_id("graph-node").evaluate_all("els => els.map(e => e.dataset.name)"))
    assert {n["name"] for n in onnx["nodes"]} <= drawn
    page.locator('[data-testid=graph-node][data-name="1Conv"]').click()
    page.wait_for_function("() => document.querySelector('[data-testid=graph-node-name]')?.textContent === '1Conv'")
    assert page.get_by_test_id("graph-node-type").inner_text() == "Conv"
    attrs = page.get_by_test_id("graph-node-attrs").inner_text()
    assert "kernel_shape" in attrs and "[5, 5]" in attrs and "VALID" in attrs
    screenshot(page, "models_onnx_graph")

    page.get_by_test_id("model-tab-parameters").click()
    page.locator(f'[data-testid=model-param][data-rows="{onnx["initializer_count"]}"]').wait_for()
    shown = float(page.locator('[data-testid=model-param-row][data-name="fc1.weight"] td[data-col="max"]').inner_text())
    assert shown == pytest.approx(onnx["initializers"]["fc1.weight"]["max"], rel=1e-3)

    page.goto(f"{formats_server}/#/models?model_id=./lenet.ms")
    page.locator('[data-testid=model-content][data-model-id="./lenet.ms"]').wait_for()
    _graph_ready(page)
    assert int(page.get_by_test_id("model-facts").get_attribute("data-nodes")) == ms["node_count"]
    assert ms["version"] in page.get_by_test_id("model-format-facts").inner_text()
    drawn = set(page.get_by_test_id("graph-node").evaluate_all("els => els.map(e => e.dataset.name)"))
    assert {n["name"] for n in ms["nodes"]} <= drawn
    page.locator('[data-testid=graph-node][data-name="1Conv"]').click()
    page.wait_for_function("() => document.querySelector('[data-testid=graph-node-name]')?.textContent === '1Conv'")
    assert page.get_by_test_id("graph-node-type").inner_text() == "Conv2DFusion"
    attrs = page.get_by_test_id("graph-node-attrs").inner_text()
    assert "activation_type" in attrs and "RELU" in attrs  # the ReLU the converter fused into the conv
    screenshot(page, "models_ms_graph")
