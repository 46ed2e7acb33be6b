"""Browser test of the Model Files page (#/models) over the real MindSpore 2.10 safetensors checkpoints of
../shared/fixtures/model_formats: the parameters of a training checkpoint listed with their statistics, the header's
metadata shown, and a distributed job's rank shards as one model with each tensor's owner rank. Expected values
come from the fixture's EXPECTED.json.
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
    yield from serve(FORMATS, tmp_path_factory.mktemp("st-ui-ws"), "--max-depth", "3")


def test_safetensors_parameters_with_statistics(page: Any, formats_server: str, screenshot: Any) -> None:
    files = json.loads((FORMATS / "EXPECTED.json").read_text())["files"]
    facts = files["lenet_train.safetensors"]
    page.goto(f"{formats_server}/#/models?model_id=./lenet_train.safetensors")
    page.locator(f'[data-testid=model-param][data-rows="{len(facts["params"])}"]').wait_for()
    order = page.get_by_test_id("model-param-row").evaluate_all("els => els.map(e => e.dataset.name)")
    assert order == [k for k in facts["header_keys_in_file_order"] if k != "__metadata__"]
    row = page.locator('[data-testid=model-param-row][data-name="conv1.weight"]')
    shown = float(row.locator('td[data-col="max"]').inner_text())
    assert shown == pytest.approx(facts["params"]["conv1.weight"]["max"], rel=1e-3)
    assert "format = ms" in page.get_by_test_id("model-metadata").inner_text()
    screenshot(page, "models_safetensors_parameters")

    shards = {f"distributed/rank_{r}/lenet-1_4.safetensors": r for r in (0, 1)}
    page.goto(f"{formats_server}/#/models?model_id=./distributed/rank_*/lenet-1_4.safetensors")
    union = {name for f in shards for name in files[f]["params"]}
    page.locator(f'[data-testid=model-param][data-rows="{len(union)}"]').wait_for()
    ranks = page.locator('[data-testid=model-param-row][data-name="fc1.weight"] td[data-col="ranks"]').inner_text()
    assert ranks == "1"
