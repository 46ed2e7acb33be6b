"""Discovery of profiler dirs in both layouts."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from mindinsight_clone.analyzers.profiler import find_profiler_dirs, is_profiler_dir, layout, rank_tables
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles, scan_profiler_dir


def _touch(path: Path, text: str = "x\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_legacy_dir(tmp_path: Path) -> None:
    prof = tmp_path / "run" / "profiler"
    _touch(prof / "cpu_op_type_info_0.csv")
    _touch(prof / "profiler_info_0.json", '{"ms_version": "2.3.0", "context_mode": "pynative"}')
    _touch(prof / "cpu_op_type_info_3.csv")
    assert is_profiler_dir(prof)
    pdir = scan_profiler_dir(prof, "./run/profiler")
    assert pdir.layout == "legacy"
    assert pdir.device_ids == ["0"]  # profiler_info decides, as in MindInsight
    assert pdir.profiler_mode == "pynative"
    assert pdir.device_type == "cpu"


def test_legacy_without_profiler_info_uses_data_files(tmp_path: Path) -> None:
    prof = tmp_path / "profiler"
    _touch(prof / "gpu_op_detail_info_2.csv")
    _touch(prof / "gpu_op_detail_info_10.csv")
    pdir = scan_profiler_dir(prof, "./profiler")
    assert pdir.device_ids == ["2", "10"]
    assert pdir.device_type == "gpu"


def test_ms2_sessions_and_ranks(tmp_path: Path) -> None:
    prof = tmp_path / "run" / "profiler"
    _touch(prof / "h_1_20260101000000001_ascend_ms" / "FRAMEWORK" / "cpu_op_type_info_1.csv")
    _touch(prof / "h_2_20260101000000000_ascend_ms" / "FRAMEWORK" / "cpu_op_type_info_0.csv")
    _touch(prof / "h_2_20260101000000000_ascend_ms" / "ASCEND_PROFILER_OUTPUT" / "trace_view.json", "[]")
    _touch(prof / "h_2_20260101000000000_ascend_ms" / "logs" / "x.log")
    pdir = scan_profiler_dir(prof, "./run/profiler")
    assert pdir.layout == "ms2"
    assert pdir.device_ids == ["0", "1"]
    assert pdir.devices["0"].output_file("trace_view.json") is not None
    assert pdir.devices["1"].output_file("trace_view.json") is None
    assert pdir.devices["0"].file("cpu_op_type_info_{}.csv") is not None


def test_output_only_session_is_rank_zero(tmp_path: Path) -> None:
    prof = tmp_path / "profiler"
    _touch(prof / "h_1_20260101000000001_ascend_ms" / "ASCEND_PROFILER_OUTPUT" / "trace_view.json", "[]")
    assert scan_profiler_dir(prof, "./profiler").device_ids == ["0"]


def test_find_profiler_dirs(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _touch(run / "profiler" / "cpu_op_type_info_0.csv")
    _touch(run / "profiler_b" / "x_ascend_ms" / "FRAMEWORK" / "cpu_op_detail_info_0.csv")
    (run / "profiler_empty").mkdir()
    _touch(run / "other" / "cpu_op_type_info_0.csv")
    os.symlink(run / "profiler", run / "profiler_link")
    assert [p.name for p in find_profiler_dirs(run)] == ["profiler", "profiler_b"]
    assert not is_profiler_dir(run / "profiler_empty")
    assert not is_profiler_dir(run / "profiler_link")
    assert not is_profiler_dir(run / "missing")
    assert find_profiler_dirs(tmp_path / "missing") == []


def test_ascend_rank_folders_newest_timestamp_wins(tmp_path: Path) -> None:
    prof = tmp_path / "job" / "profiler"
    old = prof / "rank_0" / "host_11_20260101120000000_ascend_ms"
    new = prof / "rank_0" / "host_12_20260102120000000_ascend_ms"
    for session in (new, old):  # the older profile is written last: its mtime is newer
        _touch(session / "profiler_info_0.json", '{"ms_profiler_info": {"rank_id": 0}}')
        _touch(session / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv", "Step ID,Name\n")
    _touch(prof / "rank_3" / "renamed" / "profiler_info_3.json", "{}")
    _touch(prof / "rank_3" / "renamed" / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv", "Step\n")
    pdir = scan_profiler_dir(prof, "./job/profiler")
    assert pdir.device_ids == ["0", "3"]
    assert pdir.devices["0"].session == new.name
    assert pdir.device_type == "ascend"


def test_cpu_session_is_not_ascend(tmp_path: Path) -> None:
    session = tmp_path / "profiler" / "vm_1_20260101000000000_ascend_ms"
    _touch(session / "FRAMEWORK" / "cpu_op_type_info_0.csv")
    _touch(session / "ASCEND_PROFILER_OUTPUT" / "trace_view.json", "[]")
    assert scan_profiler_dir(tmp_path / "profiler", "./profiler").device_type == "cpu"


def test_a_cut_listing_is_logged_and_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           caplog: pytest.LogCaptureFixture) -> None:
    """A directory with more entries than the listing bound: the scan says so in the log and in `problems`."""
    prof = tmp_path / "run" / "profiler"
    for device in range(6):
        _touch(prof / f"cpu_op_type_info_{device}.csv")
    assert scan_profiler_dir(prof, "./run/profiler").problems == ()
    monkeypatch.setattr(layout, "MAX_DIR_ENTRIES", 4)
    with caplog.at_level(logging.WARNING, logger=layout.__name__):
        pdir = scan_profiler_dir(prof, "./run/profiler")
    assert len(pdir.device_ids) == 4
    assert pdir.problems and "cut at 4 entries" in pdir.problems[0]
    assert "cut at 4 entries" in caplog.text


def test_profiler_info_is_cached_and_reread_when_rewritten(tmp_path: Path) -> None:
    prof = tmp_path / "profiler"
    _touch(prof / "cpu_op_type_info_0.csv")
    info = _touch(prof / "profiler_info_0.json", '{"context_mode": "pynative"}')
    cache = ParsedFileCache()
    assert scan_profiler_dir(prof, "./profiler", cache).profiler_mode == "pynative"
    assert cache.nbytes == info.stat().st_size  # held in the app's parse cache
    info.write_text('{"context_mode": "graph", "ms_version": "2.3.0"}')
    assert scan_profiler_dir(prof, "./profiler", cache).profiler_mode == "graph"


def test_symlinked_profiler_info_is_not_read(tmp_path: Path) -> None:
    prof = tmp_path / "profiler"
    _touch(prof / "cpu_op_type_info_0.csv")
    outside = _touch(tmp_path / "outside.json", '{"context_mode": "pynative"}')
    os.symlink(outside, prof / "profiler_info_0.json")
    pdir = scan_profiler_dir(prof, "./profiler")
    assert pdir.device_ids == ["0"] and pdir.devices["0"].info == {}


def test_symlinked_files_and_sessions_are_not_used(tmp_path: Path) -> None:
    """Looked up in the scan's listings or by stat (a hand-made DeviceFiles), a symlink is never a file."""
    outside = _touch(tmp_path / "outside" / "kernel_details.csv", "Name,Start Time(us),Duration(us)\n")
    session = tmp_path / "profiler" / "host_1_1736408883704_ascend_ms"
    output = session / "ASCEND_PROFILER_OUTPUT"
    _touch(output / "trace_view.json", "[]")
    os.symlink(outside, output / "kernel_details.csv")
    os.symlink(session, tmp_path / "profiler" / "host_2_1736408883999_ascend_ms")
    pdir = scan_profiler_dir(tmp_path / "profiler", "./profiler")
    device = pdir.devices["0"]
    assert device.session == session.name  # the symlinked (newer) session is skipped
    assert device.output_file("trace_view.json") == output / "trace_view.json"
    assert device.output_file("kernel_details.csv") is None and not device.is_ascend
    by_stat = DeviceFiles("0", session, output)
    assert by_stat.output_file("trace_view.json") == output / "trace_view.json"
    assert by_stat.output_file("kernel_details.csv") is None


