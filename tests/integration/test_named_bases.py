"""Several named summary base dirs (`--summary-base-dir a=/x,b=/y`) and `--run-filter`, through create_app over
real files: ids `./<name>/<run>`, data, lineage and profiler of every base, path tricks refused, filter counts."""

from __future__ import annotations

import json
import logging
import shutil
import time
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from mindinsight_clone.store.data_manager import DataManager
from mindinsight_clone.store.discovery import NotifierGroup
from tests.conftest import FIXTURES, free_port, require_shared, run_cli
from tests.remote_base import s3_app
from tests.s3_server import S3Server
from tests.unit.analyzers.lineage.builders import write_run
from tests.unit.store.summary_files import scalar_run

API = "/v1/mindinsight"
DV = f"{API}/datavisual"


def _app(base_dir: str, workspace: Path, **overrides: Any) -> Flask:
    app = create_app(settings_for_tests(summary_base_dir=base_dir, workspace=str(workspace), reload_interval=0,
                                        **overrides), start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a_dir", tmp_path / "b_dir"
    scalar_run(a / "run1", range(1, 4), ["loss"])
    scalar_run(b / "run2", range(1, 6), ["acc"])
    scalar_run(b, range(1, 3), ["root"])  # a run at the root of base b: ./b
    write_run(a, "run1", 1_700_000_100, lr=0.1)
    write_run(b, "run2", 1_700_000_200, lr=0.2)
    scalar_run(tmp_path / "outside", range(1, 3), ["secret"])
    return a, b


def _ids(client: FlaskClient) -> list[str]:
    body = client.get(f"{DV}/train-jobs?offset=0&limit=100").get_json()
    return sorted(job["train_id"] for job in body["train_jobs"])


@pytest.fixture
def named(tmp_path: Path) -> FlaskClient:
    a, b = _tree(tmp_path)
    if (FIXTURES / "profiler_cpu").is_dir():
        shutil.copytree(FIXTURES / "profiler_cpu", b / "prof")
    return _app(f"a={a},b={b}", tmp_path / "ws").test_client()


def test_runs_of_every_base_are_listed_and_answer(named: FlaskClient) -> None:
    body = named.get(f"{DV}/train-jobs?offset=0&limit=100").get_json()
    ids = {job["train_id"] for job in body["train_jobs"]}
    assert {"./a/run1", "./b/run2", "./b"} <= ids and body["name"] == "a,b"
    assert "filtered_runs" not in body and "omitted_runs" not in body
    for tid, tag, steps in (("./a/run1", "loss", 3), ("./b/run2", "acc", 5), ("./b", "root", 2)):
        answer = named.get(f"{DV}/scalar/metadata?train_id={quote(tid)}&tag={tag}/scalar")
        assert answer.status_code == 200, answer.get_json()
        assert [m["step"] for m in answer.get_json()["metadatas"]] == list(range(1, steps + 1))
    lineages = named.post(f"{API}/lineagemgr/lineages", data="{}", content_type="application/json").get_json()
    dirs = {row["summary_dir"]: row for row in lineages["object"]}
    assert {"./a/run1", "./b/run2"} <= set(dirs) and "./b" not in dirs
    assert dirs["./b/run2"]["model_lineage"]["learning_rate"] == pytest.approx(0.2)


@pytest.mark.parametrize("train_id", ["./c/run1", "./", "./a/../b/run2", "./../outside", "/etc", "./a/run1/..",
                                      "./outside", "a/run1"])
def test_path_tricks_and_unknown_names_are_refused(named: FlaskClient, train_id: str) -> None:
    answer = named.get(f"{DV}/scalar/metadata?train_id={quote(train_id)}&tag=secret/scalar")
    assert answer.status_code in (400, 404)
    assert "secret" not in answer.get_data(as_text=True).replace("secret/scalar", "")
    plugins = named.get(f"{DV}/plugins?train_id={quote(train_id)}")
    assert plugins.status_code in (400, 404)
    profiler = named.get(f"{API}/profile/devices?train_id={quote(train_id)}&profile=profiler")
    assert profiler.status_code in (400, 404)


def test_a_profiler_job_under_one_base_is_found(named: FlaskClient) -> None:
    require_shared(FIXTURES / "profiler_cpu")
    jobs = {j["train_id"]: j for j in named.get(f"{DV}/train-jobs?offset=0&limit=100").get_json()["train_jobs"]}
    assert jobs["./b/prof"]["profiler_type"] == "cpu"
    answer = named.get(f"{API}/profile/devices?train_id=./b/prof&profile=profiler")
    assert answer.status_code == 200 and answer.get_json(), answer.get_json()
    assert named.get(f"{API}/profile/devices?train_id=./a/prof&profile=profiler").status_code in (400, 404)


def test_run_filter_leaves_runs_out_and_says_how_many(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="mindinsight_clone.store.data_manager")
    a, b = _tree(tmp_path)
    client = _app(f"a={a},b={b}", tmp_path / "ws", run_filter=r"^(a/|b/run)").test_client()
    body = client.get(f"{DV}/train-jobs?offset=0&limit=100").get_json()
    assert sorted(j["train_id"] for j in body["train_jobs"]) == ["./a/run1", "./b/run2"]
    assert body["filtered_runs"] == {"count": 1, "setting": "run_filter", "pattern": r"^(a/|b/run)"}
    assert "1 runs do not match run_filter" in caplog.text
    assert client.get(f"{DV}/plugins?train_id=./b").status_code in (400, 404)  # left out: not loaded
    lineages = client.post(f"{API}/lineagemgr/lineages", data="{}", content_type="application/json").get_json()
    assert {row["summary_dir"] for row in lineages["object"]} == {"./a/run1", "./b/run2"}
    # one unnamed base: the filter sees the run path without './'
    single = _app(str(b), tmp_path / "ws2", run_filter="run").test_client()
    body = single.get(f"{DV}/train-jobs?offset=0&limit=100").get_json()
    assert [j["train_id"] for j in body["train_jobs"]] == ["./run2"] and body["filtered_runs"]["count"] == 1


def test_one_unnamed_base_keeps_its_ids(tmp_path: Path) -> None:
    _, b = _tree(tmp_path)
    client = _app(str(b), tmp_path / "ws").test_client()
    body = client.get(f"{DV}/train-jobs?offset=0&limit=100").get_json()
    assert sorted(j["train_id"] for j in body["train_jobs"]) == ["./", "./run2"] and body["name"] == "b_dir"


def test_a_local_and_an_s3_base_together(tmp_path: Path, s3_server: S3Server) -> None:
    a, b = _tree(tmp_path)
    s3_server.upload_tree(b, "named", "team/b")
    url = "s3://named/team/b"
    dead = "s3://no-such-bucket/x"
    app = s3_app(s3_server, f"a={a},b={url},dead={dead}", tmp_path / "ws")
    client = app.test_client()
    ids = _ids(client)
    assert {"./a/run1", "./b/run2", "./b"} <= set(ids) and not any(i.startswith("./dead") for i in ids)
    answer = client.get(f"{DV}/scalar/metadata?train_id=./b/run2&tag=acc/scalar").get_json()
    assert [m["step"] for m in answer["metadatas"]] == [1, 2, 3, 4, 5]
    lineages = client.post(f"{API}/lineagemgr/lineages", data=json.dumps({}), content_type="application/json")
    assert {row["summary_dir"] for row in lineages.get_json()["object"]} == {"./a/run1", "./b/run2"}


def test_model_files_of_a_named_base_are_listed_and_read(tmp_path: Path) -> None:
    a, b = _tree(tmp_path)
    (b / "run2" / "net.ir").write_text("# IR entry      : @1_construct\n%1(x) = Add(%para1, %para2)\n")
    client = _app(f"a={a},b={b}", tmp_path / "ws").test_client()
    models = client.get(f"{API}/models/list").get_json()["models"]
    assert [m["model_id"] for m in models] == ["./b/run2/net.ir"]
    text = client.get(f"{API}/models/text?model_id=./b/run2/net.ir")
    assert text.status_code == 200 and "Add" in text.get_data(as_text=True)
    assert client.get(f"{API}/models/text?model_id=./run2/net.ir").status_code in (400, 404)


def test_every_local_base_is_watched(tmp_path: Path) -> None:
    """One watch per local base (NotifierGroup): a run appearing in the second base is listed without waiting
    for the (300 s) reload interval."""
    a, b = _tree(tmp_path)
    dm = DataManager(settings_for_tests(summary_base_dir=f"a={a},b={b}", workspace=str(tmp_path / "ws"),
                                        reload_interval=300))
    dm.start()
    try:
        assert dm.wait_until_loaded(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (dm._notifier is not None and dm._notifier.watching):
            time.sleep(0.02)
        assert isinstance(dm._notifier, NotifierGroup) and len(dm._notifier.notifiers) == 2
        scalar_run(b / "late", range(1, 3), ["loss"])
        while time.monotonic() < deadline and dm.run("./b/late") is None:
            time.sleep(0.05)
        assert dm.run("./b/late") is not None
    finally:
        dm.stop()


def test_start_checks_each_named_base_and_prints_them(tmp_path: Path) -> None:
    """The real CLI: `start` checks every base of the spec (not the spec as one path) and names each."""
    first, second = _tree(tmp_path)
    ws, port = tmp_path / "ws", free_port()
    missing = run_cli("start", "--port", str(port), "--workspace", str(ws), "--summary-base-dir",
                      f"a={first},b={tmp_path / 'nowhere'}")
    assert missing.returncode != 0 and f"Summary base dir {tmp_path / 'nowhere'} does not exist" in missing.stderr
    started = run_cli("start", "--port", str(port), "--workspace", str(ws), "--summary-base-dir",
                      f"a={first},b={second}")
    try:
        assert started.returncode == 0, started.stderr
        assert f"Summary base dirs: a={first}, b={second}" in started.stdout
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/mindinsight/datavisual/train-jobs?limit=50") as r:
            ids = {job["train_id"] for job in json.load(r)["train_jobs"]}
        assert {"./a/run1", "./b/run2"} <= ids
    finally:
        run_cli("stop", "--port", str(port), "--workspace", str(ws))
