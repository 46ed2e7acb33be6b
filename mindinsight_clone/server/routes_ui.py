"""The bundled single-page app: `/` serves index.html, `/static/<path>` its assets; a browser asking
for another page path is sent to the app's own route for it (`/x` -> `/#/x`)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from flask import Blueprint, Request, Response, send_from_directory

DIST = Path(__file__).resolve().parent.parent / "ui" / "dist"

bp = Blueprint("ui", __name__)

MISSING_UI = """<!doctype html><html><head><meta charset="utf-8"><title>mindinsight-clone</title></head>
<body><h1>mindinsight-clone</h1><p>The web UI has not been built. From a clone, run
<code>scripts/build_frontend</code> (needs Node.js and npm), or reinstall with <code>pip install .</code>.
The REST API is available under <code>/v1/mindinsight/</code>.</p></body></html>"""


@bp.get("/")
def index() -> Response:
    if not (DIST / "index.html").is_file():
        return Response(MISSING_UI, mimetype="text/html")
    response = send_from_directory(DIST, "index.html", max_age=0)
    response.headers["Cache-Control"] = "no-cache"
    return response


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
    target = "/#" + quote(request.path, safe=SAFE_PATH)
    if request.query_string:
        target += "?" + quote(request.query_string.decode("latin-1"), safe=SAFE_QUERY)
    return Response(status=302, headers={"Location": target})
