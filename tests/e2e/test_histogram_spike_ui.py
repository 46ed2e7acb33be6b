"""An all-zero bias (TensorBoard: buckets with left = right = 0) is drawn as one spike at 0 holding its 64 values,
not "no data" (issue 34)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from mindinsight_clone.proto import tb_event_pb2
from tests.e2e.conftest import serve
from tests.integration.test_histogram_single_value import _single_value_event
from tests.unit.ingest.tfevents_files import WALL0, write_payloads


@pytest.fixture(scope="module")
def spike_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = tmp_path_factory.mktemp("spike-base")
    version = tb_event_pb2.Event(wall_time=WALL0, file_version="brain.Event:2").SerializeToString()
    write_payloads(base / "run" / "events.out.tfevents.1700000000.host.1.0.v2",
                   [version, _single_value_event(1, 0.0, 64), _single_value_event(2, 0.0, 64)])
    yield from serve(base, tmp_path_factory.mktemp("spike-ws"))


def test_all_equal_histogram_draws_a_spike_with_its_count(spike_server: str, page: Any) -> None:
    page.goto(f"{spike_server}/#/histograms?train_id=./run&tag=dense/bias/histogram&view=front")
    # The card publishes an empty chart while the steps load; wait for the drawn one.
    chart = page.locator('[data-testid="histogram-chart"][data-rendered="true"]:not([data-last-y=""])')
    chart.wait_for()
    assert chart.get_attribute("data-last-y") == "64"
    assert page.locator(".chart-overlay").count() == 0  # no "No data yet"
