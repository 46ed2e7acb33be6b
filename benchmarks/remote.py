"""A corpus served from an S3-compatible server on loopback (moto) vs from disk, real gunicorn via the CLI.

    python benchmarks/remote.py                    # corpus S, reload interval 3 s, idle window of 5 reloads
    python benchmarks/remote.py --repeat 3         # median of 3 starts per backend
    python benchmarks/remote.py --smoke            # tiny corpus, short windows (CI)

For each backend (`disk`: the corpus dir; `s3`: the same files uploaded to `s3://bench/<corpus>` on a moto
server started here) it runs `mindinsight-clone start --summary-base-dir <dir or URL> [--storage-options
JSON] --reload-interval R` and measures:

* start -> fully served: from launching `start` until every run is listed, cached (POST train-job-caches)
  and serves its last step (scalar/metadata of the last-written tag), polled every 0.2 s;
* requests made to the store (s3 only), counted from the moto server's request log (one line per HTTP
  request) and split by kind (LIST = ListObjects, HEAD, GET = object reads with ranges); the PUTs of this
  script are not counted:
  - during the load (start -> fully served),
  - per idle reload: requests over a window of `--idle-reloads` reload intervals with nothing changing,
    divided by the number of intervals,
  - after an append: one run's object is re-put one step longer (S3 has no append); requests from the
    put until the API serves the new step, and that delay.

Disk has no request log; its column shows the times only. The moto server runs on the same 2 cores as the
server, so its own CPU time is part of the S3 figures (a real store is on another machine, but further away).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import common
import corpus as corpus_mod

from tests.s3_server import S3Server, running_s3_server

API = "/v1/mindinsight/datavisual"
BUCKET = "bench"
LINE = re.compile(r'"(?P<method>[A-Z]+) (?P<target>\S+) HTTP/[\d.]+" (?P<status>\d{3})')
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # werkzeug colours some lines (206 Partial Content: the range reads)


# --- the store's request log ----------------------------------------------------------------------


class RequestLog:
    """Reads moto's log from a remembered offset and classifies the requests since then."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def mark(self) -> None:
        self.offset = self.path.stat().st_size

    def since_mark(self) -> Counter[str]:
        with self.path.open("rb") as handle:
            handle.seek(self.offset)
            text = ANSI.sub("", handle.read().decode("utf-8", "replace"))
        kinds: Counter[str] = Counter()
        for match in LINE.finditer(text):
            kinds[classify(match["method"], match["target"])] += 1
        kinds.pop("PUT", None)  # this script's uploads
        return kinds


def classify(method: str, target: str) -> str:
    if method == "GET" and ("list-type=" in target or "delimiter=" in target or "prefix=" in target):
        return "LIST"
    if method == "GET" and target.count("/") <= 1 and "?" not in target:
        return "LIST"  # ListObjects (v1) of a bucket without parameters
    return method if method in ("GET", "HEAD", "PUT") else "OTHER"


def total(kinds: Counter[str]) -> int:
    return sum(kinds.values())


def describe_kinds(kinds: Counter[str], per: float = 1.0) -> str:
    if not kinds:
        return "0"
    parts = [f"{k} {v / per:.1f}".replace(".0 ", " ").removesuffix(".0") for k, v in sorted(kinds.items())]
    return f"{total(kinds) / per:.1f} ({', '.join(parts)})"


# --- one backend ------------------------------------------------------------------------------------


def wait_served(base: str, manifest: dict[str, Any], timeout: float, last_step: int | None = None,
                runs: list[str] | None = None, ask_to_cache: bool = True) -> bool:
    """Until every run serves its last step. `ask_to_cache` (the start): list and POST train-job-caches on
    each poll, as a UI does; without it (the append) only scalar/metadata is polled, so the step arrives
    through the server's own reload."""
    runs = runs if runs is not None else list(manifest["runs"])
    tag = manifest["probe_tag"]
    last = last_step if last_step is not None else int(manifest["last_step"])

    def done() -> bool:
        if ask_to_cache:
            listing = common.get_json(base, f"{API}/train-jobs?limit=999")
            if not listing or {j["train_id"] for j in listing.get("train_jobs", [])} < {f"./{r}" for r in runs}:
                return False
            common.http_request(base, f"{API}/train-job-caches", "POST", {"train_ids": [f"./{r}" for r in runs]})
        for run in runs:
            body = common.get_json(base, f"{API}/scalar/metadata?train_id=./{run}&tag={tag}")
            try:
                if int(body["metadatas"][-1]["step"]) < last:
                    return False
            except (TypeError, KeyError, IndexError, ValueError):
                return False
        return True

    return common.wait_for(done, timeout, interval=0.2)


