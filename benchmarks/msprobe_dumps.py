"""msprobe dump figures (issue 35) on a synthetic dump made from the real msprobe output in ../shared.

    python benchmarks/msprobe_dumps.py                                   # 100,000 nodes x 100 steps x 8 ranks
    python benchmarks/msprobe_dumps.py --nodes 20000 --steps 10 --ranks 2
    python benchmarks/msprobe_dumps.py --smoke                           # 300 nodes x 3 steps x 2 ranks, for CI

The target and bench dumps are made from `pair_target_ms_statistics` / `pair_bench_ms_statistics` (step 0, rank 0:
66 entries of a MindSpore 2.10 LeNet, msprobe 26.2): the entries are repeated with new call indices
(`Mint.sum.0.forward` -> `Mint.sum.<k>.forward`) up to `--nodes` per step and rank, written once as dump.json
(~660 bytes a node) and hard-linked into every step/rank folder (~0 disk), with construct.json. One file is a real
copy: rank 3 (or the last rank) from step 60 (or the middle step) on has a NaN planted in one node's output
statistics, which the first-anomaly search must find. Served in process through create_app (no HTTP), fresh
workspace.

Printed: time to list the dumps, to open one step/rank (first page of nodes: parses that dump.json), to find the
first NaN per rank (`msprobe/anomalies`; then again, warm), to chart one node across every step and across the ranks
(`msprobe/node`, cold: only that node's entry is decoded from each file), to evaluate watchpoint conditions on the
statistics (`msprobe/watch`: one step/rank, two steps of a rank, again with another condition, NaN/Inf at the planted
step on every rank), to compare target vs bench at one step (statistics mode, every row), and the peak RSS of the
process.

`--peer` also runs msprobe's own `msprobe compare` (mindstudio-probe 26.2, in its venv
~/.cache/mindinsight-clone-bench/msprobe-26.2, never in the project's) beside ours on the same two dumps, made the
same way from the real PyTorch dumps (`torch_lenet_statistics` vs `pair_bench_torch_statistics`, step 0): its
PyTorch comparer needs torch in that venv; its MindSpore comparer imports MindSpore, and MindSpore 2.7.0 from PyPI
(the newest with a wheel here) crashed at import there (numpy 1.26, `PyThreadState_Get: the GIL is released`).
msprobe's time is the command as a user runs it (interpreter start and imports included) writing its whole CSV;
ours a fresh app's answer with every row (both dumps parsed, compared, the rows as JSON).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import print_steps, timed
from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app

FIXTURE = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "msprobe"
API = "/v1/mindinsight/msprobe"
PEER = Path.home() / ".cache" / "mindinsight-clone-bench" / "msprobe-26.2" / "bin" / "msprobe"
_INDEX = re.compile(r"^(.*?)\.(\d+)\.(forward|backward)$")


def _grow(data: dict[str, Any], nodes: int) -> dict[str, Any]:
    """The entries repeated with new call indices up to `nodes` (Cell entries keep their names once)."""
    out: dict[str, Any] = {}
    api = [(k, v) for k, v in data.items() if _INDEX.match(k)]
    copy = 0
    while len(out) < nodes:
        for name, entry in api:
            m = _INDEX.match(name)
            assert m is not None
            out[f"{m.group(1)}.{int(m.group(2)) + copy * 1000}.{m.group(3)}"] = entry
            if len(out) >= nodes:
                break
        copy += 1
    return out


def _write(folder: Path, header: dict[str, Any], data: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "dump.json"
    path.write_text(json.dumps({**header, "data": data}))  # Python's json writes NaN bare, as msprobe does
    return path


def make_dumps(out: Path, nodes: int, steps: int, ranks: int) -> dict[str, Any]:
    """`out/target` and `out/bench`, `steps` x `ranks` each; returns where the NaN was planted."""
    made: dict[str, Any] = {}
    for side in ("target", "bench"):
        raw = json.loads((FIXTURE / f"pair_{side}_ms_statistics" / "step0" / "rank0" / "dump.json").read_text())
        header = {k: v for k, v in raw.items() if k != "data"}
        data = _grow(raw["data"], nodes)
        construct = {name: None for name in data}
        master = _write(out / side / "master", header, data)
        (master.parent / "construct.json").write_text(json.dumps(construct))
        bad_step, bad_rank = min(60, steps // 2), min(3, ranks - 1)
        planted = None
        if side == "target":
            victim = list(data)[len(data) // 2]
            bad = json.loads(json.dumps(data[victim]))
            bad["output"][0]["Mean"] = float("nan")
            planted = _write(out / side / "planted", header, {**data, victim: bad})
            made = {"node": victim, "step": bad_step, "rank": f"rank{bad_rank}"}
        for step in range(steps):
            for rank in range(ranks):
                folder = out / side / f"step{step}" / f"rank{rank}"
                folder.mkdir(parents=True, exist_ok=True)
                source = planted if planted is not None and rank == bad_rank and step >= bad_step else master
                for name, src in (("dump.json", source), ("construct.json", master.parent / "construct.json")):
                    os.link(src, folder / name)
    made["bytes"] = (out / "target" / "master" / "dump.json").stat().st_size
    return made


def run(base: Path, workspace: Path, planted: dict[str, Any], nodes: int) -> list[tuple[str, str, str]]:
    app = create_app(settings_for_tests(summary_base_dir=str(base), workspace=str(workspace), reload_interval=0),
                     start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    client = app.test_client()

    def get(path: str, **query: Any) -> Any:
        response = client.get(f"{API}{path}", query_string=query)
        assert response.status_code == 200, response.get_data(as_text=True)[:300]
        return response.get_json()

    rows: list[tuple[str, str, str]] = []
    seconds, dumps = timed(lambda: get("/dumps"))
    listed = {d["dump_id"]: d for d in dumps["dumps"]}
    target = next(d for d in listed if d.endswith("/target"))
    bench = next(d for d in listed if d.endswith("/bench"))
    rows.append(("list dumps", f"{seconds:.3f} s", f"{len(listed)} dumps, {len(listed[target]['steps'])} steps x "
                 f"{len(listed[target]['ranks'])} ranks each"))
    seconds, page = timed(lambda: get("/nodes", dump_id=target, step=0, rank="0", limit=100))
    assert page["total"] == nodes
    rows.append(("open one step/rank (first 100 nodes)", f"{seconds:.3f} s", f"parses a {nodes:,}-node dump.json"))
    seconds, _ = timed(lambda: get("/nodes", dump_id=target, step=0, rank="0", limit=100, offset=5000))
    rows.append(("the same, another page (cached)", f"{seconds:.3f} s", ""))
    seconds, first = timed(lambda: get("/anomalies", dump_id=target))
    hit = next((f for f in first["first"] if f["rank"] == planted["rank"]), None)
    assert hit is not None and hit["node"] == planted["node"] and hit["step"] == planted["step"], first
    rows.append(("first NaN of every rank", f"{seconds:.3f} s",
                 f"{planted['rank']} at step {planted['step']}: {planted['node']} (found)"))
    seconds, again = timed(lambda: get("/anomalies", dump_id=target))
    assert again["first"] == first["first"]
    rows.append(("the same search again", f"{seconds:.3f} s", "the clean files' pre-filter answers are kept"))
    steps = len(listed[target]["steps"])
    seconds, across = timed(lambda: get("/node", dump_id=target, name=planted["node"], rank=planted["rank"]))
    assert len(across["steps"]) == steps
    rows.append(("one node across every step of a rank (chart)", f"{seconds:.3f} s",
                 f"{steps} steps: its entry found by a byte scan and decoded alone, no file parsed"))
    seconds, ranks_answer = timed(lambda: get("/node", dump_id=target, name=planted["node"], across="ranks",
                                              step=planted["step"]))
    rows.append(("the same node across the ranks at one step", f"{seconds:.3f} s",
                 f"{len(ranks_answer['ranks'])} ranks"))
    rows += watch_rows(get, target, planted, nodes)
    body = {"target": {"dump_id": target, "step": 0, "rank": "0"}, "bench": {"dump_id": bench, "step": 0, "rank": "0"},
            "limit": 100_000}
    seconds, answer = timed(lambda: client.post(f"{API}/compare", json=body).get_json())
    rows.append(("compare target vs bench, one step (statistics)", f"{seconds:.3f} s",
                 f"{answer['total']:,} rows; {answer['counts']}"))
    seconds, page = timed(lambda: client.post(f"{API}/compare", json={**body, "limit": 1000, "offset": 5000,
                                                                        "result": "error"}).get_json())
    assert page["total"] == answer["counts"]["error"] and len(page["rows"]) == min(1000, max(0, page["total"] - 5000))
    rows.append(("another page of it (errors only, 1,000 rows)", f"{seconds:.3f} s", "the comparison is kept"))
    dumps = app.extensions["mindinsight_clone"].extras.get("msprobe-dumps")
    if dumps is not None and dumps.cache.store is not None:
        dumps.cache.store.flush()  # the statistics index is written in the background: done before the dir goes
    rows.append(("peak RSS of this process", f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB",
                 "app + parsed dumps (the parsed-file cache is bounded at 512 MB)"))
    return rows


def watch_rows(get: Any, target: str, planted: dict[str, Any], nodes: int) -> list[tuple[str, str, str]]:
    """Watchpoint conditions on the statistics (`msprobe/watch`): one step/rank, two steps, a warm re-check, the
    planted NaN across the ranks of its step."""
    rows: list[tuple[str, str, str]] = []
    seconds, answer = timed(lambda: get("/watch", dump_id=target, condition="too_large", max_gt=1, step=0, rank="0"))
    rows.append((f"watch too_large (max_gt=1), one step/rank of {nodes:,} nodes", f"{seconds:.3f} s",
                 f"{answer['total']:,} hits; its entries were parsed by the page above: statistics table only"))
    seconds, answer = timed(lambda: get("/watch", dump_id=target, condition="change_too_large", step=1, rank="0"))
    rows.append(("watch change_too_large, step 1 vs step 0 of a rank", f"{seconds:.3f} s",
                 f"{answer['total']:,} hits; parses step 1"))
    seconds, answer = timed(lambda: get("/watch", dump_id=target, condition="not_changed", step=1, rank="0",
                                        offset=1000, limit=100))
    rows.append(("the same two steps, not_changed (tables kept), a page", f"{seconds:.3f} s",
                 f"{answer['total']:,} hits"))
    seconds, answer = timed(lambda: get("/watch", dump_id=target, condition="nan_or_inf", step=planted["step"]))
    assert any(h["node"] == planted["node"] and h["rank"] == planted["rank"] for h in answer["hits"]), answer
    rows.append(("watch nan_or_inf at the planted step, every rank", f"{seconds:.3f} s",
                 f"{answer['total']:,} hits (found); the clean ranks' files are pre-filtered, not parsed"))
    return rows


def peer_compare(root: Path, workspace: Path, nodes: int) -> list[tuple[str, str, str]]:
    """msprobe compare and ours on the same two PyTorch dumps of `nodes` entries (see the module docstring)."""
    if not PEER.exists():
        return [("msprobe compare (peer)", "not run", f"no {PEER} (pip install mindstudio-probe torch there)")]
    paths = {}
    for side, source in (("target", "torch_lenet_statistics"), ("bench", "pair_bench_torch_statistics")):
        raw = json.loads(next((FIXTURE / source / "step0").glob("*/dump.json")).read_text())
        header = {k: v for k, v in raw.items() if k != "data"}
        paths[side] = _write(root / side / "step0" / "rank0", header, _grow(raw["data"], nodes))
    out = root / "peer-out"
    started = time.perf_counter()
    done = subprocess.run([str(PEER), "compare", "-tp", str(paths["target"]), "-gp", str(paths["bench"]), "-o",
                           str(out)], capture_output=True, text=True, check=False)
    peer_s = time.perf_counter() - started
    result = next(out.glob("compare_result*.csv"), None)
    if done.returncode != 0 or result is None:
        said = (done.stderr or done.stdout).strip().splitlines() or ["no output"]
        return [("msprobe compare (peer)", "failed", said[-1][:160])]
    with result.open(newline="") as handle:
        peer_rows = sum(1 for _ in csv.reader(handle)) - 1
    app = create_app(settings_for_tests(summary_base_dir=str(root), workspace=str(workspace), reload_interval=0),
                     start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    client = app.test_client()
    listed = [d["dump_id"] for d in client.get(f"{API}/dumps").get_json()["dumps"]]
    ids = {side: next(d for d in listed if d.endswith(f"/{side}")) for side in ("target", "bench")}
    body = {"target": {"dump_id": ids["target"], "step": 0}, "bench": {"dump_id": ids["bench"], "step": 0},
            "limit": 100_000}
    ours_s, answer = timed(lambda: client.post(f"{API}/compare", json=body).get_json())
    return [(f"msprobe compare 26.2, PyTorch dumps of {nodes:,} nodes (CLI, whole CSV)", f"{peer_s:.3f} s",
             f"{peer_rows:,} rows"),
            ("ours on the same dumps (fresh app: parse both, compare, up to 100,000 rows as JSON)",
             f"{ours_s:.3f} s", f"{answer['total']:,} rows; {answer['counts']}")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--smoke", action="store_true", help="300 nodes x 3 steps x 2 ranks")
    parser.add_argument("--peer", action="store_true", help="also run msprobe compare on PyTorch dumps (see above)")
    args = parser.parse_args()
    if not FIXTURE.exists():
        print(f"{FIXTURE} is absent: the benchmark makes its dumps from the real msprobe output")
        return 1
    nodes, steps, ranks = (300, 3, 2) if args.smoke else (args.nodes, args.steps, args.ranks)
    with tempfile.TemporaryDirectory() as tmp:
        made_s, planted = timed(lambda: make_dumps(Path(tmp) / "base", nodes, steps, ranks))
        rows = run(Path(tmp) / "base", Path(tmp) / "ws", planted, nodes)
        if args.peer:
            rows += peer_compare(Path(tmp) / "peer-base", Path(tmp) / "peer-ws", nodes)
    print(f"synthetic msprobe dumps: target and bench, {nodes:,} nodes x {steps} steps x {ranks} ranks each "
          f"(dump.json {planted['bytes'] / 1e6:.1f} MB, hard-linked; made in {made_s:.1f} s)")
    print_steps(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
