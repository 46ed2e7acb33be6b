"""Upper bound: how fast this machine merely reads and decodes the corpus records (no store, no server).

    python benchmarks/ceiling.py                       # corpus S (generated if missing)
    python benchmarks/ceiling.py --kind M --scale 2
    python benchmarks/ceiling.py --dir /path/to/summary-base-dir
    python benchmarks/ceiling.py --smoke

Three stages over every summary file, one process, warm page cache (best of --repeats):
  frame    our record reader: read, frame, CRC32C-check every record   (mindinsight_clone.ingest.record_reader)
  decode   + protobuf decode of each record into an Event                (summary_pb2.Event.FromString)
  values   + our event parser to typed values                           (mindinsight_clone.ingest.event_parser)
  vector   read + frame + CRC + decode to numpy columns by the vectorised scalar path, the general path for
           the records it leaves (mindinsight_clone.ingest.scalar_batch, as the loader alternates them)
A server cannot ingest faster than `values` on this machine; `start -> last step served` in peers.py
should be compared with it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
import corpus as corpus_mod

from mindinsight_clone.ingest import event_parser, scalar_batch
from mindinsight_clone.ingest.record_reader import DEFAULT_MAX_RECORD_BYTES, RecordReader, read_all
from mindinsight_clone.proto import summary_pb2


def summary_files(base: Path) -> list[Path]:
    """Summary files of the runs directly below `base` (and of `base` itself)."""
    out: list[Path] = []
    for run in [base, *sorted(p for p in base.iterdir() if p.is_dir())]:
        out += sorted(p for p in run.iterdir()
                      if p.is_file() and "summary." in p.name and not p.name.endswith("_lineage"))
    return out


def _vector_file(path: Path) -> tuple[int, int]:
    """(records, values) of one file read the way the loader does with its scalar reader."""
    size = path.stat().st_size
    reader = RecordReader(path, chunk_bytes=16 * 1024)
    records = values = 0
    while True:
        result = reader.read()
        records += len(result.records)
        parsed = event_parser.parse_summary_columns(result.records, path.name)
        values += sum(len(c) // 3 for c in parsed.scalars.values())
        took = False
        while reader.offset < size:
            end, arrays = scalar_batch.read_scalar_records(path, reader.offset, size, DEFAULT_MAX_RECORD_BYTES)
            if end <= reader.offset:
                break
            reader.offset, took = end, True
            records += arrays.records
            values += sum(int(a[0].size) for a in arrays.arrays.values())
        if result.stopped or not (took or result.more):
            return records, values


def _pass(files: list[Path], stage: str) -> tuple[float, int, int]:
    """(seconds, records, values) of one pass of `stage` over `files`."""
    t0 = time.perf_counter()
    records = values = 0
    for path in files:
        if stage == "vector":
            r, v = _vector_file(path)
            records, values = records + r, values + v
            continue
        result = read_all(path)
        records += len(result.records)
        if stage == "decode":
            parse = summary_pb2.Event.FromString
            for payload in result.records:
                values += len(parse(payload).summary.value)
        elif stage == "values":
            parsed = event_parser.parse_summary_records(result.records, path.name)
            values += len(parsed.values)
    return time.perf_counter() - t0, records, values


def measure(base: Path, repeats: int = 3) -> dict[str, float]:
    """Best-of-`repeats` seconds and MB/s of each stage over the summary files under `base`."""
    files = summary_files(base)
    if not files:
        raise SystemExit(f"no summary files under {base}")
    nbytes = sum(p.stat().st_size for p in files)
    _pass(files, "frame")  # warm the page cache
    out: dict[str, float] = {"files": len(files), "mb": nbytes / 1e6}
    for stage in ("frame", "decode", "values", "vector"):
        best = min((_pass(files, stage) for _ in range(max(1, repeats))), key=lambda r: r[0])
        seconds, records, values = best
        out[f"{stage}_s"] = seconds
        out[f"{stage}_mb_s"] = nbytes / 1e6 / seconds if seconds > 0 else float("nan")
        out[f"{stage}_records_s"] = records / seconds if seconds > 0 else float("nan")
        out["records"] = records
        if values:
            out[f"{stage}_values"] = values
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, help="a summary base dir (default: the generated corpus)")
    parser.add_argument("--kind", choices=list(corpus_mod.KINDS), default="S")
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--smoke", action="store_true", help="tiny corpus, one repeat")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "mindinsight-clone-bench")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    base = args.dir
    if base is None:
        spec = corpus_mod.spec_for(args.kind, args.scale, args.smoke)
        base = args.cache.expanduser() / "corpora" / f"{spec.name}-ms"
        if not corpus_mod.is_current(base, spec, "ms"):
            print(f"generating corpus {spec.name} in {base} ...", flush=True)
            corpus_mod.generate(spec, "ms", base, quiet=True)
    repeats = 1 if args.smoke else args.repeats
    print(f"machine: {common.machine_info()}")
    res = measure(base, repeats)
    print(f"corpus: {base} ({int(res['files'])} files, {res['mb']:.1f} MB, {int(res['records']):,} records)")
    print("| stage | seconds | MB/s | records/s |")
    print("|---|---|---|---|")
    for stage, label in (("frame", "read + frame + CRC"), ("decode", "+ protobuf Event decode"),
                         ("values", "+ our event parser (typed values)"),
                         ("vector", "vectorised scalar path (numpy columns), general path for the rest")):
        print(f"| {label} | {res[f'{stage}_s']:.3f} | {res[f'{stage}_mb_s']:.1f} | "
              f"{res[f'{stage}_records_s']:,.0f} |")
    print(f"load average: {common.load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
