"""Benchmark corpus generator: the SAME content as MindSpore summary files and as TensorBoard event files.

    python benchmarks/corpus.py --kind S --format ms --out DIR            # ours / MindInsight
    <tensorboard venv>/bin/python benchmarks/corpus.py --kind S --format tb --out DIR   # TensorBoard

Corpora (steps are multiplied by --scale; the run count stays, so MindInsight can cache every run):
  S      12 runs x 2,500 steps x 20 scalar tags
  M       8 runs x 1,000 steps x 10 scalar tags, and every 10 steps 4 histograms of 10,000 values
         and one 64x64 RGB image
  L4, L2, L  8 ranks x 50,000 / 100,000 / 200,000 steps x 8 scalar tags, as `rank_0` .. `rank_7` of one
         job (the corpus directory is the job; point the summary base dir at it): issue 13's LLM-scale runs
  W      1,000 runs x 500 steps x 4 scalar tags (many runs)
  smoke-S / smoke-M / smoke-L / smoke-W: tiny versions of the same shapes, for CI.

Values, steps and tags are a pure function of (run, step, tag), seeded, so both formats carry the
same data (wall times are the writing time: our writer, like MindSpore, stamps events itself).
`ms` files are written by our writer (`mindinsight_clone.summary`): one event per step holding all
of that step's values, as MindSpore's SummaryRecord writes them. `tb` files hold one event per value,
as TensorBoard writers do: written by tensorboardX, or, for scalar-only corpora (S, L4, L2, L, W), by
`tfevents_bulk.py` in bulk with the same bytes tensorboardX writes (seconds instead of ~12 minutes per
rank of L; tests/unit/test_bench_tfevents_bulk.py compares the two). Each output directory gets a
`corpus.json` manifest (spec, runs, last step, the tag to probe per format, bytes).

This module imports only numpy (and the chosen writer) so that it runs in the TensorBoard venv too.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

MANIFEST = "corpus.json"
FORMAT_VERSION = 1  # bump when the generated content changes (invalidates cached corpora)


@dataclass(frozen=True)
class CorpusSpec:
    name: str
    runs: int
    steps: int
    scalars: int
    histograms: int = 0
    hist_values: int = 0
    images: int = 0
    image_size: int = 64
    every: int = 10  # histograms and images are written every `every` steps (and at step 1)
    run_format: str = "run_{:02d}"  # run directory names (`rank_{}` for the ranks of one job)

    def scaled(self, scale: int) -> CorpusSpec:
        name = self.name if scale == 1 else f"{self.name}x{scale}"
        return dataclasses.replace(self, name=name, steps=self.steps * scale)

    @property
    def scalar_tags(self) -> list[str]:
        return [f"s{i:02d}" for i in range(self.scalars)]

    @property
    def hist_tags(self) -> list[str]:
        return [f"h{i}" for i in range(self.histograms)]

    @property
    def image_tags(self) -> list[str]:
        return [f"img{i}" for i in range(self.images)]

    @property
    def run_names(self) -> list[str]:
        return [self.run_format.format(i) for i in range(self.runs)]


SPECS: dict[str, CorpusSpec] = {
    "S": CorpusSpec("S", runs=12, steps=2500, scalars=20),
    "M": CorpusSpec("M", runs=8, steps=1000, scalars=10, histograms=4, hist_values=10_000, images=1),
    "L4": CorpusSpec("L4", runs=8, steps=50_000, scalars=8, run_format="rank_{}"),
    "L2": CorpusSpec("L2", runs=8, steps=100_000, scalars=8, run_format="rank_{}"),
    "L": CorpusSpec("L", runs=8, steps=200_000, scalars=8, run_format="rank_{}"),
    "W": CorpusSpec("W", runs=1000, steps=500, scalars=4, run_format="run_{:03d}"),
    # LLM monitors (issue 32): 4 ranks x 5,000 steps x 1,000 scalar tags, and the quarter-width twin (250 tags)
    # that shows how the cost grows with tags
    "T": CorpusSpec("T", runs=4, steps=5000, scalars=1000, run_format="rank_{}"),
    "Tq": CorpusSpec("Tq", runs=4, steps=5000, scalars=250, run_format="rank_{}"),
    "smoke-S": CorpusSpec("smoke-S", runs=3, steps=60, scalars=5),
    "smoke-L": CorpusSpec("smoke-L", runs=2, steps=3000, scalars=4, run_format="rank_{}"),
    "smoke-W": CorpusSpec("smoke-W", runs=20, steps=50, scalars=2, run_format="run_{:03d}"),
    "smoke-T": CorpusSpec("smoke-T", runs=2, steps=50, scalars=40, run_format="rank_{}"),
    "smoke-Tq": CorpusSpec("smoke-Tq", runs=2, steps=50, scalars=10, run_format="rank_{}"),
    "smoke-M": CorpusSpec("smoke-M", runs=2, steps=40, scalars=3, histograms=1, hist_values=1000, images=1,
                          image_size=16),
}


KINDS = ("S", "M", "L4", "L2", "L", "W", "T", "Tq")


def spec_for(kind: str, scale: int = 1, smoke: bool = False) -> CorpusSpec:
    key = f"smoke-{kind}" if smoke else kind
    if smoke and kind in ("L4", "L2"):
        key = "smoke-L"
    if key not in SPECS:
        raise SystemExit(f"unknown corpus kind {kind!r}; choose from {', '.join(KINDS)}")
    return SPECS[key].scaled(scale)


# --- content: a pure function of (run, step, tag) -----------------------------------------------


@dataclass
class StepData:
    step: int
    scalars: list[tuple[str, float]]
    histograms: list[tuple[str, np.ndarray]]
    images: list[tuple[str, np.ndarray]]  # HWC uint8 RGB


def scalar_values(spec: CorpusSpec, run_index: int) -> np.ndarray:
    """(steps, scalars) float32: the scalar values of one run, row i = step i + 1."""
    rng = np.random.default_rng(1000 + run_index)
    noise = rng.standard_normal((spec.steps, max(spec.scalars, 1))).astype(np.float32)
    steps = np.arange(1, spec.steps + 1, dtype=np.float32)[:, None]
    decay = np.arange(1, spec.scalars + 1, dtype=np.float32)[None, :] / spec.scalars
    return (np.exp(-steps / (200.0 * (run_index + 1))) * decay + 0.01 * noise[:, : spec.scalars]).astype(
        np.float32)


def run_steps(spec: CorpusSpec, run_index: int) -> Iterator[StepData]:
    """Every step of one run, in order (step numbers 1..steps)."""
    values = scalar_values(spec, run_index)
    tags = spec.scalar_tags
    for i in range(spec.steps):
        step = i + 1
        heavy = spec.every > 0 and (step == 1 or step % spec.every == 0)
        hists: list[tuple[str, np.ndarray]] = []
        imgs: list[tuple[str, np.ndarray]] = []
        if heavy and (spec.hist_tags or spec.image_tags):
            srng = np.random.default_rng((run_index, step))
            for h, tag in enumerate(spec.hist_tags):
                vals = srng.normal(loc=h * 0.5, scale=1.0 + step / spec.steps, size=spec.hist_values)
                hists.append((tag, vals.astype(np.float32)))
            for tag in spec.image_tags:
                size = spec.image_size
                img = srng.integers(0, 256, size=(size, size, 3), dtype=np.uint8)
                imgs.append((tag, img))
        yield StepData(step, [(t, float(values[i, k])) for k, t in enumerate(tags)],
                       hists, imgs)


# --- writers -----------------------------------------------------------------------------------------


class Writer(Protocol):
    def write(self, data: StepData) -> None: ...

    def close(self) -> None: ...


class _SummaryWriterAdapter:
    """Both formats' writers take add_scalar/add_histogram/add_image(tag, value, step); only the writer differs."""

    _w: Any

    def write(self, data: StepData) -> None:
        w = self._w
        for tag, value in data.scalars:
            w.add_scalar(tag, value, data.step)
        for tag, vals in data.histograms:
            w.add_histogram(tag, vals, data.step)
        for tag, img in data.images:
            w.add_image(tag, img, data.step, dataformats="HWC")

    def close(self) -> None:
        self._w.close()


