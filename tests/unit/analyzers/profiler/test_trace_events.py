"""Chunked trace parsing and timeline selection."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from mindinsight_clone.analyzers.profiler.engine.trace_events import iter_event_slices, iter_file_slices, load_trace
from mindinsight_clone.analyzers.profiler.views import timeline

EVENTS = [
    {"ph": "M", "name": "process_name", "pid": 2, "tid": 0, "args": {"name": "CPU OP"}},
    {"ph": "X", "name": "a},{b", "pid": 2, "tid": 0, "ts": "100.5", "dur": "10", "cat": "", "args": {}},
    {"ph": "X", "name": "n", "pid": "p", "tid": 1, "ts": 120, "dur": 1.5, "args": {"x": {"y": 1}, "z": [1, {}]}},
    {"ph": "s", "name": "flow", "id": 7, "pid": 2, "tid": 0, "ts": 121, "bp": "e"},
    {"ph": "X", "name": "big", "pid": 2, "tid": 0, "ts": 200, "dur": 500},
]


@pytest.mark.parametrize("chunk", [1, 7, 40, 1 << 20])
def test_slices_equal_whole_parse(chunk: int) -> None:
    data = json.dumps(EVENTS, indent=1).encode()
    assert [e for items in iter_event_slices(data, chunk) for e in items] == EVENTS


def test_trace_events_object_form_and_empty() -> None:
    data = json.dumps({"traceEvents": EVENTS, "displayTimeUnit": "ns"}).encode()
    assert [e for items in iter_event_slices(data) for e in items] == EVENTS
    assert [e for items in iter_event_slices(b"[]") for e in items] == []


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "trace_view.json"
    path.write_text(json.dumps(EVENTS))
    trace = load_trace(path)
    out = json.loads(orjson.dumps(timeline.events(trace, timeline.select(trace, timeline.Window()))))
    expected = [{**e, **({"ts": float(e["ts"])} if "ts" in e else {}), **({"dur": float(e["dur"])} if "dur" in e
                                                                            else {})} for e in EVENTS]
    for e in expected:
        if e["ph"] == "X":
            e.setdefault("cat", "")
    key = lambda e: json.dumps(e, sort_keys=True)  # noqa: E731
    assert sorted(map(key, out)) == sorted(map(key, expected))


def test_window_and_downsampling(tmp_path: Path) -> None:
    path = tmp_path / "trace_view.json"
    path.write_text(json.dumps(EVENTS))
    trace = load_trace(path)
    names = lambda w: [trace.strings[trace.name[i]] for i in timeline.select(trace, w)]  # noqa: E731
    assert names(timeline.Window(max_events=1)) == ["process_name", "big"]
    assert names(timeline.Window(start_us=0, end_us=25)) == ["process_name", "a},{b", "n", "flow"]
    assert names(timeline.Window(min_dur_us=5)) == ["process_name", "a},{b", "big"]
    assert names(timeline.Window(start_us=20, end_us=25)) == ["process_name", "n", "flow"]
    summary = timeline.summary(trace)
    assert summary["total_time"] == pytest.approx((700 - 100.5) / 1000)
    assert summary["num_of_events"] == len(EVENTS)


def test_bad_file_is_no_timeline(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "trace_view.json").write_text("[{\"ph\": ")
    from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
    device = DeviceFiles("0", tmp_path, out)
    assert timeline.timeline(device, timeline.Window()) == []
    summary = timeline.timeline_summary(device)
    assert summary["max_scope_name_num"] == 0
    assert "truncated" in summary["problems"][0]["message"]


@pytest.mark.parametrize("chunk", [16, 64, 1 << 20])
def test_streaming_file_slices_equal_whole_parse(tmp_path: Path, chunk: int) -> None:
    path = tmp_path / "trace_view.json"
    path.write_text(json.dumps(EVENTS * 5, indent=1))
    problems: list[str] = []
    assert [e for items in iter_file_slices(path, problems, chunk) for e in items] == EVENTS * 5
    assert problems == []


@pytest.mark.parametrize("cut", [1, 20, 200])
def test_truncated_trace_keeps_complete_events(tmp_path: Path, cut: int) -> None:
    whole = json.dumps(EVENTS * 3).encode()
    path = tmp_path / "trace_view.json"
    path.write_bytes(whole[:-cut])
    problems: list[str] = []
    got = [e for items in iter_file_slices(path, problems, 64) for e in items]
    # every event that ends before the cut is kept, in order, and nothing else
    complete = [e for i, e in enumerate(EVENTS * 3) if len(json.dumps((EVENTS * 3)[: i + 1])) - 1 <= len(whole) - cut]
    assert got == complete
    assert problems and "truncated" in problems[0]
