"""The profiler endpoints over an `s3://` base dir answer exactly what they answer over the same files on disk.

One base dir is put together in tmp from the real fixtures (Ascend Level0/Level1 jobs, a job with msprof-analyze's
cluster_analysis_output, MindSpore 2.10 CPU sessions, MindInsight's legacy CPU layout with a minddata pipeline
file), served once locally and once from a real S3-compatible server on loopback (moto, `s3_server` fixture) through
create_app. Every request below is asked of both apps and the answers (status and JSON) must be equal; the local
answers are the ones tests/integration/test_ascend_*.py and test_profiler_api.py check against the raw files.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from tests.conftest import FIXTURES, REFERENCE, SHARED, require_shared
from tests.s3_server import S3Server

API = "/v1/mindinsight"
BUCKET = "profiler-seam-api"
ASCEND = SHARED / "fixtures" / "ascend"
CLUSTER_REFERENCE = SHARED / "reference" / "ascend" / "cluster_analysis_output"
SOURCES = {
    "torch_npu_level0": ASCEND / "torch_npu_level0",
    "torch_npu_level1": ASCEND / "torch_npu_level1",
    "profiler_cpu": FIXTURES / "profiler_cpu",
    "profiler_only_legacy_api": FIXTURES / "profiler_only_legacy_api",
    "prof_cpu": REFERENCE / "corpus" / "prof_cpu",
}
# MindInsight's minddata_pipeline_raw_<id>.csv columns (what its MinddataPipelineAnalyser reads)
PIPELINE_HEADER = ["op_id", "op_type", "num_workers", "output_queue_size", "output_queue_average_size",
                   "output_queue_length", "output_queue_usage_rate", "sample_interval", "parent_id", "children_id"]
PIPELINE_ROWS = [
    [0, "Batch", 4, 64, 12.5, 64, 0.195, 10, "", "[1]"],
    [1, "Map", 8, 64, 40.25, 64, 0.629, 10, 0, "[2]"],
    [2, "ImageFolder", 2, 64, 63.0, 64, 0.984, 10, 1, ""],
]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    for source in (*SOURCES.values(), CLUSTER_REFERENCE):
        require_shared(source)
    root = tmp_path_factory.mktemp("profiler_base")
    for job, source in SOURCES.items():
        shutil.copytree(source, root / job, copy_function=shutil.copyfile)  # copies writable, not read-only
    shutil.copytree(ASCEND / "torch_npu_level1", root / "cluster_job", copy_function=shutil.copyfile)
    for path in root.rglob("*"):
        if path.is_dir():
            path.chmod(0o755)
    shutil.copytree(CLUSTER_REFERENCE, root / "cluster_job" / "profiler" / "cluster_analysis_output",
                    copy_function=shutil.copyfile)
    with (root / "prof_cpu" / "profiler" / "minddata_pipeline_raw_0.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(PIPELINE_HEADER)
        writer.writerows(PIPELINE_ROWS)
    # a job whose profiler dir is a symlink (refused locally) and a trace cut mid-event (reported on both sides)
    (root / "linked").mkdir()
    (root / "linked" / "notes.txt").write_text("the profiler dir of this job is a symlink\n")
    (root / "linked" / "profiler").symlink_to(root / "torch_npu_level0" / "profiler")
    cut = next((root / "torch_npu_level0" / "profiler").glob("rank1_*/ASCEND_PROFILER_OUTPUT/trace_view.json"))
    cut.write_bytes(cut.read_bytes()[: cut.stat().st_size // 2])
    return root


def _client(summary_base_dir: str, workspace: Path, options: dict[str, Any] | None = None) -> FlaskClient:
    settings = settings_for_tests(summary_base_dir=summary_base_dir, workspace=str(workspace),
                                  storage_options=json.dumps(options or {}), reload_interval=0)
    return create_app(settings, start_background=False).test_client()


@pytest.fixture(scope="module")
def clients(base: Path, s3_server: S3Server, tmp_path_factory: pytest.TempPathFactory
            ) -> tuple[FlaskClient, FlaskClient]:
    uploaded = s3_server.upload_tree(base, BUCKET, "base")  # regular files only: the symlinked job is absent
    assert uploaded > 50
    local = _client(str(base), tmp_path_factory.mktemp("ws_local"))
    remote = _client(f"s3://{BUCKET}/base", tmp_path_factory.mktemp("ws_s3"), s3_server.storage_options)
    return local, remote


def _ask(client: FlaskClient, method: str, url: str, body: dict[str, Any] | None) -> tuple[int, Any]:
    if method == "POST":
        response = client.post(f"{API}{url}", data=json.dumps(body or {}), content_type="application/json")
    else:
        response = client.get(f"{API}{url}")
    return response.status_code, response.get_json()


def _a(job: str, rank: str | None = None) -> str:
    return f"train_id=./{job}&profile=profiler" + (f"&device_id={rank}" if rank is not None else "")


def _ascend_requests() -> list[tuple[str, str, dict[str, Any] | None]]:
    out: list[tuple[str, str, dict[str, Any] | None]] = []
    for job in ("torch_npu_level0", "torch_npu_level1"):
        out += [("GET", f"/profile/devices?{_a(job)}", None), ("GET", f"/profile/dirs?train_id=./{job}", None),
                ("GET", f"/profile/cluster-step-trace?{_a(job)}", None)]
        for rank in ("0", "1"):
            out += [
                ("GET", f"/profile/step-trace-time?{_a(job, rank)}", None),
                ("GET", f"/profile/memory-record?{_a(job, rank)}&max_points=200&top=10", None),
                ("GET", f"/profile/timeline-summary?dir=./{job}&device_id={rank}", None),
                ("GET", f"/profile/timeline?dir=./{job}&device_id={rank}&start_us=0&end_us=20000&max_events=300",
                 None),
                ("GET", f"/profile/overview?dir=./{job}&device_id={rank}", None),
            ]
            for op_type in ("aicore_type", "aicore_detail", "aicpu_type", "aicpu_detail"):
                out.append(("POST", f"/profile/ops/search?{_a(job)}",
                            {"op_type": op_type, "device_id": rank, "group_condition": {"limit": 15, "offset": 1},
                             "sort_condition": {"name": "op_type", "type": "descending"}}))
    out += [("GET", f"/profile/communication?{_a('torch_npu_level1', r)}", None) for r in ("0", "1")]
    out.append(("GET", f"/profile/cluster-analysis?{_a('cluster_job')}", None))
    return out


def _cpu_requests() -> list[tuple[str, str, dict[str, Any] | None]]:
    out: list[tuple[str, str, dict[str, Any] | None]] = []
    for job in ("profiler_cpu", "profiler_only_legacy_api", "prof_cpu"):
        out += [
            ("GET", f"/profile/devices?{_a(job)}", None),
            ("GET", f"/profile/profile_info?{_a(job)}", None),
            ("GET", f"/profile/dirs?train_id=./{job}", None),
            ("GET", f"/profile/timeline-summary?dir=./{job}&device_id=0", None),
            ("GET", f"/profile/timeline?dir=./{job}&device_id=0&max_events=500", None),
            ("GET", f"/profile/overview?dir=./{job}&device_id=0", None),
            ("GET", f"/profile/memory-summary?dir=./{job}", None),
            ("POST", f"/profile/ops/search?{_a(job)}",
             {"op_type": "cpu_op_type", "sort_condition": {"name": "total_compute_time", "type": "descending"}}),
            ("POST", f"/profile/ops/search?{_a(job)}",
             {"op_type": "cpu_op_info", "group_condition": {"limit": 10, "offset": 0}}),
        ]
    out += [("GET", f"/profile/memory-usage?dir=./{job}&max_points=50", None)
            for job in ("profiler_cpu", "profiler_only_legacy_api")]
    out += [
        ("POST", f"/profile/minddata-pipeline/op-queue?{_a('prof_cpu')}",
         {"device_id": "0", "sort_condition": {"name": "output_queue_usage_rate", "type": "descending"}}),
        ("GET", f"/profile/minddata-pipeline/queue?{_a('prof_cpu')}&device_id=0&op_id=1", None),
        ("POST", f"/profile/minddata-pipeline/op-queue?{_a('profiler_cpu')}", {"device_id": "0"}),
    ]
    return out


# Path tricks and missing things: refused (or not found) the same way over both backends.
REFUSED = [
    ("GET", "/profile/devices?train_id=./../torch_npu_level1&profile=profiler", None),
    ("GET", "/profile/devices?train_id=./torch_npu_level1&profile=..", None),
    ("GET", "/profile/devices?train_id=./torch_npu_level1&profile=../torch_npu_level0", None),
    ("GET", "/profile/devices?train_id=./torch_npu_level1&profile=profiler%2F..", None),
    ("GET", "/profile/devices?train_id=./torch_npu_level1&profile=%00", None),
    ("GET", "/profile/devices?train_id=./torch_npu_level1&profile=missing", None),
    ("GET", "/profile/devices?train_id=./nope&profile=profiler", None),
    ("GET", "/profile/devices?train_id=/etc&profile=profiler", None),
    ("GET", "/profile/devices?train_id=./linked&profile=profiler", None),
    ("GET", "/profile/timeline?dir=./..", None),
    ("GET", "/profile/timeline?dir=%2Fetc", None),
    ("GET", "/profile/timeline-summary?dir=./linked", None),
    ("GET", "/profile/step-trace-time?train_id=./profiler_cpu&profile=profiler&device_id=0", None),
    ("GET", "/profile/dirs?train_id=./../x", None),
    ("GET", "/profile/dirs?train_id=./empty", None),
]


@pytest.mark.parametrize(("method", "url", "body"), _ascend_requests() + _cpu_requests(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_endpoint_over_s3_answers_as_over_the_local_dir(clients: tuple[FlaskClient, FlaskClient], method: str,
                                                        url: str, body: dict[str, Any] | None) -> None:
    local, remote = clients
    status, expected = _ask(local, method, url, body)
    assert status == 200, expected  # a readable answer, so equal answers mean equal data
    assert _ask(remote, method, url, body) == (status, expected)


@pytest.mark.parametrize(("method", "url", "body"), REFUSED, ids=lambda v: v if isinstance(v, str) else "")
def test_path_tricks_are_refused_over_s3_as_locally(clients: tuple[FlaskClient, FlaskClient], method: str,
                                                    url: str, body: dict[str, Any] | None) -> None:
    local, remote = clients
    status, expected = _ask(local, method, url, body)
    assert status >= 400 and expected["error_code"], expected
    assert _ask(remote, method, url, body) == (status, expected)


def test_the_answers_hold_data(clients: tuple[FlaskClient, FlaskClient]) -> None:
    """The compared answers are not empty ones: ranks, kernels, steps, pipeline ops and the cut trace are there."""
    _, remote = clients
    assert _ask(remote, "GET", f"/profile/devices?{_a('torch_npu_level1')}", None)[1]["device_list"] == ["0", "1"]
    kernels = _ask(remote, "POST", f"/profile/ops/search?{_a('torch_npu_level1')}",
                   {"op_type": "aicore_detail", "device_id": "0"})[1]
    with next((ASCEND / "torch_npu_level1" / "profiler").glob("rank0_*/ASCEND_PROFILER_OUTPUT")).joinpath(
            "kernel_details.csv").open(newline="") as handle:
        kernel_rows = [r for r in csv.DictReader(handle) if r["Accelerator Core"] != "AI_CPU"]
    assert kernels["size"] == len(kernel_rows) > 0
    queue = _ask(remote, "POST", f"/profile/minddata-pipeline/op-queue?{_a('prof_cpu')}", {"device_id": "0"})[1]
    assert sorted(row[1] for row in queue["object"]) == sorted(str(r[1]) for r in PIPELINE_ROWS)
    summary = _ask(remote, "GET", "/profile/timeline-summary?dir=./torch_npu_level0&device_id=1", None)[1]
    assert "truncated" in summary["problems"][0]["message"]
    cluster = _ask(remote, "GET", f"/profile/cluster-analysis?{_a('cluster_job')}", None)[1]
    assert cluster.get("available") is True


def test_a_dead_store_gives_clear_errors_and_the_app_keeps_answering(tmp_path: Path) -> None:
    """The store goes away after the profiler was read once (parsed files cached): the endpoints answer
    MindInsight's 4xx errors (no 500, no hang), nothing stale from the cache."""
    pytest.importorskip("moto.server", reason="moto[server] (dev extra) runs the loopback S3 server")
    pytest.importorskip("s3fs", reason="s3fs (the [s3] extra) reads s3:// base dirs")
    require_shared(ASCEND)
    from tests.s3_server import running_s3_server

    with running_s3_server(tmp_path) as server:
        server.upload_tree(ASCEND / "torch_npu_level1", "profiler-seam-dead", "base/job")
        client = _client("s3://profiler-seam-dead/base", tmp_path / "ws", server.storage_options)
        requests = [("GET", f"/profile/step-trace-time?{_a('job', '0')}", None),
                    ("GET", "/profile/timeline-summary?dir=./job&device_id=0", None),
                    ("POST", f"/profile/ops/search?{_a('job')}", {"op_type": "aicore_type", "device_id": "0"})]
        assert all(_ask(client, *request)[0] == 200 for request in requests)
        server.process.terminate()
        server.process.wait(timeout=30)
        for request in requests:
            status, answer = _ask(client, *request)
            assert 400 <= status < 500 and answer["error_code"], (request, status, answer)
