"""Ours vs MindInsight 2.3.1 vs TensorBoard 2.21, on the same corpus, in the same run, interleaved.

    python benchmarks/peers.py --setup-only           # create the peers' venvs (once; needs PyPI)
    python benchmarks/peers.py --corpus S,L,W,S-tb --peers tensorboard -n 5 --write-results   # issue 21
    python benchmarks/peers.py                        # corpora S and M, median of 3, all installed peers
    python benchmarks/peers.py --smoke --peers none   # tiny, ours only (what CI runs)

Per tool and repetition (repetitions outermost, then the corpora, then the tools in an order that rotates):
  * start -> every run served: from launching the server until the scalar API answers every run's last
    step, probed for all runs in parallel at each poll (benchmarks/readiness.py: a bounded pool of
    concurrent probes, the same for every tool; a run counts from the answer of the probe that found it
    complete, less the harness's cost of a probe measured against the loaded server). Also the first answer
    with data, when 50 % / 90 % of the runs were served, and the probe overhead: a full round over every run
    against the loaded server (the figures' resolution).
  * peak PSS and RSS of the server's whole process tree (psutil, sampled every 0.2 s over the session).
  * scalars req/s and p50/p95/p99 latency with 8 client threads on loopback (bounded in time and count).
  * flushed step visible: append one record to a live event file, poll the API until it is served.
Corpus `S-tb` is corpus S as TensorBoard event files, read by ours and by TensorBoard alike.
Medians over the repetitions are printed with ratios against each peer (ratio > 1: ours is better).

The peers live in venvs of their own under --cache (default ~/.cache/mindinsight-clone-bench); nothing
is installed unless --setup is given. Everything runs on 127.0.0.1 and every wait is bounded.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
import corpus as corpus_mod
import peers_report as report
import readiness

DEFAULT_CACHE = Path.home() / ".cache" / "mindinsight-clone-bench"
RESULTS = common.BENCH_DIR / "RESULTS.md"


# --- peer venvs ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PeerEnv:
    name: str
    folder: str
    packages: tuple[str, ...]
    entry: str  # console script that proves the venv is usable

    def path(self, cache: Path) -> Path:
        return cache / self.folder

    def python(self, cache: Path) -> Path:
        return self.path(cache) / "bin" / "python"

    def exe(self, cache: Path) -> Path:
        return self.path(cache) / "bin" / self.entry

    def installed(self, cache: Path) -> bool:
        return self.exe(cache).exists() and self.python(cache).exists()


PEER_ENVS: dict[str, PeerEnv] = {
    # pins from ../shared/reference/mindinsight/COMPAT.md: NumPy 2, pandas 2 and marshmallow 4 break it
    "mindinsight": PeerEnv("MindInsight 2.3.1", "mindinsight-2.3.1",
                           ("mindinsight==2.3.1", "numpy<2", "pandas<2", "marshmallow<4"), "mindinsight"),
    # the Rust data server (--load_fast=true) comes as tensorboard-data-server; tensorboardX writes the corpus
    # (with the crc32c package it uses the native CRC: without it, writing corpus L takes an hour)
    "tensorboard": PeerEnv("TensorBoard 2.21", "tensorboard-2.21",
                           ("tensorboard==2.21.*", "tensorboard-data-server", "tensorboardX", "pillow", "crc32c"),
                           "tensorboard"),
}


def base_python() -> str:
    return getattr(sys, "_base_executable", None) or shutil.which("python3") or sys.executable


def setup_peer(env: PeerEnv, cache: Path) -> None:
    """Create the venv and pip-install the peer into it (idempotent)."""
    target = env.path(cache)
    if env.installed(cache):
        print(f"{env.name}: already set up in {target}")
        return
    cache.mkdir(parents=True, exist_ok=True)
    print(f"{env.name}: creating {target} and installing {' '.join(env.packages)}", flush=True)
    subprocess.run([base_python(), "-m", "venv", str(target)], check=True, timeout=600)
    subprocess.run([str(env.python(cache)), "-m", "pip", "install", "-q", *env.packages], check=True, timeout=1800)
    if not env.installed(cache):
        raise SystemExit(f"{env.name}: {env.exe(cache)} missing after install")


# --- the three servers ---------------------------------------------------------------------------


class Tool(ABC):
    key = ""
    label = ""
    fmt = "ms"  # corpus format it reads
    value_field = 3  # Summary.Value float field: MindSpore scalar_value=3, TensorFlow simple_value=2

    def __init__(self, cache: Path, log_dir: Path) -> None:
        self.cache = cache
        self.log_dir = log_dir
        self.port = 0
        self.base = ""
        self.proc: subprocess.Popen[bytes] | None = None
        self._root: int | None = None

    def api_tag(self, tag: str) -> str:
        return f"{tag}/scalar" if self.fmt == "ms" else tag

    @abstractmethod
    def command(self, base_dir: Path, workspace: Path) -> list[str]: ...

    def launch(self, base_dir: Path, workspace: Path) -> None:
        self.port = common.free_port()
        self.base = f"http://{common.LOOPBACK}:{self.port}"
        self._root = None
        log = (self.log_dir / f"{self.key}.{self.port}.log").open("ab")
        self.proc = subprocess.Popen(self.command(base_dir, workspace), stdin=subprocess.DEVNULL, stdout=log,
                                     stderr=subprocess.STDOUT, env=self.environment(), cwd=str(workspace))
        log.close()

    def environment(self) -> dict[str, str]:
        return {k: v for k, v in os.environ.items() if not k.startswith("MINDINSIGHT_")}

    def root_pid(self) -> int | None:
        """The server's root process (followed from launch: the listener's topmost process)."""
        if self._root is not None and common.is_running(self._root):
            return self._root
        launcher = self.proc.pid if self.proc is not None else None
        self._root = common.listener_root(self.port, launcher) if self.port else None
        return self._root

    def up(self) -> bool:
        return common.http_request(self.base, self.health_path(), timeout=2)[0] == 200

    @abstractmethod
    def health_path(self) -> str: ...

    def prepare(self, runs: list[str]) -> bool:
        """Ask the server to load `runs` when it needs asking; True once done."""
        return True

    @abstractmethod
    def scalar_path(self, run: str, api_tag: str) -> str: ...

    @abstractmethod
    def last_step(self, body: Any) -> int | None: ...

    def probe_step(self, data: bytes) -> int | None:
        """`last_step` of a raw answer, without parsing all of it (what the readiness probes use)."""
        return readiness.checked(readiness.step_after_key, self.last_step)(data)

    def served_step(self, run: str, api_tag: str) -> int | None:
        return self.last_step(common.get_json(self.base, self.scalar_path(run, api_tag), timeout=30))

    def stop(self) -> None:
        for _ in range(3):  # the server we launched on our free port, until nothing listens there
            root = self.root_pid()
            if root is None:
                break
            common.terminate_tree(root)
            self._root = None
        if self.proc is not None:
            if self.proc.poll() is None:
                common.terminate_tree(self.proc.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=10)
        self.proc = None
        self._root = None


class MindInsightAPI(Tool):
    """Shared by ours and MindInsight: same API."""

    def health_path(self) -> str:
        return "/v1/mindinsight/datavisual/train-jobs?limit=1"

    def prepare(self, runs: list[str]) -> bool:
        listing = common.get_json(self.base, "/v1/mindinsight/datavisual/train-jobs?limit=1")
        if not listing or int(listing.get("total", 0)) < len(runs):
            return False
        status, _ = common.http_request(self.base, "/v1/mindinsight/datavisual/train-job-caches", "POST",
                                        {"train_ids": [f"./{r}" for r in runs]})
        return status == 200

    def scalar_path(self, run: str, api_tag: str) -> str:
        return f"/v1/mindinsight/datavisual/scalar/metadata?train_id=./{run}&tag={api_tag}"

    def last_step(self, body: Any) -> int | None:
        try:
            return int(body["metadatas"][-1]["step"])
        except (TypeError, KeyError, IndexError, ValueError):
            return None


# extra flags of ours per corpus (none: every corpus, W's 1,000 runs too, runs with the defaults)
OURS_CORPUS_ARGS: dict[str, list[str]] = {}


class Ours(MindInsightAPI):
    key, label = "ours", "ours"

    def __init__(self, cache: Path, log_dir: Path, extra_args: list[str] | None = None) -> None:
        super().__init__(cache, log_dir)
        self.extra = extra_args or []
        self.per_corpus: list[str] = []
        self.workspace: Path | None = None

    def command(self, base_dir: Path, workspace: Path) -> list[str]:
        self.workspace = workspace
        return [sys.executable, "-m", "mindinsight_clone", "start", "--port", str(self.port), "--summary-base-dir",
                str(base_dir), "--workspace", str(workspace), *self.per_corpus, *self.extra]

    def health_path(self) -> str:
        return "/v1/mindinsight/health"

    def stop(self) -> None:
        if self.workspace is not None and self.port:
            subprocess.run([sys.executable, "-m", "mindinsight_clone", "stop", "--port", str(self.port),
                            "--workspace", str(self.workspace)], capture_output=True, timeout=60,
                           env=self.environment(), check=False)
        super().stop()


class OursTfevents(Ours):
    """Our server on the TensorBoard-format copy of a corpus: tags are asked MindInsight's way, `<tag>/scalar`."""

    key, label, fmt, value_field = "ours", "ours (tfevents)", "tb", 2

    def scalar_path(self, run: str, api_tag: str) -> str:
        return super().scalar_path(run, f"{api_tag}/scalar")


