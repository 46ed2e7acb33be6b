"""benchmarks/readiness.py: time to ready is probed for every run in parallel, and what a probe costs the harness
(its latency against a loaded server) stays out of the figure (issue 21: the old harness asked runs one after
another and so timed a tool's per-request latency x the number of runs, not its loading)."""

from __future__ import annotations

import importlib
import json
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
RUNS = [f"run_{i:02d}" for i in range(40)]
LATENCY_S = 0.05  # every answer takes this long: a slow API, as TensorBoard's (~48 ms a request)
LAST_STEP = 500


@pytest.fixture(scope="module")
def readiness() -> Iterator[ModuleType]:
    sys.path.insert(0, str(BENCH))
    try:
        yield importlib.import_module("readiness")
    finally:
        sys.path.remove(str(BENCH))


class _Server:
    """Run i is complete from `ready_at[i]` (seconds after start); before that it serves only a partial series."""

    def __init__(self, ready_at: dict[str, float]) -> None:
        self.ready_at = ready_at
        self.t0 = time.monotonic()
        self.requests = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                owner.requests += 1
                run = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)["run"][0]
                done = time.monotonic() - owner.t0 >= owner.ready_at[run]  # looked up first, then answered slowly
                time.sleep(LATENCY_S)
                last = LAST_STEP if done else LAST_STEP // 2
                body = json.dumps({"metadatas": [{"step": s, "value": 0.5, "wall_time": 1.0} for s in (1, last)]})
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_last_step_parsers_agree_with_json(readiness: ModuleType) -> None:
    points = [{"step": s, "value": -1.5e-7, "wall_time": 1.7e9 + s} for s in (1, 7, 123456789)]
    body = json.dumps({"metadatas": points}).encode()
    assert readiness.step_after_key(body) == json.loads(body)["metadatas"][-1]["step"] == 123456789
    assert readiness.step_after_key(b'{"metadatas": [{"wall_time": 1.0, "step": 42, "value": 3}]}') == 42
    rows = json.dumps([[1.7e9, 1, 0.5], [1.7e9, 77, float("nan")]]).encode()
    assert readiness.step_of_last_row(rows) == json.loads(rows)[-1][1] == 77
    assert readiness.step_after_key(b'{"metadatas": []}') is None
    assert readiness.step_of_last_row(b"[]") is None
    fallback = readiness.checked(readiness.step_of_last_row, lambda body: int(body[-1][1]))
    assert fallback(b'[[1.0, "9", 0.5]]') == 9  # what the quick parse cannot read goes through JSON


def test_every_run_is_probed_in_parallel_and_the_probe_cost_stays_out(readiness: ModuleType) -> None:
    ready_at = {run: 0.3 + 0.03 * i for i, run in enumerate(RUNS)}  # the last one complete at 1.47 s
    server = _Server(ready_at)
    try:
        t0 = server.t0
        result = readiness.wait_ready(server.base, RUNS, lambda run: f"/s?run={run}", readiness.step_after_key,
                                      LAST_STEP, t0, t0 + 30, threads=8, interval=0.01)
        cost = readiness.overhead(server.base, RUNS, lambda run: f"/s?run={run}", readiness.step_after_key,
                                  rounds=1, threads=8)
    finally:
        server.close()
    assert result.complete and result.rounds >= 2
    # one request at a time would need 40 x 50 ms = 2 s for ONE round over the runs (the old harness's fault)
    assert cost.round_s < 40 * LATENCY_S / 2
    assert LATENCY_S <= cost.probe_p50_ms / 1000 < LATENCY_S * 4
    result.probe_cost_s = cost.probe_p50_ms / 1000
    for run, at in result.ready_s.items():
        # not before the run was complete (up to the spread of one probe's latency), at most a round later
        assert ready_at[run] - LATENCY_S <= at <= ready_at[run] + cost.round_s + 2 * LATENCY_S + 0.3, run
        assert at <= result.answered_s[run] - LATENCY_S + 1e-9 or at == result.sent_s[run]
    assert result.fraction_s(1.0) == max(result.ready_s.values())
    assert result.fraction_s(0.5) <= result.fraction_s(0.9) <= result.fraction_s(1.0)
    assert 0 < result.first_answer_s <= result.fraction_s(0.5)
    # complete runs are not asked again: fewer probes than rounds x runs
    assert result.probes < result.rounds * len(RUNS)
