"""The request-body limit (MAX_CONTENT_LENGTH) for bodies sent without a Content-Length (chunked).

With a Content-Length, Werkzeug refuses a body over the limit with 413. A chunked body has none: Werkzeug
then caps the stream at the limit and hands the route the first 16 MB as if that were all, so an oversized
body was truncated and processed. This WSGI middleware reads a chunked body up to the limit + 1 byte
before the app runs: within the limit it is handed on as an ordinary body with a Content-Length; past it
the request is flagged and `check()` (a before_request hook) answers 413. A body whose Content-Length is
over the limit is flagged the same way without being kept. The rest of an oversized body is drained (read
and dropped) up to `drain_bytes`, so the client gets to read the 413 instead of a reset connection; past
that the connection is simply closed.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from flask import request
from werkzeug.exceptions import RequestEntityTooLarge

TOO_LARGE_KEY = "mindinsight_clone.body_too_large"
READ_BYTES = 1024 * 1024
DEFAULT_DRAIN_BYTES = 64 * 1024 * 1024


class ChunkedBodyLimit:
    def __init__(self, app: Any, max_bytes: int, drain_bytes: int = DEFAULT_DRAIN_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.drain_bytes = drain_bytes

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        declared = _content_length(environ)
        if declared is not None and declared > self.max_bytes:
            # refused without reading it; drain what we can so the client gets to read the 413
            environ[TOO_LARGE_KEY] = True
            _read_at_most(environ["wsgi.input"], min(declared, self.drain_bytes), keep=False)
            environ["wsgi.input"] = io.BytesIO(b"")
            environ["CONTENT_LENGTH"] = "0"
        elif chunked and declared is None:
            stream = environ["wsgi.input"]
            body = _read_at_most(stream, self.max_bytes + 1)
            if len(body) > self.max_bytes:
                environ[TOO_LARGE_KEY] = True
                _read_at_most(stream, self.drain_bytes, keep=False)
                body = b""
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
            environ.pop("HTTP_TRANSFER_ENCODING", None)
        return self.app(environ, start_response)  # type: ignore[no-any-return]


def check() -> None:
    """before_request: refuse a chunked body that went over the limit (413)."""
    if request.environ.get(TOO_LARGE_KEY):
        raise RequestEntityTooLarge()


def _content_length(environ: dict[str, Any]) -> int | None:
    try:
        return int(environ.get("CONTENT_LENGTH") or "")
    except ValueError:
        return None


def _read_at_most(stream: Any, limit: int, keep: bool = True) -> bytes:
    parts: list[bytes] = []
    total = 0
    while total < limit:
        chunk = stream.read(min(READ_BYTES, limit - total))
        if not chunk:
            break
        total += len(chunk)
        if keep:
            parts.append(chunk)
    return b"".join(parts)