class MindInsight(MindInsightAPI):
    key, label = "mindinsight", "MindInsight 2.3.1"

    def environment(self) -> dict[str, str]:
        env = super().environment()  # `mindinsight start` runs `gunicorn` from PATH: put its venv first
        env["PATH"] = f"{PEER_ENVS['mindinsight'].exe(self.cache).parent}{os.pathsep}{env.get('PATH', '')}"
        return env

    def command(self, base_dir: Path, workspace: Path) -> list[str]:
        exe = PEER_ENVS["mindinsight"].exe(self.cache)
        return [str(exe), "start", "--port", str(self.port), "--summary-base-dir", str(base_dir),
                "--workspace", str(workspace)]


class TensorBoard(Tool):
    key, label, fmt, value_field = "tensorboard", "TensorBoard 2.21", "tb", 2

    def command(self, base_dir: Path, workspace: Path) -> list[str]:
        exe = PEER_ENVS["tensorboard"].exe(self.cache)
        return [str(exe), "--logdir", str(base_dir), "--port", str(self.port), "--host", common.LOOPBACK,
                "--load_fast=true"]

    def root_pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def health_path(self) -> str:
        return "/data/runs"

    def scalar_path(self, run: str, api_tag: str) -> str:
        return f"/data/plugin/scalars/scalars?run={run}&tag={api_tag}"

    def last_step(self, body: Any) -> int | None:
        try:
            return int(body[-1][1])
        except (TypeError, KeyError, IndexError, ValueError):
            return None

    def probe_step(self, data: bytes) -> int | None:
        return readiness.checked(readiness.step_of_last_row, self.last_step)(data)


