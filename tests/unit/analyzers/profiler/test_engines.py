"""The engines (pyarrow's CSV reader for kernel_details.csv, DuckDB's JSON reader for trace_view.json) give exactly
what the reference paths (the csv module, the orjson streaming reader) give: on every real file of ../shared and on
damaged copies (truncated, non-numeric and huge cells, quoted newlines, extra cells, bad UTF-8, odd timestamps).
Answers are compared through the views' own queries (column_query / timeline), so ids may differ, answers may not.
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
from pathlib import Path
from typing import Any

import orjson
import pytest

from mindinsight_clone.analyzers.profiler.adapters.ascend_text import kernel_table
from mindinsight_clone.analyzers.profiler.engine import json_parts, json_parts_fs, trace_engine, trace_events
from mindinsight_clone.analyzers.profiler.engine.column_query import query
from mindinsight_clone.analyzers.profiler.views import ascend_ops, timeline
from tests.conftest import SHARED, require_shared

KERNEL_FILES = sorted((SHARED / "fixtures" / "ascend").glob("*/profiler/*/ASCEND_PROFILER_OUTPUT/kernel_details.csv"))
TRACE_FILES = sorted((SHARED / "fixtures").glob("**/ASCEND_PROFILER_OUTPUT/trace_view.json"))
CONDITIONS: list[dict[str, Any]] = [
    {},
    {"sort_condition": {"name": "duration_us"}, "group_condition": {"limit": 15, "offset": 1}},
    {"sort_condition": {"name": "op_type", "type": "ascending"}},
    {"filter_condition": {"op_name": {"partial_match_str_in": ["conv", "TRANS"]}},
     "sort_condition": {"name": "start_time_us", "type": "ascending"}},
    {"filter_condition": {"op_type": {"not_in": ["MatMul"]}, "input_shapes": {"partial_match_str_in": ["32"]}}},
    {"sort_condition": {"name": "block_dim"}, "group_condition": {"limit": 7, "offset": 3}},
]


def kernel_answers(table: kernel_table.KernelTable) -> list[Any]:
    return [query(table.subset(aicpu), ascend_ops.AICPU_DETAIL if aicpu else ascend_ops.AICORE_DETAIL, condition)
            for aicpu in (False, True) for condition in CONDITIONS]


def same_kernels(path: Path) -> kernel_table.KernelTable:
    fast = kernel_table.load_kernels(path, "0")
    reference = kernel_table.load_kernels(path, "0", engine="python")
    assert fast.table.length == reference.table.length
    assert kernel_answers(fast) == kernel_answers(reference)
    assert fast.problems == reference.problems
    return fast


@pytest.mark.parametrize("path", KERNEL_FILES, ids=lambda p: "/".join(p.parts[-5:-3]))
def test_kernel_tables_of_the_fixtures_are_equal(path: Path) -> None:
    require_shared(path)
    assert same_kernels(path).table.length > 100


@pytest.fixture
def kernel_text() -> str:
    require_shared(KERNEL_FILES[-1])
    return KERNEL_FILES[-1].read_text()


def test_truncated_kernel_file(tmp_path: Path, kernel_text: str) -> None:
    path = tmp_path / "kernel_details.csv"
    path.write_text(kernel_text[: int(len(kernel_text) * 0.6)])
    table = same_kernels(path)
    assert table.problems == ({"file": "kernel_details.csv of rank 0",
                               "message": "1 row(s) skipped: fewer cells than the header (truncated file?)"},)


def _edit_rows(text: str, edit: Any) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(lines[:1] + [edit(i, line) for i, line in enumerate(lines[1:])])


@pytest.mark.parametrize("case", ["non-numeric", "huge cell", "quoted newline", "extra cells", "bad utf-8",
                                  "spaces around numbers", "blank lines"])
def test_damaged_kernel_files(tmp_path: Path, kernel_text: str, case: str) -> None:
    """Each damage is handled by the arrow path itself or by its fall back to the csv path: same answers."""
    header = kernel_text.splitlines()[0].split(",")
    duration = header.index("Duration(us)")

    def cell(line: str, index: int, value: str) -> str:
        cells = line.rstrip("\r\n").split(",")
        cells[index] = value
        return ",".join(cells) + "\n"

    edits = {
        "non-numeric": lambda i, line: cell(line, duration, "fast") if i % 7 == 0 else line,
        "huge cell": lambda i, line: line.replace("NCHW", "N" * (3 << 20), 1) if i == 5 else line,
        "quoted newline": lambda i, line: line.replace("AI_CORE", '"AI\nCORE"', 1) if i == 9 else line,
        "extra cells": lambda i, line: line.rstrip("\r\n") + ",x,y\n" if i == 4 else line,
        "bad utf-8": lambda i, line: line.replace("Conv2D", "Conv\udcff2D") if i < 20 else line,
        "spaces around numbers": lambda i, line: cell(line, duration, f" {line.split(',')[duration]} ")
        if i % 3 == 0 else line,
        "blank lines": lambda i, line: line + ("\n" if i % 11 == 0 else ",,,\n" if i % 13 == 0 else ""),
    }
    path = tmp_path / "kernel_details.csv"
    path.write_bytes(_edit_rows(kernel_text, edits[case]).encode("utf-8", "surrogateescape"))
    table = same_kernels(path)
    if case == "non-numeric":
        assert any("non-numeric cell(s) in 'Duration(us)'" in p["message"] for p in table.problems)
    if case == "huge cell":
        assert max(len(s) for s in table.table.strings["input_formats"]) >= 3 << 20


# --------------------------------------------------------------------------------------------------- traces
def events_of(trace: trace_events.TraceColumns) -> list[Any]:
    return [json.loads(orjson.dumps(e)) for e in timeline.events(trace, timeline.select(trace, timeline.Window()))]


def same_trace(path: Path, caplog: pytest.LogCaptureFixture | None = None,
               fallback: bool = False) -> trace_events.TraceColumns:
    with caplog.at_level(logging.INFO) if caplog is not None else contextlib.nullcontext():
        fast = trace_engine.load_trace(path)
    reference = trace_events.load_trace(path)
    assert events_of(fast) == events_of(reference)
    assert fast.problems == reference.problems
    if len(reference):
        assert timeline.summary(fast) == timeline.summary(reference)
        window = timeline.Window(start_us=10, end_us=5000, max_events=50)
        assert events_of_window(fast, window) == events_of_window(reference, window)
    if caplog is not None:
        assert ("read with the streaming reader" in caplog.text) == fallback, caplog.text
    return fast


def events_of_window(trace: trace_events.TraceColumns, window: timeline.Window) -> list[Any]:
    return [json.loads(orjson.dumps(e)) for e in timeline.events(trace, timeline.select(trace, window))]


@pytest.mark.parametrize("path", TRACE_FILES, ids=lambda p: "/".join(p.parts[-5:-3]))
def test_traces_of_the_fixtures_are_equal(path: Path, caplog: pytest.LogCaptureFixture) -> None:
    require_shared(path)
    assert len(same_trace(path, caplog)) > 100


EVENTS = [
    {"ph": "M", "name": "process_name", "pid": 2, "tid": 0, "args": {"name": "CPU OP é"}},
    {"ph": "X", "name": "a},{b", "pid": 2, "tid": 0, "ts": "100.5", "dur": "10", "cat": "", "args": {}},
    {"ph": "X", "name": "n", "pid": "p", "tid": 1, "ts": 120, "dur": 1.5, "args": {"x": {"y": 1}, "z": [1, {}]}},
    {"ph": "s", "name": "flow", "id": 7, "pid": 2, "tid": 0, "ts": 121, "bp": "e"},
    {"ph": "C", "name": "mem", "pid": 2, "tid": 0, "ts": 150.25, "args": {"used": 3}, "cname": "good"},
    {"ph": "X", "name": "big", "pid": 2, "tid": 0, "ts": 200, "dur": 500},
]


@pytest.mark.parametrize("case", ["plain", "odd timestamps", "truncated", "object document", "not objects", "empty"])
def test_damaged_and_unusual_traces(tmp_path: Path, caplog: pytest.LogCaptureFixture, case: str) -> None:
    events = [dict(e) for e in EVENTS * 30]
    fallback = case in ("truncated", "object document", "not objects")
    if case == "odd timestamps":  # the strict read (DOUBLE) refuses these: the lenient one takes them as NaN/number
        events[7]["ts"], events[8]["dur"], events[9]["ts"] = " 130 ", "fast", {"a": 1}
    data = json.dumps(events).encode()
    if case == "truncated":
        data = data[: len(data) * 2 // 3]
    elif case == "object document":
        data = json.dumps({"traceEvents": events}).encode()
    elif case == "not objects":
        data = json.dumps([*events, 5]).encode()
    elif case == "empty":
        data = b"[]"
    path = tmp_path / "trace_view.json"
    path.write_bytes(data)
    trace = same_trace(path, caplog, fallback)
    if case == "truncated":
        assert trace.problems and "truncated" in trace.problems[0]
    if case == "plain":  # a key seen in the first MB (cname) is kept with its event, as the flow keys are
        assert sum(e.get("cname") == "good" for e in events_of(trace)) == 30


@pytest.mark.parametrize("separator", [",", ", ", ",\n  "])
def test_traces_cut_into_parts_read_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             caplog: pytest.LogCaptureFixture, separator: str) -> None:
    """json_parts cuts only at real event boundaries (names and args holding `},{` are not cut), DuckDB reads the
    parts in parallel, and the events come out in the file's order."""
    monkeypatch.setattr(json_parts, "MIN_PART_BYTES", 0)
    monkeypatch.setattr(trace_engine, "THREADS", 3)
    events = [{"ph": "X", "name": "a},{b" * (i % 3), "pid": 1, "tid": i % 4, "ts": i * 2.5, "dur": 1,
               "args": {"s": '},{"x": 1}', "i": i}} for i in range(6000)]
    path = tmp_path / "trace_view.json"
    path.write_text(" [ " + separator.join(json.dumps(e) for e in events) + " ]\n")
    parts = json_parts.split(path, 3)
    assert len(parts) == 3
    pieces = [json.loads(json_parts_fs.PartsFileSystem(path, "t", parts)._open(url).read())
              for url in json_parts_fs.PartsFileSystem(path, "t", parts).urls]
    assert [e for piece in pieces for e in piece] == events
    trace = same_trace(path, caplog)
    assert [e["args"]["i"] for e in events_of(trace)] == list(range(6000))