def start(cli: list[str], port: int, base_dir: str, workspace: Path, reload_interval: int,
          extra: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*cli, "start", "--port", str(port), "--summary-base-dir", base_dir, "--workspace",
                           str(workspace), "--reload-interval", str(reload_interval), *extra],
                          capture_output=True, text=True, timeout=180, check=False)


def measure(backend: str, base_dir: str, extra: list[str], manifest: dict[str, Any], args: argparse.Namespace,
            log: RequestLog | None, appender: Any) -> dict[str, Any]:
    cli = [sys.executable, "-m", "mindinsight_clone"]
    port = common.free_port()
    base = f"http://{common.LOOPBACK}:{port}"
    workspace = Path(tempfile.mkdtemp(prefix=f"mic-remote-{backend}-"))
    result: dict[str, Any] = {"backend": backend}
    if log:
        log.mark()
    t0 = time.monotonic()
    started = start(cli, port, base_dir, workspace, args.reload_interval, extra)
    if started.returncode != 0:
        raise SystemExit(f"{backend}: start failed:\n{started.stdout}\n{started.stderr}")
    try:
        if not wait_served(base, manifest, args.timeout):
            raise SystemExit(f"{backend}: not fully served within {args.timeout:.0f} s")
        result["served_s"] = time.monotonic() - t0
        if log:
            result["load_requests"] = log.since_mark()
        # idle reloads: nothing changes for a window of N reload intervals
        if log:
            time.sleep(args.reload_interval)  # let a reload that the load started finish
            log.mark()
            window = args.idle_reloads * args.reload_interval
            time.sleep(window)
            result["idle_requests"] = log.since_mark()
            result["idle_reloads"] = args.idle_reloads
        # an append: one run grows by a step; requests until the API serves it
        run, step = manifest["runs"][0], int(manifest["last_step"]) + 1
        if log:
            log.mark()
        t_append = time.monotonic()
        appender(run, step)
        if not wait_served(base, manifest, args.timeout, last_step=step, runs=[run], ask_to_cache=False):
            raise SystemExit(f"{backend}: appended step {step} not served within {args.timeout:.0f} s")
        result["append_visible_s"] = time.monotonic() - t_append
        if log:
            result["append_requests"] = log.since_mark()
    finally:
        subprocess.run([*cli, "stop", "--port", str(port), "--workspace", str(workspace)], capture_output=True,
                       timeout=60, check=False)
    return result


# --- corpus and its copies --------------------------------------------------------------------------


def corpus(args: argparse.Namespace) -> tuple[Path, dict[str, Any]]:
    spec = corpus_mod.spec_for(args.kind, 1, args.smoke)
    out = args.cache.expanduser() / "corpora" / f"{spec.name}-ms"
    if not corpus_mod.is_current(out, spec, "ms"):
        print(f"generating corpus {spec.name} in {out} ...", flush=True)
        corpus_mod.generate(spec, "ms", out, quiet=True)
    manifest = corpus_mod.read_manifest(out)
    assert manifest is not None
    return out, manifest