# --- one measurement --------------------------------------------------------------------------------


@dataclass
class Options:
    reps: int = 3
    timeout: float = 900.0  # per load wait
    load_seconds: float = 10.0
    load_max_requests: int = 100_000
    load_threads: int = 8
    appends: int = 5
    append_timeout: float = 30.0
    probe_threads: int = readiness.PROBE_THREADS
    overhead_rounds: int = 3


@dataclass
class Measurement:
    tool: str
    rep: int
    start_to_served_s: float = math.nan  # every run served (100 %): answers less the probe cost
    up_s: float = math.nan
    first_answer_s: float = math.nan
    ready50_s: float = math.nan
    ready90_s: float = math.nan
    answered_s: float = math.nan  # 100 % by answer times (with the harness's cost of a probe)
    probe_rounds: int = 0
    probe_round_s: float = math.nan  # a full round against the loaded server (the figures' resolution)
    probe_p50_ms: float = math.nan
    harness_cpu_s: float = math.nan  # the harness's CPU while it waited for the load
    ingest_mb_s: float = math.nan
    ingest_values_s: float = math.nan
    peak_pss_mb: float = math.nan
    peak_rss_mb: float = math.nan
    pss_loaded_mb: float = math.nan
    peak_pss_ingest_mb: float = math.nan
    rss_loaded_mb: float = math.nan
    req_s: float = math.nan
    p50_ms: float = math.nan
    p95_ms: float = math.nan
    p99_ms: float = math.nan
    requests: int = 0
    errors: int = 0
    visible_s: float = math.nan
    visible_all: list[float] = field(default_factory=list)
    procs: int = 0
    load1: float = math.nan  # 1-minute load average when the session started
    note: str = ""


