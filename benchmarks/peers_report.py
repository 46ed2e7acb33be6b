"""Tables of `peers.py`: medians and ratios per corpus, each repetition's raw figures, the headline summary, and
RESULTS.md. Works on any objects with the attributes of `peers.Measurement` / `peers.Tool` / `peers.Bench`
(no import of peers.py, which imports this)."""

from __future__ import annotations

import datetime as dt
import math
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import common

# (attribute, label, digits, higher_is_better)
METRICS: list[tuple[str, str, int, bool]] = [
    ("start_to_served_s", "start → last step served (s)", 2, False),
    ("first_answer_s", "  first answer with data (s)", 2, False),
    ("ready50_s", "  50 % of the runs served (s)", 2, False),
    ("ready90_s", "  90 % of the runs served (s)", 2, False),
    ("up_s", "  server up (s)", 2, False),
    ("probe_round_s", "  probe round, loaded server (s)", 3, False),
    ("ingest_values_s", "  scalar values / s (that time)", 0, True),
    ("ingest_mb_s", "  MB/s of its own files (TB's are larger)", 1, True),
    ("peak_pss_mb", "peak PSS, process tree (MB)", 0, False),
    ("peak_pss_ingest_mb", "  peak PSS until loaded (MB)", 0, False),
    ("pss_loaded_mb", "  PSS when loaded (MB)", 0, False),
    ("peak_rss_mb", "peak RSS, process tree (MB)", 0, False),
    ("req_s", "scalars req/s, 8 threads", 0, True),
    ("p50_ms", "  p50 (ms)", 1, False),
    ("p95_ms", "  p95 (ms)", 1, False),
    ("p99_ms", "  p99 (ms)", 1, False),
    ("errors", "  errors", 0, False),
    ("visible_s", "flushed step visible (s)", 2, False),
]

# The numbers for corpus S: (MindInsight, TensorBoard, target)
TARGETS_S: dict[str, tuple[str, str, str]] = {
    "start_to_served_s": ("107", "1.9", "≤ 1.9"),
    "peak_pss_mb": ("218", "115", "≤ 110"),
    "req_s": ("97", "87", "≥ 500"),
    "p95_ms": ("", "", "≤ 20"),
    "visible_s": ("2.4", "4.2", "≤ 0.5"),
}


def target_met(attr: str, value: float) -> str:
    if attr not in TARGETS_S or math.isnan(value):
        return ""
    target = TARGETS_S[attr][2]
    bound = float(target.split()[-1])
    ok = value <= bound if target.startswith("≤") else value >= bound
    return "yes" if ok else "no"


def medians(results: Sequence[Any], tool: str) -> dict[str, float]:
    mine = [r for r in results if r.tool == tool]
    return {attr: common.median(float(getattr(r, attr)) for r in mine) for attr, *_ in METRICS}


def ratio_value(ours: float, peer: float, higher_is_better: bool) -> float:
    if math.isnan(ours) or math.isnan(peer) or ours == 0 or peer == 0:
        return math.nan
    return ours / peer if higher_is_better else peer / ours


def ratio(ours: float, peer: float, higher_is_better: bool) -> str:
    value = ratio_value(ours, peer, higher_is_better)
    return "–" if math.isnan(value) else f"{value:.2f}×"


