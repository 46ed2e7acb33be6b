"""`profile/advice`: the advisor's findings over every rank of a profiler dir (rules in advice_rules.py).

Loads what the rules need through rank_tables.py, as the views do, so the findings come from whichever export
the rank is written in; whether a rank has the data is asked there too (`rank_tables.has`: the text file, or the
database table). Every rule says whether it ran: `rules` lists each with
`status` `found` (a finding), `ok` (checked, nothing found) or `no_data` (the files it needs are absent), and the
ranks it checked, so "no finding" is never confused with "not checked".

Bounded: the rules that need a rank's kernel table (host dispatch gaps, and AI CPU operators on ranks without
op_statistic.csv) read at most `MAX_KERNEL_RANKS` ranks: the slow ranks first, then by rank id. The ranks left
out are named in the rule's `skipped_ranks` and in `problems`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.numbers import with_problems
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles, ProfilerDir
from mindinsight_clone.analyzers.profiler.views import advice_rules, ascend_ops, cluster_steps, slow_rank
from mindinsight_clone.errors import MindInsightError

log = logging.getLogger(__name__)
MAX_KERNEL_RANKS = 8
# the tables a rule without data needs (rank_tables.needs names them in each rank's format)
NEEDS = {"steps": ("steps",), "ops": ("comm_ops",), "matrix": ("comm_matrix",), "types": ("op_statistic", "kernels"),
         "kernels": ("kernels",)}


def _needs(what: str, devices: dict[int, DeviceFiles]) -> str:
    return rank_tables.needs(NEEDS[what], devices.values())


SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2}


class _Run:
    """Collects findings and each rule's status."""

    def __init__(self) -> None:
        self.findings: list[dict[str, Any]] = []
        self.rules: list[dict[str, Any]] = []
        self.problems: list[dict[str, Any]] = []

    def record(self, rule_id: str, found: dict[str, Any] | None, checked: list[int], message: str = "",
               skipped: list[int] | None = None) -> None:
        status = "found" if found else "ok" if checked else "no_data"
        entry: dict[str, Any] = {"id": rule_id, "title": advice_rules.RULES[rule_id].title, "status": status,
                                 "ranks_checked": sorted(checked)}
        if message:
            entry["message"] = message
        if skipped:
            entry["skipped_ranks"] = sorted(skipped)
            note = (f"{len(skipped)} rank(s) not checked: at most {MAX_KERNEL_RANKS} kernel tables are read per "
                    f"request")
            self.problems.append({"rule": rule_id, "message": note})
            log.info("advice %s: %s", rule_id, note)
        self.rules.append(entry)
        if found:
            self.findings.append(found)


def _collective_times(device_id: str, ops: list[dict[str, Any]]) -> list[slow_rank.CollectiveTime]:
    return [slow_rank.CollectiveTime(int(device_id), op["group"], op["step"], op["name"], op["elapse_time_ms"])
            for op in ops if op.get("type") != "p2p" and isinstance(op.get("elapse_time_ms"), int | float)]


