"""A histogram whose values are all equal keeps its count (issue 34): TensorBoard writes an all-zero bias as
buckets with left = right = 0, the count in the last one; the answer is one zero-width bucket (a spike) at 0."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mindinsight_clone.proto import tb_event_pb2, tb_types_pb2
from tests.integration.test_histogram_nonfinite import API, _client
from tests.unit.ingest.tfevents_files import WALL0, write_payloads


def _single_value_event(step: int, value: float, count: int, buckets: int = 30) -> bytes:
    """TensorBoard's `histogram` op for one repeated value: every edge at the value, the count in the last bucket."""
    table = np.zeros((buckets, 3))
    table[:, :2] = value
    table[-1, 2] = count
    ev = tb_event_pb2.Event(wall_time=WALL0 + step, step=step)
    v = ev.summary.value.add(tag="dense/bias")
    v.metadata.plugin_data.plugin_name = "histograms"
    v.tensor.dtype = tb_types_pb2.DT_DOUBLE
    v.tensor.tensor_shape.dim.add(size=buckets)
    v.tensor.tensor_shape.dim.add(size=3)
    v.tensor.tensor_content = table.astype("<f8").tobytes()
    return ev.SerializeToString()

def test_all_zero_bias_answers_one_spike_with_its_count(tmp_path: Path) -> None:
    base = tmp_path / "base"
    version = tb_event_pb2.Event(wall_time=WALL0, file_version="brain.Event:2").SerializeToString()
    write_payloads(base / "run" / "events.out.tfevents.1700000000.host.1.0.v2",
                   [version, _single_value_event(1, 0.0, 64), _single_value_event(2, 0.0, 64)])
    answer = _client(base, tmp_path).get(f"{API}/histograms?train_id=./run&tag=dense/bias/histogram").get_json()
    assert [(r["step"], r["buckets"]) for r in answer["histograms"]] == [(1, [[0.0, 0.0, 64]]), (2, [[0.0, 0.0, 64]])]
