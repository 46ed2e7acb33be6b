"""The advisor's rules, one small pure function each over rows the loaders already give (advice.py loads them).

Each rule returns a finding or None. A finding: `id`, `severity` (high / medium / low), `title`, `detail` (one
English sentence with the numbers), `ranks`, `view` (the profiler tab that shows it), `evidence` (the numbers it
rests on), `rule` (the rule in words) and `threshold`. The rules and their sources (msprof-analyze's advisor and
cluster recipes, msprof's cluster analysis) are listed in RULES and in docs/profiler.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mindinsight_clone.analyzers.profiler.views import slow_rank

Finding = dict[str, Any]
EVIDENCE_ROWS = 50  # rows of evidence answered per finding; `evidence.total` says how many there were

# Typical link bandwidths (GB/s) of msprof (CANN's profiler, analysis/common_func/ms_constant/number_constant.py,
# the chip v2 values: Atlas training series). Atlas A2 (chip v4) links are faster (HCCS 28, RDMA 25 GB/s); the text
# export does not say the chip, so the lower values are used: a link below 80 % of them is slow on either chip.
TYPICAL_GBPS = {"HCCS": 18.0, "PCIE": 20.0, "RDMA": 12.5}
BANDWIDTH_SHARE = 0.8  # msprof's BANDWIDTH_THRESHOLD: utilisation below it is a slow link
# msprof's *_MESSAGE_SIZE_THRESHOLD: what the profiler's `Large Packet Ratio` counts as large (for the record)
LARGE_PACKET_MB = {"HCCS": 32.0, "PCIE": 32.0, "RDMA": 0.5}
LARGE_PACKET_SHARE = 0.8  # msprof's LARGE_MESSAGE_RATE: fewer large packets than this: small packets are the cause
FREE_SHARE = 0.10  # msprof-analyze overall summary: free time above 10 % of the step
AICPU_MIN_US = 20.0  # msprof-analyze AicpuChecker._MIN_TASK_DURATION
GAP_US = 1000.0  # a device idle gap at least this long counts as a host dispatch gap
GAP_SHARE = 0.10  # finding when such gaps add up to more than this share of the device's busy span
GC_GAP_US = 200_000.0  # msprof-analyze conjectured GC: free periods above 200 ms with (nearly) no host work


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    view: str
    rule: str
    threshold: dict[str, Any]


RULES = {r.id: r for r in (
    Rule("slow_rank_vote", "Slow rank (collective voting)", "cluster",
         "For every collective operator, the rank whose copy is abnormally short is the one the others waited for "
         "and gets a vote: Dixon's Q test (99.5 %) up to 100 ranks, 3σ above (msprof-analyze slow_rank recipe).",
         {"dixon_confidence": 0.995, "max_dixon_ranks": slow_rank.MAX_DIXON, "sigmas": slow_rank.SIGMAS}),
    Rule("slow_rank_step", "Slow rank (step time among peers)", "cluster",
         "A rank whose step time (computing + communication not overlapped + free) exceeds the median of its peers "
         "(its pipeline stage) by more than 5 %; its slow phase is the one furthest above the peers' median.",
         {"tolerance": 0.05}),
    Rule("slow_link", "Slow link", "communication",
         "A src→dst link whose bandwidth is below 80 % of the mean bandwidth of the links of its transport type "
         "(msprof communication matrix, slowest-link rule); LOCAL copies are left out.",
         {"share_of_type_mean": BANDWIDTH_SHARE}),
    Rule("low_bandwidth", "Bandwidth far below the link's typical", "communication",
         "A rank's bandwidth on a link type (transit size / transit time over its operators) below 80 % of the "
         "type's typical bandwidth (msprof); with fewer than 80 % large packets the cause is small packets.",
         {"share_of_typical": BANDWIDTH_SHARE, "typical_gbps": TYPICAL_GBPS, "large_packet_mb": LARGE_PACKET_MB,
          "large_packet_share": LARGE_PACKET_SHARE}),
    Rule("free_time", "Free time above 10 % of the step", "overview",
         "A rank whose free time (neither computing nor communicating) is above 10 % of its step time "
         "(msprof-analyze overall summary).", {"share": FREE_SHARE}),
    Rule("aicpu", "AI CPU operators", "ops",
         "Operators running on the AI CPU, when one of them takes 20 µs or more (msprof-analyze AICPU checker).",
         {"min_task_us": AICPU_MIN_US}),
    Rule("dispatch_gap", "Long host dispatch gaps", "timeline",
         "Device idle gaps of 1 ms or more between consecutive tasks (tasks by start time, a gap is a start after "
         "the latest end so far) adding up to more than 10 % of the device's busy span; gaps above 200 ms hint at "
         "Python garbage collection (msprof-analyze's GC threshold).",
         {"gap_us": GAP_US, "share": GAP_SHARE, "gc_gap_us": GC_GAP_US}),
)}


def finding(rule_id: str, severity: str, detail: str, ranks: Iterable[int], evidence: dict[str, Any]) -> Finding:
    rule = RULES[rule_id]
    return {"id": rule.id, "severity": severity, "title": rule.title, "detail": detail,
            "ranks": sorted(set(ranks)), "view": rule.view, "evidence": evidence, "rule": rule.rule,
            "threshold": rule.threshold}


def _capped(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"rows": rows[:EVIDENCE_ROWS], "total": len(rows)}


# --- slow ranks -----------------------------------------------------------------------------------------


def slow_rank_vote(times: Iterable[slow_rank.CollectiveTime]) -> Finding | None:
    votes = slow_rank.vote(times)
    if not votes.votes:
        return None
    ranked = sorted(votes.votes.items(), key=lambda kv: (-kv[1], kv[0]))
    top_rank, top = ranked[0]
    share = top / votes.tested if votes.tested else 0.0
    severity = "high" if share >= 0.5 else "medium" if share >= 0.1 else "low"
    detail = (f"Rank {top_rank} was the one the others waited for in {top} of {votes.tested} collective "
              f"operators tested" + (f"; {len(ranked) - 1} other rank(s) also got votes." if len(ranked) > 1 else "."))
    evidence = {"votes": [{"rank_id": r, "votes": n} for r, n in ranked], "ops_tested": votes.tested,
                "ops": _capped(votes.ops), "excluded_groups": votes.excluded_groups}
    return finding("slow_rank_vote", severity, detail, [r for r, _ in ranked], evidence)


def slow_rank_step(slow: Sequence[dict[str, Any]], peers_source: str) -> Finding | None:
    """`slow` is cluster_steps.slow_ranks' answer."""
    if not slow:
        return None
    worst = max(slow, key=lambda s: s["step_deviation"])
    severity = "high" if worst["step_deviation"] >= 0.2 else "medium" if worst["step_deviation"] >= 0.1 else "low"
    detail = (f"Rank {worst['rank_id']}'s step time is {worst['step_deviation'] * 100:.1f} % above its peers' "
              f"median ({peers_source}), mostly in {worst['phase'].replace('_', ' ')}"
              + (f"; {len(slow) - 1} other rank(s) too." if len(slow) > 1 else "."))
    return finding("slow_rank_step", severity, detail, [s["rank_id"] for s in slow],
                   {"slow_ranks": list(slow), "peers": peers_source})


