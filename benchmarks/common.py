"""Shared helpers of the benchmark scripts: machine facts, process-tree memory, HTTP polling and load.

Everything here talks to loopback only, and every loop is bounded in count and in time.
"""

from __future__ import annotations

import compileall
import contextlib
import http.client
import json
import math
import os
import platform
import shutil
import socket
import statistics
import struct
import subprocess
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from mindinsight_clone.server import lifecycle

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
LOOPBACK = "127.0.0.1"


# --- machine ---------------------------------------------------------------------------------


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f}, {five:.2f}, {fifteen:.2f}"


def uptime() -> str:
    """`uptime`'s line (load averages and how busy the shared machine is), or the load average alone."""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run(["uptime"], capture_output=True, text=True, timeout=10, check=False).stdout.strip()
        if out:
            return out
    return f"load average: {load_average()}"


def cached_data(base: Path, make: Callable[[Path], dict[str, Any]]) -> dict[str, Any]:
    """The facts of generated benchmark data kept in `base` (its bench.json), made by `make(base)` when absent or
    incomplete (bench.json is written last)."""
    if (base / "bench.json").exists():
        return json.loads((base / "bench.json").read_text())  # type: ignore[no-any-return]
    shutil.rmtree(base, ignore_errors=True)
    return make(base)


def byte_compile_ours() -> str:
    """Write our package's bytecode, as `pip install` does for every peer's (a benchmark would otherwise time
    our server compiling its sources at each start: 0.2 s of it when PYTHONDONTWRITEBYTECODE is set, as on CI
    machines, since an editable install keeps no .pyc). Returns the line to print."""
    import mindinsight_clone

    package = Path(mindinsight_clone.__file__).parent
    ok = compileall.compile_dir(str(package), quiet=1, workers=1)
    return f"bytecode of {package}: {'written' if ok else 'FAILED for some files'} (as pip install does for peers)"


def machine_info() -> dict[str, str]:
    """Cores, RAM, CPU model, load average and Python: what a reader needs to weigh the figures."""
    model = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "cores": str(os.cpu_count()),
        "ram": f"{psutil.virtual_memory().total / 2**30:.1f} GiB",
        "cpu": model,
        "load average (1, 5, 15 min)": load_average(),
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


# --- process trees -----------------------------------------------------------------------------


def listener_root(port: int, launcher: int | None = None) -> int | None:
    """Pid of the topmost process of the server listening on `port` (a gunicorn master, not its worker).

    psutil names one process per listening socket (whichever holds the fd first), so walk up from it
    through ancestors that run the same executable, stopping below init and below this harness
    (which may be its launcher's parent) and below `launcher` (a CLI that starts the server).
    """
    listener = None
    with contextlib.suppress(psutil.Error, OSError):
        for conn in psutil.net_connections(kind="tcp"):
            if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.pid:
                listener = conn.pid
                break
    if listener is None:
        return None
    stop_at = {0, 1, os.getpid(), *([launcher] if launcher else [])}
    try:
        proc = psutil.Process(listener)
        exe = proc.exe()
        for _ in range(64):  # bounded walk
            parent = proc.parent()
            if parent is None or parent.pid in stop_at or parent.exe() != exe:
                break
            proc = parent
        return proc.pid
    except psutil.Error:
        return listener


