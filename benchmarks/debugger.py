"""Debugger figures on a synthetic MindSpore dump of 100,000 tensors over 100 iterations.

    python benchmarks/debugger.py                      # 100 iterations x 1,000 tensors (hard links, ~0 disk)
    python benchmarks/debugger.py --copy               # real copies (~1.9 GB written; first reads from disk)
    python benchmarks/debugger.py --smoke              # 3 x 60, for CI

The dump is made from the real tensors of ../shared/fixtures/mindspore_debug (graph 0, iteration 0 of the LeNet
dump: 195 .npy files, 4 KB on average, up to 190 KB): each iteration folder holds 1,000 tensor files named as
MindSpore names them (the fixture's op names, with higher `-op<N>` numbers for the copies, timestamps in order), hard-linked to the
fixture files (or copied), plus the fixture's `.dump_metadata/`, `graphs/` and `execution_order/`. From iteration
60 on, one tensor per iteration holds a NaN (a real file). Served in process through create_app (no HTTP), with a
fresh workspace, so "cold" means no statistics computed yet (files may still be in the page cache: with hard links
they are, which isolates our own cost from the disk's).

Printed: the discovery scan, `debugger/dumps` (the iterations of every graph), one iteration's tensor table (1,000
rows with statistics) cold and warm, `watchpoints/check` with nan_or_inf over every tensor cold, warm, and after a
restart (statistics read back from the workspace), and the peak RSS of the process. MindInsight's offline debugger
cannot be measured beside it: it needs MindSpore's DbgServices, which MindSpore 2.4 deleted.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from benchmarks.common import print_steps, timed
from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app

FIXTURE = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "mindspore_debug" / "dump" / "lenet"
API = "/v1/mindinsight/debugger"
NAN_FROM = 60


def make_dump(out: Path, iterations: int, per_iteration: int, copy: bool) -> dict[str, Any]:
    """The synthetic dump under `out/dump/rank_0` (reused when its manifest says the same shape)."""
    manifest = out / "manifest.json"
    wanted = {"iterations": iterations, "per_iteration": per_iteration, "copy": copy}
    if manifest.exists() and json.loads(manifest.read_text()) == wanted:
        return wanted
    if out.exists():
        shutil.rmtree(out)
    source = FIXTURE / "rank_0"
    rank = out / "dump" / "rank_0"
    for side in (".dump_metadata", "graphs", "execution_order"):
        shutil.copytree(source / side, rank / side, copy_function=shutil.copyfile)
    files = sorted((source / "LeNet" / "0" / "0").glob("*.npy"))
    place = shutil.copyfile if copy else os.link
    for iteration in range(iterations):
        folder = rank / "LeNet" / "0" / str(iteration)
        folder.mkdir(parents=True)
        stamp = 1_800_000_000_000_000 + iteration * 10_000_000
        for k in range(per_iteration):
            src = files[k % len(files)]
            parts = src.name[:-4].split(".")
            copy_index = k // len(files)
            if copy_index:  # another kernel of the same scope and type: a higher -op<N> (names stay < 255 bytes)
                head, _, number = parts[1].rpartition("-op")
                parts[1] = f"{head}-op{int(number) + 100 * copy_index}" if number.isdigit() else f"{parts[1]}{k}"
            parts[4] = str(stamp + k)
            target = folder / (".".join(parts) + ".npy")
            if iteration >= NAN_FROM and k == 7:
                array = np.load(src)
                array.reshape(-1)[0] = np.nan
                np.save(target, array)
            else:
                place(src, target)
    manifest.write_text(json.dumps(wanted))
    return wanted


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(base: Path, workspace: Path, iterations: int, per_iteration: int) -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []

    def app() -> Any:
        created = create_app(settings_for_tests(summary_base_dir=str(base), workspace=str(workspace),
                                                reload_interval=0), start_background=False)
        return created

    first = app()
    seconds, _ = timed(first.extensions["mindinsight_clone"].data_manager.reload)
    rows.append(("discovery scan (dump root found, rank folders not entered)", f"{seconds * 1000:,.1f} ms", ""))
    client = first.test_client()
    seconds, dumps = timed(lambda: client.get(f"{API}/dumps").get_json())
    listed = dumps["dumps"][0]["graphs"][0]["iterations"]
    assert len(listed) == iterations, dumps
    rows.append(("debugger/dumps: iterations listed, cold", f"{seconds * 1000:,.1f} ms", f"{len(listed)} iterations"))
    seconds, _ = timed(lambda: client.get(f"{API}/dumps").get_json())
    rows.append(("debugger/dumps, warm (listings kept 1 s)", f"{seconds * 1000:,.1f} ms", ""))
    query = {"dump_id": "./dump", "rank": 0, "graph_id": 0, "iteration": iterations // 2, "limit": per_iteration}
    seconds, table = timed(lambda: client.get(f"{API}/tensors", query_string=query).get_json())
    assert table["total"] == per_iteration and all(r["count"] is not None for r in table["tensors"])
    rows.append(("tensor table of one iteration, cold (statistics computed)", f"{seconds * 1000:,.1f} ms",
                 f"{per_iteration:,} rows"))
    seconds, _ = timed(lambda: client.get(f"{API}/tensors", query_string=query).get_json())
    rows.append(("tensor table of one iteration, warm (statistics cached)", f"{seconds * 1000:,.1f} ms", ""))
    body = {"dump_id": "./dump", "conditions": [{"id": "nan_or_inf"}]}
    total = iterations * per_iteration
    seconds, check = timed(lambda: client.post(f"{API}/watchpoints/check", json=body).get_json())
    assert check["checked_tensors"] == total and check["hit_count"] == max(0, iterations - NAN_FROM), check
    rows.append(("nan_or_inf over every tensor, cold", f"{seconds:,.2f} s",
                 f"{total:,} tensors, {total / seconds:,.0f}/s, {check['hit_count']} hits"))
    seconds, _ = timed(lambda: client.post(f"{API}/watchpoints/check", json=body).get_json())
    rows.append(("nan_or_inf over every tensor, warm", f"{seconds:,.2f} s", f"{total / seconds:,.0f}/s"))
    first.extensions["mindinsight_clone"].extras["debugger"].close()
    second = app()
    second.extensions["mindinsight_clone"].data_manager.reload()
    restarted = second.test_client()
    seconds, again = timed(lambda: restarted.post(f"{API}/watchpoints/check", json=body).get_json())
    assert again["hit_count"] == check["hit_count"]
    rows.append(("nan_or_inf after a restart (statistics from the workspace)", f"{seconds:,.2f} s",
                 f"{total / seconds:,.0f}/s"))
    rows.append(("peak RSS of this process", f"{peak_rss_mb():,.0f} MB", "data + app + numpy"))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--per-iteration", type=int, default=1000)
    parser.add_argument("--copy", action="store_true", help="copy the tensor files instead of hard-linking them")
    parser.add_argument("--data", type=Path, default=Path.home() / ".cache" / "mindinsight-clone-bench" / "debugger")
    parser.add_argument("--smoke", action="store_true", help="3 iterations x 60 tensors in a temp dir")
    args = parser.parse_args()
    if not FIXTURE.exists():
        print(f"{FIXTURE} is absent: the benchmark makes its dump from the real fixture tensors")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data" if args.smoke else args.data
        iterations, per_iteration = (3, 60) if args.smoke else (args.iterations, args.per_iteration)
        made, shape = timed(lambda: make_dump(data, iterations, per_iteration, args.copy))
        rows = run(data, Path(tmp) / "ws", iterations, per_iteration)
    print(f"synthetic dump: {iterations} iterations x {per_iteration:,} tensors = {iterations * per_iteration:,} "
          f"files ({'copies' if shape['copy'] else 'hard links'} of the fixture's tensors; made in {made:.1f} s)")
    print_steps(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