def wait_served(tool: Tool, manifest: dict[str, Any], t0: float, opts: Options) -> readiness.Readiness:
    """Every run's readiness, probed in parallel (benchmarks/readiness.py) until all serve their last step."""
    runs: list[str] = list(manifest["runs"])
    tag = manifest["probe_tag"]
    return readiness.wait_ready(tool.base, runs, lambda run: tool.scalar_path(run, tag), tool.probe_step,
                                int(manifest["last_step"]), t0, t0 + opts.timeout, lambda: tool.prepare(runs),
                                threads=opts.probe_threads)


def measure_visible(tool: Tool, corpus_dir: Path, manifest: dict[str, Any], opts: Options) -> list[float]:
    """Append one scalar step at a time to a live file; seconds until the API serves it."""
    run = manifest["runs"][0]
    live = corpus_mod.live_file(corpus_dir / run, tool.fmt)
    first_tag = manifest["scalar_tags"][0].split("/")[0]
    api_tag = tool.api_tag(first_tag)
    last = int(manifest["last_step"])
    out: list[float] = []
    for i in range(opts.appends):
        step = last + 1 + i
        payload = common.scalar_event(step, time.time(), first_tag, 0.5, tool.value_field)
        common.append_record(live, payload)
        t_written = time.monotonic()
        deadline = t_written + opts.append_timeout
        seen = math.nan
        while time.monotonic() < deadline:
            got = tool.served_step(run, api_tag)
            if got is not None and got >= step:
                seen = time.monotonic() - t_written
                break
            time.sleep(0.01)
        out.append(seen)
        time.sleep(0.3)  # let the server settle between appends
    return out


