"""Time to ready, probed the same way for every tool: every run's readiness asked in parallel at each poll.

A tool is *ready* for a run when its scalar API answers that run's last step. The old harness asked runs one
after another and stopped at the first not ready, so with 1,000 runs it timed the tool's per-request latency
x 1,000 (TensorBoard answers a probe in ~48 ms, ours in ~4 ms), not its loading. Here:

* **One poll = one round over every run not seen ready yet**, spread over a bounded pool of `threads`
  concurrent probes (each thread keeps one keep-alive connection), then a short pause (`interval`). Ready
  runs are not asked again, so a tool that finishes runs one by one gets cheaper rounds as it goes.
* **A run's ready time is the answer of the probe that found it complete, less the harness's own cost of
  a probe**: the median probe latency measured against the same server once everything is loaded (never
  earlier than that probe was sent). The answer time alone would charge the tool its per-request latency
  (the old harness's fault, x 1,000); the send time alone would credit it with the time a probe waited in
  its queue while the data arrived. Send and answer times are kept (`sent_s`, `answered_s`).
* **The harness's cost is measured, not guessed**: `overhead` runs full rounds over every run against the
  server once everything is loaded; the round time is the resolution of the figures (how late a run that
  became ready just after its probe can be seen), printed next to them, with the harness's CPU time.
* Levers printed besides the time when 100 % of the runs are served: the time to the first answer with data
  (any run, any step) and when 50 % / 90 % of the runs were served.

Everything is bounded: each probe by `timeout`, the wait by its deadline, a round by the number of runs.
"""

from __future__ import annotations

import http.client
import json
import math
import statistics
import threading
import time
import urllib.parse
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from common import percentile

PROBE_THREADS = 8  # concurrent probes, the same for every tool
POLL_INTERVAL_S = 0.05  # pause between rounds
PROBE_TIMEOUT_S = 30.0


# an answer's body -> the last step it serves (None: no data). Cheap: it runs in the harness for every probe,
# on the cores the servers use (parsing a whole 500-point answer cost the client ~0.6 ms a probe)
StepOf = Callable[[bytes], int | None]


def step_after_key(data: bytes) -> int | None:
    """The last `"step": N` of a JSON body (MindInsight's `{"metadatas": [..., {"step": N, ...}]}`)."""
    at = data.rfind(b'"step"')
    if at < 0:
        return None
    rest = data[data.index(b":", at) + 1:at + 40].lstrip()
    digits = rest[:len(rest) - len(rest.lstrip(b"-0123456789"))]
    return int(digits) if digits else None


def step_of_last_row(data: bytes) -> int | None:
    """The second field of the last `[wall_time, step, value]` row of a JSON list (TensorBoard's scalars)."""
    at = data.rfind(b"[")
    if at < 0:
        return None
    fields = data[at + 1:].split(b",")
    return int(float(fields[1])) if len(fields) >= 3 else None


def checked(fast: StepOf, slow: Callable[[Any], int | None]) -> StepOf:
    """`fast`, falling back to `slow` over the parsed JSON when the body is not what `fast` expects."""
    def step_of(data: bytes) -> int | None:
        try:
            return fast(data)
        except (ValueError, IndexError):
            try:
                return slow(json.loads(data))
            except ValueError:
                return None
    return step_of


@dataclass(frozen=True)
class Probe:
    """One probe's outcome: the step it served (None: no data or an error) and when it was sent/answered."""

    key: str
    step: int | None
    sent: float  # time.monotonic()
    answered: float


class ProbePool:
    """`threads` worker threads, each with its own keep-alive HTTP connection to one server."""

    def __init__(self, base: str, threads: int = PROBE_THREADS, timeout: float = PROBE_TIMEOUT_S) -> None:
        parts = urllib.parse.urlsplit(base)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.timeout = timeout
        self._local = threading.local()
        self._pool = ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="probe")

    def __enter__(self) -> ProbePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._pool.shutdown(wait=True)

    def _get(self, path: str) -> tuple[int, bytes]:
        conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
        for attempt in range(2):  # a keep-alive connection the server closed meanwhile: retry once, fresh
            if conn is None:
                conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            try:
                conn.request("GET", path)
                resp = conn.getresponse()
                data = resp.read()
                if resp.will_close:
                    conn.close()
                    conn = None
                self._local.conn = conn
                return resp.status, data
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = None
                self._local.conn = None
                if attempt:
                    break
        return 0, b""

    def _probe(self, key: str, path: str, last_step: StepOf) -> Probe:
        sent = time.monotonic()
        status, data = self._get(path)
        step = last_step(data) if status == 200 else None
        return Probe(key, step, sent, time.monotonic())

    def round(self, items: Sequence[tuple[str, str]], last_step: StepOf) -> list[Probe]:
        """Probe every (key, path) once, `threads` at a time; results in the order given."""
        futures = [self._pool.submit(self._probe, key, path, last_step) for key, path in items]
        return [f.result() for f in futures]


