"""Our gunicorn access logger makes only the fields its line prints; the line is gunicorn's own, byte for byte."""

from __future__ import annotations

import datetime
import logging
from pathlib import Path
from types import SimpleNamespace

from gunicorn.config import Config
from gunicorn.glogging import Logger

from mindinsight_clone.server.access_log import FORMAT, AccessLogger


def _line(logger_class: type[Logger], fmt: str, tmp: Path, resp: SimpleNamespace, environ: dict[str, str]) -> str:
    """The access line that `logger_class` writes for this request (a fresh log file each time)."""
    cfg = Config()
    cfg.set("access_log_format", fmt)
    log_file = tmp / f"{logger_class.__name__}.{len(list(tmp.iterdir()))}.log"
    cfg.set("accesslog", str(log_file))
    logger = logger_class(cfg)
    req = SimpleNamespace(headers=[("USER-AGENT", environ.get("HTTP_USER_AGENT", ""))])
    logger.access(resp, req, environ, datetime.timedelta(seconds=1, microseconds=234_567))
    for handler in logger.access_log.handlers:
        handler.flush()
        handler.close()
    logging.getLogger("gunicorn.access").handlers.clear()
    return log_file.read_text(encoding="utf-8")


def _request(status: str, sent: int | None, agent: str | None) -> tuple[SimpleNamespace, dict[str, str]]:
    environ = {"REMOTE_ADDR": "127.0.0.1", "REQUEST_METHOD": "GET", "SERVER_PROTOCOL": "HTTP/1.1",
               "RAW_URI": '/v1/mindinsight/health?x="1"', "PATH_INFO": "/v1/mindinsight/health", "QUERY_STRING": "x"}
    if agent is not None:
        environ["HTTP_USER_AGENT"] = agent
    return SimpleNamespace(status=status, sent=sent, headers=[("Content-Type", "application/json")]), environ


def test_our_line_is_gunicorns_line(tmp_path: Path) -> None:
    for status, sent, agent in (("200 OK", 183, 'curl "quoted"'), ("404 NOT FOUND", 0, None), ("500 X", None, "ua")):
        resp, environ = _request(status, sent, agent)
        ours = _line(AccessLogger, FORMAT, tmp_path, resp, environ)
        assert ours == _line(Logger, FORMAT, tmp_path, resp, environ) and ours.strip()
        assert f'"GET /v1/mindinsight/health?x=\\"1\\" HTTP/1.1" {status.split()[0]} ' in ours
        assert ours.rstrip().endswith("1234ms")


def test_another_format_gets_every_field(tmp_path: Path) -> None:
    resp, environ = _request("200 OK", 7, "ua")
    fmt = '%(m)s %(U)s %(q)s %({content-type}o)s %(B)s'
    ours = _line(AccessLogger, fmt, tmp_path, resp, environ)
    assert ours == _line(Logger, fmt, tmp_path, resp, environ)
    assert "GET /v1/mindinsight/health x application/json 7" in ours
