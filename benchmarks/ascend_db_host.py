"""The host-side tables of the Ascend database export at scale: operator details (PYTORCH_API and the device work it
launched), API statistics (CANN_API) and CANN module memory (NPU_MODULE_MEM), side by side with the text export
answering the same tables from its CSV files.

    python benchmarks/ascend_db_host.py                # the fixture's step repeated 200 times
    python benchmarks/ascend_db_host.py --copies 1000
    python benchmarks/ascend_db_host.py --smoke        # 3 copies (CI)

The rank is ../shared/fixtures/ascend_db's Level1 rank 0 (or, without ../shared, the repo's synthetic db job,
summary/ascend_db_profile.py) with its step repeated `--copies` times: every host and device table shifted in time,
ids (globalTaskId, connectionId, CONNECTION_IDS) shifted so each copy links only to itself. The text rank beside it
holds operator_details.csv, api_statistic.csv and npu_module_mem.csv with the same rows (written from the database
answers), so both exports answer tables of equal size. Each export is measured in a fresh process through create_app
(first and warm answer of each view, the process's peak RSS); generated into `--cache`, never into the repo.
"""

from __future__ import annotations

import argparse
import csv
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
VIEWS = (("operator-details", "&limit=50"), ("api-statistic", "&limit=50"), ("npu-module-mem", ""))
# table -> (time columns, id columns shifted by the id offset, globalTaskId columns shifted by the task offset)
SCALED = {
    "PYTORCH_API": (("startNs", "endNs"), ("connectionId",), ()),
    "CONNECTION_IDS": ((), ("id", "connectionId"), ()),
    "CANN_API": (("startNs", "endNs"), ("connectionId",), ()),
    "TASK": (("startNs", "endNs"), ("connectionId",), ("globalTaskId",)),
    "COMPUTE_TASK_INFO": ((), (), ("globalTaskId",)),
    "COMMUNICATION_OP": (("startNs", "endNs"), ("connectionId", "opId"), ()),
    "COMMUNICATION_TASK_INFO": ((), ("opId",), ("globalTaskId",)),
    "NPU_MODULE_MEM": (("timestampNs",), (), ()),
}


def _source(tmp: Path) -> Path:
    if SHARED_RANK.exists():
        return SHARED_RANK
    from mindinsight_clone.summary.ascend_db_profile import write_ascend_db_job
    return write_ascend_db_job(tmp / "source", ranks=1)[0]


def _scale(db: Path, copies: int) -> None:
    con = sqlite3.connect(db)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    low, high = con.execute("SELECT MIN(startNs), MAX(endNs) FROM TASK").fetchone()
    span = high - low + 1_000_000
    ids = 1 + max(con.execute(f"SELECT IFNULL(MAX({c}), 0) FROM {t}").fetchone()[0]
                  for t, (_, cols, _) in SCALED.items() if t in tables for c in cols)
    gids = 1 + con.execute("SELECT MAX(globalTaskId) FROM TASK").fetchone()[0]
    for table, (times, shifted, tasks) in SCALED.items():
        if table not in tables:
            continue
        columns = [r[1] for r in con.execute(f'PRAGMA table_info("{table}")')]
        con.execute(f"CREATE TEMP TABLE base_{table} AS SELECT * FROM {table}")
        for k in range(1, copies):
            exprs = []
            for c in columns:
                if c in times:  # PYTORCH_API stores its times as TEXT: keep the column's type
                    exprs.append(f"CASE WHEN typeof({c}) = 'text' THEN CAST(CAST({c} AS INTEGER) + {k * span} AS TEXT)"
                                 f" ELSE {c} + {k * span} END")
                elif c in shifted:
                    exprs.append(f"{c} + {k * ids}")
                elif c in tasks:
                    exprs.append(f"{c} + {k * gids}")
                else:
                    exprs.append(c)
            con.execute(f"INSERT INTO {table} SELECT {', '.join(exprs)} FROM base_{table}")
    con.commit()
    con.execute("VACUUM")
    con.close()