def _matrix_cells(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per operator kind: the `*-total` entries when the rank's matrix has them, else every entry."""
    totals = [c for c in cells if str(c.get("op", "")).endswith("-total")]
    return totals or cells


def aicpu_rows(device: DeviceFiles, cache: ParsedFileCache | None) -> tuple[list[dict[str, Any]], float]:
    """AI_CPU types of a rank (`op_type`, `count`, `total_us`, `max_us`) and its total device compute time (µs),
    from the table ops/search answers (op_statistic.csv, or kernel_details.csv aggregated)."""
    cols = list(ascend_ops.TYPE_COLUMNS)
    index = {c: cols.index(c) for c in ("op_type", "execution_frequency", "total_time_us", "max_time_us")}
    aicpu = ascend_ops.types(device, "aicpu_type", {}, cache)["object"]
    other = ascend_ops.types(device, "aicore_type", {}, cache)["object"]
    compute = float(sum(r[index["total_time_us"]] or 0.0 for r in (*aicpu, *other)))
    merged: dict[str, dict[str, Any]] = {}
    for r in aicpu:
        row = merged.setdefault(r[index["op_type"]], {"op_type": r[index["op_type"]], "count": 0, "total_us": 0.0,
                                                      "max_us": None})
        row["count"] += int(r[index["execution_frequency"]] or 0)
        row["total_us"] += float(r[index["total_time_us"]] or 0.0)
        top = r[index["max_time_us"]]
        if top is not None:
            row["max_us"] = top if row["max_us"] is None else max(row["max_us"], top)
    return list(merged.values()), compute


def kernel_times(device: DeviceFiles, cache: ParsedFileCache | None) -> tuple[np.ndarray, np.ndarray]:
    """Start and duration (µs) of every device task of a rank (its kernel table)."""
    table = rank_tables.load("kernels", device, cache).table
    return table.numbers["start"], table.numbers["duration"]


def _try(action: Callable[[], Any]) -> tuple[Any, str | None]:
    try:
        return action(), None
    except MindInsightError as err:
        return None, err.message


def advice(pdir: ProfilerDir, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    run = _Run()
    devices = {int(i): d for i, d in pdir.devices.items()}  # every format: each rule asks for the tables it reads
    pdir.prefetch_outputs()

    # step time split: slow ranks among peers, free time
    ranks, step_problems = cluster_steps.rank_means(pdir, cache)
    run.problems.extend(step_problems)
    groups, source = cluster_steps.peers_of(pdir, ranks, cache)
    step_slow = cluster_steps.slow_ranks(ranks, groups)
    checked = [r["rank_id"] for r in ranks]
    run.record("slow_rank_step", advice_rules.slow_rank_step(step_slow, source), checked if len(checked) > 1 else [],
               "" if len(checked) > 1 else f"needs {_needs('steps', devices)} of two ranks or more")

    # communication: votes, links, bandwidth
    times: list[slow_rank.CollectiveTime] = []
    links: dict[int, dict[str, advice_rules.LinkTotal]] = {}
    comm_ranks: list[int] = []
    cells: list[dict[str, Any]] = []
    matrix_ranks: list[int] = []
    for rank, device in sorted(devices.items()):
        if rank_tables.has("comm_ops", device, cache):
            loaded, error = _try(partial(rank_tables.load, "comm_ops", device, cache))
            if error:
                run.problems.append({"rank_id": rank, "file": rank_tables.source("comm_ops", device), "message": error})
            else:
                ops = loaded[0]
                comm_ranks.append(rank)
                times.extend(_collective_times(str(rank), ops))
                links[rank] = advice_rules.link_totals(ops)
        if rank_tables.has("comm_matrix", device, cache):
            loaded, error = _try(partial(rank_tables.load, "comm_matrix", device, cache))
            if error:
                run.problems.append({"rank_id": rank, "file": rank_tables.source("comm_matrix", device),
                                     "message": error})
            else:
                matrix_ranks.append(rank)
                cells.extend(_matrix_cells(loaded[0]))
    voted = advice_rules.slow_rank_vote(times)
    run.record("slow_rank_vote", voted, comm_ranks if len(comm_ranks) >= 3 else [],
               "" if len(comm_ranks) >= 3 else f"needs {_needs('ops', devices)} of three ranks or more")
    run.record("slow_link", advice_rules.slow_links(cells), matrix_ranks,
               "" if matrix_ranks else f"needs {_needs('matrix', devices)} (profiler Level1 and above)")
    run.record("low_bandwidth", advice_rules.low_bandwidth(links), comm_ranks,
               "" if comm_ranks else f"needs {_needs('ops', devices)} (profiler Level1 and above)")
    run.record("free_time", advice_rules.free_time(ranks), checked,
               "" if checked else f"needs {_needs('steps', devices)}")

    # operators and the device timeline: kernel tables, bounded
    first = [s["rank_id"] for s in step_slow] + (voted["ranks"] if voted else [])
    order = list(dict.fromkeys([r for r in first if r in devices] + sorted(devices)))
    budget = order[:MAX_KERNEL_RANKS]
    aicpu: dict[int, tuple[list[dict[str, Any]], float]] = {}
    aicpu_skipped: list[int] = []
    gaps: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for rank in order:
        device = devices[rank]
        has_stat = rank_tables.has("op_statistic", device)
        has_kernels = rank_tables.has("kernels", device)
        if has_stat or (has_kernels and rank in budget):
            rows, error = _try(partial(aicpu_rows, device, cache))
            if error:
                run.problems.append({"rank_id": rank, "rule": "aicpu", "message": error})
            else:
                aicpu[rank] = rows
        elif has_kernels:
            aicpu_skipped.append(rank)
        if has_kernels and rank in budget:
            times_of, error = _try(partial(kernel_times, device, cache))
            if error:
                run.problems.append({"rank_id": rank, "rule": "dispatch_gap", "message": error})
            else:
                gaps[rank] = times_of
    run.record("aicpu", advice_rules.aicpu(aicpu), list(aicpu),
               "" if aicpu else f"needs {_needs('types', devices)}", aicpu_skipped)
    gap_skipped = [r for r in order if r not in budget and rank_tables.has("kernels", devices[r])]
    run.record("dispatch_gap", advice_rules.dispatch_gaps(gaps), list(gaps),
               "" if gaps else f"needs {_needs('kernels', devices)}", gap_skipped)

    run.findings.sort(key=lambda f: (SEVERITY_ORDER[f["severity"]], f["id"]))
    answer: dict[str, Any] = {"findings": run.findings, "rules": run.rules, "ranks": sorted(devices),
                              "max_kernel_ranks": MAX_KERNEL_RANKS}
    return with_problems(answer, run.problems)
