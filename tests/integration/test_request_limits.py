"""Request bodies over the 16 MB limit are refused with 413 through the real gunicorn, chunked or not.

A chunked body has no Content-Length; it used to be cut at 16 MB and the cut body processed (a valid
JSON document followed by padding was even answered 200)."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator

import pytest

from mindinsight_clone.server.app import MAX_BODY_BYTES
from tests.conftest import free_port, run_cli
from tests.unit.store.summary_files import scalar_run

CACHES = "/v1/mindinsight/datavisual/train-job-caches"


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    base, ws = tmp_path_factory.mktemp("limits-base"), tmp_path_factory.mktemp("limits-ws")
    scalar_run(base / "run", range(1, 4), ["loss"])
    port = free_port()
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws))
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        yield port
    finally:
        run_cli("stop", "--port", str(port), "--workspace", str(ws))


def padded_body(size: int) -> bytes:
    """A valid train-job-caches body followed by spaces up to `size` bytes (still valid JSON whole)."""
    body = json.dumps({"train_ids": ["./run"]}).encode()
    return body + b" " * (size - len(body))


def post(port: int, body: bytes, chunked: bool) -> tuple[int, dict[str, object]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        if chunked:
            pieces = (body[i:i + 65536] for i in range(0, len(body), 65536))
            conn.request("POST", CACHES, body=pieces, headers={"Content-Type": "application/json"},
                         encode_chunked=True)
        else:
            conn.request("POST", CACHES, body=body, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "content-length"])
def test_body_over_the_limit_is_refused_with_413(port: int, chunked: bool) -> None:
    status, body = post(port, padded_body(MAX_BODY_BYTES + 1024 * 1024), chunked)
    assert status == 413, body
    assert body["error_code"] == "50540002" and "413" in str(body["error_msg"])


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "content-length"])
def test_body_within_the_limit_is_processed(port: int, chunked: bool) -> None:
    for size in (100, MAX_BODY_BYTES):  # small, and exactly the limit
        status, body = post(port, padded_body(size), chunked)
        assert status == 200, body
        assert [r["train_id"] for r in body["cache_result"]] == ["./run"]  # type: ignore[union-attr]


def test_one_byte_over_the_limit_chunked(port: int) -> None:
    status, _ = post(port, padded_body(MAX_BODY_BYTES + 1), chunked=True)
    assert status == 413
    status, body = post(port, padded_body(100), chunked=True)  # and the server keeps serving
    assert status == 200, body
