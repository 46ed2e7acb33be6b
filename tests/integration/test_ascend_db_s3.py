"""The database export over an `s3://` base dir (a real S3-compatible server on loopback, moto): every view answers
exactly what it answers over the same files on disk; the databases are copied once into the workspace spool,
which stays under its bound (least recently used copies dropped). The spool's refusal of a database larger than
its bound is in tests/unit/test_db_spool.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from tests.conftest import require_shared
from tests.integration.test_ascend_db import ASCEND_DB, JOBS, RANKS
from tests.s3_server import S3Server

API = "/v1/mindinsight"
BUCKET = "ascend-db"


def _client(base: str, workspace: Path, options: dict[str, Any] | None = None, spool_mb: int = 4096) -> FlaskClient:
    settings = settings_for_tests(summary_base_dir=base, workspace=str(workspace), reload_interval=0,
                                  storage_options=json.dumps(options or {}), profiler_db_spool_mb=spool_mb)
    return create_app(settings, start_background=False).test_client()


@pytest.fixture(scope="module")
def uploaded(s3_server: S3Server) -> S3Server:
    require_shared(ASCEND_DB)
    assert s3_server.upload_tree(ASCEND_DB, BUCKET, "base") >= 12
    return s3_server


def _requests() -> list[tuple[str, str, dict[str, Any] | None]]:
    """Every database view once per rank of the Level1 job (the advisor, compare and the all-ranks matrix of it too),
    and the cluster views of both jobs."""
    out: list[tuple[str, str, dict[str, Any] | None]] = []
    for job in JOBS:
        q = f"train_id=./{job}&profile=profiler"
        out += [("GET", f"/profile/devices?{q}", None), ("GET", f"/profile/cluster-step-trace?{q}", None)]
    q = "train_id=./torch_npu_db_level1&profile=profiler"
    out += [("GET", f"/profile/{view}?{q}", None) for view in ("advice", "cluster-communication-matrix")]
    out.append(("GET", f"/profile/compare?{q}&device_id=0&base_device_id=1", None))
    for rank in RANKS:
        out += [("GET", f"/profile/{view}?{q}&device_id={rank}", None)
                for view in ("operator-details", "api-statistic", "npu-module-mem", "overview")]
        out += [("GET", f"/profile/communication?{q}&device_id={rank}", None),
                ("GET", f"/profile/memory-record?{q}&device_id={rank}&max_points=100", None),
                ("GET", f"/profile/timeline-summary?dir=./torch_npu_db_level1&device_id={rank}", None),
                ("GET", f"/profile/timeline?dir=./torch_npu_db_level1&device_id={rank}&max_events=200", None),
                ("POST", f"/profile/ops/search?{q}", {"op_type": "aicore_type", "device_id": rank}),
                ("POST", f"/profile/ops/search?{q}", {"op_type": "aicore_detail", "device_id": rank,
                                                      "group_condition": {"limit": 20, "offset": 2}})]
    return out


def _ask(client: FlaskClient, method: str, url: str, body: dict[str, Any] | None) -> tuple[int, Any]:
    response = client.post(f"{API}{url}", data=json.dumps(body), content_type="application/json") if method == "POST" else client.get(f"{API}{url}")
    return response.status_code, response.get_json()


def test_remote_answers_equal_local_and_spool_holds_each_db_once(uploaded: S3Server, tmp_path: Path) -> None:
    local = _client(str(ASCEND_DB), tmp_path / "ws_local")
    remote = _client(f"s3://{BUCKET}/base", tmp_path / "ws_s3", uploaded.storage_options)
    for method, url, body in _requests():
        assert _ask(remote, method, url, body) == _ask(local, method, url, body), url
    spool = tmp_path / "ws_s3" / "cache" / "profiler-db"
    copies = sorted(p.stat().st_size for p in spool.glob("*.db"))
    read = [p for p in ASCEND_DB.rglob("*.db") if p.name == "analysis.db" or "level1" in str(p)]
    assert copies == sorted(p.stat().st_size for p in read)  # every database the requests read, once
    assert not list(spool.glob("*.part")) and not (tmp_path / "ws_local" / "cache" / "profiler-db").exists()


def test_spool_bound_drops_the_least_recently_used(uploaded: S3Server, tmp_path: Path) -> None:
    remote = _client(f"s3://{BUCKET}/base", tmp_path / "ws", uploaded.storage_options, spool_mb=1)
    spool = tmp_path / "ws" / "cache" / "profiler-db"
    q = "train_id=./torch_npu_db_level1&profile=profiler"
    for rank in RANKS:  # each profiler database is ~0.75 MB: the second one pushes the first out
        status, _ = _ask(remote, "POST", f"/profile/ops/search?{q}", {"op_type": "aicore_type", "device_id": rank})
        assert status == 200
        assert sum(p.stat().st_size for p in spool.glob("*.db")) <= 1 << 20
    assert len(list(spool.glob("*.db"))) == 1
