"""The headers every answer gets: security defaults a route did not set itself, no-cache for the API, and Vary
for what gzip depends on, each once."""

from __future__ import annotations

from flask import Flask, Response

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server import security
from mindinsight_clone.server.routes_datavisual import revalidate_and_compress


def _app() -> Flask:
    app = Flask(__name__)

    @app.get("/v1/plain")
    def plain() -> dict[str, int]:
        return {"n": 1}

    @app.get("/v1/own")
    def own() -> Response:
        resp = Response('{"n": 2}', mimetype="application/json")
        resp.headers["x-frame-options"] = "DENY"  # a route's own value, in another case
        resp.headers["Vary"] = "Cookie"
        return resp

    app.after_request(revalidate_and_compress)
    security.register(app, settings_for_tests())
    return app


def test_security_defaults_fill_only_what_the_route_left_out() -> None:
    client = _app().test_client()
    plain = client.get("/v1/plain")
    for name, value in security.SECURITY_HEADERS.items():
        assert plain.headers.get_all(name) == [value]
    assert plain.headers.get_all("Vary") == ["Accept-Encoding"]
    assert plain.headers["Cache-Control"] == "no-cache" and plain.headers["ETag"]
    own = client.get("/v1/own")
    assert own.headers.get_all("X-Frame-Options") == ["DENY"]
    assert own.headers.get_all("Vary") == ["Cookie, Accept-Encoding"]
    assert own.headers.get_all("Content-Security-Policy") == [security.SECURITY_HEADERS["Content-Security-Policy"]]
