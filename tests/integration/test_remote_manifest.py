"""../shared/fixtures/mindspore/ served from a real S3-compatible server on loopback (moto) passes the SAME
MANIFEST checks as the local dir, and every answer over S3 equals the answer over the local dir.

The same checks: the test functions of test_fixture_files.py (ingest), test_lineage_api.py (lineage API)
and test_profiler_api.py (profiler API, new layout) are imported here, so pytest runs them again in this
module, where their base fixtures (`manifest_base`, `fixtures_client`, `new_client`) are overridden to
point at `s3://fixtures/shared/mindspore` (uploaded once per session). No expectation is copied: the
expected values still come from MANIFEST.json and the raw files, exactly as for the local run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient

from mindinsight_clone.ingest import storage
from tests.conftest import FIXTURES, require_shared
from tests.integration.test_fixture_files import (  # noqa: F401  (collected again here, over S3)
    test_crc_corrupt_skips_exactly_step_8,
    test_discovery_matches_the_manifest,
    test_files_of_each_run,
    test_graphs,
    test_histograms,
    test_images,
    test_landscapes,
    test_lineage,
    test_nested_run_reads_fine_when_asked_directly,
    test_not_summary_is_rejected_without_values,
    test_record_sequence_of_each_file,
    test_scalar_values_are_exact_float32,
    test_tags_types_and_steps,
    test_tensors,
    test_truncated_keeps_steps_1_to_12_and_waits_for_the_rest,
)
from tests.integration.test_lineage_api import (  # noqa: F401
    test_every_manifest_lineage_field,
    test_fixture_filters_and_sorting,
    test_fixture_parameter_importance,
)
from tests.integration.test_profiler_api import (  # noqa: F401
    test_new_layout_devices,
    test_new_layout_memory_usage,
    test_new_layout_mindinsight_shapes,
    test_new_layout_op_info_match_csv,
    test_new_layout_op_types_match_csv,
    test_new_layout_overview,
    test_new_layout_timeline,
    test_search_bad_json_and_unknown_device,
    test_search_condition_errors,
    test_search_filter_sort_and_paging,
    test_timeline_bad_params,
)
from tests.remote_base import local_app, s3_app, s3_location, upload_fixtures
from tests.s3_server import S3Server

API = "/v1/mindinsight"
DV = f"{API}/datavisual"


# ---------------------------------------------------------------------- the S3 base for the imported checks
@pytest.fixture(scope="module")
def s3_fixtures_url(s3_server: S3Server) -> str:
    return upload_fixtures(s3_server)


@pytest.fixture
def manifest_base(s3_server: S3Server, s3_fixtures_url: str) -> storage.Location:
    location = s3_location(s3_server, s3_fixtures_url)
    assert storage.is_remote(location)
    return location


@pytest.fixture(scope="module")
def s3_fixtures_app(s3_server: S3Server, s3_fixtures_url: str, tmp_path_factory: pytest.TempPathFactory) -> Flask:
    return s3_app(s3_server, s3_fixtures_url, tmp_path_factory.mktemp("ws-s3"))


@pytest.fixture(scope="module")
def local_fixtures_app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    require_shared(FIXTURES)
    return local_app(FIXTURES, tmp_path_factory.mktemp("ws-local"))


@pytest.fixture(scope="module")
def fixtures_client(s3_fixtures_app: Flask) -> FlaskClient:
    return s3_fixtures_app.test_client()


@pytest.fixture
def new_client(s3_fixtures_app: Flask) -> FlaskClient:
    return s3_fixtures_app.test_client()


def test_the_s3_base_really_is_remote(s3_fixtures_app: Flask, s3_server: S3Server) -> None:
    """Guards the imported checks: the app reads the bucket, not ../shared."""
    dm = s3_fixtures_app.extensions["mindinsight_clone"].data_manager
    assert storage.is_remote(dm.base_dir)
    assert storage.describe(dm.base_dir).startswith("s3://fixtures/shared/mindspore")
    before = s3_server.requests_logged()
    dm.reload()
    assert s3_server.requests_logged() > before  # a reload lists the bucket


# ---------------------------------------------------------------------- differential: S3 == local
Answer = tuple[int, Any]
TIMES = ("create_time", "update_time")  # local: file mtimes; S3: upload times (LastModified)


def _answer(client: FlaskClient, method: str, url: str, body: Any = None) -> Answer:
    response = client.open(url, method=method, data=None if body is None else json.dumps(body),
                           content_type="application/json")
    if response.mimetype == "application/json":
        return response.status_code, response.get_json()
    return response.status_code, (response.mimetype, response.get_data())


AGE = re.compile(r"last modified \d+ s ago")  # a truncated file's age: local mtime vs upload time


def _jobs(answer: Answer) -> Answer:
    """train-jobs without the times and in train_id order (the order follows the times)."""
    status, body = answer
    jobs = sorted(({k: v for k, v in job.items() if k not in TIMES} for job in body["train_jobs"]),
                  key=lambda job: job["train_id"])
    for job in jobs:
        for problem in job.get("problems", []):
            problem["message"] = AGE.sub("last modified N s ago", problem["message"])
    return status, {**{k: v for k, v in body.items() if k != "train_jobs"}, "train_jobs": jobs}


def _q(**query: Any) -> str:
    return "&".join(f"{k}={quote(str(v), safe='')}" for k, v in query.items())


def _requests(client: FlaskClient) -> Iterator[tuple[str, str, Any, Callable[[Answer], Answer]]]:
    """Every datavisual/graph/lineage/profiler request over every train job and tag of the base (as
    discovered by `client`: both sides must list the same jobs, checked first)."""
    same: Callable[[Answer], Answer] = lambda a: a  # noqa: E731
    yield "GET", f"{DV}/train-jobs?limit=999", None, _jobs
    yield "GET", f"{DV}/train-jobs?limit=2&offset=1", None, lambda a: (a[0], a[1]["total"])
    yield "POST", f"{API}/lineagemgr/lineages", {}, same
    yield "POST", f"{API}/optimizer/targets/search", {}, same
    body = client.get(f"{DV}/train-jobs?limit=999").get_json()
    for job in sorted(body["train_jobs"], key=lambda j: j["train_id"]):
        tid = job["train_id"]
        yield "GET", f"{DV}/plugins?{_q(train_id=tid)}", None, same
        yield "GET", f"{API}/datasets/dataset_graph?{_q(train_id=tid)}", None, same
        yield "GET", f"{DV}/landscape/intervals?{_q(train_id=tid)}", None, same
        yield "GET", f"{DV}/landscape/landscapes?{_q(train_id=tid, type='final')}", None, same
        yield "GET", f"{API}/profile/dirs?{_q(train_id=tid)}", None, same
        plugins = client.get(f"{DV}/plugins?{_q(train_id=tid)}").get_json().get("plugins", {})
        for plugin, tags in sorted(plugins.items()):
            yield "GET", f"{DV}/single-job?{_q(train_id=tid, plugin_name=plugin)}", None, same
            for tag in tags:
                yield from _tag_requests(client, tid, plugin, tag)
        intervals = client.get(f"{DV}/landscape/intervals?{_q(train_id=tid)}").get_json()
        for interval in (intervals or {}).get("intervals", []):
            query = _q(train_id=tid, type="interval", interval_id=interval["id"])
            yield "GET", f"{DV}/landscape/landscapes?{query}", None, same
        for profiler in client.get(f"{API}/profile/dirs?{_q(train_id=tid)}").get_json().get("profilers", []):
            yield from _profiler_requests(tid, profiler["profile"])


def _tag_requests(client: FlaskClient, tid: str, plugin: str, tag: str
                  ) -> Iterator[tuple[str, str, Any, Callable[[Answer], Answer]]]:
    same: Callable[[Answer], Answer] = lambda a: a  # noqa: E731
    if plugin == "scalar":
        yield "GET", f"{DV}/scalar/metadata?{_q(train_id=tid, tag=tag)}", None, same
        yield "GET", f"{DV}/scalars?{_q(train_id=tid, tag=tag)}", None, same
    elif plugin == "image":
        url = f"{DV}/image/metadata?{_q(train_id=tid, tag=tag)}"
        yield "GET", url, None, same
        for meta in client.get(url).get_json().get("metadatas", []):
            yield "GET", f"{DV}/image/single-image?{_q(train_id=tid, tag=tag, step=meta['step'])}", None, same
    elif plugin == "histogram":
        yield "GET", f"{DV}/histograms?{_q(train_id=tid, tag=tag)}", None, same
    elif plugin == "tensor":
        url = f"{DV}/tensors?{_q(train_id=tid, tag=tag, detail='stats')}"
        yield "GET", url, None, same
        for row in client.get(url).get_json().get("tensors", []):
            for value in row.get("values", []):
                query = _q(train_id=tid, tag=tag, detail="histogram", step=value["step"])
                yield "GET", f"{DV}/tensors?{query}", None, same
    elif plugin == "graph":
        yield "GET", f"{DV}/graphs/nodes?{_q(train_id=tid, tag=tag)}", None, same
        yield "GET", f"{DV}/graphs/nodes/names?{_q(train_id=tid, tag=tag, search='')}", None, same
        yield "GET", f"{DV}/graphs/nodes/all?{_q(train_id=tid, tag=tag)}", None, same


def _profiler_requests(tid: str, profile: str) -> Iterator[tuple[str, str, Any, Callable[[Answer], Answer]]]:
    same: Callable[[Answer], Answer] = lambda a: a  # noqa: E731
    q = _q(train_id=tid, profile=profile)
    directory = _q(dir=tid)
    for path in ("devices", "profile_info", "overview", "summary/propose", "memory-usage", "op-types",
                 "step-trace-time", "communication", "memory-record"):
        yield "GET", f"{API}/profile/{path}?{q}", None, same
    for path in ("timeline-summary", "timeline", "memory-summary", "training-trace/graph", "overview",
                 "memory-usage"):
        yield "GET", f"{API}/profile/{path}?{directory}", None, same
    for op_type in ("cpu_op_type", "cpu_op_info", "aicore_type", "aicore_detail"):
        yield "POST", f"{API}/profile/ops/search?{q}", {"op_type": op_type}, same


def test_every_answer_over_s3_equals_the_answer_over_the_local_dir(s3_fixtures_app: Flask,
                                                                    local_fixtures_app: Flask) -> None:
    local, remote = local_fixtures_app.test_client(), s3_fixtures_app.test_client()
    assert _jobs(_answer(remote, "GET", f"{DV}/train-jobs?limit=999")) == _jobs(
        _answer(local, "GET", f"{DV}/train-jobs?limit=999"))
    compared, differing = 0, []
    kinds: set[str] = set()
    for method, url, body, normal in _requests(local):
        want, got = normal(_answer(local, method, url, body)), normal(_answer(remote, method, url, body))
        compared += 1
        kinds.add(url.split("?")[0].removeprefix(API))
        if got != want:
            differing.append(f"{method} {url}: local {str(want)[:300]} / s3 {str(got)[:300]}")
    assert not differing, f"{len(differing)} of {compared} answers differ:\n" + "\n".join(differing[:20])
    # the comparison really covered every kind of data the fixtures hold
    assert {"/datavisual/scalar/metadata", "/datavisual/image/single-image", "/datavisual/histograms",
            "/datavisual/tensors", "/datavisual/graphs/nodes", "/datavisual/landscape/landscapes",
            "/datasets/dataset_graph", "/profile/timeline", "/profile/ops/search"} <= kinds
    assert compared > 200


def test_summary_files_and_sizes_listed_over_s3_equal_the_disk(s3_fixtures_app: Flask) -> None:
    """train-jobs over S3 names every summary/lineage file the disk holds (MANIFEST's file lists)."""
    client = s3_fixtures_app.test_client()
    manifest = json.loads((FIXTURES / "MANIFEST.json").read_text())
    jobs = {j["train_id"]: j for j in client.get(f"{DV}/train-jobs?limit=999").get_json()["train_jobs"]}
    for name, run in manifest["runs"].items():
        if not run["discoverable_by_mindinsight"] or "/" in name:
            continue
        summary = {f for f, v in run["files"].items() if v.get("kind") in ("summary", "fake_summary")}
        assert f"./{name}" in jobs, name
        assert jobs[f"./{name}"]["summary_files"] == len(summary), name


def test_nested_fixture_run_is_found_over_s3_with_max_depth(s3_server: S3Server, s3_fixtures_url: str,
                                                             tmp_path: Path) -> None:
    client = s3_app(s3_server, s3_fixtures_url, tmp_path / "ws", max_depth=2).test_client()
    ids = {j["train_id"] for j in client.get(f"{DV}/train-jobs?limit=999").get_json()["train_jobs"]}
    assert "./nested/deep_run" in ids
    shallow = s3_app(s3_server, s3_fixtures_url, tmp_path / "ws2").test_client()
    assert "./nested/deep_run" not in {
        j["train_id"] for j in shallow.get(f"{DV}/train-jobs?limit=999").get_json()["train_jobs"]}
