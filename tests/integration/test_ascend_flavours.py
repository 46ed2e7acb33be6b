"""The Ascend views over rewritten copies of ../shared/fixtures/ascend (in tmp_path):

* the MindSpore `*_ascend_ms` flavour (Step ID, no Device_id, no Stream Ptr, ms_profiler_info.rank_id, `rank_N/`
  nesting, Block Num, no Preparing column, MindSpore memory components) gives the same answers;
* the torch_npu generation with a leading `Device_id` column, unknown extra columns and an older duplicate rank
  folder gives the same answers;
* broken input (missing file, truncated CSV / JSON, unknown or missing columns, non-numeric cells) makes that view
  say what is missing and why while every other view and rank still answers.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.conftest import require_shared
from tests.integration.test_ascend_profiler import API, ASCEND, JOBS, RANKS, get, make_client, output, search

VIEWS = ("step-trace-time", "communication", "memory-record")
MS_COMPONENTS = {"PTA": "MindSpore", "PTA+GE": "MindSpore+GE"}


def rewrite_csv(path: Path, header_map: dict[str, str | None], cell_map: Any = None, lead: list[str] | None = None,
                extra: list[str] | None = None) -> None:
    """Rename (or drop, with None) columns, optionally prepend/append columns, and transform cells."""
    with path.open(newline="") as handle:
        rows = list(csv.reader(handle))
    header = rows[0]
    keep = [i for i, name in enumerate(header) if header_map.get(name.strip(), name) is not None]
    out = []
    for n, row in enumerate(rows):
        cells = [row[i] for i in keep if i < len(row)]
        if n == 0:
            cells = [str(header_map.get(c.strip(), c)) for c in cells]
        elif cell_map is not None:
            cells = cell_map(cells)
        out.append((lead if n == 0 else ["0"] * len(lead or [])) + cells if lead else cells)
        if extra:
            out[-1] = out[-1] + (extra if n == 0 else ["x" * (n % 3)] * len(extra))
    with path.open("w", newline="") as handle:
        csv.writer(handle, lineterminator="\r\n").writerows(out)


def to_mindspore(job: str, dest: Path, folder: str = "profiler") -> None:
    """Write `job` as MindSpore >= 2.5 writes it: <folder>/rank_N/<host>_<pid>_<ts>_ascend_ms/ (MindFormers
    names the folder `profile`)."""
    for rank in RANKS:
        src = output(job, rank).parent
        session = dest / job / folder / f"rank_{rank}" / f"node1_{4200 + int(rank)}_20260101120000{rank}00_ascend_ms"
        shutil.copytree(src / "ASCEND_PROFILER_OUTPUT", session / "ASCEND_PROFILER_OUTPUT")
        for path in (session / "ASCEND_PROFILER_OUTPUT").iterdir():
            path.chmod(0o644)
        info = json.loads((src / f"profiler_info_{rank}.json").read_text())
        info.pop("rank_id")
        (session / f"profiler_info_{rank}.json").write_text(json.dumps({"ms_profiler_info": {"rank_id": int(rank)},
                                                                        "config": info["config"]}))
        out = session / "ASCEND_PROFILER_OUTPUT"
        rewrite_csv(out / "kernel_details.csv", {"Step Id": "Step ID", "Block Dim": "Block Num"})
        rewrite_csv(out / "step_trace_time.csv", {"Preparing": None})
        rewrite_csv(out / "memory_record.csv", {"Stream Ptr": None},
                    lambda cells: [MS_COMPONENTS.get(cells[0], cells[0]), *cells[1:]])
        rewrite_csv(out / "operator_memory.csv", {"Stream Ptr": None})


def with_device_id(job: str, dest: Path) -> None:
    """torch_npu's other header generation: a leading Device_id, plus unknown columns; and an older duplicate."""
    shutil.copytree(ASCEND / job, dest / job)
    for rank in RANKS:
        out = output(job, rank, dest)
        for path in [out, *out.iterdir()]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        rewrite_csv(out / "kernel_details.csv", {}, lead=["Device_id"], extra=["Future Metric(us)"])
        rewrite_csv(out / "step_trace_time.csv", {}, lead=["Device_id"])
    # an older profile of rank 0 beside the real one: the newest folder wins
    stale = dest / job / "profiler" / "old_rank0_ascend_pt"
    shutil.copytree(output(job, "0", dest).parent, stale)
    rewrite_csv(stale / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv", {},
                lambda cells: [cells[0], *["1.0"] * (len(cells) - 1)])
    old = 1_600_000_000
    os.utime(stale, (old, old))


def _answers(client: FlaskClient, job: str) -> dict[str, Any]:
    answers: dict[str, Any] = {"devices": get(client, "devices", job).get_json()["device_list"],
                               "cluster": get(client, "cluster-step-trace", job).get_json()}
    for rank in RANKS:
        for view in VIEWS:
            response = get(client, view, job, rank)
            answers[f"{view}/{rank}"] = (response.status_code, response.get_json())
        for op_type in ("aicore_type", "aicore_detail"):
            body = {"op_type": op_type, "device_id": rank, "sort_condition": {"name": "op_name" if "detail" in op_type
                                                                               else "op_type", "type": "ascending"}}
            answers[f"{op_type}/{rank}"] = search(client, job, body).get_json()
        summary = client.get(f"{API}/profile/timeline-summary?dir=./{job}&device_id={rank}").get_json()
        answers[f"timeline/{rank}"] = summary["num_of_events"]
    return answers


