"""Parse once, through the app: a second app on the same workspace (a restart, or another replica) answers the kernel
table and the timeline from the Parquet tables the first one kept, without parsing (the table store's counters say
so), with the same answers; and over s3:// the engines read the files themselves through the storage seam (no fall
back to the csv / streaming readers) and answer what they answer locally.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from mindinsight_clone.server.routes_profiler import CACHE_KEY
from tests.conftest import SHARED, require_shared
from tests.remote_base import s3_app
from tests.s3_server import S3Server

API = "/v1/mindinsight"
ASCEND = SHARED / "fixtures" / "ascend"
JOB = "torch_npu_level1"
KERNEL_PAGE = {"op_type": "aicore_detail", "device_id": "0", "sort_condition": {"name": "duration_us"},
               "group_condition": {"limit": 10, "offset": 1}}


def _app(workspace: Path, base: str = str(ASCEND)) -> Flask:
    settings = settings_for_tests(summary_base_dir=base, workspace=str(workspace), reload_interval=0)
    app = create_app(settings, start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app


def _answers(app: Flask) -> list[Any]:
    client = app.test_client()
    out = []
    for rank in ("0", "1"):
        page = client.post(f"{API}/profile/ops/search?train_id=./{JOB}&profile=profiler",
                           data=json.dumps({**KERNEL_PAGE, "device_id": rank}), content_type="application/json")
        summary = client.get(f"{API}/profile/timeline-summary?dir=./{JOB}&device_id={rank}")
        window = client.get(f"{API}/profile/timeline?dir=./{JOB}&device_id={rank}&max_events=300")
        assert page.status_code == summary.status_code == window.status_code == 200
        out += [page.get_json(), summary.get_json(), window.get_json()]
    return out


def _cache(app: Flask) -> ParsedFileCache:
    cache: ParsedFileCache = app.extensions["mindinsight_clone"].extras[CACHE_KEY]
    assert cache.store is not None
    cache.store.flush()
    return cache


def test_a_restart_answers_from_the_kept_tables(tmp_path: Path) -> None:
    require_shared(ASCEND)
    workspace = tmp_path / "ws"
    first = _app(workspace)
    answers = _answers(first)
    store = _cache(first).store
    assert store is not None and store.stats.builds == 4 and store.stats.writes == 4  # 2 kernel tables, 2 traces
    assert len(list((workspace / "cache" / "profiler").glob("*.parquet"))) == 4
    second = _app(workspace)  # a restart, or another replica on the same workspace
    assert _answers(second) == answers
    kept = _cache(second).store
    assert kept is not None and kept.stats.builds == 0 and kept.stats.hits == 4


def test_profiler_cache_mb_zero_keeps_nothing(tmp_path: Path) -> None:
    require_shared(ASCEND)
    settings = settings_for_tests(summary_base_dir=str(ASCEND), workspace=str(tmp_path / "ws"), reload_interval=0,
                                  profiler_cache_mb=0)
    app = create_app(settings, start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    _answers(app)
    assert not (tmp_path / "ws" / "cache" / "profiler").exists()


@pytest.fixture(scope="module")
def s3_ascend(s3_server: S3Server, tmp_path_factory: pytest.TempPathFactory) -> Flask:
    require_shared(ASCEND)
    s3_server.upload_tree(ASCEND / JOB, "parse-once", f"ascend/{JOB}")
    return s3_app(s3_server, "s3://parse-once/ascend", tmp_path_factory.mktemp("ws-s3"))


def test_over_s3_the_engines_read_through_the_seam(s3_ascend: Flask, tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="mindinsight_clone.analyzers.profiler"):
        remote = _answers(s3_ascend)
    assert "read with the streaming reader" not in caplog.text
    assert "read with the csv module" not in caplog.text
    assert remote == _answers(_app(tmp_path / "ws-local"))
    store = _cache(s3_ascend).store
    assert store is not None and store.stats.writes == 4  # remote files are kept too (keyed by URL, size, mtime)


HOST_VIEWS = ("operator-details", "api-statistic", "memory-record", "npu-module-mem")


def _host_tables(app: Flask, job: str = JOB) -> list[Any]:
    client = app.test_client()
    out = []
    for view in HOST_VIEWS:
        for rank in ("0", "1"):
            answer = client.get(f"{API}/profile/{view}?train_id=./{job}&profile=profiler&device_id={rank}"
                                "&limit=1000&max_points=100000")
            assert answer.status_code == 200, answer.get_json()
            out.append(answer.get_json())
    return out


def test_the_host_tables_are_kept_too(tmp_path: Path) -> None:
    """operator_details.csv, api_statistic.csv (rows_codec.py), memory_record.csv and npu_module_mem.csv (the series
    codec): kept by the first app, read back by the next with every answer equal (ints stay ints, empty cells None,
    every series point)."""
    require_shared(ASCEND)
    workspace = tmp_path / "ws"
    first = _app(workspace)
    answers = _host_tables(first)
    assert all(a["size"] > 0 for a in answers[:4])
    store = _cache(first).store
    assert store is not None and store.stats.builds == 8 and store.stats.writes == 8
    second = _app(workspace)
    assert _host_tables(second) == answers
    kept = _cache(second).store
    assert kept is not None and kept.stats.builds == 0 and kept.stats.hits == 8


def test_the_host_tables_of_the_database_export_are_kept_too(tmp_path: Path) -> None:
    """The same tables derived from the database export (PYTORCH_API, CANN_API) are kept and read back equal."""
    base = SHARED / "fixtures" / "ascend_db"
    require_shared(base)
    workspace = tmp_path / "ws"
    first = _app(workspace, str(base))
    answers = _host_tables(first, "torch_npu_db_level1")
    assert all(a["size"] > 0 for a in answers[:4])
    store = _cache(first).store
    assert store is not None and store.stats.writes == 8
    second = _app(workspace, str(base))
    assert _host_tables(second, "torch_npu_db_level1") == answers
    kept = _cache(second).store
    assert kept is not None and kept.stats.builds == 0 and kept.stats.hits == 8
