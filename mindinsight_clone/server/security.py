"""Request guards and response headers: allowed methods, Host allow-list, security headers."""

from __future__ import annotations

import logging

from flask import Flask, Response, request

from mindinsight_clone.config import Settings
from mindinsight_clone.errors import ParamValueError, RequestMethodNotAllowed

log = logging.getLogger(__name__)

ALLOWED_METHODS = ("GET", "POST", "PUT", "DELETE")
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


def register(app: Flask, settings: Settings) -> None:
    hosts = allowed_host_names(settings)

    @app.before_request
    def _guard() -> None:
        if request.method not in ALLOWED_METHODS:
            raise RequestMethodNotAllowed()
        if hosts is not None and _host_name(request.host) not in hosts:
            log.warning("refused Host header %r (DNS-rebinding guard)", request.host)
            raise ParamValueError("Host header is not allowed; see the allowed_hosts setting.")

    @app.after_request
    def _headers(response: Response) -> Response:
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        if request.path.startswith("/static/") and response.status_code == 200:
            response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
        elif "Cache-Control" not in response.headers or request.path.startswith("/v1/"):
            # no-cache (not no-store) so a polling client can revalidate with ETag/If-None-Match
            response.headers["Cache-Control"] = "no-cache"
            response.headers["Pragma"] = "no-cache"
        return response
