"""benchmarks/remote.py runs with --smoke and prints its figures (no timing assertions)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.integration.test_benchmarks_smoke import number, run, table_row


@pytest.mark.slow
def test_remote_bench_smoke(tmp_path: Path) -> None:
    pytest.importorskip("moto.server", reason="moto[server] (dev extra) runs the loopback S3 server")
    pytest.importorskip("s3fs", reason="s3fs (the [s3] extra) reads s3:// base dirs")
    out = run("remote.py", "--smoke", "--cache", str(tmp_path / "cache"))
    disk, s3 = table_row(out, "start -> fully served (s)")
    assert number(disk) > 0 and number(s3) > 0
    _, idle = table_row(out, "store requests per idle reload (mean of 2)")
    assert re.match(r"[\d.]+ \(.*LIST", idle), idle  # an idle reload lists the prefix, at least
    _, appended = table_row(out, "store requests from the append until served")
    assert re.match(r"[\d.]+ \(.*GET", appended), appended  # the grown object is read
