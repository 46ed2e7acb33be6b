"""`scalar/metadata?start_step=&end_step=&points=` through create_app over a generated run with planted spikes.

The reference is brute force over the values the test itself wrote (tests/unit/store/test_point_store.py's
`brute_m4`); the default answer (no window parameters) stays MindInsight's reservoir sample.
"""

from __future__ import annotations

import numpy as np
import pytest
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from tests.unit.store.summary_files import scalar_event, summary_name, version_event, write_records
from tests.unit.store.test_point_store import brute_m4

API = "/v1/mindinsight/datavisual/scalar/metadata"
STEPS = 20_000
SPIKES = {777: 500.0, 12_345: -400.0, 19_999: 250.0}


def _values() -> np.ndarray:
    rng = np.random.default_rng(7)
    v = (np.exp(-np.arange(STEPS) / 3000.0) + 0.01 * rng.standard_normal(STEPS)).astype(np.float32)
    for step, value in SPIKES.items():
        v[step - 1] = value
    return v.astype(np.float64)  # float32-exact, as MindSpore stores them


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    tmp = tmp_path_factory.mktemp("window")
    values = _values()
    payloads = [version_event()] + [scalar_event(s, {"loss": float(values[s - 1]), "lr": 0.1})
                                    for s in range(1, STEPS + 1)]
    half = len(payloads) // 2  # two files: the window spans both
    write_records(tmp / "base" / "run" / summary_name(1_700_000_000), payloads[:half])
    write_records(tmp / "base" / "run" / summary_name(1_700_000_001), [version_event(), *payloads[half:]])
    settings = settings_for_tests(summary_base_dir=str(tmp / "base"), workspace=str(tmp / "ws"), reload_interval=0)
    app = create_app(settings, start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app.test_client()


def _window(client: FlaskClient, **params: object) -> dict:
    query = "&".join(f"{k}={v}" for k, v in {"train_id": "./run", "tag": "loss/scalar", **params}.items())
    resp = client.get(f"{API}?{query}")
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def test_small_window_returns_every_real_step(client: FlaskClient) -> None:
    values = _values()
    body = _window(client, start_step=12_300, end_step=12_400, points=800)
    got = body["metadatas"]
    assert [p["step"] for p in got] == list(range(12_300, 12_401))
    assert [p["value"] for p in got] == values[12_299:12_400].tolist()
    assert all(p["wall_time"] == 1_700_000_000.0 + p["step"] for p in got)
    assert body["window"] == {"start_step": 12_300, "end_step": 12_400, "points": 800, "total": 101,
                              "exact": True}


@pytest.mark.parametrize(("start", "end", "points"), [(1, STEPS, 400), (500, 15_000, 1000), (None, None, 64)])
def test_large_window_has_each_buckets_true_min_and_max(client: FlaskClient, start: int | None, end: int | None,
                                                        points: int) -> None:
    values = _values()
    lo, hi = (start or 1), (end or STEPS)
    params: dict[str, object] = {"points": points}
    if start is not None:
        params |= {"start_step": start, "end_step": end}
    got = _window(client, **params)["metadatas"]
    assert len(got) <= points
    steps = list(range(lo, hi + 1))
    ref = brute_m4(steps, values[lo - 1:hi].tolist(), points)
    assert [p["step"] for p in got] == [steps[i] for i in ref]
    shown = {p["step"]: p["value"] for p in got}
    buckets = points // 4
    for b in range(buckets):  # every bucket's true min and max, recomputed here from the raw values
        members = [s for s in steps if (s - lo) * buckets // len(steps) == b]
        if members:
            vals = [float(values[s - 1]) for s in members]
            assert min(vals) in shown.values() and max(vals) in shown.values()
    for step, value in SPIKES.items():
        if lo <= step <= hi:
            assert shown.get(step) == value


def test_default_answer_is_still_the_sample(client: FlaskClient) -> None:
    body = client.get(f"{API}?train_id=./run&tag=loss/scalar").get_json()
    assert set(body) == {"metadatas"} and len(body["metadatas"]) == 1000
    assert body["metadatas"][-1]["step"] == STEPS


def test_bad_window_parameters_are_refused(client: FlaskClient) -> None:
    for query, code in (("points=3", "50540002"), ("points=100001", "50540002"), ("points=x", "50540001"),
                        ("start_step=10&end_step=5", "50540002"), ("start_step=a", "50540001"),
                        ("end_step=-388567760433093804032", "50540002"),  # beyond int64 (found by the fuzz test)
                        ("start_step=9223372036854775808", "50540002")):
        resp = client.get(f"{API}?train_id=./run&tag=loss/scalar&{query}")
        assert resp.status_code == 400, query
        assert resp.get_json()["error_code"] == code, (query, resp.get_json())
    resp = client.get(f"{API}?train_id=./run&tag=nope/scalar&points=10")
    assert resp.status_code == 400 and resp.get_json()["error_code"] == "5054500E"
