"""Hostile TensorBoard files and requests (issue 29): small inputs must not cost the server gigabytes or minutes.

* "Fill" tensors: a TensorProto whose typed list holds ONE value for a larger shape means "fill the shape with
  it", so a few hundred bytes can claim gigabytes (a DT_COMPLEX128 scalar of shape [1e8]: 1.6 GB per record; a
  DT_STRING text of [5000, 5000]: 651 MB and 7 s). Kind and shape are checked before anything is expanded: the
  record is refused (a `bad_payload` problem) or, for text and audio, read without expanding; the rest of the
  file is served. Peak memory of the load is measured with tracemalloc (numpy reports its buffers to it).
* `text/compare` parses each literal once (a cache keyed by the text itself), bounds the literal size it parses
  and the parsing one request does.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.ingest.record_reader import frame_record
from mindinsight_clone.proto import tb_event_pb2, tb_plugins_pb2, tb_types_pb2
from mindinsight_clone.server.app import create_app

API = "/v1/mindinsight/datavisual"
TEXT_CAP = 1000
MAX_LOAD_PEAK = 16 << 20  # bytes traced while loading a run of 4 small records (before the fix: 100 MB to 1.6 GB)


def _fill_run(run: Path, plugin: str, dtype: int, dims: list[int], content: bytes = b"", **listed: list[Any]) -> None:
    """A run whose one tfevents file holds a scalar, a fill tensor of `plugin` at step 1, then another scalar."""
    bomb = tb_event_pb2.Event(wall_time=2.0, step=1)
    value = bomb.summary.value.add(tag="bomb")
    value.metadata.plugin_data.plugin_name = plugin
    value.metadata.plugin_data.content = content
    value.tensor.dtype = dtype
    for size in dims:
        value.tensor.tensor_shape.dim.add(size=size)
    for field, values in listed.items():
        getattr(value.tensor, field).extend(values)
    events = [tb_event_pb2.Event(wall_time=1.0, file_version="brain.Event:2"), _scalar(0, 0.5), bomb, _scalar(2, 0.25)]
    run.mkdir(parents=True)
    (run / "events.out.tfevents.0000000001.h").write_bytes(b"".join(frame_record(e.SerializeToString())
                                                                    for e in events))


def _scalar(step: int, value: float) -> tb_event_pb2.Event:
    event = tb_event_pb2.Event(wall_time=1.0 + step, step=step)
    event.summary.value.add(tag="loss", simple_value=value)
    return event


def _loaded(base: Path, workspace: Path) -> tuple[FlaskClient, int]:
    """A client of an app that has loaded `base`, and the peak bytes traced during that load."""
    application: Flask = create_app(settings_for_tests(summary_base_dir=str(base), workspace=str(workspace),
                                                       reload_interval=0, text_max_chars=TEXT_CAP),
                                    start_background=False)
    tracemalloc.start()
    try:
        application.extensions["mindinsight_clone"].data_manager.reload()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return application.test_client(), peak


def _get(client: FlaskClient, path: str) -> Any:
    response = client.get(API + path)
    assert response.status_code == 200, (path, response.get_data(as_text=True)[:300])
    return response.get_json()


def _rest_is_served(client: FlaskClient) -> list[str]:
    """The scalars on both sides of the bomb are served; returns the run's bad_payload messages."""
    points = _get(client, "/scalar/metadata?train_id=./run&tag=loss/scalar")["metadatas"]
    assert [(p["step"], p["value"]) for p in points] == [(0, 0.5), (2, 0.25)]
    (job,) = _get(client, "/train-jobs?train_id=./run")["train_jobs"]
    return [p["message"] for p in job.get("problems", []) if p["kind"] == "bad_payload"]


MESH_VERTICES = tb_plugins_pb2.MeshPluginData(content_type=tb_plugins_pb2.MeshPluginData.VERTEX).SerializeToString()
REFUSED = {  # plugin, dtype, shape, plugin data, the one value; what the message says
    "complex_scalar": ("scalars", tb_types_pb2.DT_COMPLEX128, [10_000_000], b"", {"dcomplex_val": [1.0, 2.0]},
                       "must hold real numbers, not DT_COMPLEX128"),
    "wide_scalar": ("scalars", tb_types_pb2.DT_DOUBLE, [10_000_000], b"", {"double_val": [1.0]},
                    "more than the 1 elements"),
    "histogram": ("histograms", tb_types_pb2.DT_DOUBLE, [1_000_000, 3], b"", {"double_val": [1.0]},
                  "one value filling 3000000 elements"),
    "pr_curve": ("pr_curves", tb_types_pb2.DT_FLOAT, [6, 2_000_000], b"", {"float_val": [1.0]},
                 "more than the 600000 elements"),
    "mesh": ("mesh", tb_types_pb2.DT_FLOAT, [1, 1_000_000, 3], MESH_VERTICES, {"float_val": [1.0]},
             "one value filling 3000000 elements"),
    "deep": ("histograms", tb_types_pb2.DT_DOUBLE, [1] * 100_000, b"", {"double_val": [1.0]},
             "100000 dimensions"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_fill_tensor_is_refused_before_it_is_expanded(case: str, tmp_path: Path) -> None:
    plugin, dtype, dims, content, listed, message = REFUSED[case]
    _fill_run(tmp_path / "base" / "run", plugin, dtype, dims, content, **listed)
    client, peak = _loaded(tmp_path / "base", tmp_path / "ws")
    assert peak < MAX_LOAD_PEAK, f"loading a {case} fill peaked at {peak >> 20} MB"
    problems = _rest_is_served(client)
    assert len(problems) == 1 and message in problems[0], problems


def test_string_fill_text_is_served_cut_without_expanding(tmp_path: Path) -> None:
    """A text of [2000, 2000] cells all "a|b" (one value on disk): the table's first TEXT_CAP characters, and
    its length as written, computed without building it."""
    rows = cols = 2000
    _fill_run(tmp_path / "base" / "run", "text", tb_types_pb2.DT_STRING, [rows, cols], string_val=[b"a|b"])
    client, peak = _loaded(tmp_path / "base", tmp_path / "ws")
    assert peak < MAX_LOAD_PEAK, f"loading a text fill peaked at {peak >> 20} MB"
    assert _rest_is_served(client) == []
    (item,) = _get(client, "/text?train_id=./run&tag=bomb")["texts"]
    row = "| " + " | ".join(["a\\|b"] * cols) + " |"
    table_start = row + "\n|" + "---|" * cols + "\n" + row
    assert item["value"] == table_start[:TEXT_CAP] and item["truncated"] is True
    assert item["length"] == rows * len(row) + len("|" + "---|" * cols) + rows  # rows, separator, newlines


def test_string_fill_audio_reads_its_first_clip_only(tmp_path: Path) -> None:
    """TF2 audio [k, 2] (clip, label) of one string: only the first clip is ever read, so k costs nothing."""
    _fill_run(tmp_path / "base" / "run", "audio", tb_types_pb2.DT_STRING, [4_000_000, 2], string_val=[b"not a wav"])
    client, peak = _loaded(tmp_path / "base", tmp_path / "ws")
    assert peak < MAX_LOAD_PEAK, f"loading an audio fill peaked at {peak >> 20} MB"
    problems = _rest_is_served(client)
    assert len(problems) == 1 and "RIFF/WAVE" in problems[0]  # the clip itself is judged, as any other