# --- links ------------------------------------------------------------------------------------------------


def slow_links(cells: Iterable[dict[str, Any]]) -> Finding | None:
    """`cells`: src→dst rows (`src`, `dst`, `transport`, `size_mb`, `time_ms`) of every rank's matrix, already
    reduced to one kind of operator entry (advice.py takes the `*-total` ones); repeats of a link are summed."""
    links: dict[tuple[int, int, str], list[float]] = {}
    for c in cells:
        transport = str(c.get("transport") or "")
        if transport.upper() == "LOCAL" or c["src"] == c["dst"] or not transport:
            continue
        acc = links.setdefault((c["src"], c["dst"], transport), [0.0, 0.0])
        acc[0] += c.get("size_mb") or 0.0
        acc[1] += c.get("time_ms") or 0.0
    by_type: dict[str, list[tuple[int, int, float, float, float]]] = {}
    for (src, dst, transport), (size, time) in links.items():
        if size > 0 and time > 0:
            by_type.setdefault(transport, []).append((src, dst, size / time, size, time))
    slow: list[dict[str, Any]] = []
    for transport, rows in sorted(by_type.items()):
        if len(rows) < 2:
            continue
        mean = float(np.mean([r[2] for r in rows]))
        for src, dst, gbps, size, time in rows:
            if gbps < BANDWIDTH_SHARE * mean:
                slow.append({"src": src, "dst": dst, "transport": transport, "gbps": round(gbps, 4),
                             "type_mean_gbps": round(mean, 4), "ratio": round(gbps / mean, 4),
                             "size_mb": round(size, 6), "time_ms": round(time, 6)})
    if not slow:
        return None
    slow.sort(key=lambda r: (r["ratio"], r["src"], r["dst"]))
    worst = slow[0]
    severity = "high" if worst["ratio"] < 0.5 else "medium"
    detail = (f"{len(slow)} link(s) below 80 % of their type's mean bandwidth; the slowest, {worst['src']}→"
              f"{worst['dst']} over {worst['transport']}, moves {worst['gbps']:.2f} GB/s against a mean of "
              f"{worst['type_mean_gbps']:.2f} GB/s.")
    return finding("slow_link", severity, detail, [r["src"] for r in slow] + [r["dst"] for r in slow],
                   _capped(slow))


