"""The app's own log under <workspace>/log/, rotated by size."""

from __future__ import annotations

import logging
import logging.handlers
import os
import stat
from pathlib import Path
from typing import Any

from mindinsight_clone.config import Settings

FORMAT = "[%(levelname)s] %(asctime)s %(process)d:%(threadName)s [%(name)s] %(message)s"


class SizeRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """RotatingFileHandler that formats a record once and makes no `stat` per record.

    The standard one (Python 3.11-3.13) formats each record twice (once to see whether it fits) and stats the
    file twice to check it is still a regular file; the access log writes a record per request. The size is
    still read from the file (`seek` to its end), so other writers (the master) are counted."""

    _regular = False  # what is open is a regular file (a FIFO or /dev/null is written, never rotated)

    def _open(self) -> Any:
        stream = super()._open()
        self._regular = stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
        return stream

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record) + self.terminator
            if self.stream is None:
                self.stream = self._open()
            if self.maxBytes > 0 and self._regular and self.stream.seek(0, 2) + len(line) >= self.maxBytes:
                self.doRollover()
                if self.stream is None:
                    self.stream = self._open()
            self.stream.write(line)
            self.stream.flush()
        except RecursionError:
            raise
        except Exception:  # logging's contract: report through handleError, never raise
            self.handleError(record)


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
    handler = SizeRotatingFileHandler(
        target, maxBytes=settings.log_max_bytes, backupCount=settings.log_backup_count, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter(FORMAT))
    logger.addHandler(handler)
