"""Each benchmark script runs with --smoke and prints its figures (no timing assertions).

Peers (MindInsight, TensorBoard) are measured only when their venvs already exist in the benchmark
cache (`python benchmarks/peers.py --setup` makes them); their setup never happens here unless
MIC_BENCH_PEERS=setup asks for it. MIC_BENCH_PEERS=none measures ours only.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

BENCH = REPO / "benchmarks"
PEER_CACHE = Path.home() / ".cache" / "mindinsight-clone-bench"


def run(script: str, *args: str, timeout: float = 300) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MINDINSIGHT_")}
    env["PYTHONPATH"] = str(REPO)
    res = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True, text=True,
                         timeout=timeout, cwd=REPO, env=env)
    assert res.returncode == 0, f"{script} failed:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res.stdout


def table_row(out: str, label: str) -> list[str]:
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == label:
            return cells[1:]
    raise AssertionError(f"no row {label!r} in:\n{out}")


def number(cell: str) -> float:
    assert re.fullmatch(r"[\d,]+(\.\d+)?", cell), f"not a figure: {cell!r}"
    return float(cell.replace(",", ""))


def test_corpus_smoke(tmp_path: Path) -> None:
    out = run("corpus.py", "--kind", "M", "--smoke", "--out", str(tmp_path / "m"), "--quiet")
    manifest = json.loads(out.strip().splitlines()[-1])
    assert manifest["runs"] == ["run_00", "run_01"]
    assert manifest["bytes"] > 0
    assert all(any(p.iterdir()) for p in (tmp_path / "m").iterdir() if p.is_dir())


def test_ceiling_smoke(tmp_path: Path) -> None:
    out = run("ceiling.py", "--smoke", "--cache", str(tmp_path))
    for label in ("read + frame + CRC", "+ protobuf Event decode", "+ our event parser (typed values)"):
        _seconds, mb_s, records_s = table_row(out, label)
        assert number(mb_s) > 0 and number(records_s) > 0


@pytest.mark.slow
def test_load_smoke(tmp_path: Path) -> None:
    out = run("load.py", "--smoke", "--cache", str(tmp_path))
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| clients |"))
    cells = [c.strip() for c in lines[header + 2].strip("|").split("|")]
    clients, _, requests, errors, req_s = cells[:5]
    assert number(clients) == 20
    assert number(requests) > 0 and number(req_s) > 0
    assert number(errors) == 0
    assert "health after the load: 200" in out
    assert re.search(r"RSS of the server tree .* before \d+ MB, after \d+ MB", out)


@pytest.mark.slow
def test_peers_smoke(tmp_path: Path) -> None:
    mode = os.environ.get("MIC_BENCH_PEERS", "auto")
    args = ["--smoke", "--cache", str(PEER_CACHE), "--corpus-dir", str(tmp_path / "corpora")]
    if mode == "setup":
        args += ["--setup"]
    elif mode == "none":
        args += ["--peers", "none"]
    else:
        args += ["--peers", "auto"]  # only peers whose venvs exist; never installs
    out = run("peers.py", *args, timeout=600)
    for corpus in ("smoke-S", "smoke-M"):
        assert f"### Corpus {corpus}" in out
    served = table_row(out, "start → last step served (s)")
    assert number(served[0]) > 0  # ours is the first column
    # readiness probed for every run in parallel (benchmarks/readiness.py): the curve and the probe overhead
    first, half, most = (number(table_row(out, label)[0]) for label in (
        "first answer with data (s)", "50 % of the runs served (s)", "90 % of the runs served (s)"))
    assert 0 < first <= half <= most <= number(served[0])
    assert number(table_row(out, "probe round, loaded server (s)")[0]) > 0
    assert "| corpus | peer |" in out or "none" in args  # the summary, when a peer ran
    assert re.search(r"uptime: .*load average", out)
    assert number(table_row(out, "scalars req/s, 8 threads")[0]) > 0
    assert number(table_row(out, "peak PSS, process tree (MB)")[0]) > 0
    assert number(table_row(out, "flushed step visible (s)")[0]) >= 0


@pytest.mark.slow
def test_tensorboard_files_corpus_smoke(tmp_path: Path) -> None:
    """`S-tb`: the TensorBoard copy of corpus S, read by ours (and TensorBoard if set up) in the same run."""
    pytest.importorskip("tensorboardX", reason="tensorboardX (dev extra) writes the tfevents corpus")
    mode = os.environ.get("MIC_BENCH_PEERS", "auto")
    peers = "none" if mode == "none" else "tensorboard" if (PEER_CACHE / "tensorboard-2.21").exists() else "none"
    out = run("peers.py", "--smoke", "--corpus", "S-tb", "--peers", peers, "--cache", str(PEER_CACHE),
              "--corpus-dir", str(tmp_path / "corpora"), timeout=600)
    assert "### Corpus smoke-S-tb" in out and "(TensorBoard files, read by both)" in out
    assert "ours (tfevents)" in out
    assert number(table_row(out, "start → last step served (s)")[0]) > 0
    if peers == "tensorboard":
        assert number(table_row(out, "start → last step served (s)")[1]) > 0


def test_ingest_smoke(tmp_path: Path) -> None:
    out = run("ingest.py", "--smoke", "--cache", str(tmp_path))
    rows = [line.split() for line in out.splitlines() if line.strip().startswith("smoke-S")]
    assert [r[0] for r in rows] == ["smoke-S", "smoke-Sx2", "smoke-Sx4"]
    for row in rows:
        assert number(row[5]) > 0 and number(row[6]) > 0  # MB/s and peak RSS MB


def test_graph_benchmark_smoke() -> None:
    out = run("graph.py", "--smoke")
    assert "== 1,000 operator nodes" in out and "build normal" in out and "p95" in out, out


def test_profiler_benchmark_smoke() -> None:
    out = run("profiler.py", "--smoke")
    assert "events=20003" in out and "load_s=" in out and "peak_rss_mb=" in out, out


def test_dropped_tags_benchmark_smoke() -> None:
    out = run("dropped_tags.py", "--smoke")
    row = next(line.split() for line in out.splitlines() if line.strip().startswith("2000 "))
    assert row[6] == "300" and "1700" in row[7], out  # kept tags, and the dropped count the run reports
    assert all(number(cell) >= 0 for cell in row[1:6]), out


def test_bogus_length_benchmark_smoke() -> None:
    out = run("bogus_length.py", "--smoke")
    assert re.search(r"bogus length 20,000,000 bytes: tracemalloc peak [\d.]+ MB", out), out
    assert "records read 1, problems ['payload_crc']" in out, out


def test_idle_watch_benchmark_smoke() -> None:
    out = run("idle_watch.py", "--smoke")
    assert re.search(r"200 empty run dirs, reload interval 3 s: idle CPU [\d.]+% of one core", out), out
    assert "healthy: True" in out, out


def test_startup_benchmark_smoke(tmp_path: Path) -> None:
    out = run("startup.py", "--smoke", "--imports", "1", "--cache", str(tmp_path))
    up, ready = table_row(out, "server up (s)")[0], table_row(out, "every run served (s)")[0]
    assert number(up.split()[0]) > 0 and number(ready.split()[0]) >= number(up.split()[0]), out
    assert number(table_row(out, "app (server.app)")[0]) > 0, out


def _require_chromium() -> None:
    if shutil.which("chromium") is None:
        pytest.skip("Debian's chromium is not installed (scripts/run_tests installs it as root)")


def test_ui_load_smoke() -> None:
    _require_chromium()
    out = run("ui_load.py", "--smoke")
    assert "300 tags, page of 12" in out and "compare 5 x" in out and "first chart" in out, out


def test_projector_ui_smoke() -> None:
    _require_chromium()
    out = run("projector_ui.py", "--smoke")
    for label in ("`embedding` answer", "first paint (PCA of every point, coloured)", "hover -> tooltip",
                  "wheel zoom -> new window", "tsne in the worker (300 points)"):
        assert table_row(out, label), label


def test_ui_graph_smoke() -> None:
    _require_chromium()
    out = run("ui_graph.py", "--smoke")
    assert "first render:" in out and "expand biggest scope:" in out, out


def test_ascend_benchmark_smoke(tmp_path: Path) -> None:
    out = run("ascend.py", "--smoke", "--cache", str(tmp_path))
    for label in ("step-trace-time", "ops aicore_type", "ops aicore_detail (search 'conv')", "communication",
                  "memory-record", "timeline window (5,000 longest)"):
        first, cpu, warm, status, _ = table_row(out, label)
        assert number(first) > 0 and number(cpu) >= 0 and number(warm) > 0 and status == "200", label
    for label in ("kernel table, page 1 by duration", "timeline summary"):  # ours vs DuckDB, same file, same run
        ours, duckdb, ratio, verdict, restart, warm = table_row(out, label)
        assert number(ours) > 0 and number(duckdb) > 0 and number(restart) > 0 and number(warm) > 0, label
        assert number(ratio.rstrip("x")) == pytest.approx(number(ours) / number(duckdb), rel=0.5)
        assert verdict in ("met", "NOT met")
    assert number(table_row(out, "cluster-step-trace, 16 ranks, first answer")[0]) > 0
    assert "ranks answered: 16; slow ranks found: [(3, 'computing')]" in out
    assert re.search(r"peak_rss_mb=\d+", out)
    assert re.search(r"\| during timeline summary \| \d+ \| 0 \|", out)  # other requests answered, none failed


def test_profiler_engines_smoke(tmp_path: Path) -> None:
    out = run("profiler_engines.py", "--smoke", "--cache", str(tmp_path), timeout=600)
    for label in ("csv module (before)", "pyarrow streaming CSV (ours)", "DuckDB read_csv -> columns",
                  "orjson streaming (before)", "DuckDB read_json -> columns (ours)", "DuckDB SQL only (floor)"):
        wall, cpu, rss = table_row(out, label)
        assert number(wall) > 0 and number(cpu) > 0 and number(rss) > 0, label
    assert out.count("| Parquet kept by the store (ours, restart) |") == 2
    ours, duck = table_row(out, "page 1 sorted by duration")  # warm queries: numpy columns vs a DuckDB table
    assert number(ours) >= 0 and number(duck) >= 0


def test_ascend_db_benchmark_smoke(tmp_path: Path) -> None:
    out = run("ascend_db.py", "--smoke", "--cache", str(tmp_path))
    for label in ("SQLite itself: COUNT/SUM over the join (no rows moved)", "our kernel table (load_kernels), sqlite3"):
        seconds, rss, rows, _ = table_row(out, label)
        assert number(seconds) > 0 and number(rss) > 0 and number(rows) > 0, label
    for label in ("ops/search aicore_detail page 1 by duration, cold", "timeline-summary, cold"):
        assert number(table_row(out, label)[0]) > 0, label
    assert "DuckDB:" in out


def test_ascend_db_host_benchmark_smoke(tmp_path: Path) -> None:
    out = run("ascend_db_host.py", "--smoke", "--cache", str(tmp_path))
    for label in ("operator-details", "api-statistic", "npu-module-mem"):
        rows, db_first, _, _, text_first, _, _ = table_row(out, label)
        assert int(rows) > 0 and number(db_first) > 0 and number(text_first) > 0, label
    assert re.search(r"peak RSS \(all three views\): database \d+ MB, text \d+ MB", out)


def test_issue13_corpora_smoke(tmp_path: Path) -> None:
    """The LLM-scale (ranks of one job) and many-runs corpora, tiny: ours (and TensorBoard if set up)."""
    mode = os.environ.get("MIC_BENCH_PEERS", "auto")
    peers = "none" if mode == "none" else "tensorboard" if (PEER_CACHE / "tensorboard-2.21").exists() else "none"
    out = run("peers.py", "--smoke", "--corpus", "L,W", "--peers", peers, "--cache", str(PEER_CACHE),
              "--corpus-dir", str(tmp_path / "corpora"), timeout=600)
    for corpus in ("smoke-L", "smoke-W"):
        assert f"### Corpus {corpus}" in out
    assert "`rank_N/` of one job" in out
    assert "Ours started with" not in out  # W's runs too are loaded with the default settings
    if peers == "tensorboard":  # its copy of the corpora written in bulk (benchmarks/tfevents_bulk.py)
        assert number(table_row(out, "start → last step served (s)")[1]) > 0
    assert number(table_row(out, "start → last step served (s)")[0]) > 0
    assert number(table_row(out, "peak PSS, process tree (MB)")[0]) > 0
    assert "our vectorised scalar path" in out


def test_window_benchmark_smoke() -> None:
    out = run("window.py", "--smoke")
    assert "| 5,000 | 1000 | 5,000 |" in out
    assert number(table_row(out, "5,000")[3]) > 0


def test_many_runs_smoke(tmp_path: Path) -> None:
    out = run("many_runs.py", "--smoke", "--out", str(tmp_path / "many"))
    assert "runs: 308 (302 list entries" in out and "all listed and cached" in out, out
    assert "start -> every run cached" in out and "train-jobs search" in out, out


def test_ui_zoom_export_smoke() -> None:
    _require_chromium()
    out = run("ui_zoom_export.py", "--smoke")
    assert "zoom (1 % of the steps):" in out and "CSV of the zoomed window:" in out, out
    assert "CSV of every step:" in out and "(40,000 rows" in out, out  # 2 ranks x 20,000 steps, every one


def test_hostile_files_benchmark_smoke() -> None:
    out = run("hostile.py", "--smoke")
    rows = [line.split() for line in out.splitlines() if line.startswith("  this ")]
    assert len(rows) == 7, out
    for row in rows:  # every case answered (a status code, no stuck trigger) and the server still serves
        assert row[1].isdigit() and "NOT" not in row, out
