"""ingest/msprobe_monitor.py: msprobe's monitor CSV output read as trends (issue 35); the layout is in
tests/monitor_csv_writer.py with its source facts."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindinsight_clone.ingest import msprobe_monitor
from tests.monitor_csv_writer import ACTV_TARGETS, PARAM_TARGETS, value, write_rank

RANK0 = "Nov29_15-29-52-rank0-3174cfb3"
RANK1 = "Nov29_15-29-53-rank1-a92afa50"


def test_names_follow_msprobe() -> None:
    assert msprobe_monitor.rank_of_dir(RANK0) == 0
    assert msprobe_monitor.rank_of_dir("Dec03_21-34-40-rank12-00000000") == 12
    assert msprobe_monitor.rank_of_dir("run-rank0-x") is None  # data2db needs a time tag it can parse
    assert msprobe_monitor.rank_of_dir("rank0") is None
    assert msprobe_monitor.metric_of_file("actv_grad_10-19.csv") == ("actv_grad", 10)
    assert msprobe_monitor.metric_of_file("exp_avg_sq_3-3.csv") == ("exp_avg_sq", 3)
    assert msprobe_monitor.metric_of_file("linear_hook_0-0.csv") is None  # data2db does not read it either
    assert msprobe_monitor.metric_of_file("actv_0-0.csv.tmp") is None


def test_two_ranks_read_back_as_written(tmp_path: Path) -> None:
    write_rank(tmp_path / RANK0, 0, range(3), ["actv", "grad_reduced"])
    write_rank(tmp_path / RANK1, 1, range(3), ["actv", "grad_reduced"], nan_at=(2, "layers.1.weight"))
    answer = msprobe_monitor.read_monitor_trend(tmp_path, None, "norm", None)
    assert answer["metrics"] == ["actv", "grad_reduced"] and answer["ranks"] == [0, 1]
    assert (answer["metric"], answer["rank"], answer["stats"]) == ("actv", 0, ["norm", "max", "min", "mean", "zeros",
                                                                               "nans"])
    assert answer["targets"] == ACTV_TARGETS and answer["steps"] == [0, 1, 2]
    assert answer["values"][1] == [value("actv", 0, 1, s, "norm") for s in range(3)]
    grads = msprobe_monitor.read_monitor_trend(tmp_path, "grad_reduced", "max", 1)
    assert grads["targets"] == PARAM_TARGETS
    row = grads["values"][PARAM_TARGETS.index("layers.1.weight")]
    assert row[:2] == [value("grad_reduced", 1, 2, s, "max") for s in range(2)] and row[2] is None  # NaN -> null
    assert (grads["skipped_rows"], grads["skipped_files"], grads["truncated"]) == (0, [], False)
    with pytest.raises(ValueError, match="no metric 'exp_avg'"):
        msprobe_monitor.read_monitor_trend(tmp_path, "exp_avg", "norm", 0)
    with pytest.raises(ValueError, match="'stat' should be"):
        msprobe_monitor.read_monitor_trend(tmp_path, None, "median", 0)


def test_micro_steps_and_vpp_stages_are_targets_of_their_own(tmp_path: Path) -> None:
    write_rank(tmp_path / RANK0, 0, range(2), ["actv"], micro_steps=2, vpp_stages=2)
    answer = msprobe_monitor.read_monitor_trend(tmp_path, "actv", "norm", 0)
    assert answer["targets"][:3] == ["0:layers.0.input micro 0", "0:layers.0.output micro 0",
                                     "0:layers.1.input micro 0"]
    assert len(answer["targets"]) == 2 * 2 * len(ACTV_TARGETS) and answer["steps"] == [0, 1]
    at = answer["targets"].index("1:head.output micro 1")
    assert answer["values"][at] == [value("actv", 0, 15, s, "norm", 1) for s in range(2)]


def test_a_rank_with_two_runs_answers_the_newest(tmp_path: Path) -> None:
    write_rank(tmp_path / "Nov28_10-00-00-rank0-00000000", 0, range(1), ["actv"])
    write_rank(tmp_path / RANK0, 0, range(1, 3), ["actv"])
    assert msprobe_monitor.read_monitor_trend(tmp_path, None, "norm", 0)["steps"] == [1, 2]


def test_bad_files_and_rows_are_skipped_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = write_rank(tmp_path / RANK0, 0, range(5), ["actv"])
    cut = (folder / "actv_1-1.csv").read_bytes()
    (folder / "actv_1-1.csv").write_bytes(cut[:-25])  # a last line cut by a writer at work
    (folder / "actv_2-2.csv").write_text("step,name,norm\n0,a,1\n")  # not msprobe's header
    (folder / "actv_3-3.csv").write_text("vpp_stage,name,step,micro_step,norm\nx,a,3,0,1\n0,b,3,0,2\n")
    (folder / "actv_4-4.csv").write_text("")  # created, header not written yet
    (folder / "actv_5-5.csv").write_bytes(b"vpp_stage,name,step\n\xff\xfe\n")
    answer = msprobe_monitor.read_monitor_trend(tmp_path, "actv", "norm", 0)
    assert answer["steps"] == [0, 1, 3]
    assert answer["skipped_rows"] == 2  # the cut line, the row whose vpp_stage is no integer
    assert [f["file"].rsplit("/", 1)[1] for f in answer["skipped_files"]] == ["actv_2-2.csv", "actv_5-5.csv"]
    assert "header" in answer["skipped_files"][0]["error"] and "UTF-8" in answer["skipped_files"][1]["error"]
    assert answer["values"][answer["targets"].index("layers.0.input")][:2] == [value("actv", 0, 0, s, "norm")
                                                                               for s in range(2)]
    assert answer["values"][answer["targets"].index("b")] == [None, None, 2.0]
    monkeypatch.setattr(msprobe_monitor, "MAX_FILE_BYTES", 100)
    big = msprobe_monitor.read_monitor_trend(tmp_path, "actv", "norm", 0)
    assert any("above the 100 bytes allowed" in f["error"] for f in big["skipped_files"])
    monkeypatch.setattr(msprobe_monitor, "MAX_FILE_BYTES", 1 << 20)
    monkeypatch.setattr(msprobe_monitor, "MAX_ROWS", 1)
    assert msprobe_monitor.read_monitor_trend(tmp_path, "actv", "norm", 0)["truncated"] is True


def test_an_empty_or_starting_output(tmp_path: Path) -> None:
    (tmp_path / RANK0).mkdir()
    answer = msprobe_monitor.read_monitor_trend(tmp_path, None, "norm", None)
    assert (answer["metrics"], answer["ranks"], answer["targets"], answer["values"]) == ([], [], [], [])
