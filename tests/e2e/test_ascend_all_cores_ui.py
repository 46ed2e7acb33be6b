"""The Operators tab shows every core type (issue 34): an AI_CPU operator (added to a copy of the Level1 fixture
job, whose real export has none) is counted, drawn and found by search, and the pie's shares sum to 100 %."""

from __future__ import annotations

import csv
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import ASCEND_FIXTURES, serve
from tests.integration.test_ascend_all_cores import JOB, add_aicpu_operator
from tests.integration.test_ascend_profiler import output


@pytest.fixture(scope="module")
def aicpu_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not ASCEND_FIXTURES.exists():
        pytest.skip(f"{ASCEND_FIXTURES} is absent: the real Ascend profiler output lives in ../shared (present in CI)")
    base = tmp_path_factory.mktemp("aicpu-base")
    shutil.copytree(ASCEND_FIXTURES / JOB, base / JOB)
    add_aicpu_operator(output(JOB, "0", base))
    yield from serve(base, tmp_path_factory.mktemp("aicpu-ws"))


def test_ops_tab_counts_draws_and_finds_ai_cpu_operators(aicpu_server: str, page: Any) -> None:
    types = len(list(csv.DictReader((output(JOB, "0", ASCEND_FIXTURES) / "op_statistic.csv").open()))) + 1
    page.goto(f"{aicpu_server}/#/profiler?train_id=./{JOB}&device=0&tab=ops&chart=bar")
    page.wait_for_selector('[data-testid="op-chart"][data-rendered="true"]')
    assert str(types) in page.inner_text('[data-testid="op-type-count"]')
    assert page.get_attribute('[data-testid="op-table"]', "data-size") == str(types)
    chart = page.locator('[data-testid="op-chart"]')
    assert "DropOutDoMaskV3" in chart.get_attribute("data-names").split("|")
    assert float(chart.get_attribute("data-percent-sum")) == pytest.approx(100, abs=0.1)

    page.click('[data-testid="op-view-all"]')
    page.fill('[data-testid="op-search"]', "AicpuDropOut")
    page.wait_for_selector('[data-testid="op-table"][data-view="all"][data-size="1"]')
    assert "AI_CPU" in page.inner_text('[data-testid="op-row"]')