class OursWriter(_SummaryWriterAdapter):
    """Our SummaryWriter: MindSpore summary files."""

    def __init__(self, run_dir: Path) -> None:
        from mindinsight_clone.summary import SummaryWriter

        self._w = SummaryWriter(run_dir)


class TensorBoardWriter(_SummaryWriterAdapter):
    """tensorboardX's SummaryWriter: TensorFlow event files, one event per value."""

    def __init__(self, run_dir: Path) -> None:
        from tensorboardX import SummaryWriter

        self._w = SummaryWriter(logdir=str(run_dir), max_queue=1000, flush_secs=3600)


def make_writer(fmt: str, run_dir: Path) -> Writer:
    return TensorBoardWriter(run_dir) if fmt == "tb" else OursWriter(run_dir)


def bulk_tb(spec: CorpusSpec, fmt: str) -> bool:
    """Scalar-only corpora in TensorBoard format are written by `tfevents_bulk` (tensorboardX's bytes, in bulk)."""
    return fmt == "tb" and spec.scalars > 0 and not spec.histograms and not spec.images


def write_run(spec: CorpusSpec, fmt: str, index: int, run_dir: Path) -> None:
    if bulk_tb(spec, fmt):
        if str(Path(__file__).parent) not in sys.path:
            sys.path.insert(0, str(Path(__file__).parent))
        import tfevents_bulk  # beside this file; numpy only

        tfevents_bulk.write_scalar_run(run_dir, np.arange(1, spec.steps + 1), spec.scalar_tags,
                                       scalar_values(spec, index))
        return
    writer = make_writer(fmt, run_dir)
    try:
        for data in run_steps(spec, index):
            writer.write(data)
    finally:
        writer.close()


