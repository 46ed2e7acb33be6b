"""The 3-D loss landscape runs without 'unsafe-eval' (issue 15): the policy stays strict for every page,
and the built UI (when present) has no eval / new Function that the policy would block."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from tests.conftest import REPO

DIST = REPO / "mindinsight_clone" / "ui" / "dist" / "static"
# `new Function(...)` is minified to `Function(...)`: both, and eval(...), are what the policy blocks.
FORBIDDEN = re.compile(r"(?<![\w$.])(?:new\s+)?Function\s*\(|(?<![\w$.])eval\s*\(")


@pytest.fixture
def client(tmp_path: Path) -> FlaskClient:
    app = create_app(settings_for_tests(summary_base_dir=str(tmp_path), workspace=str(tmp_path / "ws")),
                     start_background=False)
    return app.test_client()


def test_no_unsafe_eval_in_the_policy_of_any_page(client: FlaskClient) -> None:
    for path in ("/", "/index.html", "/v1/mindinsight/health"):
        policy = client.get(path).headers["Content-Security-Policy"]
        script_src = next(d for d in policy.split(";") if d.strip().startswith("script-src")).split()
        assert "'unsafe-eval'" not in script_src and "'self'" in script_src, policy


def test_built_bundle_has_no_eval() -> None:
    chunks = sorted(DIST.glob("*.js")) if DIST.exists() else []
    if not chunks:
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    assert any("echarts-gl" in c.name for c in chunks), "the 3-D chunk is built"
    offenders = [c.name for c in chunks if FORBIDDEN.search(c.read_text(encoding="utf-8", errors="replace"))]
    assert offenders == []
