"""While a run is still being loaded (a new gunicorn worker's first seconds, or a run just taken into the
cache) a data request answers MindInsight's 50545007 "Data is loading", not "does not exist"."""

from __future__ import annotations

import http.client
import json
import os
import signal
import time
from pathlib import Path

import psutil
from flask import Flask

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from tests.conftest import free_port, run_cli
from tests.unit.store.summary_files import scalar_run

API = "/v1/mindinsight/datavisual"
LOADING = "50545007"


def make_app(base: Path, tmp_path: Path, **kw: object) -> Flask:
    return create_app(settings_for_tests(summary_base_dir=str(base), workspace=str(tmp_path / "ws"),
                                         reload_interval=0, **kw), start_background=False)


def test_a_new_worker_answers_loading_until_its_first_load_is_done(tmp_path: Path) -> None:
    base = tmp_path / "base"
    scalar_run(base / "run", range(1, 4), ["loss"])
    app = make_app(base, tmp_path)  # as a fresh worker: nothing read yet
    client = app.test_client()
    for path in (f"{API}/scalar/metadata?train_id=./run&tag=loss/scalar", f"{API}/histograms?train_id=./run&tag=h",
                 f"{API}/single-job?train_id=./run&plugin_name=scalar",
                 "/v1/mindinsight/datavisual/graphs/nodes?train_id=./run"):
        body = client.get(path).get_json()
        assert body == {"error_code": LOADING,
                        "error_msg": "Data is loading. Detail: Data is being loaded, current status: INIT."}, path
    bad = client.get(f"{API}/scalar/metadata?train_id=../run&tag=loss/scalar").get_json()
    assert bad["error_code"] == "50545005"  # malformed ids are refused as ever
    app.extensions["mindinsight_clone"].data_manager.reload()
    ok = client.get(f"{API}/scalar/metadata?train_id=./run&tag=loss/scalar")
    assert ok.status_code == 200 and len(ok.get_json()["metadatas"]) == 3
    missing_tag = client.get(f"{API}/scalar/metadata?train_id=./run&tag=nope/scalar").get_json()
    assert missing_tag["error_code"] == "5054500E"  # loaded: a missing tag does not exist
    unknown = client.get(f"{API}/scalar/metadata?train_id=./other&tag=loss/scalar").get_json()
    assert unknown["error_code"] == "50545005"


def test_a_run_just_taken_into_the_cache_answers_loading_until_read(tmp_path: Path) -> None:
    base = tmp_path / "base"
    scalar_run(base / "old", range(1, 4), ["loss"])
    os.utime(base / "old", (1, 1))
    for f in (base / "old").iterdir():
        os.utime(f, (1, 1))
    scalar_run(base / "new", range(1, 4), ["loss"])
    app = make_app(base, tmp_path, max_cached_runs=1)
    dm = app.extensions["mindinsight_clone"].data_manager
    dm.reload()
    client = app.test_client()
    path = f"{API}/scalar/metadata?train_id=./old&tag=loss/scalar"
    assert client.get(path).get_json()["error_code"] == "50545005"  # listed, not cached: as MindInsight
    client.post(f"{API}/train-job-caches", json={"train_ids": ["./old"]})
    body = client.get(path).get_json()
    assert body["error_code"] == LOADING and "current status: CACHING" in body["error_msg"]
    dm.reload()
    assert client.get(path).status_code == 200


def _get(port: int, path: str) -> tuple[int, dict[str, object]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def test_worker_restart_through_gunicorn_never_says_does_not_exist(tmp_path: Path) -> None:
    base, ws = tmp_path / "base", tmp_path / "ws"
    tags = [f"t{i:03d}" for i in range(200)]
    scalar_run(base / "big", range(1, 1501), tags)  # ~300k values: its load takes a moment
    port = free_port()
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws))
    assert started.returncode == 0, started.stdout + started.stderr
    path = f"{API}/scalar/metadata?train_id=./big&tag=t199/scalar"
    try:
        deadline = time.monotonic() + 60
        while _get(port, path)[0] != 200:
            assert time.monotonic() < deadline, "never loaded"
            time.sleep(0.2)
        master = psutil.Process(json.loads((ws / "run" / f"mindinsight-clone.{port}.pid").read_text())["pid"])
        (worker,) = master.children()
        worker.send_signal(signal.SIGKILL)  # gunicorn starts a fresh worker with empty caches
        worker.wait(10)
        answers: list[str] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            status, body = _get(port, path)
            answers.append("200" if status == 200 else str(body.get("error_code")))
            if status == 200:
                break
        assert answers[-1] == "200", answers[-5:]
        assert set(answers) <= {"200", LOADING}, sorted(set(answers))
        print(f"answers after the restart: {answers.count(LOADING)} x loading, then 200")
    finally:
        run_cli("stop", "--port", str(port), "--workspace", str(ws))


WORKER_ENTRY = """
import sys
from mindinsight_clone.store import data_manager
seen = []
start = data_manager.DataManager.start
def recording_start(self):
    if self._thread is None:  # a call that starts the thread (later ones do nothing)
        seen.append("flask" in sys.modules)
    start(self)
data_manager.DataManager.start = recording_start
from mindinsight_clone.server import lifecycle
module, call = lifecycle.APP_SPEC.split(":")
app = getattr(__import__(module, fromlist=["_"]), call.rstrip("()"))()
manager = app.extensions["mindinsight_clone"].data_manager
assert manager.wait_until_loaded(30)
print(seen, manager.run("./run") is not None)
manager.stop()
"""


def test_a_new_worker_starts_loading_before_the_web_app_is_imported(tmp_path: Path) -> None:
    """Gunicorn's entry point starts the reload thread before Flask and the routes are imported (a few hundred
    ms), so the first load runs meanwhile; the app is built around that same, already loading, manager."""
    import subprocess
    import sys

    from tests.conftest import REPO

    base = tmp_path / "base"
    scalar_run(base / "run", range(1, 4), ["loss"])
    settings = settings_for_tests(summary_base_dir=str(base), workspace=str(tmp_path / "ws"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MINDINSIGHT_")} | settings.to_env()
    res = subprocess.run([sys.executable, "-c", WORKER_ENTRY], capture_output=True, text=True, timeout=120,
                         env=env, cwd=REPO)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["[False]", "True"]  # started once, before flask was imported; the run loaded
