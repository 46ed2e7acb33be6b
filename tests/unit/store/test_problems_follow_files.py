"""A run's problems describe its files as they are now: a permission problem clears when the file reads
again, and a file unreadable from the start is labelled unreadable (permission), not `truncated`.

Root reads through chmod 000, so as root each scenario runs in a forked child that drops to `nobody`
(real chmod, real files, real loader; nothing patched)."""

from __future__ import annotations

import multiprocessing
import os
import tempfile
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

from mindinsight_clone.store.data_manager import DataManager
from tests.unit.store.summary_files import scalar_event, scalar_run, write_records
from tests.unit.store.test_data_manager import manager, steps

NOBODY = 65534


def _child(scenario: Callable[[Path], None], conn: Connection) -> None:
    try:
        os.setgid(NOBODY)
        os.setuid(NOBODY)
        with tempfile.TemporaryDirectory() as tmp:
            scenario(Path(tmp))
        conn.send("ok")
    except BaseException:  # report everything (assertion or error) to the parent
        conn.send(traceback.format_exc())


def run_unprivileged(scenario: Callable[[Path], None], tmp_path: Path) -> None:
    if os.geteuid() != 0:
        scenario(tmp_path)
        return
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_child, args=(scenario, child))
    proc.start()
    outcome = parent.recv() if parent.poll(60) else "no answer from the unprivileged child"
    proc.join(10)
    assert outcome == "ok", outcome


def _kinds(dm: DataManager, tid: str = "./run") -> list[str]:
    return [p.kind for p in dm.run_status(tid).problems]


def permission_cleared(base: Path) -> None:
    f = scalar_run(base / "run", range(1, 21), ["loss"])
    dm = manager(base)
    dm.reload()
    assert steps(dm, "./run") == list(range(1, 21)) and dm.run_status("./run").is_integrity
    f.chmod(0o200)  # write-only: the writer appends, we cannot read
    write_records(f, [scalar_event(s, {"loss": 1.0}) for s in range(21, 26)], mode="ab")
    dm.reload()
    status = dm.run_status("./run")
    assert [p.kind for p in status.problems] == ["unreadable"] and not status.is_integrity
    assert "Permission denied" in status.problems[0].message
    assert steps(dm, "./run") == list(range(1, 21))  # what was read is still served
    f.chmod(0o644)
    dm.reload()  # same size and mtime as at the failed read: retried all the same
    status = dm.run_status("./run")
    assert status.problems == [] and status.is_integrity
    assert steps(dm, "./run") == list(range(1, 26))


def unreadable_from_the_start(base: Path) -> None:
    f = scalar_run(base / "run", range(1, 11), ["loss"])
    f.chmod(0)
    dm = manager(base)
    dm.reload()
    assert _kinds(dm) == ["unreadable"]  # not also "truncated": no byte of it could be read
    assert "Permission denied" in dm.run_status("./run").problems[0].message
    assert steps(dm, "./run") == []
    dm.reload()
    assert _kinds(dm) == ["unreadable"]  # not piled up pass after pass
    f.chmod(0o644)
    dm.reload()
    assert _kinds(dm) == [] and dm.run_status("./run").is_integrity
    assert steps(dm, "./run") == list(range(1, 11))


@pytest.mark.parametrize("scenario", [permission_cleared, unreadable_from_the_start])
def test_problems_follow_the_files(tmp_path: Path, scenario: Callable[[Path], None]) -> None:
    run_unprivileged(scenario, tmp_path)


def test_oversized_pb_graph_file_is_a_problem_not_an_allocation(tmp_path: Path) -> None:
    import tracemalloc

    from mindinsight_clone.proto import anf_ir_pb2

    run = tmp_path / "run"
    run.mkdir()
    model = anf_ir_pb2.ModelProto(graph=anf_ir_pb2.GraphProto(name="small"))
    (run / "small.pb").write_bytes(model.SerializeToString())
    with (run / "huge.pb").open("wb") as f:
        f.truncate(2 * 2**30)  # 2 GB, sparse: read whole it would be a 2 GB allocation
    dm = manager(tmp_path)
    tracemalloc.start()
    try:
        dm.reload()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 * 2**20
    status = dm.run_status("./run")
    assert [(p.file, p.kind) for p in status.problems] == [("huge.pb", "too_large")]
    assert "2147483648 bytes exceeds the limit of 500000000" in status.problems[0].message
    assert not status.is_integrity
    assert dm.run_cache("./run").tags("graph") == ["small.pb"]  # the readable graph is served
    dm.reload()
    assert len(dm.run_status("./run").problems) == 1  # reported once, not once per pass
    (run / "huge.pb").unlink()
    dm.reload()
    assert dm.run_status("./run").is_integrity  # the problem went with the file
