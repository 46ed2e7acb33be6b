"""TensorBoard event files: corpus S written by tensorboardX, served by us vs by TensorBoard 2.21 (Rust loader).

    python benchmarks/peers.py --setup-only --peers tensorboard     # the TensorBoard venv, once (needs PyPI)
    python benchmarks/tfevents.py                                   # corpus S, median of 3
    python benchmarks/tfevents.py --smoke --peers none              # tiny, ours only

Same harness and figures as `peers.py` (start -> last step served, PSS, scalar req/s, flushed step
visible), on the SAME tfevents corpus for both servers: ours reads the `events.out.tfevents.*` files
through `ingest.tfevents_parser` and answers MindInsight's API (`<tag>/scalar`); TensorBoard runs with
`--load_fast=true` (rustboard). The corpus is generated with the TensorBoard venv's tensorboardX.
Also prints, on the same files in one process (no server): our per-record path alone (record reader +
tfevents parser: read + CRC + decode + values), and our loader alone (`DataManager.reload`: the vectorised
scalar path `ingest.tfevents_batch` with the per-record path for the rest, into the store), as the server
reads.
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
import corpus as corpus_mod
import peers

OursTfevents = peers.OursTfevents  # our server on the TensorBoard-format corpus (`<tag>/scalar`)


def parse_only(corpus_dir: Path) -> dict[str, float]:
    """Seconds for our reader + tfevents parser over every file (one process, no store or server)."""
    from mindinsight_clone.ingest.formats import RecordsParser
    from mindinsight_clone.ingest.record_reader import RecordReader

    files = sorted(corpus_dir.glob("*/events.out.tfevents.*"))
    total = sum(f.stat().st_size for f in files)
    t0 = time.perf_counter()
    values = 0
    for path in files:
        parser = RecordsParser()
        reader = RecordReader(path)
        while True:
            result = reader.read()
            parsed = parser(result.records, path.name, result.offsets)
            values += sum(len(c) // 3 for c in parsed.scalars.values())
            if not result.more or result.stopped:
                break
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "mb_s": total / 1e6 / seconds, "values": values, "values_s": values / seconds}


def load_only(corpus_dir: Path) -> dict[str, float]:
    """Seconds for one `DataManager.reload` of the corpus (what the server's load thread does), in-process."""
    from mindinsight_clone.config import settings_for_tests
    from mindinsight_clone.store.data_manager import DataManager

    total = sum(f.stat().st_size for f in corpus_dir.glob("*/events.out.tfevents.*"))
    with tempfile.TemporaryDirectory(prefix="mic-tfevents-load-") as workspace:
        manager = DataManager(settings_for_tests(summary_base_dir=str(corpus_dir), workspace=workspace))
        t0 = time.perf_counter()
        manager.reload()
        seconds = time.perf_counter() - t0
        manager.stop()
    return {"seconds": seconds, "mb_s": total / 1e6 / seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=peers.DEFAULT_CACHE, help="peer venvs (default %(default)s)")
    parser.add_argument("--corpus-dir", type=Path, help="where the corpus lives (default: CACHE/corpora)")
    parser.add_argument("--peers", default="auto", help="auto (tensorboard if installed), tensorboard, none")
    parser.add_argument("-n", "--reps", type=int, default=3, help="repetitions; medians are reported (default 3)")
    parser.add_argument("--timeout", type=float, default=900, help="most seconds to wait for a load")
    parser.add_argument("--load-seconds", type=float, default=10, help="seconds of the 8-thread scalar load")
    parser.add_argument("--appends", type=int, default=5, help="live appends per session")
    parser.add_argument("--smoke", action="store_true", help="tiny corpus, one repetition, short phases")
    args = parser.parse_args(argv)

    cache: Path = args.cache.expanduser()
    opts = peers.Options(reps=args.reps, timeout=args.timeout, load_seconds=args.load_seconds, appends=args.appends)
    if args.smoke:
        opts = peers.Options(reps=1, timeout=min(args.timeout, 120), load_seconds=1.5, load_max_requests=5000,
                             appends=1, append_timeout=15)
    work = Path(tempfile.mkdtemp(prefix="mic-tfevents-"))
    tools: list[peers.Tool] = [OursTfevents(cache, work)]
    tb_env = peers.PEER_ENVS["tensorboard"]
    if args.peers != "none":
        if tb_env.installed(cache):
            tools.append(peers.TensorBoard(cache, work))
        elif args.peers == "tensorboard":
            raise SystemExit(f"{tb_env.name}: no venv in {tb_env.path(cache)} (peers.py --setup-only)")
        else:
            print(f"{tb_env.name} is not set up; measuring ours only")
    writer_python: Any = tb_env.python(cache) if tb_env.installed(cache) else sys.executable
    corpus_root = args.corpus_dir or cache / "corpora"
    spec = corpus_mod.spec_for("S", 1, args.smoke)
    manifest = peers.ensure_corpus("S", 1, args.smoke, "tb", corpus_root, writer_python)
    corpus_dir = corpus_root / f"{spec.name}-tb"
    print(f"machine: {common.machine_info()}; load before: {common.load_average()}")
    print(f"corpus {spec.name} (tensorboardX): {peers.describe(manifest)}, {manifest['bytes'] / 1e6:.2f} MB, "
          f"{manifest['scalar_values']:,} scalar values")
    results: list[peers.Measurement] = []
    try:
        for rep in range(opts.reps):
            order = tools[rep % len(tools):] + tools[: rep % len(tools)]
            for tool in order:
                print(f"[rep {rep + 1}/{opts.reps}] {tool.label} ... (load {common.load_average()})", flush=True)
                m = peers.measure(tool, corpus_dir, manifest, opts, rep + 1, work)
                results.append(m)
                print(f"    served {common.fmt(m.start_to_served_s, 2)} s, peak PSS {common.fmt(m.peak_pss_mb, 0)} MB,"
                      f" {common.fmt(m.req_s, 0)} req/s (p95 {common.fmt(m.p95_ms, 1)} ms, {m.errors} errors), "
                      f"visible {common.fmt(m.visible_s, 2)} s {m.note}", flush=True)
    finally:
        for tool in tools:
            tool.stop()
        shutil.rmtree(work, ignore_errors=True)
    print()
    print("\n".join(peers.table(results, tools, targets=False)))
    print()
    print("\n".join(peers.raw_lines(results)))
    alone = parse_only(corpus_dir)
    if not math.isnan(alone["seconds"]):
        print(f"\nour reader + tfevents parser alone: {alone['seconds']:.2f} s, {alone['mb_s']:.1f} MB/s, "
              f"{alone['values_s']:,.0f} scalar values/s ({alone['values']:,} values; the per-record path)")
    loaded = load_only(corpus_dir)
    print(f"our loader alone (DataManager.reload, vectorised scalar path + per-record rest, into the store): "
          f"{loaded['seconds']:.2f} s, {loaded['mb_s']:.1f} MB/s (load average {common.load_average()})")
    print(f"load average after: {common.load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