def measure(tool: Tool, corpus_dir: Path, manifest: dict[str, Any], opts: Options, rep: int,
            work: Path) -> Measurement:
    m = Measurement(tool=tool.key, rep=rep, load1=os.getloadavg()[0])
    workspace = Path(tempfile.mkdtemp(prefix=f"{tool.key}-ws-", dir=work))
    sampler = common.TreeSampler(tool.root_pid, interval=0.2, max_seconds=opts.timeout + 600)
    t0 = time.monotonic()
    try:
        tool.launch(corpus_dir, workspace)
        with sampler:
            if not common.wait_for(tool.up, timeout=min(opts.timeout, 180), interval=0.05):
                m.note = "server did not come up"
                return m
            m.up_s = time.monotonic() - t0
            ready = wait_served(tool, manifest, t0, opts)
            sampler.sample()
            m.pss_loaded_mb, m.rss_loaded_mb = sampler.last_pss / 1e6, sampler.last_rss / 1e6
            m.peak_pss_ingest_mb = sampler.peak_pss / 1e6
            m.probe_rounds, m.harness_cpu_s = ready.rounds, ready.harness_cpu_s
            if not ready.complete:
                m.note = f"{len(ready.answered_s)} of {ready.runs} runs served within {opts.timeout:.0f} s"
            else:  # the harness's cost of a probe, measured on the loaded server, is kept out of the figures
                tag = manifest["probe_tag"]
                cost = readiness.overhead(tool.base, manifest["runs"], lambda run: tool.scalar_path(run, tag),
                                          tool.probe_step, opts.overhead_rounds, opts.probe_threads)
                m.probe_round_s, m.probe_p50_ms = cost.round_s, cost.probe_p50_ms
                ready.probe_cost_s = cost.probe_p50_ms / 1000
                m.start_to_served_s = ready.fraction_s(1.0)
                m.answered_s = max(ready.answered_s.values())
                m.ingest_mb_s = manifest["bytes"] / 1e6 / m.start_to_served_s
                m.ingest_values_s = manifest["scalar_values"] / m.start_to_served_s
            m.first_answer_s, m.ready50_s, m.ready90_s = (ready.first_answer_s, ready.fraction_s(0.5),
                                                          ready.fraction_s(0.9))
            tags = manifest["scalar_tags"]
            paths = [tool.scalar_path(r, t) for r in manifest["runs"] for t in tags]
            stats = common.run_load(tool.base, paths, opts.load_threads, opts.load_seconds, opts.load_max_requests)
            m.req_s, m.requests, m.errors = stats.req_per_s, stats.requests, stats.errors
            m.p50_ms, m.p95_ms, m.p99_ms = stats.pct_ms(50), stats.pct_ms(95), stats.pct_ms(99)
            if not math.isnan(m.start_to_served_s):
                m.visible_all = measure_visible(tool, corpus_dir, manifest, opts)
                m.visible_s = common.median(m.visible_all)
            sampler.sample()
        m.peak_pss_mb, m.peak_rss_mb, m.procs = sampler.peak_pss / 1e6, sampler.peak_rss / 1e6, sampler.max_procs
    finally:
        tool.stop()
        # undo the appends so every repetition reads the same corpus (cut back to the generated size: never a
        # truncate that extends the file with zeros, as one to a size taken before a concurrent run's cut did)
        if not corpus_mod.restore(corpus_dir, manifest, tool.fmt):
            raise SystemExit(f"corpus {corpus_dir} changed other than by appends: delete it to have it generated")
        shutil.rmtree(workspace, ignore_errors=True)
    return m


# --- corpora --------------------------------------------------------------------------------------


def ensure_corpus(kind: str, scale: int, smoke: bool, fmt: str, root: Path, python: Path | str) -> dict[str, Any]:
    """Generate (or reuse) one corpus in one format; returns its manifest."""
    spec = corpus_mod.spec_for(kind, scale, smoke)
    out = root / f"{spec.name}-{fmt}"
    if corpus_mod.is_current(out, spec, fmt):
        manifest = corpus_mod.read_manifest(out)
        if manifest is not None and corpus_mod.restore(out, manifest, fmt):
            return manifest
    print(f"generating corpus {spec.name} ({fmt}) in {out} ...", flush=True)
    cmd = [str(python), str(common.BENCH_DIR / "corpus.py"), "--kind", kind, "--format", fmt, "--scale",
           str(scale), "--out", str(out), "--quiet", *(["--smoke"] if smoke else [])]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(common.REPO) if fmt == "ms" else ""
    subprocess.run(cmd, check=True, timeout=3600, env=env, stdout=subprocess.DEVNULL)
    manifest = corpus_mod.read_manifest(out)
    if manifest is None:
        raise SystemExit(f"corpus generation wrote no manifest in {out}")
    return manifest


