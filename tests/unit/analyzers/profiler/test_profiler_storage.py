"""The profiler analyzers over the storage seam: the same profiler folders read from a local dir and from a real
S3-compatible server on loopback (moto) give the same index and the same answers. The expected values are the
local answers (checked against the raw files by tests/integration/test_ascend_*.py and test_profiler_api.py).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from mindinsight_clone.analyzers.profiler import layout
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.trace_events import load_trace
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir, scan_profiler_dir
from mindinsight_clone.analyzers.profiler.views import (
    cluster_steps,
    communication,
    memory,
    memory_record,
    search,
    step_trace_time,
    timeline,
)
from mindinsight_clone.ingest import storage
from tests.conftest import FIXTURES, REFERENCE, SHARED, require_shared
from tests.s3_server import S3Server

ASCEND = SHARED / "fixtures" / "ascend"
BUCKET = "profiler-seam-unit"
# job -> where it comes from (read in place for the local side, uploaded for the S3 side)
JOBS = {
    "torch_npu_level0": ASCEND / "torch_npu_level0",
    "torch_npu_level1": ASCEND / "torch_npu_level1",
    "profiler_cpu": FIXTURES / "profiler_cpu",
    "prof_cpu": REFERENCE / "corpus" / "prof_cpu",  # MindInsight's legacy layout
}
ASCEND_FILES = ("kernel_details.csv", "op_statistic.csv", "step_trace_time.csv", "trace_view.json",
                "communication.json", "communication_matrix.json", "memory_record.csv", "operator_memory.csv")


@pytest.fixture(scope="module")
def s3_base(s3_server: S3Server) -> storage.Location:
    for job, source in JOBS.items():
        require_shared(source)
        s3_server.upload_tree(source, BUCKET, f"base/{job}")
    return storage.base_location(f"s3://{BUCKET}/base", s3_server.storage_options)


def _pair(s3_base: storage.Location, job: str) -> tuple[ProfilerDir, ProfilerDir]:
    local = scan_profiler_dir(JOBS[job] / "profiler", f"./{job}/profiler")
    remote = scan_profiler_dir(s3_base / job / "profiler", f"./{job}/profiler")
    return local, remote


def _index(pdir: ProfilerDir) -> dict[str, Any]:
    """What a scan found, without the locations (which differ by backend)."""
    return {
        "layout": pdir.layout, "display": pdir.display, "devices": pdir.device_ids, "type": pdir.device_type,
        "mode": pdir.profiler_mode, "problems": pdir.problems,
        "files": {i: (d.session, d.info, d.base.name, d.output.name if d.output else None,
                      [n for n in ASCEND_FILES if d.output_file(n) is not None],
                      d.file("cpu_op_type_info_{}.csv") is not None) for i, d in pdir.devices.items()},
    }


@pytest.mark.parametrize("job", list(JOBS))
def test_scan_over_s3_finds_what_the_local_scan_finds(s3_base: storage.Location, job: str) -> None:
    local, remote = _pair(s3_base, job)
    assert storage.is_remote(remote.path) and not storage.is_remote(local.path)
    assert local.device_ids  # the fixture has data: the comparison is not between two empty scans
    assert _index(remote) == _index(local)
    assert layout.is_profiler_dir(s3_base / job / "profiler")
    assert [p.name for p in layout.find_profiler_dirs(s3_base / job)] == ["profiler"]


def test_missing_or_empty_remote_dirs_hold_no_profiler_data(s3_base: storage.Location, s3_server: S3Server) -> None:
    assert not layout.is_profiler_dir(s3_base / "no_such_job" / "profiler")
    assert layout.find_profiler_dirs(s3_base / "no_such_job") == []
    s3_server.put(BUCKET, "base/not_profiler/profiler/readme.txt", b"nothing here\n")
    assert not layout.is_profiler_dir(s3_base / "not_profiler" / "profiler")
    assert scan_profiler_dir(s3_base / "not_profiler" / "profiler", "./not_profiler/profiler").devices == {}


def _ascend_answers(pdir: ProfilerDir, cache: ParsedFileCache) -> dict[str, Any]:
    out: dict[str, Any] = {"cluster": cluster_steps.cluster_step_trace(pdir, cache)}
    for rank in pdir.device_ids:
        device = pdir.devices[rank]
        out[f"stt{rank}"] = step_trace_time.step_trace_time(device, cache)
        out[f"mem{rank}"] = memory_record.memory_record(device, 50, 5, cache)
        if device.output_file("communication.json") is not None:
            out[f"comm{rank}"] = communication.communication(device, cache)
        out[f"summary{rank}"] = timeline.timeline_summary(device, cache)
        window = timeline.Window(start_us=1000.0, end_us=50_000.0, max_events=200)
        out[f"window{rank}"] = orjson.loads(orjson.dumps(
            timeline.timeline(device, window, cache)))
        for op_type in ("aicore_type", "aicore_detail", "aicpu_type", "aicpu_detail"):
            condition = {"op_type": op_type, "device_id": rank,
                         "group_condition": {"limit": 20, "offset": 1},
                         "sort_condition": {"name": "op_type", "type": "ascending"}}
            out[f"{op_type}{rank}"] = search.search_ops(pdir, op_type, rank, condition, cache)
    return out


@pytest.mark.parametrize("job", ["torch_npu_level0", "torch_npu_level1"])
def test_ascend_views_over_s3_equal_local(s3_base: storage.Location, job: str) -> None:
    local, remote = _pair(s3_base, job)
    expected = _ascend_answers(local, ParsedFileCache())
    assert expected["stt0"]["steps"] and expected["aicore_detail0"]["size"] > 0
    assert _ascend_answers(remote, ParsedFileCache()) == expected
    assert _ascend_answers(remote, None) == expected  # parsed without the cache too


def test_cpu_views_over_s3_equal_local(s3_base: storage.Location) -> None:
    for job, op_types in (("profiler_cpu", ("cpu_op_type", "cpu_op_info")), ("prof_cpu", ("cpu_op_type",))):
        local, remote = _pair(s3_base, job)
        for op_type in op_types:
            condition = {"op_type": op_type, "device_id": "0", "group_condition": {"limit": 10, "offset": 0}}
            expected = search.search_ops(local, op_type, "0", condition, None)
            assert expected["size"] > 0
            assert search.search_ops(remote, op_type, "0", condition, ParsedFileCache()) == expected
        assert (timeline.timeline_summary(remote.devices["0"])
                == timeline.timeline_summary(local.devices["0"]))
    local, remote = _pair(s3_base, "profiler_cpu")  # the ms2 CPU session also has a memory record
    expected_memory = memory.memory_usage(local.devices["0"], 20)
    assert expected_memory["count"] > 0
    assert memory.memory_usage(remote.devices["0"], 20, ParsedFileCache()) == expected_memory


def test_a_replaced_object_is_parsed_again(s3_base: storage.Location, s3_server: S3Server) -> None:
    """The parse cache keys on storage.stat (size, mtime): an object replaced by another one is re-read."""
    output = next((JOBS["torch_npu_level1"] / "profiler").glob("rank0_*/ASCEND_PROFILER_OUTPUT"))
    text = (output / "step_trace_time.csv").read_text()
    header, row = text.splitlines()[:2]
    prefix = f"base/replaced/profiler/{output.parent.name}/ASCEND_PROFILER_OUTPUT"
    s3_server.put(BUCKET, f"{prefix}/step_trace_time.csv", text.encode())
    s3_server.put(BUCKET, f"{prefix}/trace_view.json", b"[]")
    cache = ParsedFileCache()
    pdir = scan_profiler_dir(s3_base / "replaced" / "profiler", "./replaced/profiler")
    first = step_trace_time.step_trace_time(pdir.devices["0"], cache)
    assert [s["step"] for s in first["steps"]] == [50]
    assert step_trace_time.step_trace_time(pdir.devices["0"], cache) == first  # a cache hit
    second_row = re.sub(r"^(\s*)50,", r"\g<1>51,", row)
    s3_server.put(BUCKET, f"{prefix}/step_trace_time.csv", f"{header}\n{row}\n{second_row}\n".encode())
    again = scan_profiler_dir(s3_base / "replaced" / "profiler", "./replaced/profiler")
    assert [s["step"] for s in step_trace_time.step_trace_time(again.devices["0"], cache)["steps"]] == [50, 51]


def _range_gets(s3_server: S3Server, key: str) -> int:
    """GET requests for `key` that the server answered with 206 Partial Content (moto's log, colours removed)."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", s3_server.log_path.read_text(errors="replace"))
    return sum(1 for line in text.splitlines() if f'"GET /{BUCKET}/{key} ' in line and line.endswith(" 206 -"))


@pytest.fixture
def big_trace(tmp_path: Path) -> Path:
    """A trace_view.json of ~20 MB (three 8 MB read blocks), repeating the events of a real Ascend trace."""
    require_shared(ASCEND)
    source = next((JOBS["torch_npu_level1"] / "profiler").glob("rank0_*/ASCEND_PROFILER_OUTPUT/trace_view.json"))
    events = orjson.loads(source.read_bytes())
    body = orjson.dumps(events)[1:-1]
    copies = (20 << 20) // len(body) + 1
    path = tmp_path / "trace_view.json"
    path.write_bytes(b"[" + b",".join([body] * copies) + b"]")
    return path


def test_trace_view_is_streamed_in_range_requests(s3_base: storage.Location, s3_server: S3Server,
                                                  big_trace: Path) -> None:
    key = "base/big/trace_view.json"
    s3_server.put(BUCKET, key, big_trace.read_bytes())
    before = _range_gets(s3_server, key)
    remote = load_trace(s3_base / "big" / "trace_view.json")
    local = load_trace(big_trace)
    assert len(remote) == len(local) > 0 and remote.problems == local.problems == ()
    assert timeline.summary(remote) == timeline.summary(local)
    # read in ranges of (8 MiB block + 8 MiB read-ahead), not in one download of the whole 20 MB object
    assert _range_gets(s3_server, key) - before >= 2


def test_truncated_remote_files_report_what_local_ones_report(s3_base: storage.Location, s3_server: S3Server,
                                                              tmp_path: Path) -> None:
    """A trace cut mid-event and a kernel table cut mid-row: the same events, rows and problems as on disk."""
    source = next((JOBS["torch_npu_level1"] / "profiler").glob("rank0_*/ASCEND_PROFILER_OUTPUT"))
    local_out = tmp_path / "cut" / "profiler" / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    local_out.mkdir(parents=True)
    trace = (source / "trace_view.json").read_bytes()
    (local_out / "trace_view.json").write_bytes(trace[: len(trace) * 2 // 3])
    kernels = (source / "kernel_details.csv").read_bytes()
    (local_out / "kernel_details.csv").write_bytes(kernels[: len(kernels) // 2])
    for name in ("step_trace_time.csv", "memory_record.csv", "operator_memory.csv"):
        (local_out / name).write_bytes((source / name).read_bytes())
    s3_server.upload_tree(tmp_path / "cut", BUCKET, "base/cut")
    local = scan_profiler_dir(tmp_path / "cut" / "profiler", "./cut/profiler")
    remote = scan_profiler_dir(s3_base / "cut" / "profiler", "./cut/profiler")
    expected = _ascend_answers(local, ParsedFileCache())
    assert expected["summary0"]["problems"]  # the cut is reported
    assert _ascend_answers(remote, ParsedFileCache()) == expected


def test_many_rank_mindformers_layout_over_s3_equals_local(s3_base: storage.Location, s3_server: S3Server,
                                                          tmp_path: Path) -> None:
    """`profile/rank_N/<host>_<pid>_<ts>_ascend_ms/` with FRAMEWORK/ and ASCEND_PROFILER_OUTPUT/ per rank (remote
    listings of a level are made at once): the same ranks, sessions, files and cluster table as on disk."""
    source = next((JOBS["torch_npu_level1"] / "profiler").glob("rank0_*"))
    framework = next((JOBS["profiler_cpu"] / "profiler").glob("*_ascend_ms/FRAMEWORK"))
    profile = tmp_path / "mf" / "profile"
    for rank in range(6):
        session = profile / f"rank_{rank}" / f"host_{4000 + rank}_2025010112000{rank}123_ascend_ms"
        (session / "FRAMEWORK").mkdir(parents=True)
        (session / "ASCEND_PROFILER_OUTPUT").mkdir()
        (session / "FRAMEWORK" / f"cpu_op_type_info_{rank}.csv").write_bytes(
            (framework / "cpu_op_type_info_0.csv").read_bytes())
        (session / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv").write_bytes(
            (source / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv").read_bytes())
        (session / f"profiler_info_{rank}.json").write_bytes((source / "profiler_info_0.json").read_bytes())
    s3_server.upload_tree(tmp_path / "mf", BUCKET, "base/mf")
    local = scan_profiler_dir(profile, "./mf/profile")
    remote = scan_profiler_dir(s3_base / "mf" / "profile", "./mf/profile", ParsedFileCache())
    assert local.device_ids == [str(r) for r in range(6)]
    assert _index(remote) == _index(local)
    expected = cluster_steps.cluster_step_trace(local, None)
    assert len(expected["ranks"]) == 6
    assert cluster_steps.cluster_step_trace(remote, ParsedFileCache()) == expected