@dataclass
class Readiness:
    """When each run was first served complete (seconds from launch), and what the waiting cost."""

    runs: int
    sent_s: dict[str, float] = field(default_factory=dict)  # send time of the probe that found it complete
    answered_s: dict[str, float] = field(default_factory=dict)  # answer time of that probe
    first_sent_s: float = math.nan  # the first probe (any run) that served data: sent
    first_answered_s: float = math.nan  # ... and answered
    rounds: int = 0
    probes: int = 0
    harness_cpu_s: float = 0.0  # CPU time of this process (all its threads) while waiting
    probe_cost_s: float = 0.0  # the harness's cost of one probe, taken off each answer time (`overhead`)

    @property
    def complete(self) -> bool:
        return len(self.answered_s) == self.runs

    def _at(self, sent: float, answered: float) -> float:
        return max(sent, answered - self.probe_cost_s)

    @property
    def ready_s(self) -> dict[str, float]:
        """Each complete run's ready time: its answer less the probe cost, never before it was asked."""
        return {run: self._at(self.sent_s[run], t) for run, t in self.answered_s.items()}

    @property
    def first_answer_s(self) -> float:
        return self._at(self.first_sent_s, self.first_answered_s)

    def fraction_s(self, share: float) -> float:
        """Seconds until `share` (0-1] of the runs were served complete (nan if never)."""
        need = max(1, math.ceil(share * self.runs))
        times = sorted(self.ready_s.values())
        return times[need - 1] if len(times) >= need else math.nan


def wait_ready(base: str, runs: Sequence[str], path_of: Callable[[str], str], last_step: StepOf,
               target_step: int, t0: float, deadline: float, prepare: Callable[[], bool] | None = None,
               threads: int = PROBE_THREADS, interval: float = POLL_INTERVAL_S) -> Readiness:
    """Poll every pending run in parallel until each serves `target_step` (or `deadline`, monotonic, passes).

    `prepare()` is called before each round until it returns True (MindInsight's API wants the runs put in its
    cache first: `train-job-caches`); probing does not wait for it."""
    result = Readiness(len(runs))
    pending = list(runs)
    prepared = prepare is None
    cpu0 = time.process_time()
    with ProbePool(base, threads) as pool:
        while pending and time.monotonic() < deadline:
            if not prepared:
                prepared = bool(prepare())  # type: ignore[misc]
            probes = pool.round([(r, path_of(r)) for r in pending], last_step)
            result.rounds += 1
            result.probes += len(probes)
            for p in probes:
                if p.step is None:
                    continue
                if math.isnan(result.first_answered_s) or p.answered - t0 < result.first_answered_s:
                    result.first_sent_s, result.first_answered_s = p.sent - t0, p.answered - t0
                if p.step >= target_step:
                    result.sent_s[p.key] = p.sent - t0
                    result.answered_s[p.key] = p.answered - t0
            pending = [r for r in pending if r not in result.answered_s]
            if pending:
                time.sleep(interval)
    result.harness_cpu_s = time.process_time() - cpu0
    return result


@dataclass
class Overhead:
    """A full probe round over every run against a server that has loaded everything."""

    round_s: float = math.nan  # median over the rounds
    probe_p50_ms: float = math.nan
    probe_p95_ms: float = math.nan
    cpu_s: float = math.nan  # this process's CPU per round (median)


def overhead(base: str, runs: Sequence[str], path_of: Callable[[str], str], last_step: StepOf, rounds: int = 3,
             threads: int = PROBE_THREADS) -> Overhead:
    """What one probe round costs when nothing is left to load: the figures' resolution."""
    times: list[float] = []
    cpus: list[float] = []
    latencies: list[float] = []
    with ProbePool(base, threads) as pool:
        for _ in range(max(1, rounds)):
            cpu0, t0 = time.process_time(), time.monotonic()
            probes = pool.round([(r, path_of(r)) for r in runs], last_step)
            times.append(time.monotonic() - t0)
            cpus.append(time.process_time() - cpu0)
            latencies.extend(p.answered - p.sent for p in probes)
    latencies.sort()
    return Overhead(statistics.median(times), percentile(latencies, 50) * 1000, percentile(latencies, 95) * 1000,
                    statistics.median(cpus))