def test_a_file_gone_after_the_scan_is_an_error_without_its_path(tmp_path: Path) -> None:
    """A listed file that vanished before it was read: a domain error naming the file and rank, not the path."""
    from mindinsight_clone.analyzers.profiler.views import communication, step_trace_time
    from mindinsight_clone.errors import ProfilerRawFileError

    output = tmp_path / "profiler" / "host_1_1736408883704_ascend_ms" / "ASCEND_PROFILER_OUTPUT"
    stt = _touch(output / "step_trace_time.csv", "Step,Computing,Communication(Not Overlapped),Free\n1,2,3,4\n")
    comm = _touch(output / "communication.json", "{}")
    device = scan_profiler_dir(tmp_path / "profiler", "./profiler").devices["0"]
    stt.unlink()
    comm.unlink()
    for call in (lambda: step_trace_time.step_trace_time(device, ParsedFileCache()),
                 lambda: communication.communication(device, ParsedFileCache())):
        with pytest.raises(ProfilerRawFileError) as caught:
            call()
        assert "cannot be read: No such file or directory" in caught.value.message
        assert str(tmp_path) not in caught.value.message


def test_database_export_rank_without_profiler_info(tmp_path: Path) -> None:
    """A rank folder of the database export without profiler_info_<rank>.json: the rank in the .db's name."""
    out = tmp_path / "profiler" / "host_1_1767268800000_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    (out / "ascend_pytorch_profiler_3.db").write_bytes(b"")
    (out / "analysis.db").write_bytes(b"")
    pdir = scan_profiler_dir(tmp_path / "profiler", "./job/profiler")
    assert pdir.device_ids == ["3"] and pdir.device_type == "ascend"
    device = pdir.device("3")
    assert device is not None and rank_tables.format_of(device) == "db"
    assert device.profiler_db == out / "ascend_pytorch_profiler_3.db" and device.analysis_db == out / "analysis.db"
