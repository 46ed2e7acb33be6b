"""Start-up of the real server, launch to every run served, for one checkout or several side by side (issue 32).

    python benchmarks/startup.py                                   # this checkout, corpus S, 9 launches
    python benchmarks/startup.py --code main=/tmp/main --code branch=. -n 15   # two checkouts, interleaved
    python benchmarks/startup.py --corpus S-tb --imports 7         # TensorBoard files; and import times
    python benchmarks/startup.py --smoke                           # tiny corpus, one launch (CI)

Each launch is what benchmarks/peers.py times as "server up" and "start -> last step served": `python -m
mindinsight_clone start` with a free port and a fresh workspace, the checkout's code on PYTHONPATH (its bytecode
written first, as `pip install` does), then
  * up: the first 200 answer of /v1/mindinsight/health (polled every 5 ms from the launch);
  * ready: every run serves its last step, probed as peers.py probes (benchmarks/readiness.py: every pending run
    at each round, 8 concurrent keep-alive probes, a pause of --interval between rounds; a run counts from the
    answer that found it complete less the probe cost measured on the loaded server);
  * start returned: when the `start` command exited (it waits for /health itself, then writes the pid file);
  * listening / worker booted / app created: from the server's own log lines (millisecond timestamps);
  * CPU: of the `start` command, and of the server (gunicorn master + worker) from launch to ready: figures
    that a busy machine disturbs much less than wall times.
Checkouts are interleaved (the order rotates each round); medians (and minima) per checkout are printed with the
machine's load, and each checkout's ratio to the first (> 1: faster than the first). `--imports N` adds the
CPU time of the worker's imports (after the master's; the data manager, then the app, with gc off as in the worker),
median of N fresh processes (`python -X importtime` shows what they are). Every server is stopped (`stop`, then by pid).
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import datetime as dt
import http.client
import json
import math
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

import common
import corpus as corpus_mod
import psutil
import readiness

DEFAULT_CACHE = Path.home() / ".cache" / "mindinsight-clone-bench"
HEALTH = "/v1/mindinsight/health"
UP_POLL_S = 0.005
LOG_STAMP = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3})")
PHASES = (("listening", "gunicorn", "Listening at:"), ("worker booted", "gunicorn", "Booting worker"),
          ("app created", "app", "app created:"))
WORKER_IMPORTS = """
import gc, json, sys, time
import gunicorn.app.wsgiapp, gunicorn.arbiter  # what the master has imported before it forks the worker
import mindinsight_clone.server.gunicorn_conf, mindinsight_clone.server.http_worker
gc.disable()
cpu0 = time.process_time()
import mindinsight_clone.store.data_manager
cpu1 = time.process_time()
import mindinsight_clone.server.app
cpu2 = time.process_time()
print(json.dumps({"data manager (store.data_manager)": 1000 * (cpu1 - cpu0), "app (server.app)": 1000 * (cpu2 - cpu1),
                  "both": 1000 * (cpu2 - cpu0), "modules imported": len(sys.modules)}))