def is_running(pid: int) -> bool:
    """True if `pid` is alive and not a zombie (a launcher nobody waited for stays a zombie)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def process_tree(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


def tree_memory(pid: int) -> tuple[int, int, int]:
    """(RSS, PSS, process count) summed over `pid` and its descendants; PSS is 0 where unreadable."""
    rss = pss = count = 0
    for proc in process_tree(pid):
        try:
            info = proc.memory_full_info()
        except psutil.Error:
            continue
        rss += info.rss
        pss += getattr(info, "pss", 0)
        count += 1
    return rss, pss, count


terminate_tree = lifecycle.terminate_tree  # SIGTERM a process tree, SIGKILL what is left


class TreeSampler:
    """Samples RSS and PSS of a process tree every `interval` s in a thread (at most `max_seconds`).

    `root` is called at each sample and returns the current root pid (or None while there is none
    yet), so a server whose master appears later can be followed from its launch on.
    """

    def __init__(self, root: Callable[[], int | None], interval: float = 0.2, max_seconds: float = 3600) -> None:
        self._root = root
        self.interval = interval
        self.max_seconds = max_seconds
        self.peak_rss = 0
        self.peak_pss = 0
        self.last_rss = 0
        self.last_pss = 0
        self.samples = 0
        self.max_procs = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tree-sampler", daemon=True)

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def sample(self) -> None:
        pid = self._root()
        if pid is None:
            return
        rss, pss, count = tree_memory(pid)
        if count == 0:
            return
        self.last_rss, self.last_pss = rss, pss
        self.peak_rss = max(self.peak_rss, rss)
        self.peak_pss = max(self.peak_pss, pss)
        self.max_procs = max(self.max_procs, count)
        self.samples += 1

    def _run(self) -> None:
        deadline = time.monotonic() + self.max_seconds
        while not self._stop.is_set() and time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                self.sample()
            self._stop.wait(self.interval)


# --- HTTP ----------------------------------------------------------------------------------------


def http_request(base: str, path: str, method: str = "GET", body: Any = None,
                 timeout: float = 10.0) -> tuple[int, bytes]:
    """One request on a fresh connection to our loopback server; (status, body) or (0, b"") on failure."""
    parts = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname or LOOPBACK, parts.port or 80, timeout=timeout)
    headers = {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    try:
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        return resp.status, resp.read()
    except (OSError, http.client.HTTPException):
        return 0, b""
    finally:
        conn.close()


def get_json(base: str, path: str, timeout: float = 10.0) -> Any:
    """Parsed JSON of a 200 answer, else None."""
    status, data = http_request(base, path, timeout=timeout)
    if status != 200:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return None


def wait_for(check: Callable[[], bool], timeout: float, interval: float = 0.1) -> bool:
    """Call `check` until it is true or `timeout` s have passed (bounded); True when it became true."""
    deadline = time.monotonic() + timeout
    while True:
        if check():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


# --- statistics ------------------------------------------------------------------------------


def percentile(sorted_values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile of an ascending sequence (nan when empty)."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(pct / 100 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def median(values: Iterable[float]) -> float:
    vals = [v for v in values if not math.isnan(v)]
    return statistics.median(vals) if vals else math.nan


@dataclass
class LoadStats:
    clients: int
    duration: float = 0.0
    requests: int = 0
    errors: int = 0
    bytes_read: int = 0
    latencies: list[float] = field(default_factory=list)  # seconds, successful and failed
    error_kinds: dict[str, int] = field(default_factory=dict)

    @property
    def req_per_s(self) -> float:
        return self.requests / self.duration if self.duration > 0 else math.nan

    def pct_ms(self, pct: float) -> float:
        return percentile(sorted(self.latencies), pct) * 1000

    def summary(self) -> dict[str, float | int]:
        lat = sorted(self.latencies)
        return {
            "clients": self.clients, "requests": self.requests, "errors": self.errors,
            "seconds": round(self.duration, 2), "req_per_s": round(self.req_per_s, 1),
            "p50_ms": round(percentile(lat, 50) * 1000, 2), "p95_ms": round(percentile(lat, 95) * 1000, 2),
            "p99_ms": round(percentile(lat, 99) * 1000, 2),
            "max_ms": round((lat[-1] if lat else math.nan) * 1000, 2),
            "mb_read": round(self.bytes_read / 1e6, 1),
        }


def run_load(base: str, paths: Sequence[str], clients: int, seconds: float, max_requests: int,
             timeout: float = 30.0, connect_stagger: float = 0.0) -> LoadStats:
    """`clients` threads, each on its own keep-alive connection, GET `paths` in rotation.

    Bounded twice: the run ends after `seconds` or `max_requests` requests, whichever comes first.
    A non-200 answer or a socket error counts as an error; the client then reconnects.
    """
    parts = urllib.parse.urlsplit(base)
    host, port = parts.hostname or LOOPBACK, parts.port or 80
    stats = LoadStats(clients=clients)
    lock = threading.Lock()
    quota = max(1, math.ceil(max_requests / clients))
    start_gate = threading.Event()
    deadline_box: list[float] = [0.0]

    def client(index: int) -> None:
        lat: list[float] = []
        errors: dict[str, int] = {}
        nbytes = 0
        conn: http.client.HTTPConnection | None = None
        start_gate.wait(timeout=60)
        if connect_stagger:
            time.sleep(connect_stagger * index / max(clients, 1))
        deadline = deadline_box[0]
        i = index
        for _ in range(quota):
            if time.monotonic() >= deadline:
                break
            path = paths[i % len(paths)]
            i += 1
            t0 = time.perf_counter()
            kind = ""
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(host, port, timeout=timeout)
                conn.request("GET", path)
                resp = conn.getresponse()
                data = resp.read()
                nbytes += len(data)
                if resp.status != 200:
                    kind = f"http {resp.status}"
                if resp.will_close:
                    conn.close()
                    conn = None
            except (OSError, http.client.HTTPException) as exc:
                kind = type(exc).__name__
                if conn is not None:
                    conn.close()
                conn = None
            lat.append(time.perf_counter() - t0)
            if kind:
                errors[kind] = errors.get(kind, 0) + 1
        if conn is not None:
            conn.close()
        with lock:
            stats.requests += len(lat)
            stats.latencies.extend(lat)
            stats.bytes_read += nbytes
            for kind, n in errors.items():
                stats.errors += n
                stats.error_kinds[kind] = stats.error_kinds.get(kind, 0) + n

    threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(clients)]
    for thread in threads:
        thread.start()
    t_start = time.monotonic()
    deadline_box[0] = t_start + seconds
    start_gate.set()
    for thread in threads:
        thread.join(timeout=seconds + timeout + 30)
    stats.duration = time.monotonic() - t_start
    return stats


# --- record framing (for appending a step to a live file) --------------------------------------


def _varint(value: int) -> bytes:
    out = bytearray()
    value &= 0xFFFFFFFFFFFFFFFF
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field_bytes(number: int, data: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def scalar_event(step: int, wall_time: float, tag: str, value: float, value_field: int) -> bytes:
    """An Event{wall_time, step, summary{value{tag, <float field>}}} payload, hand-encoded.

    MindSpore's `Summary.Value.scalar_value` is field 3;
    TensorFlow's `simple_value` is field 2. The other field numbers are the same in both protos.
    """
    value_msg = _field_bytes(1, tag.encode()) + _varint(value_field << 3 | 5) + struct.pack("<f", value)
    summary = _field_bytes(1, value_msg)
    return (_varint(1 << 3 | 1) + struct.pack("<d", wall_time) + _varint(2 << 3 | 0) + _varint(step)
            + _field_bytes(5, summary))


def frame(payload: bytes) -> bytes:
    """TFRecord / MindSpore framing: u64 length, masked CRC32C of it, payload, masked CRC32C."""
    from mindinsight_clone.ingest.record_reader import frame_record

    return frame_record(payload)


def append_record(path: Path, payload: bytes) -> None:
    with path.open("ab") as f:
        f.write(frame(payload))
        f.flush()


def fmt(value: float, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:,.{digits}f}"


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds, value) of one call."""
    started = time.perf_counter()
    value = fn()
    return time.perf_counter() - started, value


def print_steps(rows: Iterable[tuple[str, str, str]]) -> None:
    """The machine's load and a `| step | time | notes |` table of in-process figures."""
    print(f"load average: {load_average()}; cores: {os.cpu_count()}")
    print("| step | time | notes |\n|---|---|---|")
    for label, value, note in rows:
        print(f"| {label} | {value} | {note} |")
