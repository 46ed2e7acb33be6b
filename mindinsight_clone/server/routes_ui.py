"""The bundled single-page app: `/` serves index.html, `/static/<path>` its assets; a browser asking
for another page path is sent to the app's own route for it (`/x` -> `/#/x`; under --url-path-prefix
`<prefix>/x` -> `<prefix>/#/x`).

index.html carries the server's reload interval (`<meta name="mi-reload-interval">`), so the page's
auto-refresh label names the real interval from its first paint, even when `ui-config` is slow or lost."""

from __future__ import annotations

import functools
from pathlib import Path
from urllib.parse import quote

from flask import Blueprint, Request, Response, send_from_directory

from mindinsight_clone.server.services import services

DIST = Path(__file__).resolve().parent.parent / "ui" / "dist"

bp = Blueprint("ui", __name__)

MISSING_UI = """<!doctype html><html><head><meta charset="utf-8"><title>mindinsight-clone</title></head>
<body><h1>mindinsight-clone</h1><p>The web UI has not been built. From a clone, run
<code>scripts/build_frontend</code> (needs Node.js and npm), or reinstall with <code>pip install .</code>.
The REST API is available under <code>/v1/mindinsight/</code>.</p></body></html>"""


@functools.lru_cache(maxsize=4)
def _index_html(mtime_ns: int, reload_interval: int) -> str:
    """index.html with the reload interval in a meta tag (cached per build and interval)."""
    html = (DIST / "index.html").read_text(encoding="utf-8")
    meta = f'<meta name="mi-reload-interval" content="{int(reload_interval)}" />'
    return html.replace("</head>", f"    {meta}\n  </head>", 1)


@bp.get("/")
def index() -> Response:
    page = DIST / "index.html"
    if not page.is_file():
        return Response(MISSING_UI, mimetype="text/html")
    html = _index_html(page.stat().st_mtime_ns, services().settings.reload_interval)
    return Response(html, mimetype="text/html", headers={"Cache-Control": "no-cache"})


@bp.get("/static/<path:filename>")
def static_files(filename: str) -> Response:
    # send_from_directory refuses anything that resolves outside DIST / "static".
    return send_from_directory(DIST / "static", filename)


# Paths that stay JSON 404s whatever the client accepts: the REST API and the assets.
NOT_PAGES = ("/v1/", "/static/")
# Characters kept as they are in the redirect target (everything else is percent-encoded).
SAFE_PATH = "/:@!$'()*+,;=-._~%"
SAFE_QUERY = SAFE_PATH + "&?"


def page_redirect(request: Request) -> Response | None:
    """A browser GET of an unknown page path (`/scalars?train_id=./x`, `/nope`) is redirected to the
    hash route of the same name, where the app shows that page or its not-found page with a way back.
    API clients (no HTML preferred), other methods, /v1/ and /static/ keep the JSON 404."""
    if request.method != "GET" or request.path.startswith(NOT_PAGES):
        return None
    if request.accept_mimetypes.best_match(["application/json", "text/html"]) != "text/html":
        return None
    target = quote(request.script_root, safe=SAFE_PATH) + "/#" + quote(request.path, safe=SAFE_PATH)
    if request.query_string:
        target += "?" + quote(request.query_string.decode("latin-1"), safe=SAFE_QUERY)
    return Response(status=302, headers={"Location": target})
