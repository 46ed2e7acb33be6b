"""create_app over an s3:// base dir (moto on loopback) answers as it does over the same runs on disk.

The runs are made by the project's own writer (`scripts/make_demo_data`: scalars, images, histograms, tensors,
graphs, lineage, landscape, an Ascend profile) plus a `.pb` graph file, uploaded to the loopback S3 server.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.record_reader import frame_record
from mindinsight_clone.proto import anf_ir_pb2
from mindinsight_clone.server.app import create_app
from mindinsight_clone.server.services import EXTENSION_KEY
from mindinsight_clone.store.data_manager import DataManager
from mindinsight_clone.summary import tb_demo
from tests.conftest import REPO
from tests.s3_server import S3Server, running_s3_server
from tests.unit.store.summary_files import scalar_event, version_event, write_records

API = "/v1/mindinsight"
BUCKET = "app"
PB_RUN = "graph_pb"


def _make_runs(root: Path) -> Path:
    subprocess.run([sys.executable, str(REPO / "scripts" / "make_demo_data"), str(root), "--steps", "300"],
                   check=True, cwd=REPO, capture_output=True)
    run = root / PB_RUN
    run.mkdir()
    model = anf_ir_pb2.ModelProto()  # a .pb file: MindSpore's ModelProto with one graph
    model.graph.name = "pb_graph"
    node = model.graph.node.add(name="1", op_type="ReLU", scope="Default/net")
    node.full_name = "Default/net/ReLU-op1"
    (run / "ms_output_after_hwopt_0.pb").write_bytes(model.SerializeToString())
    return root


def _app(base: str, workspace: Path, options: dict[str, Any] | None = None) -> Flask:
    settings = settings_for_tests(summary_base_dir=base, workspace=str(workspace), reload_interval=0,
                                  storage_options=json.dumps(options or {}))
    app = create_app(settings, start_background=False)
    _dm(app).reload()
    return app


def _dm(app: Flask) -> DataManager:
    manager: DataManager = app.extensions[EXTENSION_KEY].data_manager
    return manager


@pytest.fixture(scope="module")
def apps(s3_server: S3Server, tmp_path_factory: pytest.TempPathFactory) -> tuple[FlaskClient, FlaskClient]:
    root = _make_runs(tmp_path_factory.mktemp("runs") / "base")
    s3_server.upload_tree(root, BUCKET, "team/summaries")
    local = _app(str(root), tmp_path_factory.mktemp("ws-local"))
    remote = _app(f"s3://{BUCKET}/team/summaries", tmp_path_factory.mktemp("ws-s3"), s3_server.storage_options)
    assert storage.is_remote(_dm(remote).base_dir)
    return local.test_client(), remote.test_client()


def _get(client: FlaskClient, path: str) -> Any:
    resp = client.get(API + path)
    assert resp.status_code == 200, (path, resp.get_data(as_text=True)[:300])
    return resp.get_json() if resp.is_json else resp.get_data()


def _jobs(client: FlaskClient) -> dict[str, dict[str, Any]]:
    body = _get(client, "/datavisual/train-jobs?limit=999")
    return {j["train_id"]: j for j in body["train_jobs"]}


TIMES = ("update_time", "create_time")


def test_train_jobs_are_the_same(apps: tuple[FlaskClient, FlaskClient]) -> None:
    local, remote = (_jobs(c) for c in apps)
    assert set(remote) == set(local) and len(remote) == 6 + len(tb_demo.RUNS)
    for tid, job in local.items():
        mine = {k: v for k, v in remote[tid].items() if k not in TIMES}
        assert mine == {k: v for k, v in job.items() if k not in TIMES}, tid
    assert remote["./resnet_lr0.05_bs128_momentum"]["profiler_type"] == "ascend"
    assert remote[f"./{PB_RUN}"]["graph_files"] == 1


def test_every_plugin_answers_the_same(apps: tuple[FlaskClient, FlaskClient]) -> None:
    local, remote = apps
    seen = set()
    for tid in _jobs(local):
        plugins = _get(local, f"/datavisual/plugins?train_id={quote(tid)}")
        assert _get(remote, f"/datavisual/plugins?train_id={quote(tid)}") == plugins
        for plugin, tags in plugins["plugins"].items():
            for tag in tags[:2]:
                q = f"train_id={quote(tid)}&tag={quote(tag)}"
                paths = {
                    "scalar": [f"/datavisual/scalar/metadata?{q}"],
                    "image": [f"/datavisual/image/metadata?{q}", f"/datavisual/image/single-image?{q}&step=-1"],
                    "histogram": [f"/datavisual/histograms?{q}"],
                    "tensor": [f"/datavisual/tensors?{q}&detail=stats"],
                    "graph": [f"/datavisual/graphs/nodes?{q}"],
                    "text": [f"/datavisual/text?{q}"],
                    "pr_curve": [f"/datavisual/pr-curves?{q}"],
                    "audio": [f"/datavisual/audio/metadata?{q}"],
                    "mesh": [f"/datavisual/meshes?{q}"],
                    "embedding": [f"/datavisual/embedding?{q}", f"/datavisual/embeddings?train_id={quote(tid)}"],
                    "custom_scalars": [f"/datavisual/custom-scalars?train_id={quote(tid)}"],
                    "hparams": [f"/datavisual/hparams?train_id={quote(tid)}"],
                }.get(plugin, [])
                for path in paths:
                    assert _get(remote, path) == _get(local, path), path
                    seen.add(plugin)
    assert {"scalar", "image", "histogram", "tensor", "graph", "text", "pr_curve", "audio", "mesh", "embedding",
            "custom_scalars", "hparams"} <= seen
    pb = _get(remote, f"/datavisual/graphs/nodes?train_id=./{PB_RUN}&tag=ms_output_after_hwopt_0.pb")
    assert [(n["name"], n["subnode_count"]) for n in pb["nodes"]] == [("Default", 1)]  # read from the .pb object


def test_lineage_and_dataset_graph_are_the_same(apps: tuple[FlaskClient, FlaskClient]) -> None:
    local, remote = apps
    bodies = [c.post(f"{API}/lineagemgr/lineages", json={}).get_json() for c in apps]
    assert bodies[0]["count"] == 5 and bodies[1] == bodies[0]
    tid = quote("./lenet_lr0.001_bs64_adam")
    graph = _get(remote, f"/datasets/dataset_graph?train_id={tid}")
    assert graph and graph == _get(local, f"/datasets/dataset_graph?train_id={tid}")
    # notes are written locally, in the workspace, keyed by the URL
    put = remote.put(f"{API}/lineagemgr/lineages?train_id={tid}", json={"tag": 3})
    assert put.status_code == 200, put.get_data(as_text=True)
    after = remote.post(f"{API}/lineagemgr/lineages", json={}).get_json()
    tagged = [o for o in after["object"] if o["summary_dir"] == "./lenet_lr0.001_bs64_adam"]
    assert tagged[0]["added_info"]["tag"] == 3


def test_datavisual_requests_make_no_store_requests(s3_server: S3Server,
                                                   apps: tuple[FlaskClient, FlaskClient]) -> None:
    """Listing and reading happen on the reload thread; requests answer from the caches and the registry."""
    _, remote = apps
    before = s3_server.requests_logged()
    jobs = _jobs(remote)
    for tid in jobs:
        plugins = _get(remote, f"/datavisual/plugins?train_id={quote(tid)}")["plugins"]
        for tag in plugins.get("scalar", [])[:1]:
            _get(remote, f"/datavisual/scalar/metadata?train_id={quote(tid)}&tag={quote(tag)}")
        for tag in plugins.get("image", [])[:1]:
            _get(remote, f"/datavisual/image/single-image?train_id={quote(tid)}&tag={quote(tag)}&step=-1")
    _get(remote, "/datavisual/train-jobs?train_id=./resnet_lr0.05_bs128_momentum")  # profiler type: from the scan
    assert remote.get(f"{API}/datavisual/plugins?train_id=./nope").status_code == 400
    assert s3_server.requests_logged() == before


def test_path_tricks_over_the_s3_base_are_refused(apps: tuple[FlaskClient, FlaskClient]) -> None:
    _, remote = apps
    for tid in ("../other", "./..", "./../team", "./s3://other/x", "./%2e%2e", "./lenet_lr0.001_bs64_adam/.."):
        resp = remote.get(f"{API}/datavisual/plugins", query_string={"train_id": tid})
        assert resp.status_code == 400 and resp.get_json()["error_code"] == "50545005", tid


# ---------------------------------------------------------------------- a failing store
def _scalar_run(root: Path) -> None:
    write_records(root / "run" / "events.out.events.summary.100.0.h_MS",
                  [version_event(), *(scalar_event(s, {"loss": s / 10}) for s in range(20))])


def test_a_failing_store_is_a_problem_and_the_server_keeps_serving(tmp_path: Path,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("moto.server")
    _scalar_run(tmp_path / "tree")
    with running_s3_server(tmp_path) as server:
        server.upload_tree(tmp_path / "tree", "failing", "base")
        app = _app("s3://failing/base", tmp_path / "ws", server.storage_options)
        client = app.test_client()
        assert _jobs(client)["./run"]["cache_status"] == "CACHED"
        grown = [version_event(), *(scalar_event(s, {"loss": s / 10}) for s in range(25))]
        server.put("failing", "base/run/events.out.events.summary.100.0.h_MS", b"".join(map(frame_record, grown)))
        _dm(app).reload()
        before = _get(client, "/datavisual/scalar/metadata?train_id=./run&tag=loss/scalar")["metadatas"]
        assert len(before) == 25
    # the store is gone now
    with caplog.at_level(logging.WARNING):
        _dm(app).reload()
        _dm(app).reload()  # a second failing pass logs nothing new
    job = _jobs(client)["./run"]
    assert job["is_integrity"] is False
    assert [p["kind"] for p in job["problems"]] == ["unreadable"] * len(job["problems"]) and job["problems"]
    assert "s3://failing/base" in job["problems"][0]["message"]
    failing = [r for r in caplog.records if "listing failed" in r.getMessage()]
    assert len(failing) == 1
    after = _get(client, "/datavisual/scalar/metadata?train_id=./run&tag=loss/scalar")["metadatas"]
    assert after == before  # what was read is still served
    assert client.get(f"{API}/health").status_code == 200
