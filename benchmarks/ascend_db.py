"""Reading the Ascend database export (SQLite) into columns: which reader, and what a big rank costs.

    python benchmarks/ascend_db.py                 # rank 0 with 1,000,000 kernel rows
    python benchmarks/ascend_db.py --smoke         # 20,000 kernel rows (CI)
    python benchmarks/ascend_db.py --rows 300000

The rank is made as benchmarks/ascend.py makes its big rank: ../shared/fixtures/ascend_db's Level1 rank 0 (or, when
../shared is absent, the repo's synthetic db job, summary/ascend_db_profile.py) with its COMPUTE_TASK_INFO and
TASK rows repeated (globalTaskId and times shifted) to `--rows` kernels; the other tables are the fixture's. It is
generated with sqlite3 into a cache dir (`--cache`, reused when complete), never into the repo.

Each measurement runs in a fresh process (time and peak RSS of that process):

* the floor: SQLite itself joining the two tables (`COUNT`/`SUM` over COMPUTE_TASK_INFO JOIN TASK, no rows moved);
* the two column readers on the same two table reads our kernel loader makes: the standard library's sqlite3
  (batches of tuples into numpy) and ADBC's SQLite driver (Arrow batches into numpy);
* our kernel table (ascend_db_kernels.load_kernels: reads, join, wait per stream, steps, strings) with each reader;
* our timeline (ascend_db_trace.load_trace) and the app's first answers (ops/search page 1 sorted by duration,
  timeline-summary) through create_app;
* DuckDB: its `sqlite` extension is downloaded at run time, so it is tried and reported unavailable offline.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks import common  # noqa: E402

SHARED_RANK = (REPO.parent / "shared" / "fixtures" / "ascend_db" / "torch_npu_db_level1" / "profiler"
               / "rank0_ascend_pt")
JOIN = "FROM COMPUTE_TASK_INFO c JOIN TASK t ON t.globalTaskId = c.globalTaskId"


def _source(tmp: Path) -> Path:
    """A rank folder (profiler_info_0.json + ASCEND_PROFILER_OUTPUT/) to scale."""
    if SHARED_RANK.exists():
        return SHARED_RANK
    from mindinsight_clone.summary.ascend_db_profile import write_ascend_db_job
    return write_ascend_db_job(tmp / "source", ranks=1)[0]


def generate(base: Path, rows: int) -> dict[str, Any]:
    started = time.perf_counter()
    rank = base / "job" / "profiler" / "rank0_ascend_pt"
    with tempfile.TemporaryDirectory() as tmp:
        source = _source(Path(tmp))
        shutil.copytree(source, rank, copy_function=shutil.copyfile)
    for path in [rank, *rank.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    db = next((rank / "ASCEND_PROFILER_OUTPUT").glob("ascend_*_profiler_0.db"))
    con = sqlite3.connect(db)
    base_rows = con.execute("SELECT COUNT(*) FROM COMPUTE_TASK_INFO").fetchone()[0]
    gid_span = con.execute("SELECT MAX(globalTaskId) + 1 FROM TASK").fetchone()[0]
    low, high = con.execute("SELECT MIN(startNs), MAX(endNs) FROM TASK").fetchone()
    span = high - low + 1_000_000
    con.execute("CREATE TEMP TABLE c0 AS SELECT * FROM COMPUTE_TASK_INFO")
    con.execute("CREATE TEMP TABLE t0 AS SELECT * FROM TASK")
    copies = 1
    while base_rows * (copies + 1) <= rows:
        g, t = copies * gid_span, copies * span
        con.execute(f"INSERT INTO COMPUTE_TASK_INFO SELECT name, globalTaskId + {g}, blockDim, mixBlockDim, taskType, "
                    "opType, inputFormats, inputDataTypes, inputShapes, outputFormats, outputDataTypes, outputShapes, "
                    "attrInfo FROM c0")
        con.execute(f"INSERT INTO TASK SELECT startNs + {t}, endNs + {t}, deviceId, connectionId, globalTaskId + {g}, "
                    "globalPid, taskType, contextId, streamId, taskId, modelId FROM t0")
        copies += 1
    con.commit()
    con.execute("VACUUM")
    con.close()
    facts = {"kernel_rows": base_rows * copies, "task_rows": None, "db_mb": round(db.stat().st_size / 2**20, 1),
             "source": "fixtures" if SHARED_RANK.exists() else "synthetic",
             "generate_s": round(time.perf_counter() - started, 1)}
    with sqlite3.connect(db) as con:
        facts["task_rows"] = con.execute("SELECT COUNT(*) FROM TASK").fetchone()[0]
    (base / "bench.json").write_text(json.dumps(facts))
    return facts


# --- one measurement per process -----------------------------------------------------------------


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child(name: str, base: Path) -> dict[str, Any]:
    if name.endswith("sqlite3"):  # our reader falls back to sqlite3 when ADBC cannot be imported
        sys.modules["adbc_driver_sqlite"] = None  # type: ignore[assignment]
        sys.modules["adbc_driver_sqlite.dbapi"] = None  # type: ignore[assignment]
    rank = base / "job" / "profiler" / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    db = next(rank.glob("ascend_*_profiler_0.db"))
    out: dict[str, Any] = {}
    import numpy  # noqa: F401 - imports are not timed

    from mindinsight_clone.analyzers.profiler.adapters.ascend_db import (  # noqa: F401
        ascend_db,
        ascend_db_kernels,
        ascend_db_trace,
    )
    from mindinsight_clone.server import app as _app_module  # noqa: F401
    if ascend_db.adbc_available():
        import pyarrow  # noqa: F401
    out["reader"] = "adbc" if ascend_db.adbc_available() else "sqlite3"
    started = time.perf_counter()
    if name == "floor":
        out["reader"] = "SQLite engine"
        con = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
        out["rows"], _ = con.execute(f"SELECT COUNT(*), SUM(t.endNs - t.startNs) {JOIN}").fetchone()
    elif name in ("fetch sqlite3", "fetch adbc"):
        from mindinsight_clone.analyzers.profiler.adapters.ascend_db.ascend_db import DbRef, open_db
        from mindinsight_clone.analyzers.profiler.adapters.ascend_db.ascend_db_kernels import _STRINGS
        with open_db(DbRef(db, "0"), None) as handle:
            sql_compute = {"gid": "globalTaskId", **_STRINGS, "block_dim": "blockDim"}
            sql_task = {"gid": "globalTaskId", "start": "startNs", "end": "endNs", "stream": "streamId",
                        "task": "taskId"}
            columns = {**handle.int_columns(sql_compute, "FROM COMPUTE_TASK_INFO"),
                       **{f"t_{k}": v for k, v in handle.int_columns(sql_task, "FROM TASK").items()}}
        out["rows"] = int(columns["gid"].size)
    elif name.startswith("kernels"):
        from mindinsight_clone.analyzers.profiler.adapters.ascend_db.ascend_db import DbRef
        from mindinsight_clone.analyzers.profiler.adapters.ascend_db.ascend_db_kernels import load_kernels
        table, _ = load_kernels(DbRef(db, "0"), None)
        out["rows"], out["table_mb"] = table.length, round(table.nbytes / 2**20, 1)
    elif name == "trace":
        from mindinsight_clone.analyzers.profiler.adapters.ascend_db.ascend_db import DbRef
        from mindinsight_clone.analyzers.profiler.adapters.ascend_db.ascend_db_trace import load_trace
        trace = load_trace(DbRef(db, "0"), None)
        out["rows"], out["table_mb"] = len(trace), round(trace.nbytes / 2**20, 1)
    elif name == "app":
        out.update(_app(base))
    elif name == "duckdb":
        out.update(_duckdb(db))
    out["seconds"] = round(time.perf_counter() - started, 3)
    out["peak_rss_mb"] = round(_peak_mb())
    return out


def _app(base: Path) -> dict[str, Any]:
    from mindinsight_clone.config import settings_for_tests
    from mindinsight_clone.server.app import create_app
    # the app's table store may still be writing its spool when the block ends: the harness's cleanup must not fail
    # the measurement (CI saw "Directory not empty: 'profiler'" under load)
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as workspace:
        settings = settings_for_tests(summary_base_dir=str(base), workspace=workspace, reload_interval=0)
        app = create_app(settings, start_background=False)
        app.extensions["mindinsight_clone"].data_manager.reload()
        client = app.test_client()
        body = json.dumps({"op_type": "aicore_detail", "device_id": "0", "sort_condition": {"name": "duration_us"},
                           "group_condition": {"limit": 20, "offset": 0}})
        url = "/v1/mindinsight/profile/ops/search?train_id=./job&profile=profiler"
        times = {}
        for label, call in (
            ("ops_cold_s", lambda: client.post(url, data=body, content_type="application/json")),
            ("ops_warm_s", lambda: client.post(url, data=body, content_type="application/json")),
            ("timeline_summary_cold_s",
             lambda: client.get("/v1/mindinsight/profile/timeline-summary?dir=./job&device_id=0")),
            ("timeline_5000_s",
             lambda: client.get("/v1/mindinsight/profile/timeline?dir=./job&device_id=0&max_events=5000")),
        ):
            t0 = time.perf_counter()
            response = call()
            assert response.status_code == 200, response.get_data(as_text=True)[:300]
            times[label] = round(time.perf_counter() - t0, 3)
        app.extensions["mindinsight_clone"].data_manager.stop()
    return times


def _duckdb(db: Path) -> dict[str, Any]:
    """DuckDB reads SQLite only through its `sqlite` extension, which it downloads on first use; nothing is
    downloaded here: without a locally installed extension it is reported unavailable."""
    try:
        import duckdb
    except ImportError:
        return {"note": "duckdb is not installed"}
    con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    found = con.execute("SELECT installed FROM duckdb_extensions() WHERE extension_name = 'sqlite'").fetchone()
    if not found or not found[0]:
        return {"note": "unavailable offline: its sqlite extension is not installed (DuckDB downloads it on first use)"}
    con.execute("LOAD sqlite")
    con.execute(f"ATTACH '{db}' AS p (TYPE sqlite, READ_ONLY)")
    started = time.perf_counter()
    con.execute("SELECT c.*, t.startNs, t.endNs FROM p.COMPUTE_TASK_INFO c JOIN p.TASK t USING (globalTaskId)").arrow()
    return {"note": f"join read into Arrow in {time.perf_counter() - started:.3f} s"}


MEASUREMENTS = [
    ("floor", "SQLite itself: COUNT/SUM over the join (no rows moved)"),
    ("fetch sqlite3", "read the two tables into numpy: sqlite3 (stdlib)"),
    ("fetch adbc", "read the two tables into numpy: ADBC SQLite driver -> Arrow"),
    ("kernels sqlite3", "our kernel table (load_kernels), sqlite3"),
    ("kernels adbc", "our kernel table (load_kernels), ADBC"),
    ("trace", "our timeline columns (load_trace)"),
    ("app", "app: first answers through create_app"),
    ("duckdb", "DuckDB sqlite extension"),
]


SMOKE = ("floor", "kernels sqlite3", "app")  # --smoke: one process each for what CI checks


def measure(base: Path, names: tuple[str, ...]) -> None:
    results: dict[str, dict[str, Any]] = {name: {"note": "not measured (--smoke)"} for name, _ in MEASUREMENTS}
    for name, _label in MEASUREMENTS:
        if name not in names:
            continue
        proc = subprocess.run([sys.executable, __file__, "--child", name, "--base", str(base)], capture_output=True,
                              text=True, timeout=1800, check=False, cwd=REPO)
        if proc.returncode != 0:
            results[name] = {"note": f"failed: {proc.stderr.strip().splitlines()[-1][:100] if proc.stderr else ''}"}
        else:
            results[name] = json.loads(proc.stdout.strip().splitlines()[-1])
        print(f"{name}: {results[name]}", flush=True)
    print("\n| step | seconds | peak RSS (MB) | rows | note |")
    print("|---|---|---|---|---|")
    for name, label in MEASUREMENTS[:-2]:
        r = results[name]
        note = f"{r['reader']}; columns {r['table_mb']} MB" if "table_mb" in r else r.get("note", r.get("reader", ""))
        print(f"| {label} | {r.get('seconds', '-')} | {r.get('peak_rss_mb', '-')} | {r.get('rows', '-')} | {note} |")
    app = results["app"]
    print("\n| first answer through the app (in process) | seconds |")
    print("|---|---|")
    for key, label in (("ops_cold_s", "ops/search aicore_detail page 1 by duration, cold"),
                       ("ops_warm_s", "the same, warm"), ("timeline_summary_cold_s", "timeline-summary, cold"),
                       ("timeline_5000_s", "timeline, 5,000 longest events")):
        print(f"| {label} | {app.get(key, app.get('note', '-'))} |")
    print(f"\napp process peak RSS: {app.get('peak_rss_mb', '-')} MB")
    print(f"DuckDB: {results['duckdb'].get('note', results['duckdb'])}")
    kernels = {k: results[f"kernels {k}"].get("seconds") for k in ("sqlite3", "adbc")}
    if all(isinstance(v, (int, float)) and v for v in kernels.values()):
        print(f"kernel table, sqlite3 / ADBC: {kernels['sqlite3'] / kernels['adbc']:.2f}x")
    print(f"load average now {common.load_average()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--smoke", action="store_true", help="20,000 kernel rows")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "mindinsight-clone-bench")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--base", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.child, args.base)))
        return 0
    rows = 20_000 if args.smoke else args.rows
    base = args.cache / f"ascend-db-{rows}rows"
    facts = common.cached_data(base, lambda where: generate(where, rows))
    print(f"machine: {common.machine_info()}")
    print(f"rank: {facts}")
    measure(base, SMOKE if args.smoke else tuple(name for name, _ in MEASUREMENTS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
