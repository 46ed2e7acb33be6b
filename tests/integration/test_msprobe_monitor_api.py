"""msprobe's training-state monitor CSV output through the trend routes (issue 35): listed by /files as kind
`monitor`, answered by /trend with a `.trend.db`'s shapes. A 2-rank output written as msprobe writes it
(tests/monitor_csv_writer.py, its source facts there); bad files skipped and said while the server keeps serving;
and, when msprobe 26.2 is installed in its bench venv, a real monitor run on CPU (torch, 2 ranks over gloo) read
from its CSVs equals our reading of the `.trend.db` that msprobe data2db makes of the same CSVs."""

from __future__ import annotations

import os
import signal
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.integration.test_debugger_api import make_client
from tests.monitor_csv_writer import ACTV_TARGETS, PARAM_TARGETS, value, write_rank

API = "/v1/mindinsight/msprobe"
MSPROBE_VENV = Path.home() / ".cache" / "mindinsight-clone-bench" / "msprobe-26.2"
METRICS = ["actv", "actv_grad", "exp_avg", "grad_reduced", "param_origin"]


def get(client: FlaskClient, path: str, status: int = 200, **query: Any) -> dict[str, Any]:
    response = client.get(f"{API}{path}", query_string=query)
    assert response.status_code == status, (path, query, response.get_data(as_text=True)[:300])
    body: dict[str, Any] = response.get_json()
    return body


def test_a_two_rank_monitor_output_is_listed_and_read_as_written(tmp_path: Path) -> None:
    out = tmp_path / "base" / "job" / "monitor_output"
    write_rank(out / "Nov29_15-30-13-rank1-a92afa50", 1, range(4), METRICS, nan_at=(2, "layers.1.output"))
    write_rank(out / "Nov29_15-30-14-rank0-e896a532", 0, range(4), METRICS)
    client = make_client(tmp_path / "base", tmp_path / "ws")
    files = get(client, "/files")["files"]
    assert [(f["file_id"], f["kind"]) for f in files] == [("./job/monitor_output", "monitor")]
    first = get(client, "/trend", file_id="./job/monitor_output")
    assert (first["kind"], first["metric"], first["rank"], first["stat"]) == ("monitor", "actv", 0, "norm")
    assert first["metrics"] == METRICS and first["ranks"] == [0, 1]
    for metric in METRICS:
        names = ACTV_TARGETS if metric in ("actv", "actv_grad") else PARAM_TARGETS
        for rank in (0, 1):
            for stat in ("norm", "max", "min", "mean", "zeros"):
                body = get(client, "/trend", file_id="./job/monitor_output", metric=metric, rank=rank, stat=stat)
                assert body["targets"] == names and body["steps"] == [0, 1, 2, 3]
                for i, name in enumerate(names):
                    nan = rank == 1 and name == "layers.1.output"
                    assert body["values"][i] == [None if nan and s >= 2 else value(metric, rank, i, s, stat)
                                                 for s in range(4)], (metric, rank, stat, name)
    assert "no metric" in get(client, "/trend", 400, file_id="./job/monitor_output", metric="exp_avg_sq")["error_msg"]
    assert get(client, "/trend", 400, file_id="./job/monitor_output", stat="median")["error_msg"]
    assert get(client, "/trend", 400, file_id="./job/nope")["error_code"]


def test_a_monitor_output_being_written_answers_what_is_there(tmp_path: Path) -> None:
    rank0 = tmp_path / "base" / "monitor_output" / "Nov29_15-30-14-rank0-e896a532"
    write_rank(rank0, 0, range(2), ["actv"])
    (rank0 / "actv_2-2.csv").write_text("vpp_stage,name,step,micro_step,norm,min,max,mean,zeros,nans,shape,dtype\n"
                                        "0,layers.0.input,2,0,1.5,-1.0,1.0,0.1,0.0,0,\"[4, 8]\",torch.float32\n"
                                        "0,layers.0.output,2,0,2.")  # its writer is at this row
    client = make_client(tmp_path / "base", tmp_path / "ws")
    body = get(client, "/trend", file_id="./monitor_output")
    assert body["steps"] == [0, 1, 2] and body["skipped_rows"] == 1
    assert body["values"][0] == [value("actv", 0, 0, 0, "norm"), value("actv", 0, 0, 1, "norm"), 1.5]
    assert body["values"][1][2] is None
    write_rank(rank0, 0, range(3, 4), ["actv", "grad_reduced"])  # more steps and a metric appear: read again
    later = get(client, "/trend", file_id="./monitor_output")
    assert later["steps"] == [0, 1, 2, 3] and later["metrics"] == ["actv", "grad_reduced"]


def test_bad_csvs_are_said_and_the_server_keeps_serving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mindinsight_clone.ingest import msprobe_monitor

    rank0 = write_rank(tmp_path / "base" / "mon" / "Nov29_15-30-14-rank0-e896a532", 0, range(3), ["actv"])
    (rank0 / "actv_1-1.csv").write_text("name,step,norm\nlayers.0.input,1,3\n")  # wrong header
    (rank0 / "actv_2-2.csv").write_bytes((rank0 / "actv_0-0.csv").read_bytes() * 50)  # big
    monkeypatch.setattr(msprobe_monitor, "MAX_FILE_BYTES", 4096)
    client = make_client(tmp_path / "base", tmp_path / "ws")
    body = get(client, "/trend", file_id="./mon")
    assert body["steps"] == [0]
    errors = {f["file"].rsplit("/", 1)[1]: f["error"] for f in body["skipped_files"]}
    assert "header" in errors["actv_1-1.csv"] and "above the 4096 bytes allowed" in errors["actv_2-2.csv"]
    assert get(client, "/files")["files"][0]["kind"] == "monitor"


