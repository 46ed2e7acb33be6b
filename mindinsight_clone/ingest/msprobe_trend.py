"""`msprobe data2db` output (issue 35): the `*.trend.db` SQLite file of per-step statistics of every target
(`Mint.sum.input.0`, ...), per metric (forward, backward, recompute, parameters_grad) and rank (README "msprobe
data2db"). msprobe stores a NaN statistic as NULL. Read-only, through `msprobe_vis.open_sqlite`."""

from __future__ import annotations

import sqlite3
from typing import Any

STATS = ("norm", "max", "min", "mean", "zeros", "nans")  # the last two only in a monitor's db (their columns)
TABLES = {"trend_data", "monitoring_targets", "monitoring_metrics"}


def read_trend(conn: sqlite3.Connection, metric: str | None, stat: str, rank: int | None) -> dict[str, Any]:
    """`{"metrics", "ranks", "metric", "rank", "stat", "stats", "targets", "steps", "values"}`; `values[i][j]` is target
    i at step j (None: not recorded, or NaN as msprobe stores it); `stats`: the statistics the file has (data2db of a
    dump: norm, max, min, mean; of monitor CSVs also zeros and nans, as configured)."""
    if stat not in STATS:
        raise ValueError(f"'stat' should be one of {', '.join(STATS)}")
    columns = {r[1] for r in conn.execute("PRAGMA table_info(trend_data)")}
    stats = [s for s in STATS if s in columns]
    if stat not in stats:
        raise ValueError(f"no statistic {stat!r} in this file (it has {', '.join(stats)})")
    metrics = [r[0] for r in conn.execute("SELECT metric_name FROM monitoring_metrics m WHERE EXISTS "
                                          "(SELECT 1 FROM trend_data t WHERE t.metric_id = m.metric_id) "
                                          "ORDER BY metric_id")]
    ranks = [r[0] for r in conn.execute("SELECT DISTINCT rank FROM trend_data ORDER BY rank")]
    metric = metric or (metrics[0] if metrics else None)
    rank = ranks[0] if rank is None and ranks else rank
    if metric is not None and metric not in metrics:
        raise ValueError(f"no metric {metric!r} in this file (it has {', '.join(metrics) or 'none'})")
    column = {s: f"t.{s}" for s in STATS}[stat]
    rows = conn.execute(
        f"SELECT t.target_id, g.target_name, t.step, {column} FROM trend_data t "  # noqa: S608 (a fixed map)
        "JOIN monitoring_targets g ON g.target_id = t.target_id "
        "JOIN monitoring_metrics m ON m.metric_id = t.metric_id "
        "WHERE m.metric_name = ? AND t.rank = ? ORDER BY t.target_id, t.step", (metric, rank)).fetchall()
    ids = list(dict.fromkeys(r[0] for r in rows))
    names = {r[0]: r[1] for r in rows}
    # one target name per call site: data2db names the two calls of a primitive alike (Conv2D.0, Conv2D.1 ->
    # Primitive.conv2d.Conv2D.input.0); the second and later get " #2", " #3", ...
    seen: dict[str, int] = {}
    targets = []
    for target_id in ids:
        seen[names[target_id]] = seen.get(names[target_id], 0) + 1
        count = seen[names[target_id]]
        targets.append(names[target_id] if count == 1 else f"{names[target_id]} #{count}")
    steps = sorted({r[2] for r in rows})
    where = {s: j for j, s in enumerate(steps)}
    index = {t: i for i, t in enumerate(ids)}
    values: list[list[float | None]] = [[None] * len(steps) for _ in ids]
    for target_id, _name, step, value in rows:
        values[index[target_id]][where[step]] = value
    return {"metrics": metrics, "ranks": ranks, "metric": metric, "rank": rank, "stat": stat, "stats": stats,
            "targets": targets, "steps": steps, "values": values}
