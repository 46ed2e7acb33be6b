"""Step derivation from op execution timestamps, and memory downsampling."""

from __future__ import annotations

from pathlib import Path

from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
from mindinsight_clone.analyzers.profiler.views import memory, steps


def test_steps_from_execution_timestamps(tmp_path: Path) -> None:
    # two ops, 3 steps; op B runs twice per step
    (tmp_path / "cpu_op_execute_timestamp_0.txt").write_text(
        "A;HostCpuOps;1000000,0.5,0 3000000,0.5,0 5000000,0.5,0 \n"
        "B;HostCpuOps;1600000,0.1,0 1800000,0.1,0 3600000,0.1,0 3800000,0.1,0 5600000,0.1,0 5800000,1,0 \n")
    (tmp_path / "cpu_op_type_info_0.csv").write_text(
        "op_type,type_occurrences,execution_frequency(per-step),total_compute_time,avg_time(ms),percent\n"
        "A,3,1,1.5,0.5,0.5\nB,6,2,1.4,0.2,0.5\n")
    found, total = steps.load_steps(DeviceFiles("0", tmp_path))
    assert [s.step for s in found] == [1, 2, 3]
    rows = steps.steps_json(found)
    assert rows[0] == {"step": 1, "start_us": 0.0, "duration_us": 900.0, "compute_us": 700.0, "interval_us": 0.0}
    assert rows[1]["interval_us"] == 2000.0 - 900.0
    assert rows[2]["duration_us"] == 1800.0
    assert total == 1500.0 + 1500.0


def test_no_timestamps_no_steps(tmp_path: Path) -> None:
    assert steps.load_steps(DeviceFiles("0", tmp_path)) == ([], 0.0)
    assert steps.load_steps(None) == ([], 0.0)


def test_memory_downsampling_keeps_peaks(tmp_path: Path) -> None:
    lines = ["Timestamp(ns),Total Allocated(Byte),Total Reserved(Byte),Total Active(Byte)"]
    lines += [f"{1000 * i},{i % 97},{100},{i % 97}" for i in range(1000)]
    lines.append("garbage")
    (tmp_path / "cpu_ms_memory_record_0.txt").write_text("\n".join(lines) + "\n")
    answer = memory.memory_usage(DeviceFiles("0", tmp_path), max_points=10)
    assert answer["count"] == 1000
    assert len(answer["points"]) == 10
    assert answer["peak_allocated_bytes"] == 96
    assert max(p[1] for p in answer["points"]) == 96
    assert answer["points"][0][0] >= 0
