"""Replay MindInsight 2.3.1's 84 answers over the old profiler layout (../shared/reference/mindinsight/old_profiler)
against OUR real server (gunicorn via the CLI), with MindInsight's own capture.py, and diff: every answer is the
same except the documented improvements (docs/api.md; each pinned in test_old_profiler_api.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REFERENCE, free_port, require_shared, run_cli
from tests.integration.test_old_profiler_api import CORPUS, GOLDEN, IMPROVEMENTS

pytestmark = pytest.mark.slow


def test_old_profiler_golden_replay(tmp_path: Path) -> None:
    require_shared(CORPUS)
    port = free_port()
    ws = tmp_path / "ws"
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(CORPUS), "--workspace", str(ws),
                      "--reload-interval", "0", env={"TZ": "UTC"})
    assert started.returncode == 0, started.stdout + started.stderr
    out = tmp_path / "ours"
    capture = str(REFERENCE / "capture.py")
    try:
        replay = subprocess.run([sys.executable, capture, "--base", f"http://127.0.0.1:{port}", "--out", str(out),
                                 "--replay", str(GOLDEN / "requests.json"), "--summary-base-dir", str(CORPUS)],
                                capture_output=True, text=True, timeout=300)
        assert replay.returncode == 0, replay.stdout[-2000:] + replay.stderr[-2000:]
    finally:
        stopped = run_cli("stop", "--port", str(port), "--workspace", str(ws))
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    diff = subprocess.run([sys.executable, capture, "--diff", str(GOLDEN), str(out)], capture_output=True, text=True,
                          timeout=120)
    differing = {m.group(1): line for line in diff.stdout.splitlines()
                 if (m := re.match(r"(?:DIFF|MISSING) (\d{3})_", line))}
    unexpected = {n: line for n, line in differing.items() if n not in IMPROVEMENTS}
    assert not unexpected, "\n".join(unexpected.values())
    assert set(differing) == set(IMPROVEMENTS), set(IMPROVEMENTS) - set(differing)
    total = len(list(GOLDEN.glob("[0-9]*.json")))
    assert f"{total - len(IMPROVEMENTS)} same, {len(IMPROVEMENTS)} different" in diff.stdout
