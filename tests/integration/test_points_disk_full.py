"""A full workspace disk (issue 21): zoom windows say they come from the sample, and why; full resolution returns
once the point store can write again.

The failure is injected through the point store's own seam (`PointRoot.write_fault`, an ENOSPC raised by every
write of the store as a full disk would) because this test must run where no tiny filesystem can be mounted; the
browser test (tests/e2e/test_audit_pages.py) fills a real tmpfs when it may mount one. The expected values come
from the values this test writes (the spike at SPIKE_STEP and the window's point count).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from mindinsight_clone.store.data_manager import DataManager
from mindinsight_clone.store.point_store import SPILL_ROWS
from tests.unit.store.summary_files import scalar_event, summary_name, version_event, write_records

API = "/v1/mindinsight/datavisual/scalar/metadata"
STEPS = SPILL_ROWS + 2_000  # longer than a series kept in memory: its rows go to the store's file
SPIKE_STEP, SPIKE = 7_777, 500.0
WINDOW = {"start_step": SPIKE_STEP - 50, "end_step": SPIKE_STEP + 50, "points": 400}
ENOSPC = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _value(step: int) -> float:
    return SPIKE if step == SPIKE_STEP else 1.0 / step


def _app(tmp_path: Path) -> tuple[FlaskClient, DataManager]:
    payloads = [version_event()] + [scalar_event(s, {"loss": _value(s)}) for s in range(1, STEPS + 1)]
    write_records(tmp_path / "base" / "run" / summary_name(1_700_000_000), payloads)
    settings = settings_for_tests(summary_base_dir=str(tmp_path / "base"), workspace=str(tmp_path / "ws"),
                                  reload_interval=0)
    app = create_app(settings, start_background=False)
    return app.test_client(), app.extensions["mindinsight_clone"].data_manager


def _window(client: FlaskClient) -> dict:
    query = "&".join(f"{k}={v}" for k, v in {"train_id": "./run", "tag": "loss/scalar", **WINDOW}.items())
    resp = client.get(f"{API}?{query}")
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def test_a_full_disk_is_said_in_the_window_answer_and_full_resolution_returns(tmp_path: Path,
                                                                              caplog: pytest.LogCaptureFixture) -> None:
    client, manager = _app(tmp_path)
    manager.points.write_fault = ENOSPC  # the disk is full before the run is read
    manager.reload()
    body = _window(client)
    window = body["window"]
    assert window["exact"] is False and window["reason"] == "disk_full"
    assert "No space left on device" in window["detail"]
    assert window["total"] < 101  # the sample's points in the window, not the 101 real ones
    assert "point store write failed" in caplog.text

    manager.reload()  # still full: nothing changes, the sample keeps answering
    assert _window(client)["window"]["reason"] == "disk_full"

    manager.points.write_fault = None  # space is back
    manager.reload()
    body = _window(client)
    assert body["window"] == {**WINDOW, "total": 101, "exact": True}
    steps = [p["step"] for p in body["metadatas"]]
    assert steps == list(range(SPIKE_STEP - 50, SPIKE_STEP + 51))
    assert {p["step"]: p["value"] for p in body["metadatas"]}[SPIKE_STEP] == SPIKE
    # the run was read again in the background: its sampled answer never went away meanwhile
    assert len(client.get(f"{API}?train_id=./run&tag=loss/scalar").get_json()["metadatas"]) == 1000


def test_a_write_failing_later_is_said_too(tmp_path: Path) -> None:
    """The store fills up while the run grows: what was stored before stays, the window says it is sampled."""
    client, manager = _app(tmp_path)
    manager.reload()
    assert _window(client)["window"]["exact"] is True
    manager.points.write_fault = ENOSPC
    more = [scalar_event(s, {"loss": _value(s)}) for s in range(STEPS + 1, STEPS + 3_000)]
    write_records(tmp_path / "base" / "run" / summary_name(1_700_000_001), [version_event(), *more])
    manager.reload()
    window = _window(client)["window"]
    assert window["exact"] is False and window["reason"] == "disk_full"
    manager.points.write_fault = None
    manager.reload()
    assert _window(client)["window"]["exact"] is True
