"""Hostile Ascend profiler databases (issue 29): a crafted `.db` in the summary base dir must not hang a request
thread or eat the worker's memory. The databases are the project's own writer's (ascend_db_profile.py), then
edited with plain sqlite3 the way a hostile (or broken) file would be.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from mindinsight_clone.analyzers.profiler.adapters.ascend_db import ascend_db
from mindinsight_clone.errors import ProfilerRawFileError
from mindinsight_clone.summary.ascend_db_profile import write_ascend_db_job
from tests.integration.test_ascend_profiler import get, make_client, search

COUNT_TO_20M = ("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 20000000) "
                "SELECT COUNT(*) FROM n")
KERNELS_PER_STEP = 400  # the join bomb: ~1,200 x 1,200 joined rows, ~3 s and ~300 MB before the fix


def _write_db(job: Path, kernels_per_step: int) -> Path:
    write_ascend_db_job(job, ranks=1, steps=3, kernels_per_step=kernels_per_step)
    return next(job.rglob("ascend_pytorch_profiler_0.db"))


def _join_bomb(db: Path) -> None:
    """COMPUTE_TASK_INFO without its PRIMARY KEY, every compute kernel (and its TASK row) on one globalTaskId."""
    con = sqlite3.connect(db)
    con.executescript(
        "CREATE TABLE c2 AS SELECT * FROM COMPUTE_TASK_INFO; DROP TABLE COMPUTE_TASK_INFO; "
        "ALTER TABLE c2 RENAME TO COMPUTE_TASK_INFO; "
        "UPDATE TASK SET globalTaskId = 0 WHERE globalTaskId IN (SELECT globalTaskId FROM COMPUTE_TASK_INFO); "
        "UPDATE COMPUTE_TASK_INFO SET globalTaskId = 0;")
    con.close()


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile_ascend_db")
    _join_bomb(_write_db(root / "bomb", KERNELS_PER_STEP))
    return root


@pytest.fixture(scope="module")
def client(base: Path, tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    return make_client(base, tmp_path_factory.mktemp("hostile_ascend_db_ws"))


def _error(response: object) -> tuple[int, str, str]:
    body = response.get_json()  # type: ignore[attr-defined]
    return response.status_code, body["error_code"], body["error_msg"]  # type: ignore[attr-defined]


def test_duplicated_global_task_id_is_refused_promptly(client: FlaskClient) -> None:
    started = time.perf_counter()
    status, code, message = _error(get(client, "operator-details", "bomb", "0"))
    elapsed = time.perf_counter() - started
    assert (status, code) == (400, "50546087")
    assert "ascend_pytorch_profiler_0.db of rank 0" in message
    assert "globalTaskId of table COMPUTE_TASK_INFO is not unique" in message
    assert "/" not in message.replace("ascend_pytorch_profiler_0.db", "")  # no absolute path
    assert elapsed < 1.0, f"refused after {elapsed:.2f} s"
    # the views that do not join on it still answer
    assert get(client, "memory-record", "bomb", "0").status_code == 200
    assert search(client, "bomb", {"op_type": "aicore_detail", "device_id": "0"}).status_code == 200


def test_a_query_past_the_deadline_is_stopped(base: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever a file makes a query cost (here a query counting to 20 million, ~5 s), it is stopped at the
    deadline with a clear error, and the connection still answers the next query."""
    monkeypatch.setattr(ascend_db, "QUERY_SECONDS", 0.2)  # the limit scaled down, not the file up
    ref = ascend_db.DbRef(next((base / "bomb").rglob("ascend_pytorch_profiler_0.db")), "0")
    with ascend_db.open_db(ref, None) as db:
        started = time.perf_counter()
        with pytest.raises(ProfilerRawFileError, match=r"ran longer than 0.2 s and was stopped") as raised:
            db.rows(COUNT_TO_20M)
        elapsed = time.perf_counter() - started
        assert "ascend_pytorch_profiler_0.db of rank 0" in raised.value.message
        assert elapsed < 1.0, f"stopped after {elapsed:.2f} s"
        assert db.rows("SELECT COUNT(*) FROM TASK")[0][0] > 0
        with pytest.raises(ProfilerRawFileError, match="was stopped"):  # the column reader too
            db.int_columns({"x": "x"}, f"FROM ({COUNT_TO_20M.replace('COUNT(*)', 'x')})", adbc=False)