@dataclass
class LinkTotal:
    """One rank's traffic on one link type over its operators."""

    size_mb: float = 0.0
    time_ms: float = 0.0
    packets: int = 0
    large_packets: int = 0

    def add(self, size_mb: float, time_ms: float, packets: int | None, large_ratio: float | None) -> None:
        self.size_mb += size_mb
        self.time_ms += time_ms
        if packets and large_ratio is not None:  # the profiler's Large Packet Ratio of this operator's packets
            self.packets += packets
            self.large_packets += round(packets * large_ratio)


def link_totals(ops: Iterable[dict[str, Any]]) -> dict[str, LinkTotal]:
    """Per link type with a typical bandwidth, one rank's sizes, times and packet counts. `ops` are rows of
    communication.py (`bandwidth` per link: size, time, packets and the profiler's large packet ratio)."""
    out: dict[str, LinkTotal] = {}
    for op in ops:
        for link, values in (op.get("bandwidth") or {}).items():
            if link in TYPICAL_GBPS and (values.get("size_mb") or 0) > 0:
                out.setdefault(link, LinkTotal()).add(values.get("size_mb") or 0.0, values.get("time_ms") or 0.0,
                                                      values.get("packets"), values.get("large_packet_ratio"))
    return out


def low_bandwidth(per_rank: dict[int, dict[str, LinkTotal]]) -> Finding | None:
    rows: list[dict[str, Any]] = []
    for rank, links in sorted(per_rank.items()):
        for link, total in sorted(links.items()):
            if total.size_mb <= 0 or total.time_ms <= 0:
                continue
            gbps = total.size_mb / total.time_ms
            share = gbps / TYPICAL_GBPS[link]
            if share >= BANDWIDTH_SHARE:
                continue
            large = total.large_packets / total.packets if total.packets else None
            cause = "small packets" if large is not None and large < LARGE_PACKET_SHARE else "link"
            rows.append({"rank_id": rank, "transport": link, "gbps": round(gbps, 4),
                         "typical_gbps": TYPICAL_GBPS[link], "utilization": round(share, 4),
                         "large_packet_ratio": None if large is None else round(large, 4), "cause": cause,
                         "size_mb": round(total.size_mb, 6), "time_ms": round(total.time_ms, 6)})
    if not rows:
        return None
    rows.sort(key=lambda r: (r["utilization"], r["rank_id"]))
    worst = rows[0]
    severity = "high" if worst["utilization"] < 0.5 else "medium"
    reason = ("mostly small packets: fuse or bucket small transfers" if worst["cause"] == "small packets"
              else "check the link's configuration (HCCS) or the switches (RDMA)")
    detail = (f"Rank {worst['rank_id']} moves {worst['gbps']:.2f} GB/s over {worst['transport']}, "
              f"{worst['utilization'] * 100:.0f} % of the typical {worst['typical_gbps']} GB/s ({reason}).")
    return finding("low_bandwidth", severity, detail, [r["rank_id"] for r in rows], _capped(rows))


# --- time split -------------------------------------------------------------------------------------------


def free_time(ranks: Iterable[dict[str, Any]]) -> Finding | None:
    """`ranks`: per-rank means (`rank_id`, computing_us, communication_not_overlapped_us, free_us)."""
    rows = []
    for r in ranks:
        total = sum(r.get(k) or 0.0 for k in ("computing_us", "communication_not_overlapped_us", "free_us"))
        free = r.get("free_us") or 0.0
        if total > 0 and free / total > FREE_SHARE:
            rows.append({"rank_id": r["rank_id"], "free_us": round(free, 3), "step_us": round(total, 3),
                         "share": round(free / total, 4)})
    if not rows:
        return None
    rows.sort(key=lambda r: (-r["share"], r["rank_id"]))
    worst = rows[0]
    severity = "high" if worst["share"] > 0.25 else "medium"
    detail = (f"Rank {worst['rank_id']} is free (neither computing nor communicating) {worst['share'] * 100:.1f} % "
              f"of its step time; {len(rows)} rank(s) above 10 %: look at the data loading and host-side work.")
    return finding("free_time", severity, detail, [r["rank_id"] for r in rows], _capped(rows))


