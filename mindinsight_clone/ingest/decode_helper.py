"""A helper process that runs the vectorised scalar block readers beside the web worker, on another core.

One Python process has one interpreter lock: during a big load, decoding the files, the loader's bookkeeping and
the answers to requests all queue for it, while a second core idles (TensorBoard's loader is a Rust process of
its own). The block readers (`scalar_batch`, `tfevents_batch`, `vdl_batch`: `read_scalar_records`) are
pure functions of (file, offset, size, limits) to numpy columns, so they can run in another process: a loading
thread sends the call and waits (not holding the lock) while the worker imports its app, answers requests or
files the previous block's columns.

The helper is `python -m mindinsight_clone.ingest.decode_helper`: it reads calls from stdin and writes results
to stdout, each a length-prefixed pickle (a private pipe between two processes of ours; nothing else writes to
it). It decodes one call at a time and exits when its stdin closes, so it never outlives the worker that started
it, however that worker ends. Any failure (the helper did not start, died, or raised) makes the call run in the
worker as before, with one log line; the reader's results are the same either way.
"""

from __future__ import annotations

import itertools
import logging
import os
import pickle
import struct
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import IO, Any

log = logging.getLogger(__name__)

_LENGTH = struct.Struct("<Q")
START_TIMEOUT_S = 30.0  # a call waits at most this for a helper that has not answered anything yet
CALL_TIMEOUT_S = 300.0  # and at most this for one block (a block is at most a few MB)


class HelperUnavailable(Exception):
    """The helper cannot run this call (not running, gone, or it raised): run it in this process."""


def _write(stream: IO[bytes], obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_LENGTH.pack(len(data)) + data)
    stream.flush()


def _read(stream: IO[bytes]) -> Any:
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        raise EOFError("stream closed")
    size = _LENGTH.unpack(head)[0]
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("stream closed mid-message")
    return pickle.loads(data)  # noqa: S301 (our own helper's pipe)


class _Pending:
    __slots__ = ("done", "ok", "value")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.ok = False
        self.value: Any = None


class DecodeHelper:
    """The worker's end: `call(fn, *args)` runs `fn(*args)` in the helper; thread-safe, calls are queued."""

    def __init__(self, max_in_flight: int = 3) -> None:
        # calls queued for the helper at once; a thread beyond them decodes in the worker (HelperUnavailable
        # "busy"), so a load of a few big files keeps both cores decoding instead of queueing for one
        self.max_in_flight = max_in_flight
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()  # writes to the pipe, the pending table, start and close
        self._pending: dict[int, _Pending] = {}
        self._ids = itertools.count()
        self._answered = False
        self._gone = False  # its answers ended (it exited or was killed): no more calls go there
        self._failed_once = False
        self.calls = 0  # answered by the helper (tests, logs)

    @property
    def running(self) -> bool:
        """Started and not seen gone; no system call (it is asked for every block: a `poll()` each was ~5 % of the
        loading threads' time on a thousand small runs)."""
        return self._proc is not None and not self._gone

    @property
    def busy(self) -> bool:
        """As many calls under way as it takes at once."""
        return len(self._pending) >= self.max_in_flight

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def start(self) -> bool:
        """Launch the helper unless it runs; False (and logged) if it cannot be launched."""
        with self._lock:
            if self._proc is not None and not self._gone and self._proc.poll() is None:
                return True
            try:
                self._proc = subprocess.Popen(
                    [sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=None, close_fds=True, env=_helper_environment())
            except OSError as exc:
                log.warning("decode helper not started (%s): the worker decodes by itself", exc)
                self._proc = None
                return False
            self._answered = self._gone = False
            proc = self._proc
        threading.Thread(target=self._read_answers, args=(proc,), name="mi-decode-answers", daemon=True).start()
        log.info("decode helper %d started", proc.pid)
        return True

    def close(self) -> None:
        """Stop the helper (its stdin closes: it exits); calls under way fall back to this process."""
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait(timeout=5)
        self._fail_pending("stopped")
        log.info("decode helper %d stopped after %d calls", proc.pid, self.calls)

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(*args)` computed by the helper; HelperUnavailable if it cannot be (the caller runs it itself)."""
        pending = _Pending()
        with self._lock:
            proc = self._proc
            if proc is None or self._gone or proc.stdin is None:
                raise HelperUnavailable("not running")
            if self.busy:
                raise HelperUnavailable("busy")
            key = next(self._ids)
            self._pending[key] = pending
            try:
                _write(proc.stdin, (key, fn, args))
            except (OSError, ValueError, pickle.PicklingError) as exc:
                del self._pending[key]
                if not isinstance(exc, pickle.PicklingError):
                    self._gone = True  # a broken or closed pipe: the helper is gone (its reader may not know yet)
                self._note_failure(f"cannot send a call: {exc}")
                raise HelperUnavailable(str(exc)) from exc
            waited = CALL_TIMEOUT_S if self._answered else START_TIMEOUT_S
        if not pending.done.wait(waited):
            with self._lock:
                self._pending.pop(key, None)
            self._note_failure(f"no answer in {waited:.0f} s")
            raise HelperUnavailable("timed out")
        if not pending.ok:
            raise HelperUnavailable(str(pending.value))
        return pending.value

    def _read_answers(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        try:
            while True:
                key, ok, value = _read(proc.stdout)
                with self._lock:
                    pending = self._pending.pop(key, None)
                    self._answered = True
                    if ok:
                        self.calls += 1
                if pending is not None:
                    pending.ok, pending.value = ok, value
                    pending.done.set()
                if not ok:
                    self._note_failure(f"a call raised: {value}")
        except (EOFError, OSError, pickle.UnpicklingError) as exc:
            with self._lock:
                ours = proc is self._proc  # not a close() of ours
                if ours:
                    self._gone = True  # before the pending calls fail: no call is registered after them
            if ours:
                self._note_failure(f"it stopped ({exc}; exit code {proc.poll()})")
            self._fail_pending("gone")

    def _fail_pending(self, why: str) -> None:
        with self._lock:
            pending, self._pending = list(self._pending.values()), {}
        for p in pending:
            p.ok, p.value = False, why
            p.done.set()

    def _note_failure(self, why: str) -> None:
        level = logging.DEBUG if self._failed_once else logging.WARNING
        self._failed_once = True
        log.log(level, "decode helper: %s; the worker decodes by itself", why)


def _helper_environment() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")  # numpy's own threads would compete with the worker for the cores
    return env


def serve(stdin: IO[bytes], stdout: IO[bytes]) -> None:
    """The helper's loop: answer each call until stdin closes."""
    while True:
        try:
            key, fn, args = _read(stdin)
        except EOFError:
            return
        try:
            answer = (key, True, fn(*args))
        except Exception as exc:  # reported to the caller, which runs the call itself
            answer = (key, False, f"{type(exc).__name__}: {exc}")
        _write(stdout, answer)


def main() -> None:
    # the pipes are the protocol: nothing else may write to stdout
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr
    # the readers' imports (numpy, crc32c) now, while the worker still starts: not at the first call
    from mindinsight_clone.ingest import scalar_batch, tfevents_batch, vdl_batch  # noqa: F401

    serve(stdin, stdout)


if __name__ == "__main__":
    main()
