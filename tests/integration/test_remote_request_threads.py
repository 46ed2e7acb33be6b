"""Request threads never wait for the store (issue 14: "listing and reading never block request threads"):
over the fixtures served from the loopback S3 server, with the reload thread running, the datavisual and
graph requests of every run make no store request at all, and neither does the first lineage request
(the reload thread has read the lineage files)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from mindinsight_clone.server.app import create_app
from tests.integration.test_remote_manifest import _answer, _requests
from tests.remote_base import s3_settings, upload_fixtures
from tests.s3_server import S3Server

RELOAD_INTERVAL = 1
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def running(s3_server: S3Server, tmp_path: Path) -> Iterator[Flask]:
    """create_app over the fixtures with its reload thread, once every run is listed and a few reloads ran."""
    app = create_app(s3_settings(s3_server, upload_fixtures(s3_server), tmp_path / "ws",
                                 reload_interval=RELOAD_INTERVAL), start_background=True)
    client = app.test_client()
    deadline = time.monotonic() + 60
    while client.get("/v1/mindinsight/datavisual/train-jobs").get_json().get("load_status") != "loaded":
        assert time.monotonic() < deadline, "the fixtures did not load within 60 s"
        time.sleep(0.2)
    time.sleep(3 * RELOAD_INTERVAL)  # whatever the reload thread prepares, it has had the time to
    try:
        yield app
    finally:
        app.extensions["mindinsight_clone"].data_manager.stop()


def _object_reads_since(server: S3Server, offset: int, suffix: str = "") -> list[str]:
    """HEAD/GET requests for objects (not listings) logged after `offset`, optionally of keys ending in `suffix`."""
    with server.log_path.open("rb") as log:
        log.seek(offset)
        text = ANSI.sub("", log.read().decode("utf-8", "replace"))
    found = re.findall(r'"((?:GET|HEAD) (\S+)) HTTP', text)
    return [line for line, target in found if "?" not in target and target.endswith(suffix)]


def test_datavisual_and_graph_requests_read_no_object(running: Flask, s3_server: S3Server) -> None:
    client = running.test_client()
    requests = [r for r in _requests(client) if "/datavisual/" in r[1] and "/landscape/" not in r[1]]
    assert len(requests) > 300
    # The reload thread is held between passes (a stat of its own may HEAD an object when fsspec's listing cache
    # was just dropped), so every store request logged below would come from a request thread.
    with running.extensions["mindinsight_clone"].data_manager.reloads_held():
        offset = s3_server.log_path.stat().st_size
        for method, url, body, _ in requests:
            assert _answer(client, method, url, body)[0] in (200, 400), url
        assert _object_reads_since(s3_server, offset) == []


def test_first_lineage_request_reads_no_lineage_file(running: Flask, s3_server: S3Server) -> None:
    client = running.test_client()
    with running.extensions["mindinsight_clone"].data_manager.reloads_held():
        offset = s3_server.log_path.stat().st_size
        body = client.post("/v1/mindinsight/lineagemgr/lineages", json={}).get_json()
        assert body["count"] == 9
        assert _object_reads_since(s3_server, offset, "_lineage") == []