def _write_csv(path: Path, header: list[str], rows: list[list[Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(["" if v is None else v for v in row] for row in rows)


def _text_rank(base: Path) -> None:
    """The text rank: the same three tables as CSV, written from the database rank's full answers."""
    from mindinsight_clone.analyzers.profiler.adapters.ascend_db import ascend_db_operators, ascend_db_stats
    from mindinsight_clone.analyzers.profiler.adapters.ascend_text import ascend_tables
    from mindinsight_clone.analyzers.profiler.layout import scan_profiler_dir
    device = scan_profiler_dir(base / "db" / "profiler", "./db/profiler").devices["0"]
    source = base / "db" / "profiler" / "rank0_ascend_pt"
    out = base / "text" / "profiler" / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    shutil.copyfile(source / "profiler_info_0.json", out.parent / "profiler_info_0.json")
    operators, _ = ascend_db_operators.operator_rows(device, None)
    _write_csv(out / "operator_details.csv", [h for _, h, _ in ascend_tables.OPERATOR_DETAILS.columns],
               [list(r) for r in operators])
    apis, _ = ascend_db_stats.api_statistic_rows(device, None)
    _write_csv(out / "api_statistic.csv", [h for _, h, _ in ascend_tables.API_STATISTIC.columns], [list(r) for r in apis])
    series, _ = ascend_db_stats.module_mem_series(device, None)
    _write_csv(out / "npu_module_mem.csv", ["Component", "Timestamp(us)", "Total Reserved(MB)", "Device"],
               [[c, f"{row[0]:.3f}\t", row[2], "NPU:0"] for c, data in series.items() for row in data.tolist()])
    # a marker table so the rank is Ascend (the views here need no kernel table)
    _write_csv(out / "step_trace_time.csv", ["Step", "Computing", "Communication(Not Overlapped)", "Overlapped",
                                             "Communication", "Free", "Stage", "Bubble",
                                             "Communication(Not Overlapped and Exclude Receive)"],
               [[1, 1, 1, 0, 1, 1, 3, 0, 1]])


def generate(base: Path, copies: int) -> dict[str, Any]:
    started = time.perf_counter()
    rank = base / "db" / "profiler" / "rank0_ascend_pt"
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(_source(Path(tmp)), rank, copy_function=shutil.copyfile)
    for path in [rank, *rank.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    db = next((rank / "ASCEND_PROFILER_OUTPUT").glob("ascend_*_profiler_0.db"))
    _scale(db, copies)
    _text_rank(base)
    with sqlite3.connect(db) as con:
        facts = {t.lower() + "_rows": con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                 for t in ("PYTORCH_API", "CANN_API", "TASK", "NPU_MODULE_MEM")}
    facts.update(copies=copies, db_mb=round(db.stat().st_size / 2**20, 1),
                 text_mb=round(sum(p.stat().st_size for p in (base / "text").rglob("*.csv")) / 2**20, 1),
                 source="fixtures" if SHARED_RANK.exists() else "synthetic",
                 generate_s=round(time.perf_counter() - started, 1))
    (base / "bench.json").write_text(json.dumps(facts))
    return facts


def _child(export: str, base: Path) -> dict[str, Any]:
    """The three views' first and warm answers of one export, in this fresh process (its peak RSS at the end)."""
    from mindinsight_clone.config import settings_for_tests
    from mindinsight_clone.server.app import create_app
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as workspace:  # a spool still being written
        settings = settings_for_tests(summary_base_dir=str(base), workspace=workspace, reload_interval=0)
        app = create_app(settings, start_background=False)
        app.extensions["mindinsight_clone"].data_manager.reload()
        client = app.test_client()
        for view, extra in VIEWS:
            url = f"/v1/mindinsight/profile/{view}?train_id=./{export}&profile=profiler&device_id=0{extra}"
            times = []
            for _ in range(2):
                t0, c0 = time.perf_counter(), time.process_time()
                response = client.get(url)
                times.append((round(time.perf_counter() - t0, 3), round(time.process_time() - c0, 3)))
                assert response.status_code == 200, response.get_data(as_text=True)[:300]
            body = response.get_json()
            out[view] = {"cold_s": times[0][0], "cold_cpu_s": times[0][1], "warm_s": times[1][0],
                         "rows": body.get("size", len(body.get("components", [])))}
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=200)
    parser.add_argument("--smoke", action="store_true", help="3 copies")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "mindinsight-clone-bench")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--base", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.child, args.base)))
        return 0
    copies = 3 if args.smoke else args.copies
    base = args.cache / f"ascend-db-host-{copies}copies"
    facts = common.cached_data(base, lambda where: generate(where, copies))
    print(f"machine: {common.machine_info()}")
    print(f"rank: {facts}")
    results = {}
    for export in ("db", "text"):
        proc = subprocess.run([sys.executable, __file__, "--child", export, "--base", str(base)], capture_output=True,
                              text=True, timeout=3600, check=False, cwd=REPO)
        if proc.returncode != 0:
            raise SystemExit(f"{export} failed: {proc.stderr.strip()[-2000:]}")
        results[export] = json.loads(proc.stdout.strip().splitlines()[-1])
    print("\n| view | rows | database: first answer (s) | its CPU (s) | warm (s) | text: first answer (s) | its CPU (s) "
          "| warm (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for view, _ in VIEWS:
        db, text = results["db"][view], results["text"][view]
        print(f"| {view} | {db['rows']} | {db['cold_s']} | {db['cold_cpu_s']} | {db['warm_s']} | {text['cold_s']} "
              f"| {text['cold_cpu_s']} | {text['warm_s']} |")
    print(f"\nprocess peak RSS (all three views): database {results['db']['peak_rss_mb']} MB, "
          f"text {results['text']['peak_rss_mb']} MB")
    print(f"\nload average now {common.load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