def table(results: Sequence[Any], tools: Sequence[Any], targets: bool) -> list[str]:
    keys = [t.key for t in tools]
    meds = {k: medians(results, k) for k in keys}
    peers = [t for t in tools if t.key != "ours"]
    head = ["metric", *[t.label for t in tools], *[f"vs {t.label.split()[0]}" for t in peers]]
    if targets:
        head += ["issue: MI / TB", "target", "met"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for attr, label, digits, hib in METRICS:
        if attr == "errors":
            row = [label, *[str(int(sum(r.errors for r in results if r.tool == k))) for k in keys]]
            row += ["" for _ in peers]
        else:
            row = [label, *[common.fmt(meds[k][attr], digits) for k in keys]]
            row += [ratio(meds["ours"][attr], meds[p.key][attr], hib) if "ours" in meds else "–" for p in peers]
        if targets:
            mi, tb, target = TARGETS_S.get(attr, ("", "", ""))
            row += [f"{mi} / {tb}" if mi or tb else "", target,
                    target_met(attr, meds.get("ours", {}).get(attr, math.nan)) if target else ""]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def raw_lines(results: Sequence[Any]) -> list[str]:
    lines = ["| tool | rep | up (s) | first answer / 50 % / 90 % / 100 % served (s) | 100 % answered (s) "
             "| rounds, harness CPU (s) | probe round loaded (s), p50 (ms) "
             "| PSS peak / until loaded / loaded (MB) | RSS peak / loaded (MB) "
             "| procs | req/s | p95 (ms) | visible (s, each append) | load avg | note |", "|" + "---|" * 15]
    for r in results:
        vis = ", ".join(common.fmt(v, 2) for v in r.visible_all)
        curve = " / ".join(common.fmt(v, 2) for v in (r.first_answer_s, r.ready50_s, r.ready90_s,
                                                       r.start_to_served_s))
        lines.append(f"| {r.tool} | {r.rep} | {common.fmt(r.up_s, 2)} | {curve} | {common.fmt(r.answered_s, 2)} | "
                     f"{r.probe_rounds}, {common.fmt(r.harness_cpu_s, 2)} | "
                     f"{common.fmt(r.probe_round_s, 3)}, {common.fmt(r.probe_p50_ms, 1)} | "
                     f"{common.fmt(r.peak_pss_mb, 0)} / {common.fmt(r.peak_pss_ingest_mb, 0)} / "
                     f"{common.fmt(r.pss_loaded_mb, 0)} | "
                     f"{common.fmt(r.peak_rss_mb, 0)} / {common.fmt(r.rss_loaded_mb, 0)} | {r.procs} | "
                     f"{common.fmt(r.req_s, 0)} | {common.fmt(r.p95_ms, 1)} | {vis} | {common.fmt(r.load1, 1)} | "
                     f"{r.note} |")
    return lines


def describe(manifest: dict[str, Any]) -> str:
    spec = manifest["spec"]
    text = f"{spec['runs']} runs × {spec['steps']:,} steps × {spec['scalars']} scalar tags"
    if str(spec.get("run_format", "")).startswith("rank"):
        text += " (`rank_N/` of one job)"
    if spec["histograms"]:
        text += (f", every {spec['every']} steps {spec['histograms']} histograms of {spec['hist_values']:,} values"
                 f" and {spec['images']} {spec['image_size']}×{spec['image_size']} RGB image")
    return text


def summary(benches: Sequence[Any], reps: int) -> list[str]:
    """One line per (corpus, peer): the figures issue 21 asks for, medians of the repetitions."""
    lines = [f"Summary (medians of {reps}; ratio = peer ÷ ours, above 1: ours is better; readiness probed for "
             "every run in parallel):", "",
             "| corpus | peer | ours: first answer / 50 % / 90 % / 100 % served (s) | peer: the same (s) | ratio "
             "(100 %) | ours peak PSS (MB) | peer peak PSS (MB) | PSS ratio | probe round ours / peer (s) |",
             "|" + "---|" * 9]
    for bench in benches:
        ours = medians(bench.results, "ours")
        for tool in bench.tools:
            if tool.key == "ours":
                continue
            peer = medians(bench.results, tool.key)

            def curve(m: dict[str, float]) -> str:
                return " / ".join(common.fmt(m[a], 2) for a in ("first_answer_s", "ready50_s", "ready90_s",
                                                                 "start_to_served_s"))

            lines.append(f"| {bench.name} | {tool.label} | {curve(ours)} | {curve(peer)} | "
                         f"{ratio(ours['start_to_served_s'], peer['start_to_served_s'], False)} | "
                         f"{common.fmt(ours['peak_pss_mb'], 0)} | {common.fmt(peer['peak_pss_mb'], 0)} | "
                         f"{ratio(ours['peak_pss_mb'], peer['peak_pss_mb'], False)} | "
                         f"{common.fmt(ours['probe_round_s'], 3)} / {common.fmt(peer['probe_round_s'], 3)} |")
    return lines


def versions(tools: Sequence[Any], peer_python: Callable[[Any], Path | None]) -> str:
    from mindinsight_clone import __version__

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False,
                            cwd=common.REPO, timeout=10).stdout.strip()
    out = [f"ours {__version__} (git {commit or '?'}, plus the working tree)"]
    seen: set[str] = set()
    for tool in tools:
        python = peer_python(tool)
        if python is None or tool.key in seen:
            continue
        seen.add(tool.key)
        pkgs = "mindinsight numpy pandas marshmallow protobuf" if tool.key == "mindinsight" else \
            "tensorboard tensorboard-data-server tensorboardX"
        code = ("import importlib.metadata as m, sys; print(', '.join(f'{p} {m.version(p)}' "
                "for p in sys.argv[1:]))")
        res = subprocess.run([str(python), "-c", code, *pkgs.split()], capture_output=True,
                             text=True, check=False, timeout=60)
        out.append(res.stdout.strip() or tool.label)
    return "; ".join(out)


