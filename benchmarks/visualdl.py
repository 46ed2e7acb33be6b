"""VisualDL logs vs TensorBoard event files holding the same scalars: time for our loader to read them all.

    python benchmarks/visualdl.py              # corpus S's shape: 12 runs x 2,500 steps x 20 scalars, 3 rounds
    python benchmarks/visualdl.py --smoke      # tiny

Both corpora are written here (VisualDL's framing with our compiled `vdl_record_pb2`, one `add_scalar` record
per value as VisualDL's LogWriter writes; TensorBoard files with `summary.tfevents_writer`). Each round: a fresh
`create_app` over one corpus, `DataManager.reload()` plus every run's cache, then one tag's points served per run
(checked complete). Prints seconds per round for each format, alternating formats.
"""

from __future__ import annotations

import argparse
import struct
import tempfile
import time
from pathlib import Path

import numpy as np

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.proto import vdl_record_pb2
from mindinsight_clone.server.app import create_app
from mindinsight_clone.summary.tfevents_writer import TfeventsWriter

Record = vdl_record_pb2.Record
T0 = 1_750_000_000


def write(base: Path, runs: int, steps: int, tags: int) -> None:
    values = np.random.default_rng(0).random((steps, tags)).astype(np.float32)
    for run in range(runs):
        folder = base / "vdl" / f"run{run}"
        folder.mkdir(parents=True)
        out = bytearray()
        for step in range(steps):
            for tag in range(tags):
                payload = Record(values=[Record.Value(id=step, tag=f"tag{tag}", timestamp=T0 * 1000 + step,
                                                      value=float(values[step, tag]))]).SerializeToString()
                out += struct.pack("<Q", len(payload)) + payload
        (folder / f"vdlrecords.{T0}.log").write_bytes(out)
        writer = TfeventsWriter(base / "tb" / f"run{run}", timestamp=T0)
        for step in range(steps):
            for tag in range(tags):
                writer.add_scalar(f"tag{tag}", float(values[step, tag]), step, wall_time=T0 + step / 1000)
        writer.close()


def load_once(base: Path, kind: str, runs: int, steps: int, workspace: Path) -> float:
    app = create_app(settings_for_tests(summary_base_dir=str(base / kind), workspace=str(workspace),
                                        reload_interval=0), start_background=False)
    manager = app.extensions["mindinsight_clone"].data_manager
    start = time.perf_counter()
    manager.reload()
    client = app.test_client()
    for run in range(runs):
        manager.run_cache(f"./run{run}")
        body = client.get(f"/v1/mindinsight/datavisual/scalar/metadata?train_id=./run{run}&tag=tag0/scalar")
        assert len(body.get_json()["metadatas"]) == min(steps, 1000)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--steps", type=int, default=2500)
    parser.add_argument("--tags", type=int, default=20)
    parser.add_argument("-n", "--rounds", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="2 runs x 50 steps x 3 tags, 1 round")
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.steps, args.tags, args.rounds = 2, 50, 3, 1
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        write(base, args.runs, args.steps, args.tags)
        times: dict[str, list[float]] = {"tb": [], "vdl": []}
        for i in range(args.rounds):
            for kind in times:
                times[kind].append(load_once(base, kind, args.runs, args.steps, base / f"ws_{kind}_{i}"))
        print(f"{args.runs} runs x {args.steps} steps x {args.tags} scalars")
        print("| format | seconds per round | median |")
        print("|---|---|---|")
        for kind, label in (("tb", "TensorBoard event files"), ("vdl", "VisualDL logs")):
            rounds = ", ".join(f"{t:.2f}" for t in times[kind])
            print(f"| {label} | {rounds} | {float(np.median(times[kind])):.2f} |")


if __name__ == "__main__":
    main()
