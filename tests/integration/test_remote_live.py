"""Live growth over S3: the server runs over `s3://...` on the loopback S3 server while a summary object grows.

S3 has no append: a writer that uploads its file again puts a longer object under the same key. The server
must read that as appended (new steps served), a shorter object as a reset (the run read again from scratch),
a damaged record as a problem (readable steps kept, `problems` in train-jobs), and half a record at the end
as an incomplete tail (reported as `truncated`, as on disk, nothing of it served; read once whole). Once through create_app with its reload thread, once through
the real CLI and gunicorn (`mindinsight-clone start --summary-base-dir s3://... --storage-options '{...}'`).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from mindinsight_clone.ingest.record_reader import frame_record
from mindinsight_clone.server.app import create_app
from tests.conftest import free_port, run_cli
from tests.remote_base import s3_settings
from tests.s3_server import S3Server
from tests.unit.store.summary_files import scalar_event, summary_name, version_event

RELOAD_INTERVAL = 1
WAIT_LIMIT = 30.0  # generous: a loaded 2-core box; the test waits for a state, it does not time anything
BUCKET = "live"
TAG = "loss/scalar"
FILE = summary_name(1_700_000_000)


def records(steps: range | list[int], damaged_step: int | None = None) -> bytes:
    """A summary file: the version event, then one scalar event per step; `damaged_step`'s record gets a
    flipped payload byte (its CRC no longer matches, its framing is intact)."""
    out = [frame_record(version_event())]
    for step in steps:
        record = bytearray(frame_record(scalar_event(step, {"loss": 1.0 / step})))
        if step == damaged_step:
            record[-5] ^= 0xFF  # last payload byte (the float's high byte), before the 4-byte payload CRC
        out.append(bytes(record))
    return b"".join(out)


def wait_until(what: str, probe: Callable[[], Any], want: Callable[[Any], bool]) -> Any:
    deadline = time.monotonic() + WAIT_LIMIT
    seen = probe()
    while not want(seen):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not reached within {WAIT_LIMIT} s, last seen {seen!r}")
        time.sleep(0.2)
        seen = probe()
    return seen


# ---------------------------------------------------------------------- create_app with its reload thread
@pytest.fixture
def live_client(s3_server: S3Server, tmp_path: Path, request: pytest.FixtureRequest
                ) -> Iterator[tuple[FlaskClient, Callable[[bytes], None]]]:
    prefix = f"app/{request.node.name}"
    key = f"{prefix}/run/{FILE}"

    def put(data: bytes) -> None:
        s3_server.put(BUCKET, key, data)

    put(records(range(1, 6)))
    app = create_app(s3_settings(s3_server, f"s3://{BUCKET}/{prefix}", tmp_path / "ws",
                                 reload_interval=RELOAD_INTERVAL), start_background=True)
    try:
        yield app.test_client(), put
    finally:
        app.extensions["mindinsight_clone"].data_manager.stop()


def _steps(client: FlaskClient) -> list[int] | None:
    response = client.get(f"/v1/mindinsight/datavisual/scalar/metadata?train_id=./run&tag={TAG}")
    if response.status_code != 200:
        return None
    return [m["step"] for m in response.get_json()["metadatas"]]


def _job(client: FlaskClient) -> dict[str, Any]:
    body = client.get("/v1/mindinsight/datavisual/train-jobs?train_id=./run").get_json()
    return body["train_jobs"][0] if body.get("train_jobs") else {}


def test_longer_object_is_appended_shorter_is_a_reset_damage_is_a_problem(
        live_client: tuple[FlaskClient, Callable[[bytes], None]]) -> None:
    client, put = live_client
    wait_until("first load", lambda: _steps(client), lambda s: s == [1, 2, 3, 4, 5])

    put(records(range(1, 11)))  # the writer uploaded its grown file again
    wait_until("appended steps", lambda: _steps(client), lambda s: s == list(range(1, 11)))
    values = client.get(f"/v1/mindinsight/datavisual/scalar/metadata?train_id=./run&tag={TAG}").get_json()
    assert [m["value"] for m in values["metadatas"]] == pytest.approx([1.0 / s for s in range(1, 11)], rel=1e-6)

    put(records(range(1, 4)))  # a shorter object: the run is read again from scratch
    wait_until("reset to the shorter object", lambda: _steps(client), lambda s: s == [1, 2, 3])
    assert _job(client)["is_integrity"] is True

    grown = records(range(1, 9), damaged_step=6)
    put(grown)  # appended, with step 6's record damaged: 4, 5, 7, 8 are readable
    wait_until("readable steps around the damage", lambda: _steps(client), lambda s: s == [1, 2, 3, 4, 5, 7, 8])
    job = _job(client)
    assert job["is_integrity"] is False
    assert [(p["file"], p["kind"]) for p in job["problems"]] == [(FILE, "payload_crc")]


def test_half_a_record_waits_and_is_read_once_whole(live_client: tuple[FlaskClient, Callable[[bytes], None]]) -> None:
    client, put = live_client
    wait_until("first load", lambda: _steps(client), lambda s: s == [1, 2, 3, 4, 5])
    whole = records(range(1, 7))
    step_6_offset = len(records(range(1, 6)))
    put(whole[:-7])  # step 6's record cut short: the writer's upload raced its flush
    # as on disk: the incomplete tail is reported (kind `truncated`, at its offset) and nothing is served of it
    wait_until("the incomplete tail reported", lambda: [(p["kind"], p["offset"]) for p in _job(client).get(
        "problems", [])], lambda seen: seen == [("truncated", step_6_offset)])
    time.sleep(2 * RELOAD_INTERVAL)  # more reloads see the same partial record: still not served
    assert _steps(client) == [1, 2, 3, 4, 5]
    put(whole)
    wait_until("the completed record", lambda: _steps(client), lambda s: s == [1, 2, 3, 4, 5, 6])
    wait_until("the tail problem gone", lambda: _job(client), lambda job: job.get("is_integrity") is True
               and not job.get("problems"))


# ---------------------------------------------------------------------- the real CLI and gunicorn
SECRET = "live-secret-do-not-print"  # moto accepts any credentials; this one must never be printed or logged


def _get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())
    except OSError as err:
        return 0, str(err)


@pytest.mark.slow
def test_cli_start_over_s3_serves_growth(s3_server: S3Server, tmp_path: Path) -> None:
    key = f"cli/run/{FILE}"
    s3_server.put(BUCKET, key, records(range(1, 4)))
    options = {**s3_server.storage_options, "secret": SECRET}
    url, port, ws = f"s3://{BUCKET}/cli", free_port(), tmp_path / "ws"
    started = run_cli("start", "--port", str(port), "--summary-base-dir", url, "--storage-options",
                      json.dumps(options), "--workspace", str(ws), "--reload-interval", str(RELOAD_INTERVAL))
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        assert url in started.stdout
        assert SECRET not in started.stdout + started.stderr
        api = f"http://127.0.0.1:{port}/v1/mindinsight/datavisual"
        query = urllib.parse.urlencode({"train_id": "./run", "tag": TAG})

        def steps() -> Any:
            status, body = _get(f"{api}/scalar/metadata?{query}")
            return [m["step"] for m in body["metadatas"]] if status == 200 else (status, body)

        wait_until("first load through gunicorn", steps, lambda s: s == [1, 2, 3])
        s3_server.put(BUCKET, key, records(range(1, 8)))
        wait_until("appended steps through gunicorn", steps, lambda s: s == list(range(1, 8)))
        status, body = _get(f"{api}/train-jobs")
        assert status == 200 and [j["train_id"] for j in body["train_jobs"]] == ["./run"]
    finally:
        stopped = run_cli("stop", "--port", str(port), "--workspace", str(ws))
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    written = {p: p.read_bytes() for p in ws.rglob("*") if p.is_file()}  # logs, pid file, caches, notes
    assert any("log" in p.parts for p in written)
    assert [p for p, data in written.items() if SECRET.encode() in data] == []
