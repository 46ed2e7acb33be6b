"""Gunicorn's access logger, making only the fields our access log line prints.

gunicorn's `Logger.atoms()` copies every request header, response header and WSGI environ entry (some forty
strings, each then escaped) for every request, whatever the line prints: about a tenth of the worker's time
for a small API answer, and a polling client (the UI, a script watching a thousand runs) sends many.
"""

from __future__ import annotations

import datetime
from typing import Any

from gunicorn.glogging import Logger

FORMAT = '%(h)s "%(r)s" %(s)s %(b)s "%(a)s" %(M)sms'  # client, request line, status, bytes, agent, time


class AccessLogger(Logger):
    """`Logger` whose atoms are the six that FORMAT uses (any other format gets gunicorn's full set)."""

    def atoms(self, resp: Any, req: Any, environ: dict[str, Any], request_time: datetime.timedelta
              ) -> dict[str, Any]:
        if self.cfg.access_log_format != FORMAT:
            return super().atoms(resp, req, environ, request_time)  # type: ignore[no-any-return]
        status = resp.status
        if isinstance(status, str):
            status = status.split(None, 1)[0]
        sent = getattr(resp, "sent", None)
        return {
            "h": environ.get("REMOTE_ADDR", "-"),
            "r": f"{environ['REQUEST_METHOD']} {environ['RAW_URI']} {environ['SERVER_PROTOCOL']}",
            "s": status,
            "b": str(sent) if sent is not None else "-",
            "a": environ.get("HTTP_USER_AGENT", "-"),
            "M": request_time.seconds * 1000 + request_time.microseconds // 1000,
        }
