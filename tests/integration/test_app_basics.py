"""The app factory's cross-cutting behaviour: error shape, methods, headers, Host guard, UI fallback."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app


@pytest.fixture
def client(tmp_path: Path) -> FlaskClient:
    app = create_app(settings_for_tests(summary_base_dir=str(tmp_path), workspace=str(tmp_path / "ws")),
                     start_background=False)
    return app.test_client()


def test_error_shape_for_unknown_path(client: FlaskClient) -> None:
    response = client.get("/v1/mindinsight/no-such-endpoint")
    assert response.status_code == 404
    assert response.get_json() == {"error_code": "50545001", "error_msg": "404 Not Found."}


@pytest.mark.parametrize("method", ["patch", "head", "options"])
def test_methods_outside_the_four_are_405(client: FlaskClient, method: str) -> None:
    response = getattr(client, method)("/v1/mindinsight/health")
    assert response.status_code == 405
    if method != "head":
        assert response.get_json()["error_code"] == "50545002"


def test_security_headers_on_every_response(client: FlaskClient) -> None:
    for path in ("/v1/mindinsight/health", "/v1/mindinsight/nope", "/"):
        headers = client.get(path).headers
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["X-Frame-Options"] == "SAMEORIGIN"
        assert "default-src 'self'" in headers["Content-Security-Policy"]


def test_host_header_guard(client: FlaskClient) -> None:
    assert client.get("/v1/mindinsight/health", headers={"Host": "localhost:8080"}).status_code == 200
    refused = client.get("/v1/mindinsight/health", headers={"Host": "attacker.example:8080"})
    assert refused.status_code == 400 and refused.get_json()["error_code"] == "50540002"


def test_unexpected_exception_is_a_generic_500(client: FlaskClient, caplog: pytest.LogCaptureFixture) -> None:
    app = client.application

    @app.get("/v1/mindinsight/boom")
    def boom() -> str:
        raise RuntimeError("secret detail /etc/passwd")

    response = client.get("/v1/mindinsight/boom")
    assert response.status_code == 500
    assert response.get_json() == {"error_code": "50540000", "error_msg": "System error."}
    assert "secret detail" in caplog.text


def test_index_served(client: FlaskClient) -> None:
    response = client.get("/")
    assert response.status_code == 200 and response.mimetype == "text/html"


def test_index_names_the_reload_interval(tmp_path: Path) -> None:
    """The page knows the server's reload interval from its first paint (issue 21: the header said 10 s)."""
    from mindinsight_clone.server.routes_ui import DIST
    if not (DIST / "index.html").is_file():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    app = create_app(settings_for_tests(summary_base_dir=str(tmp_path), workspace=str(tmp_path / "ws"),
                                        reload_interval=7), start_background=False)
    html = app.test_client().get("/").get_data(as_text=True)
    assert '<meta name="mi-reload-interval" content="7" />' in html
    assert html.index("mi-reload-interval") < html.index("</head>")


def test_static_refuses_traversal(client: FlaskClient) -> None:
    for path in ("/static/../../config.py", "/static/%2e%2e/%2e%2e/config.py", "/static/..%2f..%2fconfig.py"):
        assert client.get(path).status_code == 404


def test_ui_config(client: FlaskClient) -> None:
    """MindInsight's answer plus (additively) the reload interval the UI's refresh timer uses."""
    assert client.get("/v1/mindinsight/ui-config").get_json() == {"enable_debugger": False, "reload_interval": 3}


BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.mark.parametrize(("path", "target"), [
    ("/no-such-page", "/#/no-such-page"),
    ("/scalars?train_id=./run&tag=loss", "/#/scalars?train_id=./run&tag=loss"),
    ("//evil.example/x", None),  # stays on this origin: the path goes after '#'
    ("/a\r\nSet-Cookie:x", "/#/a%0D%0ASet-Cookie:x"),  # no header splitting
])
def test_browser_page_paths_go_to_the_apps_route(client: FlaskClient, path: str, target: str | None) -> None:
    bare, _, query = path.partition("?")
    # PATH_INFO as a server hands it over (a test-client URL starting with '//' would name a host).
    response = client.get("/", query_string=query, headers={"Accept": BROWSER_ACCEPT},
                          environ_overrides={"PATH_INFO": bare})
    assert response.status_code == 302
    location = response.headers["Location"]
    assert location.startswith("/#/")
    assert location == target or (target is None and location.endswith("evil.example/x"))
    assert "Set-Cookie" not in response.headers


@pytest.mark.parametrize(("method", "path", "accept"), [
    ("get", "/no-such-page", "*/*"),  # curl, scripts
    ("get", "/no-such-page", "application/json"),
    ("get", "/v1/mindinsight/no-such-endpoint", BROWSER_ACCEPT),  # the API never redirects
    ("get", "/static/no-such-file.js", BROWSER_ACCEPT),
    ("post", "/no-such-page", BROWSER_ACCEPT),
])
def test_other_unknown_paths_keep_the_json_404(client: FlaskClient, method: str, path: str, accept: str) -> None:
    response = getattr(client, method)(path, headers={"Accept": accept})
    assert response.status_code == 404
    assert response.get_json() == {"error_code": "50545001", "error_msg": "404 Not Found."}


def test_url_builders_wait_for_their_first_use_and_build_werkzeug_s_urls(client: FlaskClient) -> None:
    """server/routing.py: no rule's URL builder is compiled by create_app; built on demand, every URL is the one
    werkzeug's own Rule builds (with and without unknown arguments appended as a query string)."""
    from flask import url_for
    from werkzeug.routing import Map, Rule

    app = client.application
    rules = list(app.url_map.iter_rules())
    assert len(rules) > 100
    assert all(r._build.__func__.__name__ == "build_on_first_use" for r in rules)  # type: ignore[attr-defined]
    plain = Map([Rule(r.rule, endpoint=r.endpoint, methods=r.methods, defaults=r.defaults) for r in rules])
    plain_rules = {(r.rule, r.endpoint): r for r in plain.iter_rules()}
    for rule in rules:
        values = {name: "a b/1" for name in rule.arguments}
        twin = plain_rules[(rule.rule, rule.endpoint)]
        assert rule.build(values, append_unknown=False) == twin.build(values, append_unknown=False)
        assert rule.build({**values, "x": "1 2"}) == twin.build({**values, "x": "1 2"})
        assert rule._build.__name__ != "build_on_first_use"  # type: ignore[attr-defined]
    with app.test_request_context():
        assert url_for("health.health", q="1") == "/v1/mindinsight/health?q=1"
