"""benchmarks/debugger.py runs with --smoke and prints every figure (no timing assertions)."""

from __future__ import annotations

from tests.conftest import SHARED, require_shared
from tests.integration.test_benchmarks_smoke import number, run, table_row


def test_debugger_benchmark_smoke() -> None:
    require_shared(SHARED / "fixtures" / "mindspore_debug" / "dump")
    out = run("debugger.py", "--smoke")
    assert "3 iterations x 60 tensors = 180 files" in out, out
    for label in ("debugger/dumps: iterations listed, cold", "tensor table of one iteration, cold (statistics computed)",
                  "nan_or_inf over every tensor, cold", "nan_or_inf after a restart (statistics from the workspace)",
                  "peak RSS of this process"):
        value = table_row(out, label)[0]
        assert number(value.split()[0]) >= 0, (label, value)
