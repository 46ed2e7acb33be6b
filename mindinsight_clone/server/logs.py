"""The app's own log under <workspace>/log/, rotated by size."""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

from mindinsight_clone.config import Settings

FORMAT = "[%(levelname)s] %(asctime)s %(process)d:%(threadName)s [%(name)s] %(message)s"


def log_dir(settings: Settings) -> Path:
    return Path(settings.workspace) / "log"


def setup_app_logging(settings: Settings) -> None:
    """Send the `mindinsight_clone` loggers to log/app.<port>.log (idempotent)."""
    logger = logging.getLogger("mindinsight_clone")
    logger.setLevel(logging.INFO)
    target = log_dir(settings) / f"app.{settings.port}.log"
    for handler in logger.handlers:
        if getattr(handler, "baseFilename", None) == str(target):
            return
    target.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(
        target, maxBytes=settings.log_max_bytes, backupCount=settings.log_backup_count, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter(FORMAT))
    logger.addHandler(handler)