def write_results(path: Path, summary_lines: list[str], sections: list[str], tools: Sequence[Any],
                  peer_python: Callable[[Any], Path | None], started: dt.datetime, load_before: str,
                  load_after: str, opts: Any, argv: list[str] | None) -> None:
    info = common.machine_info()
    info["load average (1, 5, 15 min)"] = f"before {load_before}; after {load_after} (per session: last column below)"
    info["versions"] = versions(tools, peer_python)
    cmd = "python benchmarks/peers.py " + " ".join(argv if argv is not None else sys.argv[1:])
    body = [
        "# Benchmark results: ours vs MindInsight 2.3.1 vs TensorBoard 2.21",
        "",
        f"This file: `{cmd.strip()}` (see benchmarks/README.md for the command of each figure).",
        f"Date: {started:%Y-%m-%d %H:%M %Z}. Tools: {', '.join(t.label for t in tools)}, each with its default",
        "settings, on the same corpus (the TensorBoard copy with the same values: tensorboardX's bytes), "
        "interleaved (repetitions outermost, then corpora, then tools in a rotating order).",
        "",
        "| machine | |",
        "|---|---|",
        *[f"| {k} | {v} |" for k, v in info.items()],
        "",
        "The machine is shared: a load average near or above the core count means the figures are "
        "pessimistic for every tool alike.",
        "",
        "How each figure is taken (see `benchmarks/README.md`): *start → last step served* runs from launching the "
        "server until the scalar API of every run answers its last step, probed for every run in parallel at each "
        f"poll ({opts.probe_threads} concurrent probes, the same for every tool); a run counts from the answer of the "
        "probe that found it complete, less the median probe latency measured against the loaded server (the "
        "harness's own cost of a probe; never earlier than the probe was sent); the *probe round* is one round over "
        "every run against the loaded server (the resolution of those figures); "
        "*PSS/RSS* are summed over the server's whole process tree, sampled every 0.2 s; *req/s* is 8 keep-alive "
        f"client threads for {opts.load_seconds:.0f} s over every (run, scalar tag), 1,000 points per answer; "
        "*visible* is the time from appending (and flushing) one step to a live file until the API serves it, "
        f"median of {opts.appends}. Ratios are peer ÷ ours for times and memory and ours ÷ peer for throughput: "
        "above 1 means ours is better.",
        "",
        "Until issue 21 the harness asked the runs one after another and stopped at the first incomplete one, so "
        "with many runs it timed a tool's per-request latency times the number of runs, not its loading: this "
        "file said W (1,000 runs) was served 8.10x faster than TensorBoard when, probed in parallel, it was 0.59x. "
        "Figures taken before that fix (earlier versions of this file) are not comparable with these.",
        "",
        *summary_lines,
        "",
        *sections,
    ]
    path.write_text("\n".join(body) + "\n", encoding="utf-8")
