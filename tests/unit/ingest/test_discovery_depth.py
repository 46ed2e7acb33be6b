"""Discovery below the first level (--max-depth): nested train_ids, symlinks, bounds, and id checks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mindinsight_clone.errors import MindInsightError
from mindinsight_clone.ingest.summary_watcher import scan_run, scan_runs
from mindinsight_clone.ingest.train_id import InvalidTrainId, check_train_id_syntax, resolve_train_dir

S = "events.out.events.summary.{}.0.host_MS"


def _touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * 10)
    return path


def _ids(base: Path, **kwargs: int) -> list[str]:
    return sorted(r.train_id for r in scan_runs(base, **kwargs).runs)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    _touch(tmp_path / "top" / S.format(1))
    for rank in range(2):
        _touch(tmp_path / "exp" / f"rank_{rank}" / S.format(2))
        _touch(tmp_path / "job" / "output" / "summary" / f"rank_{rank}" / S.format(3))
    _touch(tmp_path / "job" / "output" / "summary" / "rank_0" / "profiler" / "op.csv")
    _touch(tmp_path / "a" / "b" / "c" / "d" / "e" / S.format(4))
    return tmp_path


def test_default_depth_is_mindinsights(tree: Path) -> None:
    assert _ids(tree) == ["./top"]
    assert _ids(tree, max_depth=1) == ["./top"]


def test_deeper_runs_have_path_train_ids(tree: Path) -> None:
    assert _ids(tree, max_depth=2) == ["./exp/rank_0", "./exp/rank_1", "./top"]
    assert _ids(tree, max_depth=4) == [
        "./exp/rank_0", "./exp/rank_1",
        "./job/output/summary/rank_0", "./job/output/summary/rank_1", "./top",
    ]
    assert "./a/b/c/d/e" in _ids(tree, max_depth=5)
    run = next(r for r in scan_runs(tree, max_depth=4).runs if r.train_id == "./job/output/summary/rank_0")
    assert run.path == tree / "job" / "output" / "summary" / "rank_0"
    assert run.profiler_dirs == ["profiler"] and len(run.summary_files) == 1


def test_a_runs_profiler_dir_is_not_a_run_of_its_own(tree: Path) -> None:
    _touch(tree / "job" / "output" / "summary" / "rank_0" / "profiler" / "inner" / S.format(9))
    ids = _ids(tree, max_depth=6)
    assert not any("profiler" in tid for tid in ids)


def test_symlinked_directories_are_not_entered(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("outside")
    _touch(outside / "secret_run" / S.format(5))
    os.symlink(outside, tree / "exp" / "link")
    os.symlink(tree / "job", tree / "job_alias")
    ids = _ids(tree, max_depth=4)
    assert not any("link" in tid or "alias" in tid for tid in ids)
    assert scan_run(tree, "./exp/link/secret_run") is None
    assert scan_run(tree, "./exp/rank_1") is not None


def test_the_number_of_directories_listed_is_bounded(tree: Path) -> None:
    result = scan_runs(tree, max_depth=5, max_scan_dirs=4)
    assert result.truncated
    assert len(result.runs) <= 4
    assert not scan_runs(tree, max_depth=5).truncated


def test_listing_order_and_count_cut_work_for_nested_runs(tree: Path) -> None:
    result = scan_runs(tree, max_depth=4, max_run_count=2)
    assert result.total_runs == 5 and len(result.runs) == 2


@pytest.mark.parametrize("tid", ["./a/b", "./job/output/summary/rank_0", "./a/b/"])
def test_nested_train_ids_are_well_formed(tid: str) -> None:
    assert check_train_id_syntax(tid) == tid


@pytest.mark.parametrize("tid", ["./a/../b", "./a//b", "./a/./b", "./../a/b", ".//etc", "./a\\b", "/etc/x"])
def test_nested_path_tricks_are_refused(tid: str) -> None:
    with pytest.raises(MindInsightError):
        check_train_id_syntax(tid)


def test_resolve_nested_dir_is_confined(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    assert resolve_train_dir(tree, "./exp/rank_0") == (tree / "exp" / "rank_0").resolve()
    outside = tmp_path_factory.mktemp("outside2")
    (outside / "x").mkdir()
    os.symlink(outside, tree / "exp" / "out")
    with pytest.raises(InvalidTrainId):
        resolve_train_dir(tree, "./exp/out/x")  # a symlinked parent, even though the last part is plain
    os.symlink(tree / "exp", tree / "inner_alias")
    with pytest.raises(InvalidTrainId):
        resolve_train_dir(tree, "./inner_alias/rank_0")  # inside the base dir, but through a symlink