# --- corpora x tools ---------------------------------------------------------------------------------


@dataclass
class Bench:
    """One corpus (kind x scale) and the tools that read it; `tb_only`: every tool reads its TensorBoard copy."""

    kind: str
    spec: corpus_mod.CorpusSpec
    tb_only: bool
    root: Path
    manifests: dict[str, dict[str, Any]]
    tools: list[Tool]
    results: list[Measurement] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.spec.name + ("-tb" if self.tb_only else "")

    def corpus_dir(self, tool: Tool) -> Path:
        return self.root / f"{self.spec.name}-{tool.fmt}"


def make_bench(kind: str, scale: int, smoke: bool, tools: list[Tool], root: Path, cache: Path, log_dir: Path,
               ours_args: list[str]) -> Bench | None:
    """`kind` is a corpus of corpus.py, or `<kind>-tb`: its TensorBoard copy read by ours and by TensorBoard."""
    tb_only = kind.endswith("-tb")
    base = kind[:-3] if tb_only else kind
    spec = corpus_mod.spec_for(base, scale, smoke)
    tb_python: Path | str = sys.executable
    if PEER_ENVS["tensorboard"].installed(cache):
        tb_python = PEER_ENVS["tensorboard"].python(cache)
    manifests: dict[str, dict[str, Any]] = {}
    if tb_only:
        chosen: list[Tool] = [OursTfevents(cache, log_dir, ours_args)] if any(t.key == "ours" for t in tools) else []
        chosen += [t for t in tools if t.fmt == "tb"]
    else:
        chosen = list(tools)
        manifests["ms"] = ensure_corpus(base, scale, smoke, "ms", root, sys.executable)
    if not chosen:
        print(f"corpus {kind}: no tool reads it; skipped")
        return None
    if any(t.fmt == "tb" for t in chosen):
        manifests["tb"] = ensure_corpus(base, scale, smoke, "tb", root, tb_python)
    return Bench(base, spec, tb_only, root, manifests, chosen)


def bench_section(bench: Bench, opts: Options, smoke: bool) -> str:
    first = bench.manifests.get("ms") or bench.manifests["tb"]
    flags = " ".join(OURS_CORPUS_ARGS.get(bench.kind, []))
    sizes = [f"{'MindSpore' if fmt == 'ms' else 'TensorBoard'} format {m['bytes'] / 1e6:.2f} MB"
             for fmt, m in bench.manifests.items()]
    read_by = " (TensorBoard files, read by both)" if bench.tb_only else ""
    title = (f"### Corpus {bench.name}: {report.describe(first)}{read_by}\n\n"
             + (f"Ours started with `{flags}`.\n\n" if flags else "")
             + "; ".join(sizes) + f"; medians of {opts.reps}.")
    targets = bench.kind == "S" and bench.spec.name == "S" and not bench.tb_only and not smoke
    lines = report.table(bench.results, bench.tools, targets=targets)
    extra = ""
    ceil = ceiling_figure(bench.root / f"{bench.spec.name}-ms") if "ms" in bench.manifests else None
    if ceil:
        extra = (f"\nCeiling on this machine (`benchmarks/ceiling.py`, same files, one process, no store"
                 f" or server): read + CRC + protobuf decode {ceil['decode_mb_s']:.1f} MB/s "
                 f"({ceil['decode_s']:.2f} s); + our event parser {ceil['values_mb_s']:.1f} MB/s "
                 f"({ceil['values_s']:.2f} s); our vectorised scalar path (numpy columns) "
                 f"{ceil['vector_mb_s']:.1f} MB/s ({ceil['vector_s']:.2f} s).\n")
    return "\n".join([title, "", *lines, extra, "<details><summary>each repetition</summary>\n",
                      *report.raw_lines(bench.results), "\n</details>\n"])


