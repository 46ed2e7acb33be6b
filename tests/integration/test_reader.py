"""`mindinsight_clone.reader`: DataFrames equal to the server's full-resolution answers for the same runs and tags.

Runs are written with the project's writers (MindSpore `summary/writer.py`, TensorBoard `summary/tfevents_writer.py`)
with more steps than the server's default reservoirs keep, and read in place from ../shared/fixtures/mindspore.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from mindinsight_clone import reader
from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from mindinsight_clone.summary.tfevents_writer import TfeventsWriter
from mindinsight_clone.summary.writer import SummaryWriter
from tests.s3_server import S3Server

pd = pytest.importorskip("pandas")

P = "/v1/mindinsight/datavisual"
FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "mindspore"
STEPS = 1_500  # more than the server's 1,000-sample scalar reservoir
EVERY = {"image_samples": 10_000, "histogram_samples": 10_000, "tensor_samples": 10_000, "text_samples": 10_000}


def _write_runs(base: Path) -> None:
    rng = np.random.default_rng(3)
    with SummaryWriter(base / "ms", timestamp=1_700_000_000, host="h") as w:
        for step in range(1, STEPS + 1):
            w.add_scalar("loss", float(np.exp(-step / 500)), step)
            w.add_scalar("lr", 0.1, step)
            if step % 25 == 0:  # 60 histograms (reservoir: 50), 12 images (reservoir: 10)
                w.add_histogram("w", rng.standard_normal(100), step)
            if step % 125 == 0:
                w.add_image("img", rng.integers(0, 255, (1, 3, 4, 5), dtype=np.uint8), step)
                w.add_tensor("t", np.arange(6, dtype=np.float32).reshape(2, 3) * step, step)
    with TfeventsWriter(base / "tb", timestamp=1_700_000_100, host="h") as t:
        for step in range(STEPS):
            t.add_scalar("train/loss", 1.0 / (step + 1), step, wall_time=1_700_000_100.0 + step)
            if step % 100 == 0:  # 15 texts (reservoir: 10)
                t.add_text("note", f"step **{step}**", step, wall_time=1_700_000_100.0 + step)


def _client(base: Path, workspace: Path) -> FlaskClient:
    settings = settings_for_tests(summary_base_dir=str(base), workspace=str(workspace), reload_interval=0, **EVERY)
    app = create_app(settings, start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app.test_client()


def _get(client: FlaskClient, path: str, **params: Any) -> Any:
    resp = client.get(f"{P}/{path}", query_string=params)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def _api_scalars(client: FlaskClient, run: str, tag: str) -> list[tuple[int, float, float]]:
    """The full-resolution window (docs/point-store.md): every stored point when `points` >= their number."""
    body = _get(client, "scalar/metadata", train_id=run, tag=tag, points=100_000)
    assert body["window"]["exact"] is True
    return [(p["step"], p["wall_time"], p["value"]) for p in body["metadatas"]]


def _rows(frame: Any, run: str, tag: str, columns: list[str]) -> list[tuple[Any, ...]]:
    part = frame[(frame["run"] == run) & (frame["tag"] == tag)]
    return list(part[columns].itertuples(index=False, name=None))


def _same(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]]) -> bool:
    """Equal, NaN equal to NaN (the API sends NaN values as NaN too)."""
    def key(row: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple("nan" if isinstance(v, float) and math.isnan(v) else v for v in row)
    return [key(r) for r in a] == [key(r) for r in b]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, FlaskClient]:
    tmp = tmp_path_factory.mktemp("reader")
    _write_runs(tmp / "base")
    return tmp / "base", _client(tmp / "base", tmp / "ws")


def test_scalars_are_every_point_and_equal_the_full_resolution_window(written: tuple[Path, FlaskClient]) -> None:
    base, client = written
    frame = reader.read_scalars(base)
    assert list(frame.columns) == ["run", "tag", "step", "wall_time", "value"]
    assert str(frame["step"].dtype) == "int64" and str(frame["value"].dtype) == "float64"
    jobs = {job["train_id"] for job in _get(client, "train-jobs", limit=100)["train_jobs"]}
    assert set(frame["run"]) == jobs == {"./ms", "./tb"}
    for run, tag in [("./ms", "loss/scalar"), ("./ms", "lr/scalar"), ("./tb", "train/loss/scalar")]:
        got = _rows(frame, run, tag, ["step", "wall_time", "value"])
        assert len(got) == STEPS
        assert _same(got, _api_scalars(client, run, tag))
    assert sorted(set(zip(frame["run"], frame["tag"], strict=True))) == [
        ("./ms", "loss/scalar"), ("./ms", "lr/scalar"), ("./tb", "train/loss/scalar")]


def test_filters_by_run_and_tag(written: tuple[Path, FlaskClient]) -> None:
    base, _ = written
    frame = reader.read_scalars(base, runs=["ms"], tags=["loss/scalar"])
    assert set(frame["run"]) == {"./ms"} and set(frame["tag"]) == {"loss/scalar"} and len(frame) == STEPS
    assert len(reader.read_scalars(base / "tb")) == STEPS  # a run dir itself: run "./"
    assert set(reader.read_scalars(base / "tb")["run"]) == {"./"}
    with pytest.raises(FileNotFoundError):
        reader.read_scalars(base / "missing")


def test_histograms_images_tensors_text_keep_every_step(written: tuple[Path, FlaskClient]) -> None:
    base, client = written  # the server here keeps every step too (EVERY): its answers are the reference
    hist = reader.read_histograms(base)
    api = _get(client, "histograms", train_id="./ms", tag="w/histogram")["histograms"]
    steps = hist.groupby("step", sort=True)
    assert [(s, g["wall_time"].iloc[0]) for s, g in steps] == [(h["step"], h["wall_time"]) for h in api]
    assert len(api) == STEPS // 25
    assert all(g["count"].sum() == 100 for _, g in steps)

    images = reader.read_images(base)
    api = _get(client, "image/metadata", train_id="./ms", tag="img/image")["metadatas"]
    assert _rows(images, "./ms", "img/image", ["step", "wall_time", "width", "height"]) == [
        (m["step"], m["wall_time"], m["width"], m["height"]) for m in api]
    assert len(api) == STEPS // 125 and (images["bytes"] > 0).all()

    tensors = reader.read_tensors(base)
    assert list(tensors["step"]) == list(range(125, STEPS + 1, 125))
    last = tensors.iloc[-1]
    assert last["dims"] == (2, 3) and last["data_type"] == "DT_FLOAT32"
    np.testing.assert_array_equal(last["value"], np.arange(6, dtype=np.float32).reshape(2, 3) * STEPS)

    text = reader.read_text(base)
    tag = text["tag"].iloc[0]
    api = _get(client, "text", train_id="./tb", tag=tag)["texts"]
    assert _rows(text, "./tb", tag, ["step", "wall_time", "text"]) == [
        (t["step"], t["wall_time"], t["value"]) for t in api]
    assert list(text["step"]) == list(range(0, STEPS, 100))
    assert text["text"].iloc[-1] == "step **1400**"


@pytest.mark.skipif(not (FIXTURES / "MANIFEST.json").exists(), reason="../shared/fixtures/mindspore is absent")
def test_mindspore_fixtures_equal_the_server(tmp_path: Path) -> None:
    client = _client(FIXTURES, tmp_path / "ws")
    frame = reader.read_scalars(FIXTURES)
    jobs = {job["train_id"] for job in _get(client, "train-jobs", limit=100)["train_jobs"]}
    assert set(frame["run"]) <= jobs and len(set(frame["run"])) >= 3
    for (run, tag), part in frame.groupby(["run", "tag"], sort=True):
        rows = list(part[["step", "wall_time", "value"]].itertuples(index=False, name=None))
        assert _same(rows, _api_scalars(client, run, tag)), (run, tag)
    images = reader.read_images(FIXTURES)
    for (run, tag), part in images.groupby(["run", "tag"], sort=True):
        api = _get(client, "image/metadata", train_id=run, tag=tag)["metadatas"]
        assert [m["step"] for m in api] == list(part["step"]), (run, tag)


def test_s3_url_with_storage_options(s3_server: S3Server, written: tuple[Path, FlaskClient]) -> None:
    base, client = written
    bucket = s3_server.bucket("reader")
    s3_server.upload_tree(base / "ms", bucket, "runs/ms")
    frame = reader.read_scalars(f"s3://{bucket}/runs", storage_options=s3_server.storage_options,
                                tags=["loss/scalar"])
    assert set(frame["run"]) == {"./ms"}
    assert _same(list(frame[["step", "wall_time", "value"]].itertuples(index=False, name=None)),
                 _api_scalars(client, "./ms", "loss/scalar"))


def test_without_pandas_the_error_says_what_to_install(written: tuple[Path, FlaskClient],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)  # `import pandas` raises ImportError
    with pytest.raises(ImportError, match=r"mindinsight-clone\[reader\]"):
        reader.read_scalars(written[0])