"""


@dataclass(frozen=True)
class Code:
    label: str
    path: Path


@dataclass
class Launch:
    code: str
    load1: float
    up_s: float = math.nan
    ready_s: float = math.nan
    returned_s: float = math.nan
    phases: dict[str, float] = field(default_factory=dict)
    cli_cpu_s: float = math.nan
    server_cpu_s: float = math.nan
    note: str = ""


def parse_code(text: str) -> Code:
    label, _, path = text.rpartition("=")
    where = Path(path).expanduser().resolve()
    if not (where / "mindinsight_clone" / "__init__.py").is_file():
        raise SystemExit(f"--code {text}: no mindinsight_clone package in {where}")
    return Code(label or where.name, where)


def child_env(code: Code) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MINDINSIGHT_")}
    env["PYTHONPATH"] = str(code.path)
    return env


def ensure_corpus(name: str, smoke: bool, root: Path) -> tuple[Path, dict[str, Any]]:
    """Corpus `S` (MindSpore files) or `S-tb` (TensorBoard files) of corpus.py, generated once under `root`."""
    fmt = "tb" if name.endswith("-tb") else "ms"
    spec = corpus_mod.spec_for(name.removesuffix("-tb"), 1, smoke)
    out = root / f"{spec.name}-{fmt}"
    manifest = corpus_mod.read_manifest(out) if corpus_mod.is_current(out, spec, fmt) else None
    if manifest is None or not corpus_mod.restore(out, manifest, fmt):
        print(f"generating corpus {spec.name} ({fmt}) in {out} ...", flush=True)
        manifest = corpus_mod.generate(spec, fmt, out, quiet=True)
    return out, manifest


def health_up(port: int) -> bool:
    conn = http.client.HTTPConnection(common.LOOPBACK, port, timeout=5)
    try:
        conn.request("GET", HEALTH)
        return conn.getresponse().status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        conn.close()


def log_phases(workspace: Path, wall0: float) -> dict[str, float]:
    """Seconds from the launch of the first log line of each phase (the logs' clock is the wall clock)."""
    found: dict[str, float] = {}
    logs = {"gunicorn": sorted((workspace / "log" / "gunicorn").glob("error.*.log")),
            "app": sorted((workspace / "log").glob("app.*.log"))}
    for name, kind, text in PHASES:
        for path in logs[kind]:
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                stamp = LOG_STAMP.search(line)
                if text in line and stamp:
                    at = dt.datetime.strptime(stamp.group(1), "%Y-%m-%d %H:%M:%S").timestamp()
                    found[name] = at + int(stamp.group(2)) / 1000 - wall0
                    break
            if name in found:
                break
    return found


def server_cpu(workspace: Path, port: int) -> float:
    """CPU seconds (user + system) of the server's process tree so far (the master named by the pid file)."""
    try:
        pid = json.loads((workspace / "run" / f"mindinsight-clone.{port}.pid").read_text())["pid"]
    except (OSError, ValueError, KeyError):
        pid = common.listener_root(port)
    if pid is None:
        return math.nan
    total = 0.0
    for proc in common.process_tree(int(pid)):
        with contextlib.suppress(psutil.Error):
            times = proc.cpu_times()
            total += times.user + times.system
    return total


def stop(code: Code, port: int, workspace: Path, cli: subprocess.Popen[bytes]) -> None:
    subprocess.run([sys.executable, "-m", "mindinsight_clone", "stop", "--port", str(port), "--workspace",
                    str(workspace)], capture_output=True, timeout=60, env=child_env(code), cwd=workspace,
                   check=False)
    root = common.listener_root(port, cli.pid)  # whatever still listens on our port (a start that failed late)
    if root is not None:
        common.terminate_tree(root)
    if cli.poll() is None:
        common.terminate_tree(cli.pid)
        cli.wait(timeout=30)


def launch(code: Code, corpus: Path, manifest: dict[str, Any], work: Path, args: argparse.Namespace) -> Launch:
    m = Launch(code.label, os.getloadavg()[0])
    workspace = Path(tempfile.mkdtemp(prefix=f"{code.label}-ws-", dir=work))
    port = common.free_port()
    cmd = [sys.executable, "-m", "mindinsight_clone", "start", "--port", str(port), "--summary-base-dir",
           str(corpus), "--workspace", str(workspace)]
    children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall0, t0 = time.time(), time.monotonic()
    cli = subprocess.Popen(cmd, env=child_env(code), cwd=workspace, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = t0 + args.timeout
        while time.monotonic() < deadline:
            if cli.poll() is not None and math.isnan(m.returned_s):
                m.returned_s = time.monotonic() - t0
                if cli.returncode != 0:
                    m.note = f"start exited {cli.returncode}"
                    break
            if health_up(port):
                m.up_s = time.monotonic() - t0
                break
            time.sleep(UP_POLL_S)
        if math.isnan(m.up_s):
            m.note = m.note or "no answer"
            return m
        tag = manifest["probe_tag"] if corpus.name.endswith("-ms") else f"{manifest['probe_tag']}/scalar"
        base = f"http://{common.LOOPBACK}:{port}"
        runs = list(manifest["runs"])

        def path_of(run: str) -> str:
            return f"/v1/mindinsight/datavisual/scalar/metadata?train_id=./{run}&tag={tag}"

        ready = readiness.wait_ready(base, runs, path_of, readiness.checked(readiness.step_after_key, _last_step),
                                     int(manifest["last_step"]), t0, deadline, interval=args.interval)
        m.server_cpu_s = server_cpu(workspace, port)
        if ready.complete:
            cost = readiness.overhead(base, runs, path_of, readiness.step_after_key, 2)
            ready.probe_cost_s = cost.probe_p50_ms / 1000
            m.ready_s = ready.fraction_s(1.0)
        else:
            m.note = f"{len(ready.answered_s)} of {len(runs)} runs served"
        cli.wait(timeout=max(1.0, deadline - time.monotonic()))
        if math.isnan(m.returned_s):
            m.returned_s = time.monotonic() - t0  # exited between two polls after the server was up
        m.cli_cpu_s = _children_cpu(children0)
        m.phases = log_phases(workspace, wall0)
        return m
    finally:
        stop(code, port, workspace, cli)
        shutil.rmtree(workspace, ignore_errors=True)


def _last_step(body: Any) -> int | None:
    try:
        return int(body["metadatas"][-1]["step"])
    except (TypeError, KeyError, IndexError, ValueError):
        return None


def _children_cpu(before: resource.struct_rusage) -> float:
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def import_times(code: Code, reps: int) -> dict[str, float]:
    """Median over `reps` fresh processes of the CPU time (ms) of the worker's imports, after what the gunicorn master
    imports (the worker inherits it), in the worker's order and with its collector off: the data manager, then the app
    (CPU time: a busy machine disturbs it much less than `-X importtime`'s wall clock)."""
    env = child_env(code)
    found: dict[str, list[float]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="startup-imports-") as workspace:
        env["MINDINSIGHT_WORKSPACE"] = workspace  # gunicorn_conf makes its log dir there
        for _ in range(reps):
            out = subprocess.run([sys.executable, "-c", WORKER_IMPORTS], env=env, cwd=workspace, capture_output=True,
                                 text=True, timeout=120, check=True).stdout
            for name, ms in json.loads(out.strip().splitlines()[-1]).items():
                found[name].append(ms)
    return {name: med(values) for name, values in found.items()}


def med(values: list[float]) -> float:
    return common.median(values)


def table(codes: list[Code], results: list[Launch]) -> str:
    rows = [("server up (s)", lambda m: m.up_s), ("every run served (s)", lambda m: m.ready_s),
            ("`start` returned (s)", lambda m: m.returned_s)]
    rows += [(f"{name} (s, log)", lambda m, n=name: m.phases.get(n, math.nan)) for name, _, _ in PHASES]
    rows += [("CPU of `start` (s)", lambda m: m.cli_cpu_s), ("CPU of the server to ready (s)", lambda m: m.server_cpu_s)]
    by_code = {c.label: [m for m in results if m.code == c.label] for c in codes}
    head = "| median (min) | " + " | ".join(c.label for c in codes)
    head += "".join(f" | {c.label} vs {codes[0].label}" for c in codes[1:]) + " |"
    lines = [head, "|---" * (1 + len(codes) + len(codes) - 1) + "|"]
    for label, get in rows:
        meds = [med([get(m) for m in by_code[c.label]]) for c in codes]
        mins = [min((get(m) for m in by_code[c.label] if not math.isnan(get(m))), default=math.nan) for c in codes]
        cells = [f"{common.fmt(a, 3)} ({common.fmt(b, 3)})" for a, b in zip(meds, mins, strict=True)]
        cells += [f"{meds[0] / x:.2f}×" if x and not math.isnan(x) and not math.isnan(meds[0]) else "–"
                  for x in meds[1:]]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    loads = [m.load1 for m in results]
    lines.append(f"\n{len(results) // len(codes)} launches per checkout; 1-min load average during the launches: "
                 f"{min(loads):.2f}–{max(loads):.2f} (median {med(loads):.2f})")
    failed = [f"{m.code}: {m.note}" for m in results if m.note]
    if failed:
        lines.append("not complete: " + "; ".join(failed))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", action="append", type=parse_code, metavar="[LABEL=]DIR",
                        help="a checkout to measure (repeat for several; default: this one)")
    parser.add_argument("--corpus", default="S", help="S or S-tb (corpus.py's kinds; default %(default)s)")
    parser.add_argument("-n", "--launches", type=int, default=9, help="launches per checkout (default %(default)s)")
    parser.add_argument("--interval", type=float, default=0.02,
                        help="pause between readiness rounds, s (peers.py: 0.05; default %(default)s)")
    parser.add_argument("--timeout", type=float, default=120.0, help="per launch, s (default %(default)s)")
    parser.add_argument("--imports", type=int, default=0, metavar="N",
                        help="also the worker's import times, min over N processes per checkout")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="corpora live in CACHE/corpora")
    parser.add_argument("--smoke", action="store_true", help="tiny corpus, one launch (what CI runs)")
    args = parser.parse_args(argv)
    codes: list[Code] = args.code or [Code("this", common.REPO)]
    if len({c.label for c in codes}) != len(codes):
        raise SystemExit("--code labels must differ")
    reps = 1 if args.smoke else args.launches
    print(f"machine: {json.dumps(common.machine_info())}")
    print(f"uptime: {common.uptime()}")
    for code in codes:
        ok = compileall.compile_dir(str(code.path / "mindinsight_clone"), quiet=1, workers=1)
        print(f"{code.label}: {code.path} (bytecode {'written' if ok else 'FAILED for some files'})")
    corpus, manifest = ensure_corpus(args.corpus, args.smoke, args.cache / "corpora")
    print(f"corpus {args.corpus}: {corpus} ({len(manifest['runs'])} runs, last step {manifest['last_step']})")
    results: list[Launch] = []
    with tempfile.TemporaryDirectory(prefix="startup-bench-") as tmp:
        for rep in range(reps):
            order = codes[rep % len(codes):] + codes[:rep % len(codes)]
            for code in order:
                m = launch(code, corpus, manifest, Path(tmp), args)
                results.append(m)
                print(f"  round {rep + 1} {code.label}: up {common.fmt(m.up_s, 3)} s, ready {common.fmt(m.ready_s, 3)}"
                      f" s, start returned {common.fmt(m.returned_s, 3)} s, server CPU {common.fmt(m.server_cpu_s, 3)}"
                      f" s (load {m.load1:.2f}){' ' + m.note if m.note else ''}", flush=True)
    print()
    print(table(codes, results))
    if args.imports:
        print(f"\nthe worker's imports, CPU ms (gc off, as in the worker), median of {args.imports} processes:")
        found = {c.label: import_times(c, args.imports) for c in codes}
        print("| import | " + " | ".join(c.label for c in codes) + " |")
        print("|---" * (1 + len(codes)) + "|")
        for name in found[codes[0].label]:
            print(f"| {name} | " + " | ".join(common.fmt(found[c.label].get(name, math.nan), 1) for c in codes) + " |")
    print(f"\nuptime: {common.uptime()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