@pytest.mark.parametrize("data", [b"[", b'{"traceEvents": []}', b"", b"[{}, 5"])
def test_what_json_parts_refuses(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "trace_view.json"
    path.write_bytes(data)
    with pytest.raises(ValueError):
        json_parts.split(path, 2)


def test_timeline_summary_against_the_raw_events() -> None:
    """Every summary field computed here from the raw JSON of each fixture trace, independently of the columns."""
    for path in TRACE_FILES:
        require_shared(path)
        events = json.loads(path.read_text())
        scope = {e["pid"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"
                 and (e.get("args") or {}).get("name") == "Scope Layer"}
        timed = [e for e in events if e.get("ph") != "M" and "ts" in e]
        ops = [e for e in timed if e.get("ph") == "X" and e["pid"] not in scope]
        first = min(float(e["ts"]) for e in timed)
        last = max(float(e["ts"]) + float(e.get("dur", 0)) for e in timed)
        expected = {"max_scope_name_num": len({e["tid"] for e in timed if e.get("ph") == "X" and e["pid"] in scope}),
                    "num_of_ops": len({e["name"] for e in ops}), "op_exe_times": len(ops),
                    "num_of_streams": len({(e["pid"], e["tid"]) for e in ops}),
                    "total_time": round((last - first) / 1000, 4), "num_of_events": len(events),
                    "first_ts_us": round(first, 3), "last_ts_us": round(last, 3)}
        names = {e["pid"]: (e.get("args") or {}).get("name") for e in events
                 if e.get("ph") == "M" and e.get("name") == "process_name"}
        per_pid = collections.Counter(e["pid"] for e in timed)
        got = timeline.summary(trace_engine.load_trace(path))
        processes = sorted(got.pop("processes"), key=lambda p: str(p["pid"]))
        assert got == pytest.approx(expected), path
        assert processes == [{"pid": pid, "name": names.get(pid), "events": n}
                             for pid, n in sorted(per_pid.items(), key=lambda kv: str(kv[0]))], path


def test_timeline_summary_is_the_same_block_by_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """A trace of many blocks (a big rank's) sums every block, the per-process counts too."""
    for path in TRACE_FILES:
        require_shared(path)
        trace = trace_engine.load_trace(path)
        whole = timeline.summary(trace)
        monkeypatch.setattr(timeline, "SUMMARY_BLOCK", 97)
        assert len(trace) > 97 * 3
        assert timeline.summary(trace) == whole, path
        monkeypatch.undo()