def peer_python(tool: Tool) -> Path | None:
    """The python of a peer's venv (None for ours)."""
    return PEER_ENVS[tool.key].python(tool.cache) if tool.key in PEER_ENVS else None


# kept for tfevents.py and other callers
table, raw_lines, describe = report.table, report.raw_lines, report.describe


# --- main -----------------------------------------------------------------------------------------------


def select_tools(arg: str, cache: Path, log_dir: Path, ours_args: list[str], skip_ours: bool = False) -> list[Tool]:
    tools: list[Tool] = [] if skip_ours else [Ours(cache, log_dir, ours_args)]
    wanted = {"auto": list(PEER_ENVS), "all": list(PEER_ENVS), "none": []}.get(arg, arg.split(","))
    for key in wanted:
        key = key.strip()
        if key not in PEER_ENVS:
            raise SystemExit(f"unknown peer {key!r}; choose from {', '.join(PEER_ENVS)}")
        if not PEER_ENVS[key].installed(cache):
            msg = f"{PEER_ENVS[key].name}: no venv in {PEER_ENVS[key].path(cache)} (run with --setup); skipped"
            if arg == "auto":
                print(msg)
                continue
            raise SystemExit(msg)
        tools.append(MindInsight(cache, log_dir) if key == "mindinsight" else TensorBoard(cache, log_dir))
    return tools


