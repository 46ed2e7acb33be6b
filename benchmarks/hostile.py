"""What one small hostile file costs the server (issue 29): wall time, CPU and peak memory of the process that serves it.

    python benchmarks/hostile.py                          # this checkout
    python benchmarks/hostile.py --before /tmp/before     # and another checkout side by side (e.g. a worktree of
                                                          # the commit before the fixes: git worktree add /tmp/before X)
    python benchmarks/hostile.py --smoke                  # small files, short limits (what CI's smoke test runs)

Each case runs in a fresh Python process importing the code under test (`--code`/`--before` come first on
sys.path) through `create_app`, as the gunicorn worker does: the base dir is made with the project's own
writers, the trigger (a request, or the load itself for a file that is a bomb to parse) runs in a thread given at
most `--limit` seconds, and the case prints the answer's status, the trigger's wall and CPU time, and how much
the process's peak RSS grew over what it was before the trigger. After the trigger a normal request must still
answer ("alive"). A case whose trigger is still running at the limit is reported as such (the thread is stuck or
still working; the process is then killed).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
API = "/v1/mindinsight"
CASES = ("fifo", "devzero", "deep_ir", "fill_complex", "fill_string", "sqlite_join", "text_compare")


# ---------------------------------------------------------------------------------------------- the bombs
def _projector_run(base: Path) -> tuple[str, str]:
    from mindinsight_clone.summary.tfevents_writer import TfeventsWriter

    run = base / "run"
    TfeventsWriter(run, timestamp=1_760_000_000, host="h").close()
    (run / "projector_config.pbtxt").write_text(
        'embeddings { tensor_name: "e" tensor_path: "x.tsv" '
        'sprite { image_path: "x.png" single_image_dim: 2 single_image_dim: 2 } }\n')
    return "./run", f"{API}/datavisual/embeddings?train_id=./run"


def _embedding(client: Any) -> Any:
    return client.get(f"{API}/datavisual/embedding?train_id=./run&tag=e")


def make_fifo(base: Path, size: int) -> tuple[Callable[[], None], Callable[[Any], Any]]:
    _projector_run(base)
    return (lambda: os.mkfifo(base / "run" / "x.tsv")), _embedding


def make_devzero(base: Path, size: int) -> tuple[Callable[[], None], Callable[[Any], Any]]:
    _projector_run(base)
    return (lambda: os.symlink("/dev/zero", base / "run" / "x.tsv")), _embedding


def make_deep_ir(base: Path, size: int) -> tuple[Callable[[], None], Callable[[Any], Any]]:
    deep = "/".join(f"s{i}" for i in range(size)) + "/Conv2D-op0"
    (base / "models").mkdir(parents=True)
    (base / "models" / "deep.ir").write_text(
        "# IR entry: @g\nsubgraph @g() {\n  %0(x) = Conv2D(%para1_w) {instance name: c}\n"
        "      : (<Tensor[Float32], (1)>) -> (<Tensor[Float32], (1)>)\n"
        f"      # Fullname with scope: ({deep})\n  Return(%0)\n}}\n")
    return (lambda: None), lambda c: c.get(f"{API}/models/graph/nodes", query_string={"model_id": "./models/deep.ir"})


def _fill_run(base: Path, tag: str, plugin: str, dtype: int, dims: list[int], field: str, values: list[Any]) -> None:
    from mindinsight_clone.ingest.record_reader import frame_record
    from mindinsight_clone.proto import tb_event_pb2

    bomb = tb_event_pb2.Event(wall_time=1.0, step=1)
    value = bomb.summary.value.add(tag=tag)
    value.metadata.plugin_data.plugin_name = plugin
    value.tensor.dtype = dtype  # type: ignore[assignment]
    for dim in dims:
        value.tensor.tensor_shape.dim.add(size=dim)
    getattr(value.tensor, field).extend(values)
    records = [tb_event_pb2.Event(wall_time=1.0, file_version="brain.Event:2"), bomb]
    for step, loss in ((0, 0.5), (2, 0.25)):
        event = tb_event_pb2.Event(wall_time=1.0 + step, step=step)
        event.summary.value.add(tag="loss", simple_value=loss)
        records.append(event)
    run = base / "run"
    run.mkdir(parents=True)
    (run / "events.out.tfevents.0000000001.h").write_bytes(b"".join(frame_record(r.SerializeToString()) for r in records))


def _loss(client: Any) -> Any:
    return client.get(f"{API}/datavisual/scalars?train_id=./run&tag=loss")


def make_fill_complex(base: Path, size: int) -> tuple[Callable[[], None], Callable[[Any], Any]]:
    from mindinsight_clone.proto import tb_types_pb2

    _fill_run(base, "c", "scalars", tb_types_pb2.DT_COMPLEX128, [size], "dcomplex_val", [1.0, 2.0])
    return (lambda: None), _loss  # the bomb is the load itself: see run_case


def make_fill_string(base: Path, size: int) -> tuple[Callable[[], None], Callable[[Any], Any]]:
    from mindinsight_clone.proto import tb_types_pb2

    side = int(size ** 0.5)
    _fill_run(base, "s", "text", tb_types_pb2.DT_STRING, [side, side], "string_val", [b"x"])
    return (lambda: None), _loss


def make_sqlite_join(base: Path, size: int) -> tuple[Callable[[], None], Callable[[Any], Any]]:
    from mindinsight_clone.summary.ascend_db_profile import write_ascend_db_job

    job = base / "job"
    write_ascend_db_job(job, ranks=1, steps=3, kernels_per_step=size)
    db = next(job.rglob("ascend_pytorch_profiler_0.db"))
    con = sqlite3.connect(db)  # COMPUTE_TASK_INFO without its key, every row on one globalTaskId
    con.executescript(
        "CREATE TABLE c2 AS SELECT * FROM COMPUTE_TASK_INFO; DROP TABLE COMPUTE_TASK_INFO; "
        "ALTER TABLE c2 RENAME TO COMPUTE_TASK_INFO; "
        "UPDATE TASK SET globalTaskId = 0 WHERE globalTaskId IN (SELECT globalTaskId FROM COMPUTE_TASK_INFO); "
        "UPDATE COMPUTE_TASK_INFO SET globalTaskId = 0; VACUUM;")
    con.close()
    query = "train_id=./job&profile=profiler&device_id=0"
    return (lambda: None), lambda c: c.get(f"{API}/profile/operator-details?{query}")


def make_text_compare(base: Path, size: int) -> tuple[Callable[[], None], Callable[[Any], Any]]:
    from mindinsight_clone.summary.tfevents_writer import TfeventsWriter

    tags, chars = 290, size  # MindFormers' str(dict) configs, one per tag
    for run in ("a", "b"):
        with TfeventsWriter(base / run, timestamp=1_760_000_000, host="h") as writer:
            for tag in range(tags):
                items: list[str] = []
                while sum(map(len, items)) + 2 * len(items) < chars - 40:  # the literal stays about `chars` long
                    items.append(f"'k{len(items)}': [{len(items)}, 0.5, None]")
                writer.add_text(f"cfg{tag}", "{" + ", ".join(items) + ("}" if run == "a" else ", 'z': 1}"), 1)
    return (lambda: None), lambda c: c.post(f"{API}/datavisual/text/compare", json={"train_ids": ["./a", "./b"]})


MAKERS: dict[str, Callable[[Path, int], tuple[Callable[[], None], Callable[[Any], Any]]]] = {
    "fifo": make_fifo, "devzero": make_devzero, "deep_ir": make_deep_ir, "fill_complex": make_fill_complex,
    "fill_string": make_fill_string, "sqlite_join": make_sqlite_join, "text_compare": make_text_compare,
}
SIZES = {  # full, smoke
    "fifo": (0, 0), "devzero": (0, 0), "deep_ir": (10_000, 500), "fill_complex": (100_000_000, 1_000_000),
    "fill_string": (25_000_000, 250_000), "sqlite_join": (3_000, 200), "text_compare": (30_000, 2_000),
}
WHAT = {
    "fifo": "projector tsv is a FIFO: GET embedding",
    "devzero": "projector tsv -> /dev/zero: GET embedding",
    "deep_ir": "one op under N scope levels (.ir): graph/nodes",
    "fill_complex": "tfevents complex128 'fill' of N elements: load",
    "fill_string": "tfevents string 'fill' of N elements: load",
    "sqlite_join": "Ascend .db, N kernels/step on one globalTaskId: operator-details",
    "text_compare": "290 tags x N-char str(dict), 2 runs: text/compare",
}
LOAD_CASES = ("fill_complex", "fill_string")


# ---------------------------------------------------------------------------------------------- one case, in a child
def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_case(case: str, size: int, limit: float) -> dict[str, Any]:
    from mindinsight_clone.config import settings_for_tests
    from mindinsight_clone.server.app import create_app

    root = Path(tempfile.mkdtemp(prefix="hostile-"))
    base = root / "base"
    base.mkdir()
    arm, trigger = MAKERS[case](base, size)
    app = create_app(settings_for_tests(summary_base_dir=str(base), workspace=str(root / "ws"), max_depth=4,
                                        reload_interval=0), start_background=False)
    manager = app.extensions["mindinsight_clone"].data_manager
    client = app.test_client()
    if case not in LOAD_CASES:
        manager.reload()
        client.get(f"{API}/datavisual/embeddings?train_id=./run")  # a projector config is parsed before it turns bad
    arm()
    answer: list[Any] = []

    def work() -> None:
        if case in LOAD_CASES:
            manager.reload()
        answer.append(trigger(client))

    rss0 = _rss_mb()
    wall0, cpu0 = time.monotonic(), time.process_time()
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(limit)
    out: dict[str, Any] = {"case": case, "size": size, "wall_s": time.monotonic() - wall0,
                           "cpu_s": time.process_time() - cpu0, "rss_growth_mb": _rss_mb() - rss0,
                           "peak_rss_mb": _rss_mb()}
    if answer:
        out["status"] = answer[0].status_code
        out["answer"] = answer[0].get_data(as_text=True)[:100]
    else:
        out["status"] = f"no answer in {limit:g} s"
    if case == "text_compare" and answer:  # the second request of the same comparison
        wall1 = time.monotonic()
        again = trigger(client)
        out["second_wall_s"] = time.monotonic() - wall1
        out["second_status"] = again.status_code
        out["incomplete"] = bool(answer[0].get_json().get("incomplete"))
    probe: list[Any] = []
    alive = threading.Thread(target=lambda: probe.append(client.get(f"{API}/datavisual/train-jobs")), daemon=True)
    alive.start()
    alive.join(5)
    out["alive"] = bool(probe) and probe[0].status_code == 200
    return out


# ---------------------------------------------------------------------------------------------- the table
def measure(code: Path, case: str, size: int, limit: float) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(code))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", case, "--size", str(size), "--limit", str(limit)]
    try:
        proc = subprocess.run(cmd, env=env, cwd=code, capture_output=True, text=True, timeout=limit + 300)
    except subprocess.TimeoutExpired:
        return {"case": case, "status": "child timed out"}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            result: dict[str, Any] = json.loads(line)
            return result
    return {"case": case, "status": f"child failed (exit {proc.returncode}): {proc.stderr.strip()[-200:]}"}


def cell(result: dict[str, Any]) -> str:
    if "wall_s" not in result:
        return str(result.get("status"))
    text = f"{result['status']}  {result['wall_s']:.2f} s  cpu {result['cpu_s']:.2f} s  +{result['rss_growth_mb']:.0f} MB"
    if "second_wall_s" in result:
        text += f"  (2nd {result['second_wall_s']:.2f} s{', 1st incomplete' if result.get('incomplete') else ''})"
    return text + ("" if result.get("alive") else "  NOT ANSWERING")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--code", type=Path, default=ROOT, help="checkout under test (default: this one)")
    parser.add_argument("--before", type=Path, help="another checkout measured the same way, side by side")
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--limit", type=float, default=30.0, help="seconds a trigger may run")
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = run_case(args.child, args.size, args.limit)
        print(json.dumps(result), flush=True)
        os._exit(0)  # a stuck trigger thread must not keep the child alive
    sys.path.insert(0, str(ROOT))
    from benchmarks.common import load_average

    limit = 5.0 if args.smoke else args.limit
    trees = [("this", args.code)] + ([("before", args.before)] if args.before else [])
    print(f"# hostile files: cost of one trigger per case (limit {limit:g} s); load {load_average()}")
    for name, tree in trees:
        print(f"#   {name}: {tree}")
    for case in args.cases.split(","):
        size = SIZES[case][1 if args.smoke else 0]
        print(f"\n{case} ({WHAT[case].replace('N', f'{size:,}')})")
        for name, tree in trees:
            print(f"  {name:7} {cell(measure(tree, case, size, limit))}", flush=True)
    print(f"\nload after: {load_average()}")


if __name__ == "__main__":
    main()
