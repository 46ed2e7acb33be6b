"""The bundled single-page app: `/` serves index.html, `/static/<path>` its assets."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

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
