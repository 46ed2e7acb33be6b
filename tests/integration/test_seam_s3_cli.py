"""`start --summary-base-dir s3://... --storage-options '{...}'` through the real CLI and gunicorn, and how
`start` refuses a URL base dir it cannot use."""

from __future__ import annotations

import json
import socket
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import free_port, run_cli
from tests.s3_server import S3Server
from tests.unit.store.summary_files import scalar_event, version_event, write_records


def _get(port: int, path: str) -> dict[str, object]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/mindinsight{path}", timeout=10) as resp:
        return json.loads(resp.read())  # type: ignore[no-any-return]


def test_start_on_an_s3_base_serves_train_jobs(s3_server: S3Server, tmp_path: Path) -> None:
    write_records(tmp_path / "tree" / "run1" / "events.out.events.summary.100.0.h_MS",
                  [version_event(), *(scalar_event(s, {"loss": s / 4}) for s in range(12))])
    s3_server.upload_tree(tmp_path / "tree", "cli", "jobs")
    port, ws = free_port(), tmp_path / "ws"
    options = json.dumps(s3_server.storage_options)
    result = run_cli("start", "--port", str(port), "--summary-base-dir", "s3://cli/jobs", "--storage-options",
                     options, "--workspace", str(ws), "--reload-interval", "1")
    try:
        assert result.returncode == 0, result.stdout + result.stderr
        assert "Summary base dir: s3://cli/jobs" in result.stdout
        assert '"secret"' not in result.stdout + result.stderr  # never the storage options (credentials)
        body = _get(port, "/datavisual/train-jobs")
        for _ in range(50):  # the worker's first scan may still be running
            if body["total"] == 1 and body["load_status"] == "loaded":
                break
            time.sleep(0.2)
            body = _get(port, "/datavisual/train-jobs")
        assert body["name"] == "jobs" and [j["train_id"] for j in body["train_jobs"]] == ["./run1"]  # type: ignore[index]
        scalars = _get(port, "/datavisual/scalar/metadata?train_id=./run1&tag=loss/scalar")
        assert len(scalars["metadatas"]) == 12  # type: ignore[arg-type]
        log = (ws / "log" / f"app.{port}.log").read_text()
        assert "is remote: it is polled every 1s" in log
        assert '"secret"' not in log and '"key"' not in log  # the storage options are never logged
    finally:
        stopped = run_cli("stop", "--port", str(port), "--workspace", str(ws))
    assert stopped.returncode == 0, stopped.stderr


def test_start_refuses_a_bucket_it_cannot_list(tmp_path: Path) -> None:
    pytest.importorskip("s3fs")
    with socket.socket() as sock:  # bound, never listening: connections are refused, nobody else takes the port
        sock.bind(("127.0.0.1", 0))
        dead = json.dumps({"endpoint_url": f"http://127.0.0.1:{sock.getsockname()[1]}", "key": "k",
                           "secret": "hush"})
        result = run_cli("start", "--port", str(free_port()), "--summary-base-dir", "s3://nobucket/prefix",
                         "--storage-options", dead, "--workspace", str(tmp_path / "ws"))
    assert result.returncode != 0
    assert "Summary base dir s3://nobucket/prefix cannot be listed" in result.stderr
    assert "hush" not in result.stdout + result.stderr


def test_start_refuses_a_prefix_with_nothing_under_it(s3_server: S3Server, tmp_path: Path) -> None:
    s3_server.bucket("cli")
    result = run_cli("start", "--port", str(free_port()), "--summary-base-dir", "s3://cli/nothing/here",
                     "--storage-options", json.dumps(s3_server.storage_options), "--workspace", str(tmp_path / "ws"))
    assert result.returncode != 0
    assert "Summary base dir s3://cli/nothing/here does not exist" in result.stderr


def test_start_names_the_extra_of_a_missing_backend(tmp_path: Path) -> None:
    try:
        import gcsfs  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("gcsfs is installed here; the message is only given without it")
    result = run_cli("start", "--port", str(free_port()), "--summary-base-dir", "gs://bucket/prefix",
                     "--workspace", str(tmp_path / "ws"))
    assert result.returncode != 0
    assert "pip install 'mindinsight-clone[gcs]'" in result.stderr
