"""--url-path-prefix as one WSGI middleware: the app answers under `<prefix>/` only (MindInsight 2.3's flag).

A request for `<prefix>/x` reaches Flask with SCRIPT_NAME += prefix and PATH_INFO = `/x`, so routes, the
guards (request.path is `/v1/...`, `/static/...`) and `request.script_root` (the prefix, for redirects and
cookie paths) need no other change. `<prefix>` without its slash is redirected to `<prefix>/` (the SPA's
relative URLs need the slash); anything outside the prefix is the app's JSON 404 (50545001).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from werkzeug.wrappers import Response

from mindinsight_clone.errors import RestfulApiNotExist

# The headers the app's after_request hook would add to a 404 (security.SECURITY_HEADERS' essentials).
OUTSIDE_HEADERS = {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache", "X-Frame-Options": "SAMEORIGIN"}


class UrlPathPrefix:
    """Mounts a WSGI app at `prefix` ('/a/b', normalised by config.url_path_prefix; never '' here)."""

    def __init__(self, app: Any, prefix: str) -> None:
        self.app = app
        self.prefix = prefix

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        path: str = environ.get("PATH_INFO", "") or "/"
        if path.startswith(self.prefix + "/"):
            environ["SCRIPT_NAME"] = environ.get("SCRIPT_NAME", "") + self.prefix
            environ["PATH_INFO"] = path[len(self.prefix):]
            return self.app(environ, start_response)  # type: ignore[no-any-return]
        if path == self.prefix:
            return self._to_slash(environ)(environ, start_response)  # type: ignore[no-any-return]
        return outside_response()(environ, start_response)  # type: ignore[no-any-return]

    def _to_slash(self, environ: dict[str, Any]) -> Response:
        target = environ.get("SCRIPT_NAME", "") + self.prefix + "/"
        query = environ.get("QUERY_STRING", "")
        if query:
            target += "?" + query
        # 308 keeps the method and body of a non-GET; a GET gets the common 302
        status = 302 if environ.get("REQUEST_METHOD", "GET") in ("GET", "HEAD") else 308
        return Response(status=status, headers={"Location": target, **OUTSIDE_HEADERS})


def outside_response() -> Response:
    """The app's JSON 404 for a path outside the prefix."""
    err = RestfulApiNotExist()
    body = json.dumps({"error_code": err.error_code, "error_msg": err.message}, separators=(",", ":"))
    return Response(body, status=err.http_status, mimetype="application/json", headers=OUTSIDE_HEADERS)


def wrap(wsgi_app: Any, prefix: str) -> Any:
    """`wsgi_app` under `prefix`, or itself when there is no prefix."""
    return UrlPathPrefix(wsgi_app, prefix) if prefix else wsgi_app
