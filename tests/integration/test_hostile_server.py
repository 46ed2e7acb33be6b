"""Hostile clients and a full workspace (issue 29, the server's side): cross-site POSTs, formula cells in CSV
exports, a full disk under `PUT lineages`, slow clients that hold the request threads."""

from __future__ import annotations

import contextlib
import csv
import http.client
import io
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.plugins.scalars import csv_text
from mindinsight_clone.server.app import create_app
from tests.conftest import free_port, run_cli
from tests.unit.analyzers.lineage.builders import write_run
from tests.unit.store.summary_files import scalar_run

API = "/v1/mindinsight"
CACHES = f"{API}/datavisual/train-job-caches"
TEXT_COMPARE = f"{API}/datavisual/text/compare"
LINEAGES = f"{API}/lineagemgr/lineages"
REPO = Path(__file__).resolve().parents[2]


def _client(tmp_path: Path, **settings: object) -> FlaskClient:
    base = tmp_path / "base"
    scalar_run(base / "run", range(1, 4), ["loss", *(t.removesuffix("/scalar") for t in FORMULA_TAGS)])
    write_run(base, "lineage_run", 100)
    app = create_app(settings_for_tests(summary_base_dir=str(base), workspace=str(tmp_path / "ws"),
                                        reload_interval=0, **settings), start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app.test_client()


@pytest.fixture
def client(tmp_path: Path) -> FlaskClient:
    return _client(tmp_path)


# ------------------------------------------------------------------------------ cross-site requests
BODY = json.dumps({"train_ids": ["./run"]})


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", None])
def test_a_body_that_is_not_json_is_refused_with_415(client: FlaskClient, content_type: str | None) -> None:
    """What a page of another origin can send without asking (`fetch(…, {mode: "no-cors"})`, a form)."""
    headers = {"Content-Type": content_type} if content_type else {}
    for url in (CACHES, TEXT_COMPARE):
        answer = client.post(url, data=BODY, headers=headers)
        assert answer.status_code == 415, answer.get_json()
        assert answer.get_json()["error_code"] == "50540021"
        assert "application/json" in answer.get_json()["error_msg"]
    put = client.put(f"{LINEAGES}?train_id=./lineage_run", data='{"tag": 3}', headers=headers)
    assert put.status_code == 415
    assert "tag" not in client.post(LINEAGES, json={}).get_json()["object"][0].get("added_info", {})


@pytest.mark.parametrize("headers", [
    {"Origin": "http://evil.example"},
    {"Origin": "http://localhost:9999"},  # another port is another origin
    {"Origin": "null"},  # sandboxed frame, data: URL
    {"Sec-Fetch-Site": "cross-site"},
    {"Origin": "http://localhost", "Sec-Fetch-Site": "cross-site"},
], ids=["foreign", "other-port", "null", "sec-fetch-site", "both"])
def test_a_foreign_origin_is_refused_with_403(client: FlaskClient, headers: dict[str, str]) -> None:
    for method, url in (("POST", CACHES), ("POST", TEXT_COMPARE), ("PUT", f"{LINEAGES}?train_id=./lineage_run")):
        answer = client.open(url, method=method, data=BODY, headers={**headers, "Content-Type": "application/json"})
        assert answer.status_code == 403, (url, answer.get_json())
        assert answer.get_json()["error_code"] == "50540020"
    assert client.get(f"{API}/datavisual/train-jobs", headers=headers).status_code == 200  # reads stay open


def test_the_ui_and_scripts_still_post(client: FlaskClient) -> None:
    """Same origin (as the UI's fetch sends it), no Origin at all (scripts), an empty POST."""
    same = {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}
    assert client.post(CACHES, json={"train_ids": ["./run"]}, headers=same).status_code == 200
    assert client.post(CACHES, data=BODY, content_type="application/json; charset=utf-8").status_code == 200
    assert client.post(LINEAGES, headers=same).status_code == 200
    put = client.put(f"{LINEAGES}?train_id=./lineage_run", json={"tag": 3}, headers=same)
    assert put.status_code == 200, put.get_json()


def test_an_allowed_host_may_post(tmp_path: Path) -> None:
    client = _client(tmp_path, allowed_hosts="ml.example.org")
    headers = {"Origin": "https://ml.example.org", "Host": "ml.example.org"}
    assert client.post(CACHES, json={"train_ids": ["./run"]}, headers=headers).status_code == 200
    proxied = {"Origin": "https://ml.example.org", "Host": "127.0.0.1:8080"}  # a proxy that rewrites Host
    assert client.post(CACHES, json={"train_ids": ["./run"]}, headers=proxied).status_code == 200


# ------------------------------------------------------------------------------ CSV exports
def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


FORMULA_TAGS = ("=HYPERLINK(\"http://x\")/scalar", "-0.5/scalar", "@SUM(A1)/scalar", "\tcmd/scalar", "+1+2/scalar")


def test_csv_text_cells_that_a_spreadsheet_would_run_get_a_quote(client: FlaskClient) -> None:
    many = [("train_id", "./run"), ("format", "csv"), *(("tag", t) for t in FORMULA_TAGS)]
    answers = [client.get(f"{API}/datavisual/scalars", query_string=many),
               client.get(f"{API}/datavisual/scalar/metadata",
                          query_string={"train_id": "./run", "tag": "@SUM(A1)/scalar", "format": "csv"})]
    cells = {}
    for answer in answers:
        assert answer.status_code == 200
        for row in _rows(answer.get_data(as_text=True))[1:]:
            cells[row[1]] = row
    assert set(cells) == {"'=HYPERLINK(\"http://x\")/scalar", "'-0.5/scalar", "'@SUM(A1)/scalar", "'\tcmd/scalar",
                          "'+1+2/scalar"}
    assert all(float(row[4]) >= 0 and float(row[3]) > 0 and int(row[2]) >= 1 for row in cells.values())


def test_csv_numbers_stay_numbers() -> None:
    assert [csv_text(c) for c in ("-0.5", "+1e-3", "-inf", "NaN", "-", "=1", "loss")] == [
        "-0.5", "+1e-3", "-inf", "NaN", "'-", "'=1", "loss"]


# ------------------------------------------------------------------------------ a full workspace
FULL_DISK_SCRIPT = """
import json, resource, sys
from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.plugins.scalars import csv_text
from mindinsight_clone.server.app import create_app

base, ws, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
app = create_app(settings_for_tests(summary_base_dir=base, workspace=ws, reload_interval=0), start_background=False)
client = app.test_client()
url = "/v1/mindinsight/lineagemgr/lineages?train_id=./lineage_run"
assert client.put(url, json={"tag": 1}).status_code == 200  # the notes file exists, before the disk is full
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
answer = client.put(url, json={"remark": "r" * 128})
notes = client.post("/v1/mindinsight/lineagemgr/lineages", json={}).get_json()["object"]
print(json.dumps({"status": answer.status_code, "body": answer.get_json(), "notes": notes}))
"""


def test_a_full_workspace_answers_507_and_keeps_the_notes(tmp_path: Path) -> None:
    """RLIMIT_FSIZE below the new notes file's size: the write fails as on a full disk (EFBIG, like ENOSPC)."""
    base, ws = tmp_path / "base", tmp_path / "ws"
    write_run(base, "lineage_run", 100)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MINDINSIGHT_")}
    done = subprocess.run([sys.executable, "-c", FULL_DISK_SCRIPT, str(base), str(ws), "100"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["status"] == 507, result
    assert result["body"]["error_code"] == "50540022"
    assert "full" in result["body"]["error_msg"] and "File too large" in result["body"]["error_msg"]
    assert str(ws) not in result["body"]["error_msg"]
    added = result["notes"][0]["added_info"]
    assert added.get("tag") == 1 and "remark" not in added  # not in memory either
    notes_dir = ws / "lineage"
    assert json.loads((notes_dir / "added_info.json").read_text())["base_dirs"]  # the old file, whole
    assert not list(notes_dir.glob(".added_info.*.tmp"))


# ------------------------------------------------------------------------------ slow clients (a real server)
CLIENT_TIMEOUT = 2  # seconds a client has for a request's head, and again for its body (scaled down)
SLOW = 12  # more than the worker's 8 threads
HEAD = b"GET /v1/mindinsight/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    base, ws, port = tmp_path_factory.mktemp("slow-base"), tmp_path_factory.mktemp("slow-ws"), free_port()
    env = {"MINDINSIGHT_CLIENT_TIMEOUT": str(CLIENT_TIMEOUT)}
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws), env=env)
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        yield port
    finally:
        run_cli("stop", "--port", str(port), "--workspace", str(ws))


def _health(port: int, timeout: float) -> tuple[int, float]:
    start = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", "/v1/mindinsight/health")
        return conn.getresponse().status, time.monotonic() - start
    finally:
        conn.close()


def _trickle(socks: list[socket.socket], stop: threading.Event) -> None:
    """One byte per connection every 0.3 s: each recv gets data, only a total deadline can cut them."""
    while not stop.wait(0.3):
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.send(b"x")


def _closed_within(sock: socket.socket, seconds: float) -> tuple[bool, bytes]:
    """Whether the server closed the connection within `seconds`, and what it said first."""
    sock.settimeout(seconds)
    answer = b""
    try:
        while chunk := sock.recv(4096):
            answer += chunk
    except TimeoutError:
        return False, answer
    except OSError:
        pass
    return True, answer


def test_trickled_heads_neither_hold_the_server_nor_stay(server: int) -> None:
    socks = [socket.create_connection(("127.0.0.1", server)) for _ in range(SLOW)]
    stop = threading.Event()
    trickler = threading.Thread(target=_trickle, args=(socks, stop), daemon=True)
    try:
        for sock in socks:
            sock.sendall(HEAD)
        trickler.start()
        time.sleep(0.5)  # the heads have reached the worker
        status, took = _health(server, timeout=5)
        assert status == 200 and took < 1.5, took
        assert all(_closed_within(sock, CLIENT_TIMEOUT + 3)[0] for sock in socks)  # cut though still sending
    finally:
        stop.set()
        for sock in socks:
            sock.close()


def test_a_body_that_never_comes_is_cut_with_408(server: int) -> None:
    head = (b"POST /v1/mindinsight/datavisual/train-job-caches HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"train_ids\": ")
    socks = [socket.create_connection(("127.0.0.1", server)) for _ in range(SLOW)]
    stop = threading.Event()
    trickler = threading.Thread(target=_trickle, args=(socks, stop), daemon=True)
    try:
        start = time.monotonic()
        for sock in socks:
            sock.sendall(head)
        trickler.start()
        status, _ = _health(server, timeout=CLIENT_TIMEOUT + 5)  # at worst once the bodies' time is up
        assert status == 200
        # a body's deadline runs from when a thread takes its request: with more slow requests than threads, one
        # waits for a thread of the first batch to be freed, then has its own CLIENT_TIMEOUT (two rounds at most)
        closed, answer = _closed_within(socks[0], 2 * CLIENT_TIMEOUT + 3)
        assert closed and time.monotonic() - start < 2 * CLIENT_TIMEOUT + 3
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
        assert b'"error_code"' in answer and b"Request Timeout" in answer
    finally:
        stop.set()
        for sock in socks:
            sock.close()
