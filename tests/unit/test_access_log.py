"""Our gunicorn access logger makes only the fields its line prints; the line is gunicorn's own, byte for byte."""

from __future__ import annotations

import datetime
import logging
from pathlib import Path
from types import SimpleNamespace

from gunicorn.config import Config
from gunicorn.glogging import Logger

from mindinsight_clone.server.access_log import FORMAT, AccessLogger
from mindinsight_clone.server.logs import SizeRotatingFileHandler


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


def _record(message: str) -> logging.LogRecord:
    return logging.LogRecord("gunicorn.access", logging.INFO, __file__, 1, message, None, None)


class CountingFormatter(logging.Formatter):
    calls = 0

    def format(self, record: logging.LogRecord) -> str:
        type(self).calls += 1
        return super().format(record)


def test_size_rotating_handler_formats_once_and_rotates_by_size(tmp_path: Path) -> None:
    target = tmp_path / "access.log"
    CountingFormatter.calls = 0
    handler = SizeRotatingFileHandler(target, maxBytes=100, backupCount=2, encoding="utf-8")
    handler.setFormatter(CountingFormatter("%(message)s"))
    lines = [f"line {i:02d} " + "x" * 20 for i in range(12)]  # 29 bytes with the newline: 3 a file
    for line in lines:
        handler.handle(_record(line))
    handler.close()
    assert CountingFormatter.calls == len(lines)  # the standard handler formats each record twice
    files = [target, tmp_path / "access.log.1", tmp_path / "access.log.2"]
    assert all(f.stat().st_size < 100 for f in files)
    kept = [row for f in reversed(files) for row in f.read_text(encoding="utf-8").splitlines()]
    assert kept == lines[-len(kept):] and len(kept) == 9  # the newest lines, in order; two backups kept


def test_size_rotating_handler_appends_to_what_another_process_wrote(tmp_path: Path) -> None:
    target = tmp_path / "error.log"
    handler = SizeRotatingFileHandler(target, maxBytes=60, backupCount=1, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler.handle(_record("a" * 20))
    with target.open("a", encoding="utf-8") as other:  # the gunicorn master writes the same error log
        other.write("b" * 30 + "\n")
    handler.handle(_record("c" * 20))  # 21 + 52 bytes > 60: the file is rotated first
    handler.close()
    assert target.read_text(encoding="utf-8") == "c" * 20 + "\n"
    assert (tmp_path / "error.log.1").read_text(encoding="utf-8") == "a" * 20 + "\n" + "b" * 30 + "\n"


def test_size_rotating_handler_writes_to_a_device_without_rotating(tmp_path: Path) -> None:
    handler = SizeRotatingFileHandler("/dev/null", maxBytes=10, backupCount=1)
    handler.setFormatter(logging.Formatter("%(message)s"))
    errors: list[logging.LogRecord] = []
    handler.handleError = errors.append  # type: ignore[method-assign]
    for _ in range(5):
        handler.handle(_record("x" * 40))
    handler.close()
    assert errors == [] and Path("/dev/null").is_char_device()
