"""The candidate engines for the profiler tables, side by side on one big rank: how the engine was picked.

    python benchmarks/profiler_engines.py            # the 1M-row kernel_details.csv and 451 MB trace of ascend.py
    python benchmarks/profiler_engines.py --smoke    # its smoke job (20,000 rows, 5 MB), one repetition (CI)

Each candidate runs in a fresh process (`--child`) and does what the first request needs: read the file into the
table the views query, then answer it (kernel table: page 1 sorted by duration; trace: timeline-summary). Printed:
wall and CPU seconds, peak RSS of the process; medians of `--repeat`.

* kernel_details.csv: the csv module (the reader before), pyarrow's streaming CSV reader (ours), DuckDB read_csv
  into the same columns, polars read_csv into the same columns (when polars is installed), and DuckDB's SQL alone
  (`ORDER BY ... LIMIT 20`, no table kept: the floor);
* trace_view.json: the orjson streaming reader (before), DuckDB read_json into the columns (ours), polars read_json
  (when installed), DuckDB's per-process summary SQL alone (the floor);
* the parse-once path: the columns read back from the Parquet file the store keeps (what a restart does).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PAGE = {"sort_condition": {"name": "duration_us"}, "group_condition": {"limit": 20, "offset": 0}}
KERNEL = ["csv module (before)", "pyarrow streaming CSV (ours)", "DuckDB read_csv -> columns",
          "polars read_csv -> columns", "Parquet kept by the store (ours, restart)", "DuckDB SQL only (floor)"]
TRACE = ["orjson streaming (before)", "DuckDB read_json -> columns (ours)", "polars read_json",
         "Parquet kept by the store (ours, restart)", "DuckDB SQL only (floor)"]


def _kernel_page(table: Any) -> Any:
    from mindinsight_clone.analyzers.profiler.engine.column_query import query
    from mindinsight_clone.analyzers.profiler.views import ascend_ops

    return query(table.subset(False), ascend_ops.AICORE_DETAIL, PAGE)


def _columns_from_batches(batches: Any, numbers: dict[str, str], strings: dict[str, str]) -> Any:
    """A ColumnTable from Arrow batches whose columns are named by CSV header (DuckDB's, polars' output)."""
    import numpy as np

    from mindinsight_clone.analyzers.profiler.engine.arrow_columns import Interner, floats, stripped
    from mindinsight_clone.analyzers.profiler.engine.column_query import ColumnTable

    interners = {k: Interner(stripped) for k in strings}
    parts: dict[str, list[Any]] = {k: [] for k in (*numbers, *strings)}
    length = 0
    for batch in batches:
        length += batch.num_rows
        for key, header in numbers.items():
            parts[key].append(floats(batch.column(header)))
        for key, header in strings.items():
            parts[key].append(interners[key].ids_of(batch.column(header)))
    return ColumnTable({k: np.concatenate(parts[k]) for k in numbers}, {k: np.concatenate(parts[k]) for k in strings},
                       {k: interners[k].values for k in strings}, length)


def kernel(candidate: str, path: Path, work: Path) -> Any:
    from mindinsight_clone.analyzers.profiler.adapters.ascend_text import kernel_table

    numbers, strings = kernel_table._KERNEL_NUMBERS, kernel_table._KERNEL_STRINGS
    if candidate == "csv module (before)":
        return _kernel_page(kernel_table.load_kernels(path, "0", engine="python"))
    if candidate == "pyarrow streaming CSV (ours)":
        return _kernel_page(kernel_table.load_kernels(path, "0"))
    if candidate == "DuckDB read_csv -> columns":
        import duckdb

        cols = ", ".join([f'"{h}"' for h in strings.values()]
                         + [f'TRY_CAST(trim("{h}", \' \t\') AS DOUBLE) AS "{h}"' for h in numbers.values()])
        con = duckdb.connect(config={"threads": 2})
        reader = con.sql(f"SELECT {cols} FROM read_csv('{path}', all_varchar=true)").to_arrow_reader(1 << 16)
        return _kernel_page(kernel_table.KernelTable(_columns_from_batches(reader, numbers, strings), ()))
    if candidate == "polars read_csv -> columns":
        import polars as pl

        frame = pl.read_csv(path, columns=[*strings.values(), *numbers.values()], infer_schema=False)
        frame = frame.with_columns([pl.col(h).str.strip_chars().cast(pl.Float64, strict=False)
                                    for h in numbers.values()])
        table = frame.to_arrow()
        del frame
        return _kernel_page(kernel_table.KernelTable(_columns_from_batches(table.to_batches(1 << 16), numbers, strings),
                                                   ()))
    if candidate == "Parquet kept by the store (ours, restart)":
        return _kernel_page(_kept("ascend_kernels", path, work, kernel_table.KERNELS_CODEC,
                                  lambda p: kernel_table.load_kernels(p, "0")))
    import duckdb  # the floor

    return duckdb.connect(config={"threads": 2}).execute(
        f"SELECT * FROM read_csv('{path}') ORDER BY \"Duration(us)\" DESC LIMIT 20").fetchall()


def trace(candidate: str, path: Path, work: Path) -> Any:
    from mindinsight_clone.analyzers.profiler.engine import trace_engine, trace_events
    from mindinsight_clone.analyzers.profiler.views import timeline

    if candidate == "orjson streaming (before)":
        return timeline.summary(trace_events.load_trace(path))
    if candidate == "DuckDB read_json -> columns (ours)":
        return timeline.summary(trace_engine.load_trace(path))
    if candidate == "polars read_json":
        import polars as pl

        return pl.read_json(path).shape
    if candidate == "Parquet kept by the store (ours, restart)":
        return timeline.summary(_kept("trace_view", path, work, trace_engine.TRACE_CODEC, trace_engine.load_trace))
    import duckdb  # the floor

    from benchmarks.duckdb_floor import TRACE_SQL

    return duckdb.connect(config={"threads": 2}).execute(TRACE_SQL.format(path=f"'{path}'")).fetchall()


WARM = [  # (label, ops/search condition, the same question in SQL over the kernel columns)
    ("page 1 sorted by duration", PAGE,
     "SELECT *, count(*) OVER () FROM k ORDER BY duration DESC LIMIT 20"),
    ("search 'conv', sorted by name, page 3", {"filter_condition": {"op_name": {"partial_match_str_in": ["conv"]}},
                                               "sort_condition": {"name": "op_name", "type": "ascending"},
                                               "group_condition": {"limit": 20, "offset": 2}},
     "SELECT *, count(*) OVER () FROM k WHERE contains(lower(name), 'conv') ORDER BY name LIMIT 20 OFFSET 40"),
    ("type not in [MatMul], page 100 by start", {"filter_condition": {"op_type": {"not_in": ["MatMul"]}},
                                                 "sort_condition": {"name": "start_time_us", "type": "ascending"},
                                                 "group_condition": {"limit": 20, "offset": 100}},
     "SELECT *, count(*) OVER () FROM k WHERE type <> 'MatMul' ORDER BY start LIMIT 20 OFFSET 2000"),
]


def warm(path: Path, work: Path) -> dict[str, Any]:
    """Warm queries on the loaded kernel table: numpy columns (column_query, what the views use) against DuckDB
    querying the same columns (an in-memory table made from the kept Parquet file)."""
    import duckdb

    from mindinsight_clone.analyzers.profiler.adapters.ascend_text import kernel_table
    from mindinsight_clone.analyzers.profiler.engine.column_query import query
    from mindinsight_clone.analyzers.profiler.views import ascend_ops

    table = _kept("ascend_kernels", path, work, kernel_table.KERNELS_CODEC, lambda p: kernel_table.load_kernels(p, "0"))
    kept = next((work / "store").glob("*.parquet"))
    con = duckdb.connect(config={"threads": 2})
    con.execute(f"CREATE TABLE k AS SELECT * FROM read_parquet('{kept}')")
    for column in con.execute("DESCRIBE k").fetchall():  # `n:duration` -> duration
        con.execute(f'ALTER TABLE k RENAME "{column[0]}" TO "{column[0].split(":", 1)[-1]}"')
    out: dict[str, Any] = {}
    for label, condition, sql in WARM:
        numpy_s, duck_s = [], []
        for _ in range(5):
            t0 = time.perf_counter()
            query(table.subset(False), ascend_ops.AICORE_DETAIL, condition)
            numpy_s.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            con.execute(sql).fetchall()
            duck_s.append(time.perf_counter() - t0)
        out[label] = (statistics.median(numpy_s), statistics.median(duck_s))
    return out


def _kept(kind: str, path: Path, work: Path, codec: Any, parse: Any) -> Any:
    """The value read back by the store; the file is written (untimed) by `--prepare` beforehand."""
    from mindinsight_clone.analyzers.profiler.engine.table_store import MB, TableStore
    from mindinsight_clone.ingest import storage

    store = TableStore(work / "store", 4096 * MB)
    value = store.get(kind, path, storage.stat(path), codec, parse)
    store.flush()
    return value


def child(what: str, candidate: str, path: Path, work: Path) -> dict[str, Any]:
    from mindinsight_clone.analyzers.profiler.engine.arrow_columns import preload_engines

    preload_engines()  # a server has them imported; the floor imports duckdb before its clock too
    if what == "warm":
        return warm(path, work)
    if candidate.startswith("polars"):
        try:
            import polars  # noqa: F401
        except ImportError:
            return {"skipped": "polars is not installed"}
    cpu0, wall0 = time.process_time(), time.perf_counter()
    try:
        (kernel if what == "kernel" else trace)(candidate, path, work)
    except Exception as err:  # a candidate that cannot read the file is a result too
        return {"error": f"{type(err).__name__}: {str(err).splitlines()[0][:120]}"}
    return {"wall": time.perf_counter() - wall0, "cpu": time.process_time() - cpu0,
            "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _run(what: str, candidate: str, path: Path, work: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, __file__, "--child", what, candidate, str(path), str(work)],
                         capture_output=True, text=True, timeout=1800, env=env, check=False)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1][:120] if out.stderr.strip() else "failed"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "mindinsight-clone-bench")
    parser.add_argument("--child", nargs=4, metavar=("WHAT", "CANDIDATE", "PATH", "WORK"))
    args = parser.parse_args()
    if args.child:
        what, candidate, path, work = args.child
        print(json.dumps(child(what, candidate, Path(path), Path(work))))
        return 0
    from benchmarks import common
    from benchmarks.ascend import _job, _rank0_file

    rows, trace_mb = (20_000, 5.0) if args.smoke else (1_000_000, 451.0)
    base_dir, facts = _job(args.cache, 4 if args.smoke else 8, rows, trace_mb)
    repeat = 1 if args.smoke else args.repeat
    print(f"machine: {common.machine_info()}")
    print(f"files: kernel_details.csv {facts['kernel_rows']:,} rows ({facts['kernel_csv_mb']} MB), trace_view.json "
          f"{facts['trace_mb']} MB ({facts.get('trace_events', 0):,} events); medians of {repeat}, fresh process each")
    with tempfile.TemporaryDirectory(prefix="mic-engines-") as tmp:
        work = Path(tmp)
        for what, candidates, name in (("kernel", KERNEL, "kernel_details.csv"), ("trace", TRACE, "trace_view.json")):
            path = _rank0_file(base_dir, name)
            _run(what, "Parquet kept by the store (ours, restart)", path, work)  # writes the Parquet file, untimed
            print(f"\n| {name}: candidate | wall (s) | CPU (s) | peak RSS (MB) |")
            print("|---|---|---|---|")
            for candidate in candidates:
                results = [_run(what, candidate, path, work) for _ in range(repeat)]
                good = [r for r in results if "wall" in r]
                if not good:
                    print(f"| {candidate} | {results[0].get('skipped') or results[0].get('error')} | | |")
                    continue
                print(f"| {candidate} | {statistics.median(r['wall'] for r in good):.2f} | "
                      f"{statistics.median(r['cpu'] for r in good):.2f} | {max(r['rss'] for r in good):.0f} |",
                      flush=True)
        result = _run("warm", "-", _rank0_file(base_dir, "kernel_details.csv"), work / "warm")  # its own store
        print("\n| warm query, kernel table (1 process, median of 5) | numpy columns (ours) (s) | DuckDB table (s) |")
        print("|---|---|---|")
        for label, (ours, duck) in result.items():
            print(f"| {label} | {ours:.3f} | {duck:.3f} |")
    print(f"\nload average now {common.load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
