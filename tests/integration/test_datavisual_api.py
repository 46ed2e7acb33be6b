"""The datavisual endpoints through create_app over real summary files written in tmp.

Each deliberate difference from MindInsight 2.3.1 (docs/api.md) has its own test here.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from tests.unit.store.summary_files import (
    histogram_event,
    image_event,
    scalar_event,
    scalar_run,
    summary_name,
    tensor_event,
    version_event,
    write_records,
)

API = "/v1/mindinsight/datavisual"


def _png() -> bytes:
    sig = b"\x89PNG\r\n\x1a\n"
    return sig + b"\x00" * 32


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    base = tmp_path / "base"
    rng = np.random.default_rng(0)
    payloads = [version_event()]
    for s in range(1, 31):
        payloads.append(scalar_event(s, {"loss": 1.0 / s, "acc": s / 30}))
        payloads.append(image_event(s, "input", _png()))
        payloads.append(histogram_event(s, "w", rng.standard_normal(100)))
        payloads.append(tensor_event(s, "feat", rng.standard_normal((2, 3))))
    write_records(base / "run1" / summary_name(1_700_000_000), payloads)
    scalar_run(base / "run2", range(1, 6), ["loss"])
    (tmp_path / "outside").mkdir()
    settings = settings_for_tests(summary_base_dir=str(base), workspace=str(tmp_path / "ws"), reload_interval=0)
    application = create_app(settings, start_background=False)
    application.extensions["mindinsight_clone"].data_manager.reload()
    return application


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def test_train_jobs_listing(client: FlaskClient) -> None:
    body = client.get(f"{API}/train-jobs").get_json()
    assert body["load_status"] == "loaded" and body["name"] == "base" and body["total"] == 2
    job = next(j for j in body["train_jobs"] if j["train_id"] == "./run1")
    assert job["cache_status"] == "CACHED" and job["is_integrity"] is True
    assert job["plugins"]["scalar"] == ["acc/scalar", "loss/scalar"]
    assert set(job) >= {"relative_path", "create_time", "update_time", "summary_files", "lineage_files",
                        "graph_files", "profiler_dir", "profiler_type", "dump_dir"}
    assert "problems" not in job  # additive field only when there are problems
    page = client.get(f"{API}/train-jobs?offset=1&limit=1").get_json()
    assert page["total"] == 2 and len(page["train_jobs"]) == 1
    assert client.get(f"{API}/train-jobs?limit=0").get_json()["error_code"] == "50540002"
    assert client.get(f"{API}/train-jobs?train_id=../x").get_json()["total"] == 0


def test_single_job_and_plugins(client: FlaskClient) -> None:
    body = client.get(f"{API}/single-job?train_id=./run1&plugin_name=scalar").get_json()
    assert body == {"train_jobs": [{"id": "./run1", "name": "./run1", "tags": ["acc/scalar", "loss/scalar"]}]}
    plugins = client.get(f"{API}/plugins?train_id=./run1").get_json()["plugins"]
    assert plugins["histogram"] == ["w/histogram"] and plugins["tensor"] == ["feat/tensor"]
    assert len(plugins) == 7
    assert client.get(f"{API}/single-job?train_id=./run1&plugin_name=x").get_json()["error_code"] == "5054500B"


def test_scalars(client: FlaskClient) -> None:
    body = client.get(f"{API}/scalar/metadata?train_id=./run1&tag=loss/scalar").get_json()
    assert [p["step"] for p in body["metadatas"]] == list(range(1, 31))
    multi = client.get(f"{API}/scalars?train_id=./run1&train_id=./run2&train_id=./nope&tag=loss/scalar"
                       "&tag=acc/scalar").get_json()["scalars"]
    assert [(s["train_id"], s["tag"]) for s in multi] == [("./run1", "loss/scalar"), ("./run1", "acc/scalar"),
                                                         ("./run2", "loss/scalar")]


def test_images(client: FlaskClient) -> None:
    meta = client.get(f"{API}/image/metadata?train_id=./run1&tag=input/image").get_json()["metadatas"]
    assert len(meta) == 10 and meta[-1]["step"] == 30
    resp = client.get(f"{API}/image/single-image?train_id=./run1&tag=input/image&step=-1")
    assert resp.status_code == 200 and resp.mimetype == "image/png" and resp.data == _png()
    missing = client.get(f"{API}/image/single-image?train_id=./run1&tag=input/image&step=99999")
    assert missing.get_json()["error_code"] == "5054500D"


def test_histograms_and_tensors(client: FlaskClient) -> None:
    body = client.get(f"{API}/histograms?train_id=./run1&tag=w/histogram").get_json()
    assert len(body["histograms"]) == 30
    edges = {tuple(b[0] for b in h["buckets"]) for h in body["histograms"]}
    assert len(edges) == 1  # one shared visual range
    data = client.get(f"{API}/tensors?train_id=./run1&tag=feat/tensor&detail=data&step=30&dims=[0,:]").get_json()
    assert len(data["tensors"][0]["values"][0]["value"]["data"]) == 3
    assert client.get(f"{API}/tensors?train_id=./run1&tag=feat/tensor&detail=bogus").status_code == 400


def test_train_job_caches_validation(client: FlaskClient) -> None:
    url = f"{API}/train-job-caches"
    assert client.post(url, data="{not json", content_type="application/json").get_json()["error_code"] == "50540003"
    assert client.post(url, json={"train_ids": "./run1"}).get_json()["error_code"] == "50540001"
    body = client.post(url, json={"train_ids": ["./run1", "./nope", "../.."]}).get_json()
    assert body == {"cache_result": [{"train_id": "./run1", "cache_status": "CACHED"}]}


# ------------------------------------------------------------------ deliberate differences
def test_difference_manual_update_validates_before_touching_cache(app: Flask, client: FlaskClient) -> None:
    dm = app.extensions["mindinsight_clone"].data_manager
    before = {r.train_id: dm.cache_status(r.train_id) for r in dm.runs()}
    for bad in ("../..", "../outside", "./../outside", "/etc", "..\\outside"):
        resp = client.get(f"{API}/plugins", query_string={"train_id": bad, "manual_update": "true"})
        assert resp.status_code == 400 and resp.get_json()["error_code"] == "50545005"
        resp = client.get(f"{API}/single-job", query_string={"train_id": bad, "plugin_name": "scalar"})
        assert resp.status_code == 400
    assert dm.loader("../outside") is None and dm.loader("../..") is None
    assert {r.train_id: dm.cache_status(r.train_id) for r in dm.runs()} == before


def test_difference_other_kind_tag_is_4xx_not_500(client: FlaskClient) -> None:
    hist = client.get(f"{API}/histograms?train_id=./run1&tag=loss/scalar")
    assert hist.status_code == 400 and hist.get_json()["error_code"] == "5054500F"
    image = client.get(f"{API}/image/metadata?train_id=./run1&tag=loss/scalar")
    assert image.status_code == 400 and image.get_json()["error_code"] == "5054500D"


def test_difference_no_absolute_paths_in_errors(app: Flask, client: FlaskClient, tmp_path: Path) -> None:
    for path in (f"{API}/plugins?train_id=./does_not_exist&manual_update=true",
                 f"{API}/single-job?train_id=./does_not_exist&plugin_name=scalar",
                 f"{API}/landscape/intervals?train_id=./does_not_exist"):
        text = client.get(path).get_data(as_text=True)
        assert str(tmp_path) not in text and "does_not_exist is not exist" not in text


def test_difference_etag_and_304(client: FlaskClient) -> None:
    url = f"{API}/scalar/metadata?train_id=./run1&tag=loss/scalar"
    first = client.get(url)
    etag = first.headers["ETag"]
    again = client.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.data == b""
    assert client.get(url, headers={"If-None-Match": '"other"'}).status_code == 200


def test_difference_scalar_csv(client: FlaskClient) -> None:
    resp = client.get(f"{API}/scalar/metadata?train_id=./run1&tag=loss/scalar&format=csv")
    assert resp.mimetype == "text/csv"
    lines = resp.get_data(as_text=True).splitlines()
    assert lines[0] == "train_id,tag,step,wall_time,value" and len(lines) == 31
    multi = client.get(f"{API}/scalars?train_id=./run1&train_id=./run2&tag=loss/scalar&format=csv")
    assert len(multi.get_data(as_text=True).splitlines()) == 1 + 30 + 5


def test_difference_gzip_when_accepted(client: FlaskClient) -> None:
    url = f"{API}/scalar/metadata?train_id=./run1&tag=loss/scalar"
    plain = client.get(url)
    zipped = client.get(url, headers={"Accept-Encoding": "gzip, deflate"})
    assert "Content-Encoding" not in plain.headers
    assert zipped.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in zipped.headers["Vary"]
    assert gzip.decompress(zipped.data) == plain.data
    assert len(zipped.data) < len(plain.data)


def test_difference_scalar_envelope_with_downsample(client: FlaskClient) -> None:
    body = client.get(f"{API}/scalar/metadata?train_id=./run1&tag=loss/scalar&downsample=4").get_json()
    summary = body["summary"]
    assert summary["count"] == 30 and summary["max"] == 1.0 and summary["last_step"] == 30
    assert 1 <= len(summary["envelope"]) <= 4
    assert sum(b["count"] for b in summary["envelope"]) == 30
    plain = client.get(f"{API}/scalar/metadata?train_id=./run1&tag=loss/scalar").get_json()
    assert set(plain) == {"metadatas"}


def test_difference_problems_listed_for_damaged_run(app: Flask, client: FlaskClient, tmp_path: Path) -> None:
    f = next((tmp_path / "base" / "run2").iterdir())
    f.write_bytes(f.read_bytes() + b"\x01\x02\x03")
    app.extensions["mindinsight_clone"].data_manager.reload()
    job = client.get(f"{API}/train-jobs?train_id=./run2").get_json()["train_jobs"][0]
    assert job["is_integrity"] is False
    assert job["problems"][0]["file"] == f.name and job["problems"][0]["kind"] == "truncated"


def test_openapi_lists_every_datavisual_route(app: Flask) -> None:
    import yaml

    spec = yaml.safe_load((Path(__file__).resolve().parents[2] / "mindinsight_clone/server/openapi.yaml").read_text())
    routes = {r.rule.removeprefix("/v1/mindinsight") for r in app.url_map.iter_rules()
              if r.endpoint.startswith("datavisual.")}
    assert routes <= set(spec["paths"]), routes - set(spec["paths"])
