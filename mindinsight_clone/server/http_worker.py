"""Gunicorn's gthread worker with a deadline for what a client sends (the slow-client guard, issue 29).

gthread hands a connection to a request thread as soon as its first byte arrives; the thread then blocks in
`recv` until the whole request head (and later the body) is in. Nine connections that trickle a byte every few
seconds held all eight threads, and the server answered nothing for as long as they stayed. Here:

* a request head is collected on the worker's main loop, without a thread, and must be complete within
  `client_timeout` seconds of the connection (or of the previous answer on a kept-alive one); a slower
  connection is closed unanswered;
* once a thread has the request, the body must arrive within `client_timeout` seconds, in all (a deadline,
  not a per-`recv` timeout: one byte every second must not renew it); past that the request is answered
  408 Request Timeout (JSON, through the app's error handler) and the connection closed.
"""

from __future__ import annotations

import contextlib
import errno
import selectors
import socket
import time
from collections import deque
from functools import partial
from typing import Any

from gunicorn.workers.gthread import TConn, ThreadWorker
from werkzeug.exceptions import RequestTimeout

from mindinsight_clone.config import load_settings

HEAD_END = b"\r\n\r\n"
MAX_HEAD_BYTES = 64 * 1024  # past this the head goes to a thread anyway (gunicorn's own limits refuse it there)
RECV_BYTES = 64 * 1024
_TIMEOUT_BODY = b'{"error_code": "50540002", "error_msg": "Invalid parameter value. 408 Request Timeout."}\n'
TIMEOUT_ANSWER = (b"HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nConnection: close\r\n"
                  b"Content-Length: %d\r\n\r\n%s" % (len(_TIMEOUT_BODY), _TIMEOUT_BODY))  # as the app's 408


class ReadDeadlineExceeded(RequestTimeout):
    """The client did not send its request within the deadline (a 408 for Flask's error handlers)."""


class DeadlineSocket:
    """The socket a request is read from, as the parser sees it: every `recv` ends by the deadline."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self._sock = sock
        self.deadline = deadline

    def recv(self, size: int) -> bytes:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise ReadDeadlineExceeded()
        prior = self._sock.gettimeout()
        self._sock.settimeout(remaining if prior is None else min(prior, remaining))
        try:
            return self._sock.recv(size)
        except TimeoutError:
            if time.monotonic() >= self.deadline:
                raise ReadDeadlineExceeded() from None
            raise
        finally:
            self._sock.settimeout(prior)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class GuardedThreadWorker(ThreadWorker):  # type: ignore[misc]
    """gthread with request heads read on the main loop and a deadline for the body (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.client_timeout = float(load_settings().client_timeout)
        self.head_conns: deque[TConn] = deque()  # collecting a head, oldest deadline first

    # ---------------------------------------------------------------- main loop: heads
    def accept(self, listener: socket.socket) -> None:
        try:
            client_sock, client_addr = listener.accept()
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                return  # another worker took it, or the client left already (as gthread)
            raise
        self.nr_conns += 1
        self._collect_head(TConn(self.cfg, client_sock, client_addr, listener.getsockname()))

    def on_client_socket_readable(self, conn: TConn, client: socket.socket) -> None:
        """A kept-alive connection has a next request: its head is collected like a new one's."""
        self.poller.unregister(client)
        self.keepalived_conns.remove(conn)
        self._collect_head(conn)

    def _collect_head(self, conn: TConn) -> None:
        conn.sock.setblocking(False)
        conn.head = bytearray()
        conn.timeout = time.monotonic() + self.client_timeout
        self.head_conns.append(conn)
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._on_head_bytes, conn))

    def _on_head_bytes(self, conn: TConn, _sock: socket.socket) -> None:
        try:
            data = conn.sock.recv(RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the client left
            self._drop_head_conn(conn)
            return
        conn.head += data
        if HEAD_END in conn.head or len(conn.head) > MAX_HEAD_BYTES:
            self._forget_head_conn(conn)
            conn.data_ready = True
            self.enqueue_req(conn)

    def _forget_head_conn(self, conn: TConn) -> None:
        with contextlib.suppress(ValueError):
            self.head_conns.remove(conn)
        with contextlib.suppress(KeyError, ValueError, OSError):
            self.poller.unregister(conn.sock)

    def _drop_head_conn(self, conn: TConn) -> None:
        self._forget_head_conn(conn)
        self.nr_conns -= 1
        conn.close()

    def murder_pending(self) -> None:
        """Also close the connections whose head is not complete in time (called by the main loop)."""
        super().murder_pending()
        now = time.monotonic()
        while self.head_conns and self.head_conns[0].timeout <= now:
            conn = self.head_conns[0]
            self.log.info("closed a connection from %s: no complete request head in %ss", _peer(conn),
                          self.client_timeout)
            self._drop_head_conn(conn)

    # ---------------------------------------------------------------- request thread: body
    def handle(self, conn: TConn) -> Any:
        head = getattr(conn, "head", None)
        if head is not None:
            conn.head = None
            conn.sock.setblocking(True)
            conn.init()
            conn.parser.unreader.unread(bytes(head))
        if conn.parser is not None:
            real = getattr(conn.parser.unreader.sock, "_sock", conn.parser.unreader.sock)
            conn.parser.unreader.sock = DeadlineSocket(real, time.monotonic() + self.client_timeout)
        return super().handle(conn)

    def _keepalive_after(self, conn: TConn, keepalive: bool) -> bool:
        try:
            return bool(super()._keepalive_after(conn, keepalive))
        except ReadDeadlineExceeded:
            return False  # the rest of the body did not come in time: the connection closes

    def handle_error(self, req: Any, client: socket.socket, addr: Any, exc: BaseException) -> None:
        """A deadline passed outside the app (a chunked body read before it, a long head): 408, then close."""
        if not isinstance(exc, ReadDeadlineExceeded):
            super().handle_error(req, client, addr, exc)
            return
        self.log.info("answered 408 to %s: the request was not sent within %ss", addr, self.client_timeout)
        with contextlib.suppress(OSError):
            client.settimeout(1.0)
            client.sendall(TIMEOUT_ANSWER)


def _peer(conn: TConn) -> str:
    client = conn.client
    return f"{client[0]}:{client[1]}" if isinstance(client, tuple) and len(client) >= 2 else str(client)
