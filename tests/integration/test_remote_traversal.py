"""Path tricks against an S3 base dir (loopback S3 server): nothing outside `s3://bucket/prefix` is read,
listed or served.

1. test_traversal.py's own test runs again here (imported; its `app` fixture overridden): the same tree is
   uploaded, the base is `s3://trav/<id>/base` and the canary run is the sibling prefix `.../canary`.
2. S3-specific tricks on every path-like parameter (datavisual and graph `train_id`, profiler `train_id`,
   `profile` and `dir`, lineage `train_id`): other buckets, URLs in the id, `%2F..`, the sibling prefix
   `base-evil/` that a string-prefix check would let through.
3. Keys with `..` segments put into the bucket by an attacker (`base/../canary/...`): S3 stores them
   literally, so a listing of `base/` shows a "directory" named `..`.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.conftest import FIXTURES
from tests.integration.test_traversal import (  # noqa: F401  (collected again here, over S3)
    CANARY_TAG,
    _endpoints,
    test_traversal_variants_refused_and_canary_never_served,
)
from tests.remote_base import s3_app
from tests.s3_server import S3Server
from tests.unit.store.summary_files import scalar_run

API = "/v1/mindinsight"
BUCKET = "trav"
OTHER_BUCKET = "other-bucket"


def _canary_tree(root: Path, profiler: bool, tag: str = CANARY_TAG) -> Path:
    """A run holding the canary scalar tag (and a real profiler dir, copied from the fixtures if present)."""
    scalar_run(root, range(1, 4), [tag])
    source = FIXTURES / "profiler_cpu" / "profiler"
    if profiler and source.exists():
        shutil.copytree(source, root / "profiler")
    return root


@pytest.fixture
def app(s3_server: S3Server, tmp_path: Path) -> Flask:
    """test_traversal.py's tree on S3: base/run, and the canary beside base (sibling prefixes, other bucket)."""
    prefix = f"t-{uuid.uuid4().hex[:8]}"
    _canary_tree(tmp_path / "up" / "base" / "run", profiler=True, tag="loss")
    canary = _canary_tree(tmp_path / "up" / "canary", profiler=True)
    s3_server.upload_tree(tmp_path / "up", BUCKET, prefix)
    s3_server.upload_tree(canary, BUCKET, f"{prefix}/base-evil/run")
    s3_server.upload_tree(canary, OTHER_BUCKET, f"{prefix}/canary")
    s3_server.upload_tree(canary, OTHER_BUCKET, "canary")
    application = s3_app(s3_server, f"s3://{BUCKET}/{prefix}/base", tmp_path / "ws")
    application.config["TRAVERSAL_PREFIX"] = prefix
    return application


def _tricks(prefix: str) -> list[str]:
    return [
        f"s3://{BUCKET}/{prefix}/canary", f"s3://{OTHER_BUCKET}/canary", f"./s3://{OTHER_BUCKET}/canary",
        f"s3:/{OTHER_BUCKET}/canary", f"//{OTHER_BUCKET}/canary", f"./{OTHER_BUCKET}/canary",
        f"s3://{BUCKET}/{prefix}/base/../canary", f"s3://{BUCKET}/{prefix}/base-evil/run",
        "./%2F../canary", "./run%2F..%2F..%2Fcanary", "%2F..%2Fcanary", "./..%2Fcanary", "./%2e%2e%2Fcanary",
        "-evil/run", "./-evil/run", "./../base-evil/run", "../base-evil/run", "./run/../../base-evil/run",
        "./run/./../../canary", "./run/..", "./.", "./run/../run/../../canary",
    ]


def _profiler_urls(trick: str) -> Iterator[str]:
    t = quote(trick, safe="")
    # endpoints that read the profiler dir (op-types is a static column list and ignores its parameters)
    for path in ("devices", "overview", "memory-usage", "summary/propose", "profile_info", "step-trace-time"):
        yield f"{API}/profile/{path}?train_id={t}&profile=profiler"
        yield f"{API}/profile/{path}?train_id=./run&profile={t}"
    for path in ("timeline", "timeline-summary", "overview", "memory-usage", "memory-summary"):
        yield f"{API}/profile/{path}?dir={t}"


PROFILE_TRICKS = ["../canary/profiler", "../../canary/profiler", "..%2Fcanary%2Fprofiler", "../base-evil/run/profiler",
                  "-evil/run/profiler", "s3://trav/canary/profiler", f"s3://{OTHER_BUCKET}/canary/profiler",
                  "/canary/profiler"]


def _assert_not_served(client: FlaskClient, method: str, url: str, body: object = None) -> int:
    response = client.open(url, method=method, json=body)
    assert CANARY_TAG not in response.get_data(as_text=True), url
    return response.status_code


