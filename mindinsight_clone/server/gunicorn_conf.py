"""Gunicorn configuration, read from the MINDINSIGHT_* environment that `start` sets.

One worker (the caches live in its memory) with threads; access and error logs rotate by size.

The master reads this file before it imports the worker class (and with it werkzeug), its logging configuration and
its arbiter: the cyclic collector is off from here until the master listens (`when_ready`, just before it forks the
worker), as in the worker's own start (server/worker.py). What exists then is frozen first, so neither the master's
later passes nor the worker's ever walk the imported modules, and the forked worker's pages stay shared.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

from mindinsight_clone.config import load_settings
from mindinsight_clone.server import access_log

gc.disable()  # back on in when_ready

_settings = load_settings()
_log_dir = Path(_settings.workspace) / "log" / "gunicorn"
_log_dir.mkdir(parents=True, exist_ok=True)

_host = f"[{_settings.host}]" if ":" in _settings.host else _settings.host
bind = [f"{_host}:{_settings.port}"]
workers = _settings.workers
worker_class = "mindinsight_clone.server.http_worker.GuardedThreadWorker"  # gthread + slow-client deadlines
threads = _settings.threads
timeout = _settings.timeout
graceful_timeout = 10
keepalive = 5
preload_app = False  # the app (and its threads) is created in the worker, never in the master
proc_name = f"mindinsight-clone:{_settings.port}"
control_socket_disable = True
access_log_format = access_log.FORMAT
logger_class = "mindinsight_clone.server.access_log.AccessLogger"  # makes only the fields the line prints


def _rotating(name: str) -> dict[str, object]:
    return {
        "class": "mindinsight_clone.server.logs.SizeRotatingFileHandler",  # one format, no stat per line
        "filename": str(_log_dir / f"{name}.{_settings.port}.log"),
        "maxBytes": _settings.log_max_bytes,
        "backupCount": _settings.log_backup_count,
        "formatter": "plain",
        "encoding": "utf-8",
    }


logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "[%(asctime)s] [%(process)d] [%(levelname)s] %(message)s"}},
    "handlers": {"error_file": _rotating("error"), "access_file": _rotating("access")},
    "loggers": {
        "gunicorn.error": {"level": "INFO", "handlers": ["error_file"], "propagate": False},
        "gunicorn.access": {"level": "INFO", "handlers": ["access_file"], "propagate": False},
    },
    "root": {"level": "WARNING", "handlers": ["error_file"]},
}


def when_ready(server: Any) -> None:
    """Gunicorn's hook in the master once it listens, before it forks the worker: the collector is back."""
    gc.freeze()
    gc.enable()
