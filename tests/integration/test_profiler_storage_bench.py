"""benchmarks/profiler_storage.py runs with --smoke and prints its figures (no timing assertions)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO, SHARED, require_shared

VIEWS = ("scan + devices", "step-trace-time", "cluster-step-trace", "memory-record", "ops/search aicore_detail",
         "timeline-summary", "timeline window")


def _rows(out: str, section: str) -> dict[str, list[str]]:
    """The table rows under `### <section>` as view -> cells."""
    rows: dict[str, list[str]] = {}
    inside = False
    for line in out.splitlines():
        if line.startswith("### "):
            inside = line[4:].startswith(section)
        elif inside and line.startswith("| ") and not line.startswith("| view"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows[cells[0]] = cells[1:]
    return rows


def test_profiler_storage_benchmark_smoke() -> None:
    require_shared(SHARED / "fixtures" / "ascend")
    pytest.importorskip("moto.server", reason="moto[server] (dev extra) runs the loopback S3 server")
    pytest.importorskip("s3fs", reason="s3fs (the [s3] extra) reads s3:// base dirs")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MINDINSIGHT_")}
    env["PYTHONPATH"] = str(REPO)
    res = subprocess.run([sys.executable, str(REPO / "benchmarks" / "profiler_storage.py"), "--smoke"],
                         capture_output=True, text=True, timeout=600, cwd=REPO, env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    local, remote = _rows(res.stdout, "local"), _rows(res.stdout, "S3")
    assert list(local) == list(remote) == list(VIEWS), res.stdout
    for cells in (*local.values(), *remote.values()):
        assert all(float(c.replace(",", "")) >= 0 for c in cells), res.stdout
    assert all(int(cells[2]) > 0 for cells in remote.values()), res.stdout  # every S3 view made requests
