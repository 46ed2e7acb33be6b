"""Faults while serving: the real server (started with the CLI) keeps answering, stays small, serves what is readable.

One server per module on a tmp base dir with `--reload-interval 1`; each test damages its own run:
truncated, replaced by a smaller file, deleted, made unreadable, run dir removed mid-load, a writer
appending, a 2 GB sparse file whose first record claims a huge length, 2,000 tags in one run, and
(own server) 10,000 run dirs. After each: health 200, no 500 anywhere (every answer we got, and the
access log at the end), worker RSS under a generous cap.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import struct
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from mindinsight_clone.ingest.record_reader import frame_record, masked_crc32c
from mindinsight_clone.proto import summary_pb2
from mindinsight_clone.summary import SummaryWriter
from tests.conftest import free_port, run_cli

RSS_CAP = 600 * 2**20  # generous: the worker holds a few small runs
API = "/v1/mindinsight/datavisual"
WAIT = 20.0  # most seconds any condition below may take (reload interval is 1 s)


class Server:
    """Our server started with `mindinsight-clone start`; every answer is checked for 5xx."""

    def __init__(self, base_dir: Path, workspace: Path, extra: tuple[str, ...] = ()) -> None:
        self.base_dir = base_dir
        self.workspace = workspace
        self.port = free_port()
        self.extra = extra
        self.statuses: list[tuple[int, str]] = []
        self.peak_worker_rss = 0
        self._lock = threading.Lock()

    def start(self) -> None:
        res = run_cli("start", "--port", str(self.port), "--summary-base-dir", str(self.base_dir),
                      "--workspace", str(self.workspace), "--reload-interval", "1", *self.extra)
        assert res.returncode == 0, res.stdout + res.stderr

    def stop(self) -> None:
        run_cli("stop", "--port", str(self.port), "--workspace", str(self.workspace))

    def request(self, path: str, method: str = "GET", body: Any = None, timeout: float = 30) -> tuple[int, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            data = json.dumps(body).encode() if body is not None else None
            conn.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else {})
            resp = conn.getresponse()
            raw = resp.read()
        finally:
            conn.close()
        with self._lock:
            self.statuses.append((resp.status, path))
        assert resp.status < 500, f"{resp.status} for {path}: {raw[:300]!r}"
        try:
            return resp.status, json.loads(raw)
        except ValueError:
            return resp.status, raw

    def steps(self, run: str, tag: str = "loss/scalar") -> list[int] | None:
        """Steps served for (run, tag), or None when the API answers an error."""
        self.request(f"{API}/train-job-caches", "POST", {"train_ids": [f"./{run}"]})
        status, body = self.request(f"{API}/scalar/metadata?train_id=./{run}&tag={tag}")
        if status != 200:
            return None
        return [int(m["step"]) for m in body["metadatas"]]

    def values(self, run: str, tag: str = "loss/scalar") -> dict[int, float]:
        status, body = self.request(f"{API}/scalar/metadata?train_id=./{run}&tag={tag}")
        assert status == 200, body
        return {int(m["step"]): float(m["value"]) for m in body["metadatas"]}

    def job(self, run: str) -> dict[str, Any] | None:
        _, body = self.request(f"{API}/train-jobs?limit=999")
        for job in body["train_jobs"]:
            if job["train_id"] == f"./{run}":
                return job
        return None

    def worker_rss(self) -> int:
        record = json.loads((self.workspace / "run" / f"mindinsight-clone.{self.port}.pid").read_text())
        master = psutil.Process(record["pid"])
        rss = max((p.memory_info().rss for p in master.children(recursive=True)), default=0)
        self.peak_worker_rss = max(self.peak_worker_rss, rss)
        return rss

    def assert_healthy(self) -> None:
        status, body = self.request("/v1/mindinsight/health", timeout=10)
        assert status == 200, body
        assert self.worker_rss() < RSS_CAP, f"worker RSS {self.worker_rss() / 2**20:.0f} MB"

    def access_log_5xx(self) -> list[str]:
        log = self.workspace / "log" / "gunicorn" / f"access.{self.port}.log"
        if not log.exists():
            return []
        return [line for line in log.read_text(errors="replace").splitlines() if re.search(r'" 5\d\d ', line)]


def wait_until(check: Callable[[], Any], timeout: float = WAIT, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.1)
    raise AssertionError(f"{what} not met within {timeout:.0f} s (last: {last!r})")


_STAMP = [1_795_000_000]


def write_run(run_dir: Path, steps: range, value: Callable[[int], float] = lambda s: 1.0 / s,
              tags: tuple[str, ...] = ("loss",)) -> Path:
    """A summary file written by our writer (distinct, increasing file timestamps)."""
    _STAMP[0] += 10
    with SummaryWriter(run_dir, timestamp=_STAMP[0], host="faults") as w:
        for step in steps:
            for tag in tags:
                w.add_scalar(tag, value(step), step)
    return w.summary_path


def expect_steps(server: Server, run: str, want: list[int], tag: str = "loss/scalar") -> None:
    wait_until(lambda: server.steps(run, tag) == want, what=f"{run} serves steps {want[:3]}..{want[-3:]}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("faults-base")
    srv = Server(base, tmp_path_factory.mktemp("faults-ws"))
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()
    bad = srv.access_log_5xx()
    assert not bad, f"5xx answers in the access log: {bad[:5]}"


def test_writer_appending_is_followed(server: Server) -> None:
    run = server.base_dir / "appending"
    _STAMP[0] += 10
    with SummaryWriter(run, timestamp=_STAMP[0], host="faults") as w:
        for step in range(1, 11):
            w.add_scalar("loss", 1.0 / step, step)
        w.flush()
        expect_steps(server, "appending", list(range(1, 11)))
        for step in range(11, 41):
            w.add_scalar("loss", 1.0 / step, step)
            if step % 5 == 0:
                w.flush()
                server.steps("appending")  # reading while it grows
            time.sleep(0.02)
    expect_steps(server, "appending", list(range(1, 41)))
    server.assert_healthy()


def test_truncated_file_serves_every_complete_record(server: Server) -> None:
    path = write_run(server.base_dir / "truncated", range(1, 41))
    expect_steps(server, "truncated", list(range(1, 41)))
    with path.open("r+b") as f:
        f.truncate(path.stat().st_size - 7)  # inside the last record (step 40)
    expect_steps(server, "truncated", list(range(1, 40)))
    job = wait_until(lambda: (j := server.job("truncated")) and not j["is_integrity"] and j, what="is_integrity false")
    assert job["cache_status"] in ("CACHED", "CACHING")
    server.assert_healthy()


def test_file_replaced_by_a_smaller_one(server: Server) -> None:
    run_dir = server.base_dir / "replaced"
    path = write_run(run_dir, range(1, 41))
    expect_steps(server, "replaced", list(range(1, 41)))
    other = write_run(server.base_dir.parent / "replacement-src", range(1, 16), value=lambda s: 100.0 + s)
    os.replace(other, path)
    expect_steps(server, "replaced", list(range(1, 16)))
    assert server.values("replaced") == {s: pytest.approx(100.0 + s) for s in range(1, 16)}
    server.assert_healthy()


def test_file_deleted_reloads_from_the_rest(server: Server) -> None:
    run_dir = server.base_dir / "deleted"
    first = write_run(run_dir, range(1, 21))
    write_run(run_dir, range(21, 41))
    expect_steps(server, "deleted", list(range(1, 41)))
    first.unlink()
    expect_steps(server, "deleted", list(range(21, 41)))
    server.assert_healthy()


def test_unreadable_file(server: Server) -> None:
    run_dir = server.base_dir / "unreadable"
    path = write_run(run_dir, range(1, 21))
    expect_steps(server, "unreadable", list(range(1, 21)))
    saved = server.base_dir.parent / "unreadable-saved"
    if os.geteuid() == 0:
        # root reads through chmod 000: make the name unreadable by putting a directory in its place
        shutil.move(path, saved)
        path.mkdir()
    else:
        path.chmod(0)
    for _ in range(15):  # serve through a few reload cycles
        server.steps("unreadable")
        server.request(f"{API}/train-jobs?limit=999")
        time.sleep(0.1)
    server.assert_healthy()
    if os.geteuid() == 0:
        path.rmdir()
        shutil.move(saved, path)
    else:
        path.chmod(0o644)
    expect_steps(server, "unreadable", list(range(1, 21)))
    server.assert_healthy()


def test_run_dir_removed_mid_load(server: Server) -> None:
    staging = server.base_dir.parent / "vanishing-src"
    write_run(staging, range(1, 30_001), tags=tuple(f"t{i:02d}" for i in range(20)))  # ~10 MB, 600k values
    run_dir = server.base_dir / "vanishing"
    shutil.move(staging, run_dir)
    job = wait_until(lambda: server.job("vanishing"), what="vanishing listed")
    server.request(f"{API}/train-job-caches", "POST", {"train_ids": ["./vanishing"]})
    time.sleep(0.05)
    status_at_removal = (server.job("vanishing") or {}).get("cache_status")
    shutil.rmtree(run_dir)
    for _ in range(20):  # ask for it while it goes away
        server.request(f"{API}/scalar/metadata?train_id=./vanishing&tag=t00/scalar")
        time.sleep(0.05)
    wait_until(lambda: server.job("vanishing") is None, what="vanishing unlisted")
    status, body = server.request(f"{API}/scalar/metadata?train_id=./vanishing&tag=t00/scalar")
    assert status in (400, 404), body
    assert "error_code" in body
    server.assert_healthy()
    print(f"cache status when the dir was removed: {status_at_removal} (listed as {job['cache_status']})")


def huge_header_file(path: Path, prefix: bytes = b"", length: int = 1 << 62, size: int = 2 * 2**30) -> None:
    """`prefix`, then a record header claiming `length` bytes (valid length CRC), then a sparse hole to `size`."""
    header = struct.pack("<Q", length)
    with path.open("wb") as f:
        f.write(prefix + header + struct.pack("<I", masked_crc32c(header)))
        f.truncate(size)


def scalar_record(step: int, value: float) -> bytes:
    event = summary_pb2.Event(wall_time=time.time(), step=step)
    event.summary.value.add(tag="loss", scalar_value=value)
    return frame_record(event.SerializeToString())


@pytest.mark.slow
def test_sparse_2gb_file_with_huge_length_header(server: Server) -> None:
    version = frame_record(summary_pb2.Event(wall_time=time.time(), version="MindSpore.Event:1").SerializeToString())
    only = server.base_dir / "sparse_only"
    only.mkdir()
    huge_header_file(only / "events.out.events.summary.1795100000.0.faults_MS", prefix=version)
    mixed = server.base_dir / "sparse_mixed"
    mixed.mkdir()
    good = version + b"".join(scalar_record(s, 1.0 / s) for s in range(1, 11))
    huge_header_file(mixed / "events.out.events.summary.1795100001.0.faults_MS", prefix=good, length=2**40)
    expect_steps(server, "sparse_mixed", list(range(1, 11)))
    job = wait_until(lambda: server.job("sparse_only"), what="sparse_only listed")
    for _ in range(10):  # several reload cycles over the bogus header
        assert server.steps("sparse_only") in (None, [])
        time.sleep(0.15)
    job = wait_until(lambda: (j := server.job("sparse_only")) and not j["is_integrity"] and j,
                     what="sparse_only flagged")
    assert job["plugins"]["scalar"] == []
    assert server.job("sparse_mixed")["is_integrity"] is False
    server.assert_healthy()


@pytest.mark.slow
def test_two_thousand_tags_are_all_kept_with_the_defaults(server: Server) -> None:
    """MindInsight kept 300 tags a run; the default limit is now a safety net far above (issue 32)."""
    tags = tuple(f"s{i:04d}" for i in range(2000))
    write_run(server.base_dir / "many_tags", range(1, 4), tags=tags)

    def listed() -> list[str] | None:
        server.request(f"{API}/train-job-caches", "POST", {"train_ids": ["./many_tags"]})
        status, body = server.request(f"{API}/plugins?train_id=./many_tags")
        scalars = body["plugins"]["scalar"] if status == 200 else []
        return scalars if len(scalars) == 2000 else None

    scalars = wait_until(listed, what="2000 scalar tags")
    assert scalars == sorted(f"{t}/scalar" for t in tags)
    # the file may have been read while being written: wait for its last step rather than assume it
    expect_steps(server, "many_tags", [1, 2, 3], tag="s0000/scalar")
    expect_steps(server, "many_tags", [1, 2, 3], tag="s1999/scalar")
    job = server.job("many_tags")
    assert job is not None and "dropped_tags" not in job and job["is_integrity"] is True
    server.assert_healthy()


@pytest.mark.slow
def test_ten_thousand_run_dirs(tmp_path: Path) -> None:
    base = tmp_path / "base"
    base.mkdir()
    version = frame_record(summary_pb2.Event(wall_time=time.time(), version="MindSpore.Event:1").SerializeToString())
    data = version + scalar_record(1, 0.5)
    now = time.time()
    for i in range(10_000):
        run = base / f"run_{i:05d}"
        run.mkdir()
        f = run / f"events.out.events.summary.{1795200000 + i}.0.faults_MS"
        f.write_bytes(data)
        stamp = now - 20_000 + i  # run_09999 is the most recently updated
        os.utime(f, (stamp, stamp))
        os.utime(run, (stamp, stamp))
    server = Server(base, tmp_path / "ws", ("--max-run-count", "999"))  # MindInsight's cut, to check it holds
    t0 = time.monotonic()
    server.start()
    try:
        assert time.monotonic() - t0 < 60
        def listing() -> dict[str, Any] | None:
            status, body = server.request(f"{API}/train-jobs?limit=999", timeout=30)
            return body if status == 200 and body["total"] > 0 else None

        body = wait_until(listing, timeout=60, what="runs listed")
        assert body["total"] <= 999  # bounded by max_run_count
        ids = {j["train_id"] for j in body["train_jobs"]}
        assert len(ids) == len(body["train_jobs"])
        wait_until(lambda: "./run_09999" in {j["train_id"] for j in listing()["train_jobs"]}, timeout=60,
                   what="the newest run listed")
        assert "./run_00000" not in {j["train_id"] for j in listing()["train_jobs"]}
        for _ in range(5):  # keeps answering quickly while it rescans 10,000 dirs every second
            t = time.monotonic()
            server.assert_healthy()
            assert time.monotonic() - t < 5
            time.sleep(0.3)
        assert server.steps("run_09999") == [1]
    finally:
        server.stop()
    assert not server.access_log_5xx()