# --- driver ------------------------------------------------------------------------------------------


def probe_tag(spec: CorpusSpec, fmt: str) -> str:
    """The last scalar tag written in a step, as each server names it."""
    tag = spec.scalar_tags[-1]
    return tag if fmt == "tb" else f"{tag}/scalar"


def directory_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and p.name != MANIFEST)


def read_manifest(out: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def writer_name(fmt: str, spec: CorpusSpec | None = None) -> str:
    if spec is not None and bulk_tb(spec, fmt):
        return "tfevents_bulk (tensorboardX's bytes)"
    return "tensorboardX" if fmt == "tb" else "mindinsight_clone.summary"


def expected_manifest(spec: CorpusSpec, fmt: str) -> dict[str, Any]:
    return {"version": FORMAT_VERSION, "format": fmt, "writer": writer_name(fmt, spec), "spec": dataclasses.asdict(spec)}


def is_current(out: Path, spec: CorpusSpec, fmt: str) -> bool:
    manifest = read_manifest(out)
    want = expected_manifest(spec, fmt)
    return manifest is not None and all(manifest.get(k) == v for k, v in want.items())


def generate(spec: CorpusSpec, fmt: str, out: Path, quiet: bool = False) -> dict[str, Any]:
    """Write the corpus into `out` (which must not hold another corpus) and its manifest."""
    out.mkdir(parents=True, exist_ok=True)
    (out / MANIFEST).unlink(missing_ok=True)
    t0 = time.monotonic()
    for index, run in enumerate(spec.run_names):
        run_dir = out / run
        run_dir.mkdir(exist_ok=True)
        for old in run_dir.iterdir():
            old.unlink()
        write_run(spec, fmt, index, run_dir)
        if not quiet:
            print(f"  {fmt} {spec.name} {run}: {directory_bytes(run_dir) / 1e6:.1f} MB", file=sys.stderr)
    manifest = expected_manifest(spec, fmt) | {
        "runs": spec.run_names,
        "last_step": spec.steps,
        "probe_tag": probe_tag(spec, fmt),
        "scalar_tags": [t if fmt == "tb" else f"{t}/scalar" for t in spec.scalar_tags],
        "bytes": directory_bytes(out),
        "events": spec.runs * spec.steps,
        "scalar_values": spec.runs * spec.steps * spec.scalars,
        "generated_in_s": round(time.monotonic() - t0, 1),
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return manifest


def live_file(run_dir: Path, fmt: str) -> Path:
    """The newest event file of a run (the one a writer would append to)."""
    pattern = "events.out.tfevents.*" if fmt == "tb" else "*summary*"
    files = sorted((p for p in run_dir.glob(pattern) if p.is_file() and not p.name.endswith("_lineage")),
                   key=lambda p: (p.stat().st_mtime, p.name))
    if not files:
        raise FileNotFoundError(f"no event file in {run_dir}")
    return files[-1]


def restore(out: Path, manifest: dict[str, Any], fmt: str) -> bool:
    """Cut what a benchmark appended to the first run's live file (`peers.py` appends there to time a flushed
    step) back off, so every measurement reads the corpus as generated. A run killed before it could undo its
    appends leaves them (and a stale step after the last one would make the next "visible" figure read 0 s).
    False when the corpus is not the generated one plus appends (then it is to be generated again)."""
    extra = directory_bytes(out) - int(manifest["bytes"])
    if extra == 0:
        return True
    live = live_file(out / manifest["runs"][0], fmt)
    size = live.stat().st_size
    if extra < 0 or extra >= size:
        return False
    with live.open("r+b") as f:
        f.truncate(size - extra)
    print(f"corpus {out.name}: cut {extra} appended bytes off {live.name}", file=sys.stderr)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kind", choices=list(KINDS), default="S")
    parser.add_argument("--format", dest="fmt", choices=["ms", "tb"], default="ms")
    parser.add_argument("--scale", type=int, default=1, help="multiply the steps per run (default 1)")
    parser.add_argument("--smoke", action="store_true", help="tiny corpus of the same shape, for CI")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--force", action="store_true", help="regenerate even if an identical corpus is there")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if args.scale < 1 or args.scale > 64:
        parser.error("--scale must be in 1..64")
    spec = spec_for(args.kind, args.scale, args.smoke)
    if not args.force and is_current(args.out, spec, args.fmt):
        manifest = read_manifest(args.out)
    else:
        manifest = generate(spec, args.fmt, args.out, quiet=args.quiet)
    print(json.dumps(manifest))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
