"""--url-path-prefix (server/url_prefix.py) and --auth-token (server/auth.py) through create_app's test client,
and one real start under both with `--auth-token generate` (the printed link used, then `stop`)."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server import auth
from mindinsight_clone.server.app import create_app
from mindinsight_clone.server.routes_ui import DIST
from tests.conftest import free_port, run_cli

PREFIX = "/team/mi"
API = f"{PREFIX}/v1/mindinsight"
TOKEN = "s3cret-token_with.chars"
HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
ERROR_KEYS = {"error_code", "error_msg"}


def make_app(tmp_path: Path, **overrides: Any) -> Flask:
    base = tmp_path / "base"
    (base / "run1").mkdir(parents=True, exist_ok=True)
    settings = settings_for_tests(summary_base_dir=str(base), workspace=str(tmp_path / "ws"), **overrides)
    app = create_app(settings, start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app


@pytest.fixture
def prefixed(tmp_path: Path) -> FlaskClient:
    return make_app(tmp_path, url_path_prefix=PREFIX).test_client()


@pytest.fixture
def guarded(tmp_path: Path) -> FlaskClient:
    return make_app(tmp_path, url_path_prefix=PREFIX, auth_token=TOKEN).test_client()


# ------------------------------------------------------------------------------------------ prefix
def test_api_and_ui_answer_inside_the_prefix(prefixed: FlaskClient) -> None:
    assert prefixed.get(f"{API}/ui-config").get_json()["enable_debugger"] is False
    jobs = prefixed.get(f"{API}/datavisual/train-jobs").get_json()
    assert jobs["total"] == 0 or isinstance(jobs["train_jobs"], list)
    page = prefixed.get(f"{PREFIX}/", headers=HTML)
    assert page.status_code == 200 and page.mimetype == "text/html"


@pytest.mark.parametrize("path", ["/", "/v1/mindinsight/ui-config", "/v1/mindinsight/health", "/team/m",
                                  "/team/mix/", "/static/x.js", "/team"])
def test_outside_the_prefix_is_the_apps_json_404(prefixed: FlaskClient, path: str) -> None:
    for headers in ({}, HTML):  # a browser is not redirected to a page from outside either
        response = prefixed.get(path, headers=headers)
        assert response.status_code == 404, path
        assert response.get_json() == {"error_code": "50545001", "error_msg": "404 Not Found."}
        assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_prefix_without_its_slash_redirects_to_the_ui(prefixed: FlaskClient) -> None:
    response = prefixed.get(PREFIX)
    assert response.status_code == 302 and response.headers["Location"] == f"{PREFIX}/"
    response = prefixed.get(f"{PREFIX}?refresh=1")
    assert response.headers["Location"] == f"{PREFIX}/?refresh=1"
    assert prefixed.post(PREFIX, json={}).status_code == 308


def test_unknown_page_redirects_to_its_hash_route_under_the_prefix(prefixed: FlaskClient) -> None:
    response = prefixed.get(f"{PREFIX}/scalars?train_id=./run1", headers=HTML)
    assert response.status_code == 302
    assert response.headers["Location"] == f"{PREFIX}/#/scalars?train_id=./run1"
    api = prefixed.get(f"{API}/no/such", headers=HTML)  # the API keeps its JSON 404 under the prefix too
    assert api.status_code == 404 and api.get_json()["error_code"] == "50545001"


def test_guards_see_paths_below_the_prefix(prefixed: FlaskClient) -> None:
    api = prefixed.get(f"{API}/ui-config")
    assert api.headers["Cache-Control"] == "no-cache"
    cross = prefixed.post(f"{API}/lineagemgr/lineages", json={}, headers={"Origin": "http://evil.example"})
    assert cross.status_code == 403 and set(cross.get_json()) == ERROR_KEYS
    assets = sorted((DIST / "static").glob("*.js")) if (DIST / "static").is_dir() else []
    if assets:  # the UI is built: assets are served under the prefix with their long cache
        asset = prefixed.get(f"{PREFIX}/static/{assets[0].name}")
        assert asset.status_code == 200 and "immutable" in asset.headers["Cache-Control"]


# ------------------------------------------------------------------------------------------ token
def test_without_the_token_the_api_answers_401_json(guarded: FlaskClient) -> None:
    response = guarded.get(f"{API}/datavisual/train-jobs")
    assert response.status_code == 401
    body = response.get_json()
    assert set(body) == ERROR_KEYS and body["error_code"] == "50540023"
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert guarded.post(f"{API}/lineagemgr/lineages", json={}).status_code == 401


def test_a_browser_without_the_token_gets_the_html_401_page(guarded: FlaskClient) -> None:
    response = guarded.get(f"{PREFIX}/", headers=HTML)
    assert response.status_code == 401 and response.mimetype == "text/html"
    assert "link printed by" in response.get_data(as_text=True)
    assert "Content-Security-Policy" in response.headers


def test_bearer_token_lets_scripts_in(guarded: FlaskClient) -> None:
    ok = guarded.get(f"{API}/ui-config", headers={"Authorization": f"Bearer {TOKEN}"})
    assert ok.status_code == 200 and "reload_interval" in ok.get_json()
    wrong = guarded.get(f"{API}/ui-config", headers={"Authorization": f"Bearer {TOKEN}x"})
    assert wrong.status_code == 401 and wrong.get_json()["error_code"] == "50540023"
    basic = guarded.get(f"{API}/ui-config", headers={"Authorization": f"Basic {TOKEN}"})
    assert basic.status_code == 401


def test_the_link_sets_a_cookie_and_drops_the_token_from_the_url(guarded: FlaskClient) -> None:
    link = guarded.get(f"{PREFIX}/?refresh=1&token={TOKEN}&lang=en", headers=HTML)
    assert link.status_code == 302
    assert link.headers["Location"] == f"{PREFIX}/?refresh=1&lang=en"
    cookie = link.headers["Set-Cookie"]
    assert f"Path={PREFIX};" in cookie + ";" and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert TOKEN not in cookie  # a value derived from the token, not the token
    page = guarded.get(link.headers["Location"], headers=HTML)  # the test client keeps the cookie
    assert page.status_code == 200
    assert guarded.get(f"{API}/datavisual/train-jobs").status_code == 200
    bare = guarded.get(f"{PREFIX}/?token={TOKEN}", headers=HTML)
    assert bare.headers["Location"] == f"{PREFIX}/"


def test_the_cookie_is_secure_behind_a_tls_proxy(guarded: FlaskClient) -> None:
    plain = guarded.get(f"{PREFIX}/?token={TOKEN}", headers=HTML)
    assert "Secure" not in plain.headers["Set-Cookie"]
    proxied = guarded.get(f"{PREFIX}/?token={TOKEN}", headers={**HTML, "X-Forwarded-Proto": "https"})
    assert "Secure" in proxied.headers["Set-Cookie"]


def test_a_wrong_token_in_the_link_sets_nothing(guarded: FlaskClient) -> None:
    response = guarded.get(f"{PREFIX}/?token=nope", headers=HTML)
    assert response.status_code == 401 and "Set-Cookie" not in response.headers
    forged = guarded.get(f"{API}/ui-config", headers={"Cookie": f"{auth.cookie_name(TOKEN)}={TOKEN}"})
    assert forged.status_code == 401  # the cookie must hold the derived value


def test_token_in_an_api_query_is_accepted_without_redirect(guarded: FlaskClient) -> None:
    response = guarded.get(f"{API}/ui-config?token={TOKEN}")
    assert response.status_code == 200 and "Set-Cookie" not in response.headers


def test_health_stays_open_but_says_nothing_about_the_data(guarded: FlaskClient) -> None:
    assert guarded.get(f"{API}/health").get_json() == {"status": "ok"}
    full = guarded.get(f"{API}/health", headers={"Authorization": f"Bearer {TOKEN}"}).get_json()
    assert {"version", "load_status", "cache"} <= set(full)


def test_cookie_path_is_root_without_a_prefix(tmp_path: Path) -> None:
    client = make_app(tmp_path, auth_token=TOKEN).test_client()
    link = client.get(f"/?token={TOKEN}", headers=HTML)
    assert link.headers["Location"] == "/" and "Path=/;" in link.headers["Set-Cookie"] + ";"
    assert client.get("/v1/mindinsight/ui-config").status_code == 200


def test_cross_site_writes_are_refused_even_with_the_token(guarded: FlaskClient) -> None:
    response = guarded.post(f"{API}/lineagemgr/lineages", json={}, headers={
        "Authorization": f"Bearer {TOKEN}", "Origin": "http://evil.example"})
    assert response.status_code == 403


# ------------------------------------------------------------------------------------------ real server
def test_real_start_with_prefix_and_generated_token(tmp_path: Path) -> None:
    base, ws, port = tmp_path / "base", tmp_path / "ws", free_port()
    base.mkdir()
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws),
                      "--url-path-prefix", "/team/mi/", "--auth-token", "generate")
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        found = re.search(rf"Web address: (http://127\.0\.0\.1:{port}/team/mi/)\?token=(\S+)\n", started.stdout)
        assert found, started.stdout
        root, token = found.groups()
        assert len(token) >= 40 and token != "generate"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{root}v1/mindinsight/ui-config", timeout=10)
        assert refused.value.code == 401 and json.loads(refused.value.read())["error_code"] == "50540023"
        # a browser-like client: the link sets the cookie and lands on the UI without the token
        jar = CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        with opener.open(urllib.request.Request(f"{root}?token={token}", headers=HTML), timeout=10) as page:
            assert page.status == 200 and page.url == root
        with opener.open(f"{root}v1/mindinsight/health", timeout=10) as resp:
            assert json.loads(resp.read())["load_status"]
        assert [c.path for c in jar] == ["/team/mi"]
        record = json.loads((ws / "run" / f"mindinsight-clone.{port}.pid").read_text())
        assert record["url_path_prefix"] == "/team/mi" and record["auth_token"] == token
    finally:
        stopped = run_cli("stop", "--port", str(port), "--workspace", str(ws))
    assert stopped.returncode == 0, stopped.stderr


def test_binding_beyond_loopback_with_a_token_warns_about_plain_http(tmp_path: Path) -> None:
    """The warning comes before any check; the missing dir then stops the start before anything binds."""
    result = run_cli("start", "--host", "0.0.0.0", "--port", str(free_port()), "--summary-base-dir",
                     str(tmp_path / "missing"), "--workspace", str(tmp_path / "ws"), "--auth-token", "generate")
    assert result.returncode == 1
    assert "protected by the access token only" in result.stderr and "TLS" in result.stderr
    assert "without authentication" not in result.stderr
