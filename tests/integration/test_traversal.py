"""Path-like parameters of every datavisual endpoint: traversal variants are refused, nothing outside
the base dir is ever read, listed or served (a canary run sits next to the base dir)."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from tests.unit.store.summary_files import scalar_run

API = "/v1/mindinsight/datavisual"
CANARY_TAG = "canary_secret"

VARIANTS = [
    "../canary", "./../canary", "./..", "..", "../..", "./%2e%2e/canary", "%2e%2e/canary", "./%2E%2E",
    "..\\canary", ".\\..\\canary", "./run\\..\\..\\canary", "./run/../../canary", "/etc", "//etc",
    "{canary_abs}", "./link_out", "./link_out/", "./run%00", "./run\x00", "./canary", "./../canary/",
]


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    base = tmp_path / "base"
    scalar_run(base / "run", range(1, 4), ["loss"])
    scalar_run(tmp_path / "canary", range(1, 4), [CANARY_TAG])
    os.symlink(tmp_path / "canary", base / "link_out")
    app = create_app(settings_for_tests(summary_base_dir=str(base), workspace=str(tmp_path / "ws"),
                                        reload_interval=0), start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app


def _variants(tmp_path: Path) -> list[str]:
    return [v.replace("{canary_abs}", str(tmp_path / "canary")) for v in VARIANTS]


def _endpoints(train_id: str) -> list[tuple[str, str, dict[str, object] | None]]:
    t = quote(train_id, safe="")
    return [
        ("GET", f"{API}/train-jobs?train_id={t}", None),
        ("GET", f"{API}/single-job?train_id={t}&plugin_name=scalar", None),
        ("GET", f"{API}/plugins?train_id={t}", None),
        ("GET", f"{API}/plugins?train_id={t}&manual_update=true", None),
        ("POST", f"{API}/train-job-caches", {"train_ids": [train_id]}),
        ("GET", f"{API}/scalar/metadata?train_id={t}&tag={CANARY_TAG}/scalar", None),
        ("GET", f"{API}/scalar/metadata?train_id={t}&tag={CANARY_TAG}/scalar&format=csv", None),
        ("GET", f"{API}/scalars?train_id={t}&tag={CANARY_TAG}/scalar", None),
        ("GET", f"{API}/image/metadata?train_id={t}&tag=x/image", None),
        ("GET", f"{API}/image/single-image?train_id={t}&tag=x/image&step=1", None),
        ("GET", f"{API}/histograms?train_id={t}&tag=x/histogram", None),
        ("GET", f"{API}/tensors?train_id={t}&tag=x/tensor", None),
        ("GET", f"{API}/landscape/intervals?train_id={t}", None),
        ("GET", f"{API}/landscape/landscapes?train_id={t}&type=final", None),
    ]


def test_traversal_variants_refused_and_canary_never_served(app: Flask, tmp_path: Path) -> None:
    client: FlaskClient = app.test_client()
    dm = app.extensions["mindinsight_clone"].data_manager
    for variant in _variants(tmp_path):
        for method, url, body in _endpoints(variant):
            resp = client.open(url, method=method, json=body)
            text = resp.get_data(as_text=True)
            assert CANARY_TAG not in text, (variant, url)
            if str(tmp_path) not in variant:  # echoing the client's own id back is not a leak
                assert str(tmp_path) not in text, (variant, url)
            if "train-jobs?" in url:
                assert resp.get_json()["total"] == 0, (variant, url)
            elif "train-job-caches" in url:
                assert resp.get_json() == {"cache_result": []}, (variant, url)
            elif "/scalars?" in url:
                assert resp.get_json() == {"scalars": []}, (variant, url)
            elif "landscapes?" in url and not variant.startswith("./"):
                assert resp.get_json()["landscapes"][0]["error_code"] == "50540002", (variant, url)
            else:
                assert resp.status_code == 400, (variant, url, resp.status_code)
        dm.reload()
    listed = {r.train_id for r in dm.runs()}
    assert listed == {"./run"}
    assert all(dm.loader(t) is None for t in ("../canary", "./link_out", "./canary", "./.."))
    listing = client.get(f"{API}/train-jobs?limit=999").get_data(as_text=True)
    assert "canary" not in listing and "link_out" not in listing
