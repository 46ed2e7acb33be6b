"""Request guards and response headers: allowed methods, Host allow-list, cross-site guard, security headers.

Cross-site guard: a page of another origin can make the user's browser send a POST without asking first (a
"simple" request: `text/plain`, form or typeless body, `mode: "no-cors"`). Such requests are refused before
any route runs: a foreign `Origin` (or `Sec-Fetch-Site: cross-site`) gets 403, a body that is not JSON 415.
The UI and MindInsight's clients send `application/json` from the server's own origin.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from flask import Flask, Response, request

from mindinsight_clone.config import Settings
from mindinsight_clone.errors import (
    CrossSiteRequestError,
    ParamValueError,
    RequestMethodNotAllowed,
    UnsupportedMediaTypeError,
)

log = logging.getLogger(__name__)

ALLOWED_METHODS = ("GET", "POST", "PUT", "DELETE")
UNSAFE_METHODS = frozenset({"POST", "PUT", "DELETE", "PATCH"})
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})

SECURITY_HEADERS = {
    "X-Frame-Options": "SAMEORIGIN",
    "X-XSS-Protection": "1; mode=block",
    "X-Content-Type-Options": "nosniff",
    "Access-Control-Allow-Methods": ", ".join(ALLOWED_METHODS),
    "Content-Security-Policy": (
        "img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; frame-src 'self'; "
        "frame-ancestors 'self'; default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; "
        "worker-src 'self' blob:; connect-src 'self'"
    ),
    "X-Download-Options": "noopen",
    "Referrer-Policy": "same-origin",
}


def allowed_host_names(settings: Settings) -> frozenset[str] | None:
    """Host names accepted in the Host header; None means any (setting '*')."""
    extra = {h.strip().lower() for h in settings.allowed_hosts.split(",") if h.strip()}
    if "*" in extra:
        return None
    return frozenset(LOOPBACK_NAMES | extra | {settings.host.lower()})


def _host_name(host_header: str) -> str:
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def allowed_origin_hosts(settings: Settings) -> frozenset[str]:
    """Origin host names accepted besides the request's own host: the explicit allowed_hosts (not '*')."""
    return frozenset(h.strip().lower() for h in settings.allowed_hosts.split(",") if h.strip() not in ("", "*"))


def _cross_site(origin_hosts: frozenset[str]) -> bool:
    """Whether the browser says this request comes from a page of another origin."""
    if request.headers.get("Sec-Fetch-Site", "").lower() == "cross-site":
        return True
    origin = request.headers.get("Origin")
    if origin is None:
        return False  # not sent by a browser page (scripts, curl), or a same-origin GET/HEAD
    netloc = urlsplit(origin.strip().lower()).netloc  # "null" (sandboxed page, opaque origin) -> ""
    return not netloc or (netloc != request.host.lower() and _host_name(netloc) not in origin_hosts)


def _has_body() -> bool:
    return bool(request.content_length) or "chunked" in request.headers.get("Transfer-Encoding", "").lower()


def _is_json(mimetype: str) -> bool:
    return mimetype == "application/json" or (mimetype.startswith("application/") and mimetype.endswith("+json"))


def check_cross_site(origin_hosts: frozenset[str]) -> None:
    """Refuse a state-changing or costly request a page of another origin could have made the browser send."""
    if request.method not in UNSAFE_METHODS:
        return
    if _cross_site(origin_hosts):
        log.warning("refused cross-site %s %s (Origin %r, Sec-Fetch-Site %r)", request.method, request.path,
                    request.headers.get("Origin"), request.headers.get("Sec-Fetch-Site"))
        raise CrossSiteRequestError("Only this server's own pages (or the allowed_hosts setting's) may send it.")
    if _has_body() and not _is_json(request.mimetype):
        log.warning("refused %s %s with a %r body", request.method, request.path, request.mimetype)
        raise UnsupportedMediaTypeError()


def response_headers(settings: Settings) -> dict[str, str]:
    """SECURITY_HEADERS, with the frame_ancestors setting's pages allowed to frame the UI (notebooks): CSP
    frame-ancestors gains them and X-Frame-Options (which can only say SAMEORIGIN) is left out."""
    if not settings.frame_ancestors:
        return SECURITY_HEADERS
    headers = {name: value for name, value in SECURITY_HEADERS.items() if name != "X-Frame-Options"}
    headers["Content-Security-Policy"] = headers["Content-Security-Policy"].replace(
        "frame-ancestors 'self'", f"frame-ancestors 'self' {settings.frame_ancestors}")
    return headers


def register(app: Flask, settings: Settings) -> None:
    headers = response_headers(settings)
    hosts = allowed_host_names(settings)
    origin_hosts = allowed_origin_hosts(settings)

    @app.before_request
    def _guard() -> None:
        if request.method not in ALLOWED_METHODS:
            raise RequestMethodNotAllowed()
        if hosts is not None and _host_name(request.host) not in hosts:
            log.warning("refused Host header %r (DNS-rebinding guard)", request.host)
            raise ParamValueError("Host header is not allowed; see the allowed_hosts setting.")
        check_cross_site(origin_hosts)

    @app.after_request
    def _headers(response: Response) -> Response:
        # names compared from one pass over the headers: werkzeug's `in`/`setdefault` build an exception for
        # each missing name, a twentieth of a small API answer's time
        present = {name.lower() for name in response.headers.keys()}  # noqa: SIM118 - keys() of a multidict
        response.headers.extend([(name, value) for name, value in headers.items() if name.lower() not in present])
        if request.path.startswith("/static/") and response.status_code == 200:
            response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
        elif "cache-control" not in present or request.path.startswith("/v1/"):
            # no-cache (not no-store) so a polling client can revalidate with ETag/If-None-Match
            response.headers["Cache-Control"] = "no-cache"
            response.headers["Pragma"] = "no-cache"
        return response
