"""Domain errors -> HTTP `{"error_code", "error_msg"}`; anything unexpected -> a generic 500 and a log line."""

from __future__ import annotations

import logging

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed, NotFound

from mindinsight_clone.errors import (
    MindInsightError,
    ParamValueError,
    RequestMethodNotAllowed,
    RestfulApiNotExist,
    UnknownError,
)
from mindinsight_clone.server.routes_ui import page_redirect

log = logging.getLogger("mindinsight_clone.restful_api")


def error_response(err: MindInsightError) -> tuple[Response, int]:
    return jsonify({"error_code": err.error_code, "error_msg": err.message}), err.http_status


def register(app: Flask) -> None:
    @app.errorhandler(MindInsightError)
    def _domain(err: MindInsightError) -> tuple[Response, int]:
        log.warning("[%s] %s", err.error_code, err.message)
        return error_response(err)

    @app.errorhandler(NotFound)
    def _not_found(_: NotFound) -> Response | tuple[Response, int]:
        page = page_redirect(request)  # a browser asking for a page path: the app's route for it
        return page if page is not None else error_response(RestfulApiNotExist())

    @app.errorhandler(MethodNotAllowed)
    def _not_allowed(_: MethodNotAllowed) -> tuple[Response, int]:
        return error_response(RequestMethodNotAllowed())

    @app.errorhandler(HTTPException)
    def _http(err: HTTPException) -> tuple[Response, int]:
        if err.code is not None and 400 <= err.code < 500:
            bad = ParamValueError(f"{err.code} {err.name}.")
            return jsonify({"error_code": bad.error_code, "error_msg": bad.message}), err.code
        log.error("http error %s", err)
        return jsonify({"error_code": UnknownError().error_code, "error_msg": "System error or http error."}), 500

    @app.errorhandler(Exception)
    def _unexpected(err: Exception) -> tuple[Response, int]:
        log.exception("unexpected error: %s", err)
        return error_response(UnknownError())