@pytest.fixture
def reference(tmp_path: Path) -> dict[str, dict[str, Any]]:
    require_shared(ASCEND)
    client = make_client(ASCEND, tmp_path)
    return {job: _answers(client, job) for job in JOBS}


def _drop_preparing(answer: Any) -> Any:
    if isinstance(answer, dict):
        return {k: (None if k == "preparing_us" else _drop_preparing(v)) for k, v in answer.items()}
    if isinstance(answer, (list, tuple)):
        return type(answer)(_drop_preparing(v) for v in answer)
    return answer


@pytest.mark.parametrize("job", JOBS)
def test_mindspore_flavour_gives_the_same_answers(tmp_path: Path, reference: dict[str, Any], job: str) -> None:
    to_mindspore(job, tmp_path / "ms")
    client = make_client(tmp_path / "ms", tmp_path)
    jobs = client.get(f"{API}/datavisual/train-jobs?offset=0&limit=10").get_json()["train_jobs"]
    assert [(j["train_id"], j["profiler_type"]) for j in jobs] == [(f"./{job}", "ascend")]
    mine, theirs = _answers(client, job), reference[job]
    assert set(mine) == set(theirs)
    for key, value in theirs.items():
        if key.startswith("memory-record"):
            status, body = value
            body = {**body, "series": {MS_COMPONENTS.get(c, c): s for c, s in body["series"].items()},
                    "points": {MS_COMPONENTS.get(c, c): n for c, n in body["points"].items()}}
            value = (status, body)
        if key.startswith(("step-trace-time", "cluster")):
            value = _drop_preparing(value)
        assert mine[key] == value, key


def test_mindformers_profile_folder_is_found(tmp_path: Path, reference: dict[str, Any]) -> None:
    """MindFormers writes `output/profile/rank_N/`: the `profile` folder is a profiler folder too."""
    job = JOBS[-1]
    to_mindspore(job, tmp_path / "mf", folder="profile")
    client = make_client(tmp_path / "mf", tmp_path)
    jobs = client.get(f"{API}/datavisual/train-jobs?offset=0&limit=10").get_json()["train_jobs"]
    assert [(j["train_id"], j["profiler_type"]) for j in jobs] == [(f"./{job}", "ascend")]
    devices = client.get(f"{API}/profile/devices?train_id=./{job}&profile=profile").get_json()["device_list"]
    assert devices == reference[job]["devices"]
    for rank in RANKS:
        query = f"train_id=./{job}&profile=profile&device_id={rank}"
        mine = client.get(f"{API}/profile/step-trace-time?{query}")
        status, body = reference[job][f"step-trace-time/{rank}"]
        assert (mine.status_code, mine.get_json()) == (status, _drop_preparing(body))


@pytest.mark.parametrize("job", JOBS)
def test_device_id_column_unknown_columns_and_stale_folder(tmp_path: Path, reference: dict[str, Any], job: str) -> None:
    with_device_id(job, tmp_path / "pt")
    client = make_client(tmp_path / "pt", tmp_path)
    assert _answers(client, job) == reference[job]


# --- broken input ------------------------------------------------------------------------------------------


@pytest.fixture
def broken(tmp_path: Path) -> tuple[Path, FlaskClient]:
    """A writable copy of the Level1 job; tests damage it, then ask."""
    require_shared(ASCEND)
    base = tmp_path / "base"
    shutil.copytree(ASCEND / "torch_npu_level1", base / "job")
    for path in (base / "job").rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return base / "job" / "profiler", make_client(base, tmp_path)


def _out(profiler: Path, rank: str) -> Path:
    return profiler / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"


def _others_answer(client: FlaskClient, skip: str) -> None:
    for rank in RANKS:
        for view in (*VIEWS, "aicore_type"):
            if f"{view}/{rank}" == skip:
                continue
            if view == "aicore_type":
                response = search(client, "job", {"op_type": "aicore_type", "device_id": rank})
            else:
                response = get(client, view, "job", rank)
            assert response.status_code == 200, f"{view}/{rank}"


def test_missing_step_trace_file(broken: tuple[Path, FlaskClient]) -> None:
    profiler, client = broken
    (_out(profiler, "1") / "step_trace_time.csv").unlink()
    response = get(client, "step-trace-time", "job", "1")
    assert response.status_code == 400
    assert response.get_json() == {"error_code": "50546084",
                                   "error_msg": "The file <step_trace_time.csv of rank 1> not found."}
    cluster = get(client, "cluster-step-trace", "job").get_json()
    assert [r["rank_id"] for r in cluster["ranks"]] == [0]
    assert cluster["problems"] == [{"rank_id": 1, "file": "step_trace_time.csv",
                                    "message": "The file <step_trace_time.csv of rank 1> not found."}]
    _others_answer(client, "step-trace-time/1")


