"""DuckDB's own time on an Ascend rank's big files: the floor our first answers are measured against.

    python benchmarks/duckdb_floor.py kernel  .../kernel_details.csv  [--threads 2]
    python benchmarks/duckdb_floor.py trace   .../trace_view.json     [--threads 2]

Runs in its own (fresh) process and prints one JSON line: `{"what", "seconds", "cpu_s", "peak_rss_mb", "rows"}`.

* kernel: the first page (20 rows) of kernel_details.csv sorted by `Duration(us)` descending, all columns
  (`SELECT * FROM read_csv(...) ORDER BY "Duration(us)" DESC LIMIT 20`): what the kernel table's first request asks.
* trace: the per-process summary of trace_view.json (events, first start, last end per `pid`), what the
  timeline summary needs (`read_json(format='array')` grouped by pid).

`seconds` starts after `import duckdb` (our server imports its engines on the first profiler request, and that
request's time includes the import: the comparison leans against us, not for us).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

KERNEL_SQL = 'SELECT * FROM read_csv({path}) ORDER BY "Duration(us)" DESC LIMIT 20'
TRACE_SQL = ("SELECT pid, count(*) AS events, min(TRY_CAST(ts AS DOUBLE)) AS first_us, "
             "max(TRY_CAST(ts AS DOUBLE) + coalesce(TRY_CAST(dur AS DOUBLE), 0)) AS last_us "
             "FROM read_json({path}, format='array') GROUP BY pid ORDER BY pid")


def run(what: str, path: str, threads: int) -> dict[str, object]:
    import duckdb  # imported before the clock starts: our server has its engine imported when a request comes

    sql = (KERNEL_SQL if what == "kernel" else TRACE_SQL).format(path="'" + path.replace("'", "''") + "'")
    cpu0 = time.process_time()
    started = time.perf_counter()
    con = duckdb.connect(config={"threads": threads})
    rows = con.execute(sql).fetchall()
    seconds = time.perf_counter() - started
    return {"what": what, "seconds": round(seconds, 3), "cpu_s": round(time.process_time() - cpu0, 3),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024), "rows": len(rows),
            "threads": threads, "duckdb": duckdb.__version__}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("kernel", "trace"))
    parser.add_argument("path")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    print(json.dumps(run(args.what, args.path, args.threads)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
