"""`GET datavisual/export`: the zip of selected runs holds what the API answers at full resolution (issue 31).

Runs are written with the project's writers, with more steps than the server's reservoirs keep (scalars 1,000,
histograms 50, texts 10), plus a MindSpore lineage file and a TensorBoard add_hparams session.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import math
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from mindinsight_clone import export_bundle, reader
from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from mindinsight_clone.summary.tfevents_writer import TfeventsWriter
from mindinsight_clone.summary.writer import SummaryWriter
from tests.s3_server import S3Server
from tests.unit.analyzers.lineage import builders

P = "/v1/mindinsight/datavisual"
STEPS = 1_500  # more than the server's 1,000-sample scalar reservoir
FORMULA_TAG = "=HYPERLINK(1)"
HAS_PANDAS = importlib.util.find_spec("pandas") is not None


def _write_runs(base: Path) -> None:
    rng = np.random.default_rng(5)
    with SummaryWriter(base / "ms", timestamp=1_700_000_000, host="h") as w:
        for step in range(1, STEPS + 1):
            w.add_scalar("loss", float(np.exp(-step / 500)), step)
            if step % 25 == 0:  # 60 histograms (reservoir: 50)
                w.add_histogram("w", rng.standard_normal(100), step)
    builders.write_lineage(base / "ms", 1_700_000_001, builders.train_event(lr=0.02), builders.eval_event({"Acc": 0.9}))
    with TfeventsWriter(base / "tb", timestamp=1_700_000_100, host="h") as t:
        for step in range(300):
            t.add_scalar(FORMULA_TAG, 1.0 / (step + 1), step, wall_time=1_700_000_100.0 + step)
            if step % 20 == 0:  # 15 texts (reservoir: 10)
                t.add_text("note", f"- step **{step}**\n=1+1", step, wall_time=1_700_000_100.0 + step)
        t.add_hparams({"lr": 0.1, "opt": "adam"}, {"acc": 0.75}, name="session1", wall_time=1_700_000_500.0)


def _client(base: str, workspace: Path, **extra: Any) -> FlaskClient:
    settings = settings_for_tests(summary_base_dir=base, workspace=str(workspace), reload_interval=0, **extra)
    app = create_app(settings, start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app.test_client()


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, FlaskClient]:
    tmp = tmp_path_factory.mktemp("export")
    _write_runs(tmp / "base")
    return tmp / "base", _client(str(tmp / "base"), tmp / "ws")


@pytest.fixture(scope="module")
def bundle(written: tuple[Path, FlaskClient]) -> zipfile.ZipFile:
    resp = written[1].get(f"{P}/export", query_string={"train_ids": "./ms,./tb"})
    assert resp.status_code == 200, resp.get_json()
    return zipfile.ZipFile(io.BytesIO(resp.data))


def _csv(bundle: zipfile.ZipFile, name: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(bundle.read(name).decode())))


def _api(client: FlaskClient, path: str, **params: Any) -> Any:
    resp = client.get(f"{P}/{path}", query_string=params)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def _num(text: str) -> float:
    return float(text)


def test_headers_streaming_and_entries(written: tuple[Path, FlaskClient]) -> None:
    resp = written[1].get(f"{P}/export", query_string={"train_ids": "./ms,./tb"})
    assert resp.status_code == 200
    assert resp.is_streamed and "Content-Length" not in resp.headers  # sent as it is written
    assert resp.mimetype == "application/zip"
    assert resp.headers["Content-Disposition"].startswith('attachment; filename="mindinsight-export-20')
    names = set(zipfile.ZipFile(io.BytesIO(resp.data)).namelist())
    assert names == {"manifest.json", "runs/ms/scalars.csv", "runs/ms/histograms.csv", "runs/ms/lineage.json",
                     "runs/tb/scalars.csv", "runs/tb/text.jsonl", "runs/tb/hparams.json"}


def test_scalars_are_every_step_as_the_full_resolution_window(written: tuple[Path, FlaskClient],
                                                             bundle: zipfile.ZipFile) -> None:
    _, client = written
    rows = _csv(bundle, "runs/ms/scalars.csv")
    assert list(rows[0]) == ["run", "tag", "step", "wall_time", "value"]
    assert len(rows) == STEPS  # every step, not the 1,000 the reservoir keeps
    body = _api(client, "scalar/metadata", train_id="./ms", tag="loss/scalar", points=100_000)
    assert body["window"]["exact"] is True
    api = [(p["step"], p["wall_time"], p["value"]) for p in body["metadatas"]]
    assert [(int(r["step"]), _num(r["wall_time"]), _num(r["value"])) for r in rows] == api
    if HAS_PANDAS:  # the reader's frames too (pandas is an optional extra)
        frame = reader.read_scalars(written[0], runs=["./ms"])
        assert [(int(r["step"]), _num(r["wall_time"]), _num(r["value"])) for r in rows] == list(
            frame[["step", "wall_time", "value"]].itertuples(index=False, name=None))
    assert {(r["run"], r["tag"]) for r in rows} == {("./ms", "loss/scalar")}


def test_text_cells_that_a_spreadsheet_would_run_are_neutralised(bundle: zipfile.ZipFile) -> None:
    rows = _csv(bundle, "runs/tb/scalars.csv")
    assert {r["tag"] for r in rows} == {"'" + FORMULA_TAG + "/scalar"}  # as the scalar CSV answers do
    assert len(rows) == 300


def test_histograms_every_step_with_bucket_edges(written: tuple[Path, FlaskClient], bundle: zipfile.ZipFile) -> None:
    base, client = written
    rows = _csv(bundle, "runs/ms/histograms.csv")
    assert list(rows[0]) == ["run", "tag", "step", "wall_time", "left", "right", "width", "count"]
    assert len({r["step"] for r in rows}) == STEPS // 25  # 60: more than the 50 the server keeps
    got = [(int(r["step"]), _num(r["wall_time"]), _num(r["left"]), _num(r["width"]), _num(r["count"]))
           for r in rows]
    for r in rows[:50]:
        assert math.isclose(_num(r["right"]), _num(r["left"]) + _num(r["width"]))
    pd = pytest.importorskip("pandas")  # the reader's frames (pandas is an optional extra)
    del pd
    frame = reader.read_histograms(base, runs=["./ms"])
    assert got == list(frame[["step", "wall_time", "left", "width", "count"]].itertuples(index=False, name=None))
    # the API's kept steps (a sample, re-binned for display) are among them
    kept = {(h["step"], h["wall_time"]) for h in _api(client, "histograms", train_id="./ms", tag="w/histogram")
            ["histograms"]}
    assert kept < {(step, wall_time) for step, wall_time, *_ in got}


def test_text_whole_and_every_step(written: tuple[Path, FlaskClient], bundle: zipfile.ZipFile) -> None:
    _, client = written
    lines = [json.loads(line) for line in bundle.read("runs/tb/text.jsonl").decode().splitlines()]
    assert len(lines) == 15  # the reservoir keeps 10
    assert lines[0] == {"run": "./tb", "tag": "note/text_summary", "step": 0, "wall_time": 1_700_000_100.0,
                        "text": "- step **0**\n=1+1"}  # JSON: whole and unchanged
    kept = _api(client, "text", train_id="./tb", tag="note/text_summary")
    texts = {(x["step"], x["text"]) for x in lines}
    assert {(v["step"], v["value"]) for v in kept["texts"]} <= texts
    pytest.importorskip("pandas")
    frame = reader.read_text(written[0], runs=["./tb"])
    assert [(x["tag"], x["step"], x["wall_time"], x["text"]) for x in lines] == list(
        frame[["tag", "step", "wall_time", "text"]].itertuples(index=False, name=None))


def test_failing_lineage_is_said_in_the_manifest(written: tuple[Path, FlaskClient]) -> None:
    def broken(train_id: str) -> None:
        raise OSError("store down")
    runs = reader.list_runs(written[0])
    ms = [r for r in runs if r.train_id == "./ms"]
    sources = export_bundle.Sources(hparams=lambda tid: None, lineage=broken)
    data = b"".join(export_bundle.stream_zip(ms, ("scalars", "lineage"), sources))
    manifest = json.loads(zipfile.ZipFile(io.BytesIO(data)).read("manifest.json"))
    assert manifest["runs"][0]["left_out"] == [{"kind": "lineage", "reason": "the server could not answer (OSError)"}]
    assert manifest["counts"]["scalars"] == STEPS


def test_hparams_and_lineage_are_the_api_answers(written: tuple[Path, FlaskClient], bundle: zipfile.ZipFile) -> None:
    _, client = written
    assert json.loads(bundle.read("runs/tb/hparams.json")) == _api(client, "hparams", train_id="./tb")
    lineage = client.post("/v1/mindinsight/lineagemgr/lineages", json={"summary_dir": {"eq": "./ms"}}).get_json()
    assert json.loads(bundle.read("runs/ms/lineage.json")) == lineage["object"][0]
    assert lineage["object"][0]["model_lineage"]["learning_rate"] == 0.02


def test_manifest_counts_and_what_was_left_out(bundle: zipfile.ZipFile) -> None:
    manifest = json.loads(bundle.read("manifest.json"))
    assert manifest["server"] == "mindinsight-clone" and manifest["version"]
    assert [r["train_id"] for r in manifest["runs"]] == ["./ms", "./tb"]
    assert manifest["counts"]["scalars"] == STEPS + 300 and manifest["counts"]["text"] == 15
    ms = manifest["runs"][0]
    assert ms["folder"] == "runs/ms" and ms["files"]["scalars"] == {"file": "scalars.csv", "tags": 1, "rows": STEPS}
    assert {x["kind"] for x in ms["left_out"]} == {"text", "hparams"}
    assert "images" in manifest["not_exported"]


def test_kinds_select_files(written: tuple[Path, FlaskClient]) -> None:
    resp = written[1].get(f"{P}/export", query_string={"train_ids": "./ms", "kinds": "lineage"})
    assert resp.status_code == 200
    assert set(zipfile.ZipFile(io.BytesIO(resp.data)).namelist()) == {"manifest.json", "runs/ms/lineage.json"}


@pytest.mark.parametrize(("query", "code", "words"), [
    ({}, "50540003", "train_ids"),
    ({"train_ids": ""}, "50540003", "train_ids"),
    ({"train_ids": "./ms,./nope"}, "50545005", "data manager"),
    ({"train_ids": "./ms", "kinds": "scalars,images"}, "50540002", "unknown: images"),
    ({"train_ids": ",".join(f"./r{i}" for i in range(export_bundle.MAX_RUNS + 1))}, "50540002", "at most 20"),
])
def test_errors(written: tuple[Path, FlaskClient], query: dict[str, str], code: str, words: str) -> None:
    resp = written[1].get(f"{P}/export", query_string=query)
    assert resp.status_code == 400 and resp.mimetype == "application/json"
    body = resp.get_json()
    assert body["error_code"] == code and words in body["error_msg"], body


@pytest.mark.parametrize("trick", ["./../export", "./ms/../tb", "../base/ms", "/etc", "./ms/..", "./ms\\..\\tb",
                                   "./%2e%2e/ms", "./ms\x00"])
def test_path_tricks_are_refused(written: tuple[Path, FlaskClient], trick: str) -> None:
    resp = written[1].get(f"{P}/export", query_string={"train_ids": f"./tb,{trick}"})
    assert resp.status_code == 400 and resp.get_json()["error_code"] in ("50545005", "50545011"), resp.get_json()


def test_s3_base_dir(s3_server: S3Server, written: tuple[Path, FlaskClient], tmp_path: Path) -> None:
    base, client = written
    bucket = s3_server.bucket("export")
    s3_server.upload_tree(base / "ms", bucket, "runs/ms")
    remote = _client(f"s3://{bucket}/runs", tmp_path / "ws", storage_options=json.dumps(s3_server.storage_options))
    resp = remote.get(f"{P}/export", query_string={"train_ids": "./ms", "kinds": "scalars,lineage"})
    assert resp.status_code == 200, resp.get_json()
    got = zipfile.ZipFile(io.BytesIO(resp.data))
    assert got.read("runs/ms/scalars.csv") == zipfile.ZipFile(io.BytesIO(
        client.get(f"{P}/export", query_string={"train_ids": "./ms", "kinds": "scalars"}).data)).read(
        "runs/ms/scalars.csv")
    assert json.loads(got.read("runs/ms/lineage.json"))["summary_dir"] == "./ms"