def test_truncated_kernel_details_keeps_the_readable_rows(broken: tuple[Path, FlaskClient]) -> None:
    profiler, client = broken
    path = _out(profiler, "0") / "kernel_details.csv"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 3])  # cut inside the last row
    answer = search(client, "job", {"op_type": "aicore_detail", "device_id": "0"}).get_json()
    assert answer["size"] == len(lines) - 2  # header and the cut row are not kernels
    assert answer["problems"] == [{"file": "kernel_details.csv of rank 0",
                                   "message": "1 row(s) skipped: fewer cells than the header (truncated file?)"}]
    _others_answer(client, "")


def test_non_numeric_cells(broken: tuple[Path, FlaskClient]) -> None:
    profiler, client = broken
    rewrite_csv(_out(profiler, "1") / "step_trace_time.csv", {}, lambda cells: [cells[0], "fast", *cells[2:]])
    answer = get(client, "step-trace-time", "job", "1").get_json()
    assert answer["steps"] == []
    assert {"file": "step_trace_time.csv of rank 1", "message": "1 row(s) skipped: non-numeric time"} in answer["problems"]
    rewrite_csv(_out(profiler, "0") / "kernel_details.csv", {},
                lambda cells: [cells[0], *cells[1:9], "soon" if cells[4].startswith("trans") else cells[9], *cells[10:]])
    answer = search(client, "job", {"op_type": "aicore_detail", "device_id": "0"}).get_json()
    with (_out(profiler, "0") / "kernel_details.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert answer["size"] == sum(not r["Name"].startswith("trans") for r in rows)
    messages = [p["message"] for p in answer["problems"]]
    assert f"{answer_skipped(rows)} row(s) skipped: no numeric start time or duration" in messages
    assert f"{answer_skipped(rows)} non-numeric cell(s) in 'Duration(us)' read as absent" in messages
    _others_answer(client, "step-trace-time/1")


def answer_skipped(rows: list[dict[str, str]]) -> int:
    return sum(r["Name"].startswith("trans") for r in rows)


def test_missing_required_column(broken: tuple[Path, FlaskClient]) -> None:
    profiler, client = broken
    rewrite_csv(_out(profiler, "0") / "kernel_details.csv", {"Duration(us)": None})
    (_out(profiler, "0") / "op_statistic.csv").unlink()  # so aicore_type falls back to kernel_details.csv
    for op_type in ("aicore_detail", "aicore_type"):
        response = search(client, "job", {"op_type": op_type, "device_id": "0"})
        assert response.status_code == 400
        assert response.get_json() == {"error_code": "50546087", "error_msg": (
            "Raw file error. <kernel_details.csv of rank 0> lacks the column(s) Duration(us).")}
    assert search(client, "job", {"op_type": "aicore_detail", "device_id": "1"}).status_code == 200
    _others_answer(client, "aicore_type/0")


def test_truncated_communication_json(broken: tuple[Path, FlaskClient]) -> None:
    profiler, client = broken
    path = _out(profiler, "0") / "communication.json"
    path.write_bytes(path.read_bytes()[:1000])
    response = get(client, "communication", "job", "0")
    assert response.status_code == 400
    body = response.get_json()
    assert body["error_code"] == "50546087"
    assert body["error_msg"].startswith("Raw file error. <communication.json of rank 0> is not valid JSON (truncated?)")
    (_out(profiler, "1") / "communication_matrix.json").write_text("[1, 2")
    answer = get(client, "communication", "job", "1").get_json()
    assert len(answer["ops"]) == 4 and answer["matrix"] == []
    assert answer["problems"][0]["file"] == "communication_matrix.json of rank 1"
    _others_answer(client, "communication/0")


def test_truncated_trace_view(broken: tuple[Path, FlaskClient]) -> None:
    profiler, client = broken
    path = _out(profiler, "0") / "trace_view.json"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    kept = json.loads(data)
    summary = client.get(f"{API}/profile/timeline-summary?dir=./job&device_id=0").get_json()
    assert 0 < summary["num_of_events"] < len(kept)
    assert "truncated" in summary["problems"][0]["message"]
    events = client.get(f"{API}/profile/timeline?dir=./job&device_id=0").get_json()
    assert len(events) == summary["num_of_events"]
    assert client.get(f"{API}/profile/timeline-summary?dir=./job&device_id=1").get_json()["num_of_events"] > 0
    _others_answer(client, "")


def test_unknown_rank_and_bad_parameters(broken: tuple[Path, FlaskClient]) -> None:
    _, client = broken
    response = get(client, "memory-record", "job", "7")
    assert response.status_code == 400
    assert response.get_json()["error_msg"] == "The file <ASCEND_PROFILER_OUTPUT of rank 7> (ranks: 0, 1) not found."
    assert get(client, "step-trace-time", "job", "x").get_json()["error_code"] == "50540001"
    assert get(client, "memory-record", "job", "0", max_points=0).get_json()["error_code"] == "50546080"
    assert get(client, "cluster-step-trace", "../etc").status_code == 400