def live_key(disk: Path, run: str) -> str:
    return corpus_mod.live_file(disk / run, "ms").name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kind", choices=["S", "M"], default="S", help="generated corpus (default S)")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "mindinsight-clone-bench")
    parser.add_argument("--reload-interval", type=int, default=3, help="the server's --reload-interval (default 3)")
    parser.add_argument("--idle-reloads", type=int, default=5, help="reload intervals in the idle window (default 5)")
    parser.add_argument("--repeat", type=int, default=1, help="starts per backend; medians are shown (default 1)")
    parser.add_argument("--timeout", type=float, default=600, help="most seconds to wait for any state")
    parser.add_argument("--smoke", action="store_true", help="tiny corpus, 1-s reloads, 2-reload idle window")
    parser.add_argument("--json", action="store_true", help="print the raw figures as one JSON line too")
    args = parser.parse_args(argv)
    if args.smoke:
        args.reload_interval, args.idle_reloads, args.repeat = 1, 2, 1
    if not 1 <= args.reload_interval <= 60 or not 1 <= args.idle_reloads <= 100 or not 1 <= args.repeat <= 10:
        parser.error("--reload-interval 1..60, --idle-reloads 1..100, --repeat 1..10")

    disk, manifest = corpus(args)
    print(f"machine: {common.machine_info()}")
    print(f"corpus {manifest['spec']['name']}: {len(manifest['runs'])} runs x {manifest['last_step']} steps, "
          f"{manifest['bytes'] / 1e6:.1f} MB")
    work = Path(tempfile.mkdtemp(prefix="mic-remote-"))
    results: list[dict[str, Any]] = []
    with running_s3_server(work) as server:
        prefix = str(manifest["spec"]["name"])
        t_up = time.monotonic()
        server.upload_tree(disk, BUCKET, prefix)
        print(f"uploaded to s3://{BUCKET}/{prefix} in {time.monotonic() - t_up:.1f} s ({server.endpoint})")
        log = RequestLog(server.log_path)
        options = json.dumps(server.storage_options)
        for rep in range(args.repeat):
            copy = work / f"disk-{rep}"
            subprocess.run(["cp", "-r", str(disk), str(copy)], check=True)  # appends must not touch the cache
            results.append(measure("disk", str(copy), [], manifest, args, None, _disk_appender(copy, manifest)))
            results.append(measure("s3", f"s3://{BUCKET}/{prefix}", ["--storage-options", options], manifest,
                                   args, log, _s3_appender(server, disk, prefix, manifest)))
            _restore(server, disk, prefix, manifest)
            print(f"repetition {rep + 1}: " + ", ".join(f"{r['backend']} served in {r['served_s']:.1f} s"
                                                        for r in results[-2:]), flush=True)
    print()
    print(table(results, args))
    print(f"\nload average after: {common.load_average()}")
    if args.json:
        print(json.dumps([{k: (dict(v) if isinstance(v, Counter) else v) for k, v in r.items()} for r in results]))
    return 0


def _disk_appender(copy: Path, manifest: dict[str, Any]) -> Any:
    def append(run: str, step: int) -> None:
        common.append_record(corpus_mod.live_file(copy / run, "ms"), _payload(step, manifest))
    return append


def _payload(step: int, manifest: dict[str, Any]) -> bytes:
    tag = str(manifest["probe_tag"]).removesuffix("/scalar")
    return common.scalar_event(step, time.time(), tag, float(step), value_field=3)


def _s3_appender(server: S3Server, disk: Path, prefix: str, manifest: dict[str, Any]) -> Any:
    def append(run: str, step: int) -> None:
        name = live_key(disk, run)
        grown = (disk / run / name).read_bytes() + common.frame(_payload(step, manifest))
        server.put(BUCKET, f"{prefix}/{run}/{name}", grown)
    return append


def _restore(server: S3Server, disk: Path, prefix: str, manifest: dict[str, Any]) -> None:
    run = manifest["runs"][0]
    name = live_key(disk, run)
    server.put(BUCKET, f"{prefix}/{run}/{name}", (disk / run / name).read_bytes())


def table(results: list[dict[str, Any]], args: argparse.Namespace) -> str:
    def med(backend: str, key: str) -> float:
        values = [r[key] for r in results if r["backend"] == backend and key in r]
        return statistics.median(values) if values else float("nan")

    def kinds(key: str, per: float = 1.0) -> str:
        counters = [r[key] for r in results if r["backend"] == "s3" and key in r]
        if not counters:
            return "–"
        middle = sorted(counters, key=total)[len(counters) // 2]
        return describe_kinds(middle, per)

    n = sum(r["backend"] == "s3" for r in results)
    lines = [f"reload interval {args.reload_interval} s; medians of {n} start(s) per backend",
             "", "| metric | disk | s3 (moto on loopback) |", "|---|---|---|",
             f"| start -> fully served (s) | {med('disk', 'served_s'):.2f} | {med('s3', 'served_s'):.2f} |",
             f"| store requests during the load | – | {kinds('load_requests')} |",
             f"| store requests per idle reload (mean of {args.idle_reloads}) | – | "
             f"{kinds('idle_requests', float(args.idle_reloads))} |",
             f"| appended step served after (s) | {med('disk', 'append_visible_s'):.2f} | "
             f"{med('s3', 'append_visible_s'):.2f} |",
             f"| store requests from the append until served | – | {kinds('append_requests')} |"]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