# --- operators --------------------------------------------------------------------------------------------


def aicpu(per_rank: dict[int, tuple[list[dict[str, Any]], float]]) -> Finding | None:
    """`per_rank`: rank -> (AI_CPU op type rows `op_type`, `count`, `total_us`, `max_us`; the rank's total device
    compute time in µs)."""
    rows: list[dict[str, Any]] = []
    for rank, (types, compute_us) in sorted(per_rank.items()):
        if not types or max((t.get("max_us") or 0.0) for t in types) < AICPU_MIN_US:
            continue
        for t in types:
            rows.append({"rank_id": rank, "op_type": t["op_type"], "count": t["count"],
                         "total_us": round(t["total_us"], 3), "max_us": t.get("max_us"),
                         "share": round(t["total_us"] / compute_us, 4) if compute_us > 0 else None})
    if not rows:
        return None
    rows.sort(key=lambda r: (-r["total_us"], r["rank_id"], r["op_type"]))
    worst = rows[0]
    share = worst["share"] or 0.0
    severity = "high" if share > 0.1 else "medium" if share > 0.01 else "low"
    detail = (f"{len({r['op_type'] for r in rows})} operator type(s) run on the AI CPU; the largest, "
              f"{worst['op_type']} on rank {worst['rank_id']}, takes {worst['total_us']:.1f} µs "
              f"({share * 100:.1f} % of device compute time): replace it or change its data type.")
    return finding("aicpu", severity, detail, [r["rank_id"] for r in rows], _capped(rows))


def idle_gaps(starts: np.ndarray, durations: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Device idle gaps: tasks by start time, a gap is a start after the latest end so far (msprof-analyze's idle
    computation). Returns (gap lengths, gap starts, first task start, busy span = last end − first start)."""
    ok = ~(np.isnan(starts) | np.isnan(durations))
    starts, ends = starts[ok], starts[ok] + np.maximum(durations[ok], 0.0)
    if starts.size == 0:
        return np.empty(0), np.empty(0), 0.0, 0.0
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    latest = np.maximum.accumulate(e)
    gaps = s[1:] - latest[:-1]
    keep = gaps > 0
    return gaps[keep], latest[:-1][keep], float(s[0]), float(latest[-1] - s[0])


def dispatch_gaps(per_rank: dict[int, tuple[np.ndarray, np.ndarray]]) -> Finding | None:
    """`per_rank`: rank -> (kernel start µs, kernel duration µs)."""
    rows: list[dict[str, Any]] = []
    for rank, (starts, durations) in sorted(per_rank.items()):
        gaps, gap_starts, first, span = idle_gaps(starts, durations)
        long = gaps >= GAP_US
        total = float(gaps[long].sum())
        if span <= 0 or total / span <= GAP_SHARE:
            continue
        longest = int(np.argmax(gaps))
        rows.append({"rank_id": rank, "gaps": int(long.sum()), "gap_total_us": round(total, 3),
                     "span_us": round(span, 3), "share": round(total / span, 4),
                     "longest_us": round(float(gaps[longest]), 3),
                     "longest_at_us": round(float(gap_starts[longest] - first), 3)})
    if not rows:
        return None
    rows.sort(key=lambda r: (-r["share"], r["rank_id"]))
    worst = rows[0]
    severity = "high" if worst["share"] > 0.25 else "medium"
    gc = " Gaps above 200 ms may be Python garbage collection." if worst["longest_us"] >= GC_GAP_US else ""
    detail = (f"Rank {worst['rank_id']}'s device waits {worst['share'] * 100:.1f} % of its busy span in "
              f"{worst['gaps']} gap(s) of 1 ms or more (longest {worst['longest_us'] / 1000:.2f} ms at "
              f"+{worst['longest_at_us'] / 1000:.2f} ms): the host does not dispatch fast enough.{gc}")
    return finding("dispatch_gap", severity, detail, [r["rank_id"] for r in rows], _capped(rows))
