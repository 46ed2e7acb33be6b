"""--auth-token: every request needs the token (Jupyter-style), checked before any other guard or route.

A request is let in when it carries
* `Authorization: Bearer <token>` (scripts), or
* the cookie this module sets (browsers): a GET of a page with `?token=<token>` (the link `start` prints) sets
  an HttpOnly, SameSite=Lax cookie (Path = the URL path prefix, or '/') and is redirected to the same URL
  without the token, so the token does not stay in the address bar or the history; or
* `?token=<token>` on an API path (`/v1/...`): accepted as it is, no cookie, no redirect (a script's URL).
Anything else is refused: 401 with the app's JSON error (50540023), or, for a browser asking for a page, a
small HTML page that says to open the link printed by `start`.

`/v1/mindinsight/health` stays open for probes but, without the token, answers only `{"status": "ok"}`: its
version, load status and run counts are for token holders.

The cookie's value is derived from the token (HMAC), not the token itself, and its name carries a hash of
the token: servers with other tokens on the same host name (other ports) keep their own cookies, replicas
sharing one token behind a proxy share one.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import quote, unquote_plus

from flask import Flask, Request, Response, jsonify, request

from mindinsight_clone.config import Settings
from mindinsight_clone.errors import AuthTokenError
from mindinsight_clone.server.lifecycle import GENERATE_TOKEN

HEALTH_PATH = "/v1/mindinsight/health"
COOKIE_MAX_AGE = 30 * 24 * 3600  # tornado's (Jupyter's) default for its login cookie
SAFE_PATH = "/:@!$'()*+,;=-._~%"  # kept as they are in the redirect target, as routes_ui does

REFUSED_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>mindinsight-clone: token required</title>
</head><body><h1>Access token required</h1><p>This mindinsight-clone server is protected by an access token.
Open the link printed by <code>mindinsight-clone start</code> (it ends with <code>?token=...</code>); the browser
then keeps a cookie and the link is not needed again.</p></body></html>"""


def cookie_name(token: str) -> str:
    return "mindinsight_clone_token_" + hashlib.sha256(b"name:" + token.encode()).hexdigest()[:12]


def cookie_value(token: str) -> str:
    return hmac.new(token.encode(), b"mindinsight-clone cookie", hashlib.sha256).hexdigest()


def same(given: str, expected: str) -> bool:
    """Constant-time comparison (any characters: compare_digest takes ASCII str or bytes only)."""
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), expected.encode())


def bearer(req: Request) -> str | None:
    scheme, _, value = req.headers.get("Authorization", "").strip().partition(" ")
    return value.strip() if scheme.lower() == "bearer" else None


def query_without_token(query_string: bytes) -> str:
    """The raw query string minus its `token` parameters (the others kept byte for byte)."""
    parts = query_string.decode("latin-1").split("&")
    kept = [p for p in parts if p and unquote_plus(p.partition("=")[0]) != "token"]
    return "&".join(kept)


def is_page_request(req: Request) -> bool:
    """A browser GET of a page (not the API, not an asset) that prefers HTML."""
    if req.method not in ("GET", "HEAD") or req.path.startswith(("/v1/", "/static/")):
        return False
    return req.accept_mimetypes.best_match(["application/json", "text/html"]) == "text/html"


def refusal_page(req: Request) -> Response | None:
    """The HTML 401 page for a browser asking for a page without the token; None for anything else."""
    if not is_page_request(req):
        return None
    return Response(REFUSED_PAGE, status=401, mimetype="text/html",
                    headers={"WWW-Authenticate": 'Bearer realm="mindinsight-clone"'})


def _over_tls() -> bool:
    """Whether the browser reached us over HTTPS, directly or through a TLS-terminating proxy. Trusting the
    proxy's X-Forwarded-Proto here is safe: a forged `https` only makes the cookie Secure, which a plain-HTTP
    client then does not send back (its own visit fails, nothing else changes)."""
    forwarded = request.headers.get("X-Forwarded-Proto", "").split(",")[0].strip().lower()
    return request.is_secure or forwarded == "https"


def register(app: Flask, settings: Settings) -> None:
    """Require `settings.auth_token` on every request (nothing when it is empty). Register before other hooks."""
    token = settings.auth_token
    if not token:
        return
    if token == GENERATE_TOKEN:
        raise ValueError("auth_token 'generate' is replaced by a random token by `mindinsight-clone start`")
    name, value = cookie_name(token), cookie_value(token)

    def enter() -> Response:
        """The link's visit: set the cookie, send the browser to the same URL without the token."""
        target = quote(request.script_root + request.path, safe=SAFE_PATH)
        rest = query_without_token(request.query_string)
        response = Response(status=302, headers={"Location": target + ("?" + rest if rest else "")})
        response.set_cookie(name, value, max_age=COOKIE_MAX_AGE, path=request.script_root or "/", httponly=True,
                            samesite="Lax", secure=_over_tls())
        return response

    @app.before_request
    def _require_token() -> Response | tuple[Response, int] | None:
        in_query = request.args.get("token")
        if in_query is not None and same(in_query, token):
            if request.method in ("GET", "HEAD") and not request.path.startswith("/v1/"):
                return enter()  # even with the cookie already set: the token leaves the address bar
            return None
        given = bearer(request)
        if given is not None and same(given, token):
            return None
        cookie = request.cookies.get(name)
        if cookie is not None and same(cookie, value):
            return None
        if request.path == HEALTH_PATH and request.method in ("GET", "HEAD"):
            return jsonify({"status": "ok"})  # liveness for probes; nothing about the data
        raise AuthTokenError("Send it as 'Authorization: Bearer <token>', or open the link printed by start.")