def ceiling_figure(corpus_dir: Path) -> dict[str, float] | None:
    try:
        import ceiling
    except ImportError:
        return None
    with contextlib.suppress(Exception):
        return ceiling.measure(corpus_dir, repeats=1)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help="peer venvs and corpora (default %(default)s)")
    parser.add_argument("--corpus-dir", type=Path, help="where generated corpora live (default: CACHE/corpora)")
    parser.add_argument("--setup", action="store_true", help="create the peers' venvs that are missing, then go on")
    parser.add_argument("--setup-only", action="store_true", help="create the peers' venvs and exit")
    parser.add_argument("--peers", default="auto",
                        help="auto (installed ones), all, none, or a list: mindinsight,tensorboard")
    parser.add_argument("--corpus", default="S,M",
                        help="corpora to run (default S,M; also L4, L2, L, W: issue 13; S-tb: corpus S as TensorBoard "
                             "files, read by ours and TensorBoard)")
    parser.add_argument("--probe-threads", type=int, default=readiness.PROBE_THREADS,
                        help="concurrent readiness probes, the same for every tool (default %(default)s)")
    parser.add_argument("--scale", default="1", help="comma-separated step multipliers, e.g. 1,2,4")
    parser.add_argument("-n", "--reps", type=int, default=3, help="repetitions; medians are reported (default 3)")
    parser.add_argument("--timeout", type=float, default=900, help="most seconds to wait for a load (default 900)")
    parser.add_argument("--load-seconds", type=float, default=10, help="seconds of the 8-thread scalar load")
    parser.add_argument("--appends", type=int, default=5, help="live appends per session for the visibility latency")
    parser.add_argument("--ours-arg", action="append", default=[], help="extra flag for `mindinsight-clone start`")
    parser.add_argument("--skip-ours", action="store_true", help="measure the peers only (to check the harness)")
    parser.add_argument("--smoke", action="store_true", help="tiny corpora, one repetition, short phases (CI)")
    parser.add_argument("--write-results", action="store_true", help=f"rewrite {RESULTS.name}")
    parser.add_argument("--json", type=Path, help="also write the raw measurements to this JSON file")
    args = parser.parse_args(argv)
    # a SIGTERM (a CI timeout, `kill`) unwinds like Ctrl-C: servers stopped and appends undone in `finally` blocks
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    cache: Path = args.cache.expanduser()
    if args.setup or args.setup_only:
        wanted = list(PEER_ENVS) if args.peers in ("auto", "all") else [p for p in args.peers.split(",") if p]
        for key in wanted:
            setup_peer(PEER_ENVS[key], cache)
        if args.setup_only:
            return 0
    opts = Options(reps=args.reps, timeout=args.timeout, load_seconds=args.load_seconds, appends=args.appends,
                   probe_threads=args.probe_threads)
    if args.smoke:
        opts = Options(reps=1, timeout=min(args.timeout, 120), load_seconds=1.5, load_max_requests=5000, appends=1,
                       append_timeout=15, probe_threads=args.probe_threads, overhead_rounds=1)
    work = Path(tempfile.mkdtemp(prefix="mic-peers-"))
    tools = select_tools(args.peers, cache, work, args.ours_arg, args.skip_ours)
    if not tools:
        raise SystemExit("nothing to measure")
    kinds = [k.strip() for k in args.corpus.split(",") if k.strip()]
    scales = [int(s) for s in args.scale.split(",") if s.strip()]
    corpus_root = args.corpus_dir or cache / "corpora"
    load_before = common.load_average()
    started = dt.datetime.now().astimezone()
    print(f"machine: {common.machine_info()}")
    print(common.byte_compile_ours())
    print(f"uptime: {common.uptime()}")
    print(f"tools: {', '.join(t.label for t in tools)}; {opts.reps} repetition(s), interleaved: repetitions "
          f"outermost, then corpora, then tools (order rotating); {opts.probe_threads} concurrent readiness probes")
    benches: list[Bench] = []
    try:
        for kind in kinds:
            for scale in scales:
                bench = make_bench(kind, scale, args.smoke, tools, corpus_root, cache, work, args.ours_arg)
                if bench is not None:
                    benches.append(bench)
        for rep in range(opts.reps):
            for bench in benches:
                order = bench.tools[rep % len(bench.tools):] + bench.tools[: rep % len(bench.tools)]
                for tool in order:
                    if isinstance(tool, Ours):
                        tool.per_corpus = OURS_CORPUS_ARGS.get(bench.kind, [])
                    print(f"[{bench.name} rep {rep + 1}/{opts.reps}] {tool.label} ... "
                          f"(load {common.load_average()})", flush=True)
                    m = measure(tool, bench.corpus_dir(tool), bench.manifests[tool.fmt], opts, rep + 1, work)
                    bench.results.append(m)
                    print(f"    served {common.fmt(m.start_to_served_s, 2)} s (first answer "
                          f"{common.fmt(m.first_answer_s, 2)}, 50 % {common.fmt(m.ready50_s, 2)}, 90 % "
                          f"{common.fmt(m.ready90_s, 2)}; probe round {common.fmt(m.probe_round_s, 3)} s), peak PSS "
                          f"{common.fmt(m.peak_pss_mb, 0)} MB, {common.fmt(m.req_s, 0)} req/s "
                          f"(p95 {common.fmt(m.p95_ms, 1)} ms, {m.errors} errors), visible "
                          f"{common.fmt(m.visible_s, 2)} s {m.note}", flush=True)
    finally:
        for tool in tools:
            with contextlib.suppress(Exception):
                tool.stop()
        shutil.rmtree(work, ignore_errors=True)
    sections = [bench_section(bench, opts, args.smoke) for bench in benches]
    summary = report.summary(benches, opts.reps)
    for section in sections:
        print("\n" + section)
    print("\n".join(["", *summary]))
    load_after = common.load_average()
    print(f"load average before: {load_before}; after: {load_after}")
    print(f"uptime: {common.uptime()}")
    if args.json:
        all_raw = {bench.name: [m.__dict__ for m in bench.results] for bench in benches}
        args.json.write_text(json.dumps(all_raw, indent=1, default=str), encoding="utf-8")
    if args.write_results:
        report.write_results(RESULTS, summary, sections, [t for b in benches for t in b.tools], peer_python,
                             started, load_before, load_after, opts, argv)
        print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
