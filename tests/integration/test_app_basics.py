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


def test_static_refuses_traversal(client: FlaskClient) -> None:
    for path in ("/static/../../config.py", "/static/%2e%2e/%2e%2e/config.py", "/static/..%2f..%2fconfig.py"):
        assert client.get(path).status_code == 404


def test_ui_config(client: FlaskClient) -> None:
    """MindInsight's answer plus (additively) the reload interval the UI's refresh timer uses."""
    assert client.get("/v1/mindinsight/ui-config").get_json() == {"enable_debugger": False, "reload_interval": 3}
