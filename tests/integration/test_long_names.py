"""Names longer than a file name can be (NAME_MAX, 255 bytes) in train_id / dir / profile / summary_dir:
every route answers MindInsight's usual 400 with an error code, never a 500 (`OSError: File name too long`)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from flask import Flask

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from tests.unit.store.summary_files import scalar_run

LONG = "a" * 256  # one byte past NAME_MAX
LONG_MULTIBYTE = "\u00e9" * 128  # 128 characters, 256 bytes in UTF-8


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    base = tmp_path / "base"
    scalar_run(base / "run", range(1, 4), ["loss"])
    (base / "run" / "profiler").mkdir()
    app = create_app(settings_for_tests(summary_base_dir=str(base), workspace=str(tmp_path / "ws"),
                                        reload_interval=0), start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app


def _routes(app: Flask) -> list[tuple[str, str]]:
    out = []
    for rule in app.url_map.iter_rules():
        if "<" in rule.rule or not rule.rule.startswith("/v1/"):
            continue
        out += [(m, rule.rule) for m in sorted(rule.methods - {"HEAD", "OPTIONS"})]
    return out


@pytest.mark.parametrize("name", [LONG, LONG_MULTIBYTE])
@pytest.mark.parametrize("which", ["train_id", "dir", "profile", "all"])
def test_every_route_answers_400_for_a_name_longer_than_name_max(app: Flask, which: str, name: str) -> None:
    train_id = f"./{name}" if which in ("train_id", "all") else "./run"
    job_dir = f"./{name}" if which in ("dir", "all") else None
    profile = name if which in ("profile", "all") else "profiler"
    query = f"train_id={quote(train_id)}&profile={quote(profile)}&tag=loss/scalar&plugin_name=scalar&step=1"
    if job_dir is not None:
        query += f"&dir={quote(job_dir)}"
    body = {"train_ids": [train_id], "train_id": train_id, "summary_dir": train_id, "profile": profile,
            "dir": job_dir or train_id}
    client = app.test_client()
    routes = _routes(app)
    assert len(routes) > 40  # every route family: datavisual, graphs, lineage, profiler, ...
    refused = 0
    for method, path in routes:
        resp = client.open(f"{path}?{query}", method=method, json=body if method != "GET" else None)
        assert resp.status_code < 500, f"{method} {path}: {resp.status_code} {resp.get_data()[:200]!r}"
        if resp.status_code == 400:
            payload = resp.get_json()
            assert payload["error_code"].startswith("5054"), (method, path, payload)
            refused += 1
    assert refused >= 20  # the data routes refused the name (not just answered an empty 200)


def test_profiler_routes_name_the_usual_errors(app: Flask) -> None:
    client = app.test_client()
    by_dir = client.get(f"/v1/mindinsight/profile/overview?dir=./{LONG}").get_json()
    assert by_dir["error_code"] == "50546080"  # train_job dir is invalid
    by_profile = client.get(f"/v1/mindinsight/profile/devices?train_id=./run&profile={LONG}")
    assert by_profile.status_code == 400
    assert by_profile.get_json()["error_code"] in ("50540002", "50546083")
    plugins = client.get(f"/v1/mindinsight/datavisual/plugins?train_id=./{LONG}").get_json()
    assert plugins["error_code"] == "50545005"
