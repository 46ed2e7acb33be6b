"""benchmarks/msprobe_dumps.py runs with --smoke, finds the planted NaN and prints every figure (no timing
assertions)."""

from __future__ import annotations

from tests.conftest import require_shared
from tests.integration.test_benchmarks_smoke import run, table_row
from tests.integration.test_msprobe_dumps_api import MSPROBE


def test_msprobe_benchmark_smoke() -> None:
    require_shared(MSPROBE)
    out = run("msprobe_dumps.py", "--smoke")
    for label in ("list dumps", "open one step/rank (first 100 nodes)", "first NaN of every rank",
                  "compare target vs bench, one step (statistics)", "peak RSS of this process"):
        cells = table_row(out, label)
        assert cells[0].endswith((" s", " MB")), (label, cells)
    assert "(found)" in table_row(out, "first NaN of every rank")[1]
