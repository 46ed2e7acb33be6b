"""Domain errors -> HTTP `{"error_code", "error_msg"}`; anything unexpected -> a generic 500 and a log line."""

from __future__ import annotations

import logging

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed, NotFound

from mindinsight_clone.errors import (
    AuthTokenError,
    GraphNotExistError,
    HistogramNotExistError,
    ImageNotExistError,
    KindDataNotExistError,
    MindInsightError,
    ParamValueError,
    RequestMethodNotAllowed,
    RestfulApiNotExist,
    ScalarNotExistError,
    SummaryLogIsLoading,
    TensorNotExistError,
    TrainJobNotExistError,
    UnknownError,
)
from mindinsight_clone.ingest.train_id import check_train_id_syntax, normalize_train_id
from mindinsight_clone.server.auth import refusal_page
from mindinsight_clone.server.routes_ui import page_redirect
from mindinsight_clone.server.services import services

log = logging.getLogger("mindinsight_clone.restful_api")


def error_response(err: MindInsightError) -> tuple[Response, int]:
    return jsonify({"error_code": err.error_code, "error_msg": err.message}), err.http_status


# "does not exist" answers that may only mean "not loaded yet" (a new worker is reading the files)
NOT_LOADED_YET = (TrainJobNotExistError, ScalarNotExistError, HistogramNotExistError, ImageNotExistError,
                  TensorNotExistError, GraphNotExistError, KindDataNotExistError)

DATA_PATHS = "/v1/mindinsight/datavisual/"  # served from the data manager's caches (graphs included)


def loading_instead(err: MindInsightError) -> MindInsightError:
    """MindInsight's 50545007 "Data is loading" instead of a "does not exist" error while the run asked for
    is still being loaded (e.g. the first second after a worker restart); `err` itself otherwise."""
    if not isinstance(err, NOT_LOADED_YET) or not request.path.startswith(DATA_PATHS):
        return err  # lineage and profiler read their files directly: never "loading"
    raw = request.args.get("train_id")
    try:
        train_id = normalize_train_id(check_train_id_syntax(raw))
    except MindInsightError:
        return err  # malformed ids are refused as ever, loading or not
    status = services().data_manager.still_loading(train_id)
    if status is None:
        return err
    return SummaryLogIsLoading(f"Detail: Data is being loaded, current status: {status}.")


def log_domain_error(err: MindInsightError, absent: bool = False) -> None:
    """One log line per domain error; an absence the client said it expects is only info. "Still loading" is a
    state, not a fault: a client polling a loading run (a thousand runs after a restart) would otherwise write a
    warning per request, on the threads that compete with the loader, so it is logged at debug."""
    level = logging.DEBUG if isinstance(err, SummaryLogIsLoading) else logging.INFO if absent else logging.WARNING
    log.log(level, "[%s] %s", err.error_code, err.message)


def register(app: Flask) -> None:
    @app.errorhandler(MindInsightError)
    def _domain(err: MindInsightError) -> tuple[Response, int]:
        err = loading_instead(err)
        log_domain_error(err)
        return error_response(err)

    @app.errorhandler(AuthTokenError)
    def _no_token(err: AuthTokenError) -> Response | tuple[Response, int]:
        log.info("[%s] %s %s without the access token", err.error_code, request.method, request.path)
        page = refusal_page(request)  # a browser asking for a page: how to get in, in HTML
        if page is not None:
            return page
        response, status = error_response(err)
        response.headers["WWW-Authenticate"] = 'Bearer realm="mindinsight-clone"'
        return response, status

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