# ------------------------------------------------------------------ a real msprobe run, and msprobe's data2db
RUN = textwrap.dedent("""
    import sys, torch, torch.distributed as dist
    dist.init_process_group("gloo")
    from msprobe.pytorch import TrainerMon
    rank = dist.get_rank()
    torch.manual_seed(rank)
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(2)])
            self.head = torch.nn.Linear(8, 2)
        def forward(self, x):
            for layer in self.layers:
                x = torch.relu(layer(x))
            return self.head(x)
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    mon = TrainerMon(sys.argv[1], params_have_main_grad=False)
    mon.set_monitor(model, grad_acc_steps=1, optimizer=opt)
    for step in range(4):
        x, y = torch.randn(4, 8), torch.randint(0, 2, (4,))
        if rank == 1 and step == 2:
            x[0, 0] = float("nan")
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        opt.zero_grad()
    dist.destroy_process_group()
""")
CONFIG = ('{"targets": {}, "format": "csv", "ops": ["norm", "min", "max", "mean", "zeros", "nans"], '
          '"xy_distribution": true, "all_xy": true, "wg_distribution": true, "mv_distribution": true, '
          '"param_distribution": true, "eps": 1e-8}')


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    """Run msprobe's command in a session of its own; on a timeout the whole group (torchrun's workers) is ended."""
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    assert proc.returncode == 0, out.decode(errors="replace")[-2000:]


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    python = MSPROBE_VENV / "bin" / "python"
    if not python.exists() or subprocess.run([str(python), "-c", "import msprobe, torch"],
                                             capture_output=True, timeout=120).returncode != 0:
        pytest.skip(f"msprobe 26.2 with torch is not installed in {MSPROBE_VENV} (benchmarks/README.md)")
    work = tmp_path_factory.mktemp("msprobe-monitor")
    base = work / "base"
    (work / "run.py").write_text(RUN)
    (work / "config.json").write_text(CONFIG)
    env = {**os.environ, "MONITOR_OUTPUT_DIR": str(base / "monitor_output"), "OMP_NUM_THREADS": "1"}
    _run([str(MSPROBE_VENV / "bin" / "torchrun"), "--standalone", "--nproc_per_node", "2", str(work / "run.py"),
          str(work / "config.json")], work, env)
    _run([str(MSPROBE_VENV / "bin" / "msprobe"), "data2db", "--data", str(base / "monitor_output"), "--db",
          str(base / "db"), "--format", "monitor", "--micro_step", "false"], work)
    return base


def test_real_monitor_csvs_read_as_msprobe_data2db_converts_them(real_run: Path, tmp_path: Path) -> None:
    client = make_client(real_run, tmp_path / "ws")
    kinds = {f["file_id"]: f["kind"] for f in get(client, "/files")["files"]}
    assert kinds == {"./monitor_output": "monitor", "./db/monitor_data.trend.db": "trend"}
    csvs = get(client, "/trend", file_id="./monitor_output")
    db = get(client, "/trend", file_id="./db/monitor_data.trend.db")
    assert csvs["metrics"] == db["metrics"] and len(csvs["metrics"]) >= 6
    assert csvs["ranks"] == db["ranks"] == [0, 1] and csvs["stats"] == db["stats"]
    nulls = 0
    for metric in csvs["metrics"]:
        for rank in (0, 1):
            for stat in csvs["stats"]:
                ours = get(client, "/trend", file_id="./monitor_output", metric=metric, rank=rank, stat=stat)
                theirs = get(client, "/trend", file_id="./db/monitor_data.trend.db", metric=metric, rank=rank,
                             stat=stat)
                assert ours["steps"] == theirs["steps"], (metric, rank)
                # data2db numbers its targets across metrics (its own order); the same cells either way
                mine = dict(zip(ours["targets"], ours["values"], strict=True))
                assert mine == dict(zip(theirs["targets"], theirs["values"], strict=True)), (metric, rank, stat)
                nulls += sum(v is None for row in ours["values"] for v in row)
    assert nulls  # rank 1's NaN from step 2 on is null on both sides


def test_a_tensorboard_format_monitor_folder_stays_a_run(tmp_path: Path) -> None:
    """`"format": "tensorboard"` writes event files into the same `<time>-rank<R>-<id>/` folders: a run, not CSVs."""
    folder = tmp_path / "base" / "monitor_output" / "Nov29_15-30-14-rank0-e896a532"
    folder.mkdir(parents=True)
    (folder / "events.out.tfevents.1764401414.host.1.0").write_bytes(b"")
    client = make_client(tmp_path / "base", tmp_path / "ws")
    assert get(client, "/files")["files"] == []


def test_found_at_mindinsights_depth_and_as_the_base_dir_itself(tmp_path: Path) -> None:
    """--max-depth 1 lists the base dir and its subfolders: `./monitor_output` is found from its listing (a rank
    folder probed), and a base dir that is the monitor output itself is `./`."""
    out = tmp_path / "base" / "monitor_output"
    write_rank(out / "Nov29_15-30-14-rank0-e896a532", 0, range(2), ["actv"])
    client = make_client(tmp_path / "base", tmp_path / "ws", max_depth=1)
    assert [(f["file_id"], f["kind"]) for f in get(client, "/files")["files"]] == [("./monitor_output", "monitor")]
    client = make_client(out, tmp_path / "ws2", max_depth=1)
    assert get(client, "/trend", file_id="./")["steps"] == [0, 1]
