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

import ast
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.ingest.record_reader import frame_record
from mindinsight_clone.plugins import text_compare
from mindinsight_clone.proto import tb_event_pb2, tb_plugins_pb2, tb_types_pb2
from mindinsight_clone.server.app import create_app
from mindinsight_clone.summary.tfevents_writer import TfeventsWriter

API = "/v1/mindinsight/datavisual"
TEXT_CAP = 1000
T0 = 1_760_000_000
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


def _loaded(base: Path, workspace: Path, text_max_chars: int = TEXT_CAP) -> tuple[FlaskClient, int]:
    """A client of an app that has loaded `base`, and the peak bytes traced during that load."""
    application: Flask = create_app(settings_for_tests(summary_base_dir=str(base), workspace=str(workspace),
                                                       reload_interval=0, text_max_chars=text_max_chars),
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


# ------------------------------------------------------------------------------ text/compare
TAGS = 12


def _literal(tag: int, run: str) -> str:
    """A MindFormers-like `str(dict)` of ~3k characters; tags 0-5 are the same in both runs."""
    items = ", ".join(f"'k{i}': [{i}, {tag}, None]" for i in range(150))
    return "{" + items + ("}" if tag < TAGS // 2 else f", 'run': '{run}'}}")


@pytest.fixture()
def compare_base(tmp_path: Path) -> Path:
    text_compare.PARSED.clear()  # the cache is the process's: start from nothing
    base = tmp_path / "base"
    for run in ("a", "b"):
        with TfeventsWriter(base / run, timestamp=T0, host="h") as writer:
            for tag in range(TAGS):
                writer.add_text(f"cfg{tag}", _literal(tag, run), 1)
            writer.add_text("long", "{'x': '" + "y" * text_compare.MAX_LITERAL_CHARS + "'}", 1)
    return base


@pytest.fixture()
def literal_evals(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text ast.literal_eval is called with (the standard library's, counted)."""
    calls: list[str] = []
    real = ast.literal_eval

    def counted(node_or_string: Any) -> Any:
        calls.append(node_or_string)
        return real(node_or_string)

    monkeypatch.setattr(ast, "literal_eval", counted)
    return calls


def _compare(client: FlaskClient) -> dict[str, Any]:
    response = client.post(f"{API}/text/compare", json={"train_ids": ["./a", "./b"]})
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    body: dict[str, Any] = response.get_json()
    return body


def test_compare_parses_each_literal_once(compare_base: Path, tmp_path: Path, literal_evals: list[str]) -> None:
    client, _ = _loaded(compare_base, tmp_path / "ws", 100_000)
    first = _compare(client)
    unique = TAGS + TAGS // 2  # the runs share half their texts
    assert len(literal_evals) == unique and "incomplete" not in first
    assert _compare(client) == first and len(literal_evals) == unique  # the second request parses nothing
    keys = {k["key"]: k for k in first["keys"]}
    assert keys["cfg0.k3"]["values"] == {"./a": "[3, 0, None]", "./b": "[3, 0, None]"}
    assert keys["cfg11.run"]["values"] == {"./a": "a", "./b": "b"} and keys["cfg11.run"]["differs"]
    # a new sample of one tag is a new text: parsed once, and the answer follows it
    with TfeventsWriter(compare_base / "a", timestamp=T0 + 1, host="h") as writer:
        writer.add_text("cfg0", "{'k3': 'changed'}", 2)
    client.application.extensions["mindinsight_clone"].data_manager.reload()
    keys = {k["key"]: k for k in _compare(client)["keys"]}
    assert len(literal_evals) == unique + 1
    assert keys["cfg0.k3"]["values"] == {"./a": "changed", "./b": "[3, 0, None]"} and keys["cfg0.k3"]["differs"]


def test_over_long_literal_is_compared_as_text(compare_base: Path, tmp_path: Path, literal_evals: list[str]) -> None:
    client, _ = _loaded(compare_base, tmp_path / "ws", 100_000)
    keys = {k["key"]: k for k in _compare(client)["keys"]}
    assert keys["long"]["values"]["./a"].startswith("{'x': 'yyy") and "long.x" not in keys
    assert f"longer than {text_compare.MAX_LITERAL_CHARS} characters" in keys["long"]["errors"]["./a"]
    assert not any(len(text) > text_compare.MAX_LITERAL_CHARS for text in literal_evals)


def test_one_request_parses_within_its_budget(compare_base: Path, tmp_path: Path, literal_evals: list[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """With a budget of ~4 literals a request, the answer says it is incomplete until the cache holds them all."""
    monkeypatch.setattr(text_compare, "PARSE_BUDGET_CHARS", 4 * len(_literal(0, "a")) + 100)
    client, _ = _loaded(compare_base, tmp_path / "ws", 100_000)
    first = _compare(client)
    assert first["incomplete"] is True and 3 <= len(literal_evals) <= 4
    left = [k["key"] for k in first["keys"] if "parsing budget" in " ".join(k.get("errors", {}).values())]
    assert len(left) >= TAGS - 4  # compared as text this time, with the reason
    bodies = [_compare(client) for _ in range(6)]
    assert "incomplete" not in bodies[-1] and len(literal_evals) == TAGS + TAGS // 2
    assert not {k["key"] for k in bodies[-1]["keys"]} & set(left)  # parsed into cfgN.k0 ... by now


def test_concurrent_compares_share_the_parsing(compare_base: Path, tmp_path: Path, literal_evals: list[str]) -> None:
    client, _ = _loaded(compare_base, tmp_path / "ws", 100_000)
    with ThreadPoolExecutor(4) as pool:
        bodies = list(pool.map(lambda _: _compare(client.application.test_client()), range(4)))
    assert len(literal_evals) == TAGS + TAGS // 2  # each literal once, whichever request got to it first
    assert all(body == bodies[0] for body in bodies)


def test_answer_keys_are_bounded_the_same_way_in_every_run(compare_base: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Past MAX_ANSWER_KEYS a key is compared whole in every run (flattened in one run and whole in another would
    show differences that are not there) and not parsed at all."""
    monkeypatch.setattr(text_compare, "MAX_ANSWER_KEYS", 3 * 151)  # three tags' leaves
    client, _ = _loaded(compare_base, tmp_path / "ws", 100_000)
    body = _compare(client)
    whole = {k["key"]: k for k in body["keys"] if "errors" in k and "more than 453 keys" in k["errors"]["./a"]}
    assert len(body["keys"]) <= 3 * 151 + len(whole) + 1 and len(whole) >= TAGS - 3
    shared = [k for key, k in whole.items() if key.startswith("cfg") and int(key[3:]) < TAGS // 2]
    assert shared and not any(k["differs"] for k in shared)  # the same text in both runs: no difference
    assert text_compare.PARSED.parsed <= 2 * 4  # the tags flattened and the one that did not fit, nothing after
