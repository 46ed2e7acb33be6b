"""benchmarks/tfevents.py runs with --smoke and prints its figures (no timing assertions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_benchmarks_smoke import number, run, table_row


@pytest.mark.slow
def test_tfevents_bench_smoke(tmp_path: Path) -> None:
    pytest.importorskip("tensorboardX", reason="tensorboardX (dev extra) writes the tfevents corpus")
    out = run("tfevents.py", "--smoke", "--peers", "none", "--cache", str(tmp_path / "cache"),
              "--corpus-dir", str(tmp_path / "corpora"))
    (served,) = table_row(out, "start → last step served (s)")
    assert number(served) > 0
    (errors,) = table_row(out, "errors")
    assert number(errors) == 0
    assert "our reader + tfevents parser alone:" in out