def test_s3_tricks_in_every_path_parameter(app: Flask) -> None:
    client = app.test_client()
    prefix = app.config["TRAVERSAL_PREFIX"]
    for trick in _tricks(prefix):
        for method, url, body in _endpoints(trick):
            status = _assert_not_served(client, method, url, body)
            if "/train-jobs?" in url:
                assert client.get(url).get_json()["total"] == 0, url
            elif "train-job-caches" in url:
                assert client.post(url, json=body).get_json() == {"cache_result": []}, url
            elif "/scalars?" in url:
                assert client.get(url).get_json() == {"scalars": []}, url
            elif "landscapes?" not in url:
                assert status == 400, (url, status)
        t = quote(trick, safe="")
        for url in (f"{API}/datavisual/graphs/nodes?train_id={t}", f"{API}/datasets/dataset_graph?train_id={t}"):
            status = _assert_not_served(client, "GET", url)
            assert status == 400 or client.get(url).get_json() == {}, (url, status)
        for url in _profiler_urls(trick):
            status = _assert_not_served(client, "GET", url)
            assert 400 <= status < 500, (url, status)
    for trick in PROFILE_TRICKS:
        for path in ("devices", "overview", "memory-usage", "profile_info"):
            url = f"{API}/profile/{path}?train_id=./run&profile={quote(trick, safe='')}"
            status = _assert_not_served(client, "GET", url)
            assert 400 <= status < 500, (url, status)
    if (FIXTURES / "profiler_cpu").exists():  # the run's own profiler dir is served: the refusals above are real
        devices = client.get(f"{API}/profile/devices?train_id=./run&profile=profiler")
        assert devices.status_code == 200 and devices.get_json()["device_list"] == ["0"]
    jobs = client.get(f"{API}/datavisual/train-jobs?limit=999").get_json()
    assert [j["train_id"] for j in jobs["train_jobs"]] == ["./run"]
    assert client.get(f"{API}/datavisual/scalar/metadata?train_id=./run&tag=loss/scalar").status_code == 200


# ---------------------------------------------------------------------- keys with `..` segments in the bucket
@pytest.fixture
def attacked(s3_server: S3Server, tmp_path: Path) -> tuple[S3Server, str, Path]:
    prefix = f"a-{uuid.uuid4().hex[:8]}"
    scalar_run(tmp_path / "run", range(1, 4), ["loss"])
    canary = _canary_tree(tmp_path / "canary", profiler=True)
    s3_server.upload_tree(tmp_path / "run", BUCKET, f"{prefix}/base/run")
    s3_server.upload_tree(canary, BUCKET, f"{prefix}/canary")  # the real sibling outside the base
    for planted in ("base/../canary", "base/run/../../canary", "base/./canary", "base/../../canary",
                    "base/nested/../../canary"):
        s3_server.upload_tree(canary, BUCKET, f"{prefix}/{planted}")  # literal `..`/`.` segments in the keys
    keys = [o["Key"] for o in s3_server.client().list_objects_v2(Bucket=BUCKET, Prefix=prefix)["Contents"]]
    if not any("/../" in k for k in keys):
        pytest.skip("this S3 server normalises `..` in keys: the attack cannot be staged")
    return s3_server, f"s3://{BUCKET}/{prefix}/base", tmp_path


@pytest.mark.parametrize("max_depth", [1, 2, 3])
def test_keys_with_dot_segments_planted_in_the_bucket_are_never_runs(
        attacked: tuple[S3Server, str, Path], max_depth: int) -> None:
    server, url, tmp_path = attacked
    client = s3_app(server, url, tmp_path / f"ws{max_depth}", max_depth=max_depth).test_client()
    listing = client.get(f"{API}/datavisual/train-jobs?limit=999").get_json()
    ids = [j["train_id"] for j in listing["train_jobs"]]
    assert "./run" in ids
    for tid in ids:
        assert not ({".", ".."} & set(tid[2:].split("/"))), f"{tid} listed: a planted key became a run"
    assert CANARY_TAG not in str(listing)
    for tid in ids:
        plugins = client.get(f"{API}/datavisual/plugins", query_string={"train_id": tid}).get_data(as_text=True)
        assert CANARY_TAG not in plugins, tid
    for tid in ("./..", "./../canary", "./run/../../canary", "./nested/../../canary", "./.", "./canary"):
        for method, req, body in _endpoints(tid):
            _assert_not_served(client, method, req, body)
        for req in _profiler_urls(tid):
            assert 400 <= _assert_not_served(client, "GET", req) < 500, req
    served = client.get(f"{API}/datavisual/scalar/metadata?train_id=./run&tag=loss/scalar").get_json()
    assert [m["step"] for m in served["metadatas"]] == [1, 2, 3]  # the real run is still served
