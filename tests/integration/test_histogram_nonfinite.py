"""Histograms carry MindSpore's NaN/±Inf counts per step (additive fields, docs/api.md "Additions")."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.proto import summary_pb2
from mindinsight_clone.server.app import create_app
from tests.conftest import FIXTURES, require_shared
from tests.unit.store.summary_files import histogram_event, summary_name, version_event, write_records

API = "/v1/mindinsight/datavisual"
COUNT_KEYS = ("nan_count", "pos_inf_count", "neg_inf_count")


def _client(base: Path, tmp_path: Path) -> FlaskClient:
    settings = settings_for_tests(summary_base_dir=str(base), workspace=str(tmp_path / "ws"), reload_interval=0)
    app = create_app(settings, start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app.test_client()


def _histogram_with_counts(step: int, nan: int, pos: int, neg: int) -> bytes:
    ev = summary_pb2.Event.FromString(histogram_event(step, "w", np.arange(10.0)))
    h = ev.summary.value[0].histogram
    h.nan_count, h.pos_inf_count, h.neg_inf_count = nan, pos, neg
    return ev.SerializeToString()


def test_counts_only_on_steps_that_have_them(tmp_path: Path) -> None:
    base = tmp_path / "base"
    write_records(base / "run" / summary_name(1_700_000_000),
                  [version_event(), _histogram_with_counts(1, 0, 0, 0), _histogram_with_counts(2, 4, 1, 2)])
    rows = _client(base, tmp_path).get(f"{API}/histograms?train_id=./run&tag=w/histogram").get_json()["histograms"]
    by_step = {r["step"]: r for r in rows}
    assert set(by_step) == {1, 2}
    assert not set(COUNT_KEYS) & set(by_step[1])  # a clean step is exactly MindInsight's row
    assert {k: by_step[2][k] for k in COUNT_KEYS} == {"nan_count": 4, "pos_inf_count": 1, "neg_inf_count": 2}


def test_counts_match_what_mindspore_wrote(tmp_path: Path) -> None:
    require_shared(FIXTURES)
    manifest = json.loads((FIXTURES / "MANIFEST.json").read_text())
    expected = manifest["runs"]["record_api"]
    client = _client(FIXTURES, tmp_path)
    checked = 0
    for tag in ("hist/with_nan_inf", "hist/all_nan"):
        truth = {p["step"]: p for p in _find_tag(expected, tag)["per_step"]}
        rows = client.get(f"{API}/histograms?train_id=./record_api&tag={tag}/histogram").get_json()["histograms"]
        assert rows
        for row in rows:
            want = {k: truth[row["step"]][k] for k in COUNT_KEYS}
            assert {k: row.get(k, 0) for k in COUNT_KEYS} == want
            checked += any(want.values())
    assert checked > 0, "the fixture has steps with NaN/Inf values"


def _find_tag(node: object, tag: str) -> dict:
    """The manifest entry of a disk tag, wherever the run's layout puts it."""
    if isinstance(node, dict):
        if node.get("disk_tag") == tag and "per_step" in node:
            return node
        for value in node.values():
            try:
                return _find_tag(value, tag)
            except KeyError:
                pass
    elif isinstance(node, list):
        for value in node:
            try:
                return _find_tag(value, tag)
            except KeyError:
                pass
    raise KeyError(tag)


