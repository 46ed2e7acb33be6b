"""Jobs built at test time (in tmp, from copies of ../shared/fixtures/ascend_db and ../shared/fixtures/ascend; the
profiler never follows symlinks, so the fixtures are copied): a job mixing database and text ranks, a rank holding
both exports, and broken databases (truncated, not SQLite, a table or a column missing, locked by a writer, a WAL
database being written). Expected numbers are read from the files with sqlite3 / csv here.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from tests.conftest import SHARED, require_shared
from tests.integration.test_ascend_db import (
    ASCEND_DB,
    STEP_COLUMNS,
    expected_steps,
    idle_gaps,
    link_gbps,
    op_type_totals,
    query,
    rank_gbps,
)
from tests.integration.test_ascend_profiler import API, STEP_FIELDS, get, make_client, read_csv, search

ASCEND_TEXT = SHARED / "fixtures" / "ascend"
CLUSTER_REFERENCE = SHARED / "reference" / "ascend" / "cluster_analysis_output"
# msprof-analyze's cluster_analysis.db tables (its TablesConfig), as the job of database exports gets them
CLUSTER_TABLES = {
    "ClusterStepTraceTime": "step TEXT, type TEXT, [index] TEXT, computing NUMERIC, communication_not_overlapped "
                            "NUMERIC, overlapped NUMERIC, communication NUMERIC, free NUMERIC, stage NUMERIC, "
                            "bubble NUMERIC, communication_not_overlapped_and_exclude_receive NUMERIC, preparing NUMERIC, "
                            "dp_index INTEGER, pp_index INTEGER, tp_index INTEGER",
    "CommunicationGroup": "type TEXT, rank_set TEXT, group_name TEXT, group_id TEXT, pg_name TEXT",
    "ClusterCommAnalyzerTime": "rank_set TEXT, step TEXT, rank_id INTEGER, hccl_op_name TEXT, group_name TEXT, "
                               "start_timestamp NUMERIC, elapsed_time NUMERIC, transit_time NUMERIC, wait_time NUMERIC, "
                               "synchronization_time NUMERIC, idle_time NUMERIC, synchronization_time_ratio NUMERIC, "
                               "wait_time_ratio NUMERIC",
}


def copy_rank(profiler: Path, source_job: Path, rank: str, *, extra_text: Path | None = None) -> Path:
    """Copy one rank folder of a fixture job into `profiler/`; returns its ASCEND_PROFILER_OUTPUT."""
    source = next((source_job / "profiler").glob(f"*/profiler_info_{rank}.json")).parent
    target = profiler / source.name
    shutil.copytree(source, target, copy_function=shutil.copyfile)
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    out = target / "ASCEND_PROFILER_OUTPUT"
    if extra_text is not None:  # the text export of another collection beside the database export
        for path in extra_text.iterdir():
            shutil.copyfile(path, out / path.name)
    return out


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_shared(ASCEND_DB)
    require_shared(ASCEND_TEXT)
    root = tmp_path_factory.mktemp("ascend_db_jobs")
    db_job, text_job = ASCEND_DB / "torch_npu_db_level1", ASCEND_TEXT / "torch_npu_level1"
    copy_rank(root / "mixed" / "profiler", db_job, "0")
    copy_rank(root / "mixed" / "profiler", text_job, "1")
    text_out = next((text_job / "profiler").glob("*/profiler_info_0.json")).parent / "ASCEND_PROFILER_OUTPUT"
    copy_rank(root / "both" / "profiler", db_job, "0", extra_text=text_out)
    for job in ("truncated", "garbage", "no_table", "no_column", "locked", "wal", "no_host"):
        for rank in ("0", "1"):
            copy_rank(root / job / "profiler", db_job, rank)
    rank0 = "profiler/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT"
    db = root / "truncated" / rank0 / "ascend_pytorch_profiler_0.db"
    db.write_bytes(db.read_bytes()[: db.stat().st_size // 2])
    (root / "garbage" / rank0 / "analysis.db").write_bytes(b"these are not the bytes of a database\n" * 300)
    with sqlite3.connect(root / "no_table" / rank0 / "ascend_pytorch_profiler_0.db") as con:
        con.execute("DROP TABLE COMPUTE_TASK_INFO")
    with sqlite3.connect(root / "no_column" / rank0 / "ascend_pytorch_profiler_0.db") as con:
        con.execute("ALTER TABLE TASK DROP COLUMN streamId")
    with sqlite3.connect(root / "no_host" / rank0 / "ascend_pytorch_profiler_0.db") as con:
        for table in ("PYTORCH_API", "CANN_API", "NPU_MODULE_MEM"):  # no CPU activity, no CANN layer, no memory
            con.execute(f"DROP TABLE {table}")
    con = sqlite3.connect(root / "wal" / rank0 / "ascend_pytorch_profiler_0.db")
    con.execute("PRAGMA journal_mode=WAL")
    con.close()  # the last connection checkpoints: no -wal left, the header says WAL
    for rank in ("0", "1"):  # MindSpore's names and MindFormers' layout: rank_N/<host>_<pid>_<ts>_ascend_ms/
        out = copy_rank(root / "mindspore" / "profiler" / f"rank_{rank}", db_job, rank)
        (out / f"ascend_pytorch_profiler_{rank}.db").rename(out / f"ascend_mindspore_profiler_{rank}.db")
        (out / "analysis.db").rename(out / "communication_analyzer.db")
        out.parent.rename(out.parent.with_name(f"node0_{3000 + int(rank)}_20260101120000000_ascend_ms"))
    _advise_job(root / "advise" / "profiler", db_job)
    if CLUSTER_REFERENCE.exists():
        for job in ("cluster_db", "cluster_text"):
            copy_rank(root / job / "profiler", db_job, "0")
        shutil.copytree(CLUSTER_REFERENCE, root / "cluster_text/profiler/cluster_analysis_output",
                        copy_function=shutil.copyfile)
        _cluster_db(root / "cluster_db/profiler/cluster_analysis_output")
    return root


GAP_NS = 200_000_000  # the shift that opens a device gap in rank 1 of the `advise` job
AICPU_NS = 500_000  # the AI CPU kernel made in rank 2


def _advise_job(profiler: Path, db_job: Path) -> None:
    """Four database ranks (the fixture's two, twice) altered so that each advisor rule has something to find:
    rank 3 ends every all-reduce 10x sooner (the one the others waited for), rank 2 runs a 500 µs kernel on the AI
    CPU, rank 1 idles 200 ms mid-step and moves HCCS data 3x slower, rank 0's 0→1 link is 10x slower."""
    for rank, source in (("0", "0"), ("1", "1"), ("2", "0"), ("3", "1")):
        out = copy_rank(profiler / f"rank_{rank}", db_job, source)
        if rank != source:
            (out.parent / f"profiler_info_{source}.json").rename(out.parent / f"profiler_info_{rank}.json")
            (out / f"ascend_pytorch_profiler_{source}.db").rename(out / f"ascend_pytorch_profiler_{rank}.db")

    def edit(rank: str, name: str, *statements: str) -> None:
        out = next(profiler.glob(f"rank_{rank}/*/ASCEND_PROFILER_OUTPUT"))
        with sqlite3.connect(out / name) as con:
            for sql in statements:
                con.execute(sql)

    edit("3", "analysis.db", "UPDATE CommAnalyzerTime SET elapse_time = elapse_time * 0.1")
    edit("2", "analysis.db", "UPDATE CommAnalyzerTime SET elapse_time = elapse_time * 1.01")
    edit("2", "ascend_pytorch_profiler_2.db",
         "INSERT INTO STRING_IDS VALUES ((SELECT MAX(id) + 1 FROM STRING_IDS), 'AI_CPU')",
         "CREATE TEMP TABLE pick AS SELECT MIN(globalTaskId) AS gid FROM COMPUTE_TASK_INFO",
         "UPDATE COMPUTE_TASK_INFO SET taskType = (SELECT id FROM STRING_IDS WHERE value = 'AI_CPU') "
         "WHERE globalTaskId = (SELECT gid FROM pick)",
         f"UPDATE TASK SET endNs = startNs + {AICPU_NS} WHERE globalTaskId = (SELECT gid FROM pick)")
    middle = ("(SELECT startNs FROM TASK WHERE globalTaskId IN (SELECT globalTaskId FROM COMPUTE_TASK_INFO) "
              "ORDER BY startNs LIMIT 1 OFFSET 90)")
    edit("1", "ascend_pytorch_profiler_1.db", f"CREATE TEMP TABLE cut AS SELECT {middle} AS ns",
         f"UPDATE TASK SET startNs = startNs + {GAP_NS}, endNs = endNs + {GAP_NS} WHERE startNs >= (SELECT ns FROM cut)",
         f"UPDATE COMMUNICATION_OP SET startNs = startNs + {GAP_NS}, endNs = endNs + {GAP_NS} "
         "WHERE startNs >= (SELECT ns FROM cut)")
    edit("1", "analysis.db", "UPDATE CommAnalyzerBandwidth SET transit_time = transit_time * 3, "
                             "bandwidth = bandwidth / 3 WHERE transport_type = 'HCCS'")
    edit("0", "analysis.db", "UPDATE CommAnalyzerMatrix SET transit_time = transit_time * 10, bandwidth = bandwidth / 10 "
                             "WHERE src_rank = '0' AND dst_rank = '1' AND hccl_op_name LIKE '%-total'")


def _cluster_db(folder: Path) -> None:
    """cluster_analysis.db with the reference output's step trace and groups, and two communication ops."""
    folder.mkdir(parents=True)
    con = sqlite3.connect(folder / "cluster_analysis.db")
    for table, columns in CLUSTER_TABLES.items():
        con.execute(f"CREATE TABLE {table} ({columns})")
    for row in read_csv(CLUSTER_REFERENCE / "cluster_step_trace_time.csv"):
        con.execute("INSERT INTO ClusterStepTraceTime VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 0, 0, 0)",
                    [row["Step"], row["Type"], row["Index"], *(float(row[h]) for h in list(STEP_FIELDS.values())[:8])])
    groups = json.loads((CLUSTER_REFERENCE / "communication_group.json").read_text())
    for kind, sets in groups.items():
        for i, ranks in enumerate(sets):
            con.execute("INSERT INTO CommunicationGroup VALUES (?, ?, ?, ?, ?)",
                        (kind, "(" + ", ".join(map(str, ranks)) + ")", f"{kind}-{i}", str(i), ""))
    con.executemany("INSERT INTO ClusterCommAnalyzerTime VALUES ('(0, 1)', 'step2', ?, ?, 'p2p-0', 1.0e15, ?, ?, ?, "
                    "?, ?, 0, 0)", [(0, "hcom_send__1", 2.0, 1.5, 0.5, 0.25, 0.0),
                                    (1, "hcom_receive__1", 3.0, 1.0, 1.0, 0.0, 1.0)])
    con.commit()
    con.close()


@pytest.fixture(scope="module")
def client(base: Path, tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    return make_client(base, tmp_path_factory.mktemp("ws"))


def error(response: object) -> tuple[int, str, str]:
    body = response.get_json()  # type: ignore[attr-defined]
    return response.status_code, body.get("error_code", ""), body.get("error_msg", "")  # type: ignore[attr-defined]


def text_output(rank: str) -> Path:
    job = ASCEND_TEXT / "torch_npu_level1"
    return next((job / "profiler").glob(f"*/profiler_info_{rank}.json")).parent / "ASCEND_PROFILER_OUTPUT"


# --- mixed exports -------------------------------------------------------------------------------


def test_mixed_job_cluster_combines_db_and_text_ranks(client: FlaskClient) -> None:
    jobs = {j["train_id"]: j["profiler_type"] for j in client.get(f"{API}/datavisual/train-jobs?offset=0&limit=100").get_json()
            ["train_jobs"]}
    assert jobs["./mixed"] == "ascend" and jobs["./both"] == "ascend"
    assert get(client, "devices", "mixed").get_json()["device_list"] == ["0", "1"]
    answer = get(client, "cluster-step-trace", "mixed").get_json()
    assert "problems" not in answer
    db_step = expected_steps("torch_npu_db_level1", "0")[0]
    text_row = read_csv(text_output("1") / "step_trace_time.csv")[0]
    rank0, rank1 = answer["ranks"]
    assert (rank0["rank_id"], rank1["rank_id"]) == (0, 1)
    assert {k: rank0[k] for k in STEP_COLUMNS} == pytest.approx({k: db_step[k] for k in STEP_COLUMNS})
    assert {k: rank1[k] for k in STEP_FIELDS} == pytest.approx({k: float(text_row[h]) for k, h in STEP_FIELDS.items()})
    sources = [search(client, "mixed", {"op_type": "aicore_type", "device_id": r}).get_json()["source"]
               for r in ("0", "1")]
    assert sources == ["ascend_pytorch_profiler_0.db", "op_statistic.csv"]
    for rank in ("0", "1"):
        for view in ("communication", "memory-record", "step-trace-time", "operator-details", "api-statistic",
                     "npu-module-mem", "overview"):
            response = get(client, view, "mixed", rank)
            assert response.status_code == 200 and "problems" not in response.get_json(), (view, rank)
        source = get(client, "operator-details", "mixed", rank).get_json()["source"]
        assert source == ("PYTORCH_API in ascend_pytorch_profiler_0.db" if rank == "0" else "operator_details.csv")
        summary = client.get(f"{API}/profile/timeline-summary?dir=./mixed&device_id={rank}").get_json()
        assert summary["num_of_events"] > 1000


def test_a_rank_with_both_exports_is_read_from_the_database(client: FlaskClient) -> None:
    steps = get(client, "step-trace-time", "both", "0").get_json()["steps"]
    assert steps == [pytest.approx(expected_steps("torch_npu_db_level1", "0")[0])]
    csv_value = float(read_csv(text_output("0") / "step_trace_time.csv")[0]["Computing"])
    assert steps[0]["computing_us"] != pytest.approx(csv_value)  # two collections: the numbers differ
    answer = search(client, "both", {"op_type": "aicore_type", "device_id": "0"}).get_json()
    assert answer["source"] == "ascend_pytorch_profiler_0.db"


def test_mindspore_names_and_layout(client: FlaskClient) -> None:
    assert get(client, "devices", "mindspore").get_json()["device_list"] == ["0", "1"]
    steps = get(client, "step-trace-time", "mindspore", "1").get_json()["steps"]
    assert steps == [pytest.approx(expected_steps("torch_npu_db_level1", "1")[0])]
    answer = get(client, "communication", "mindspore", "0").get_json()
    assert len(answer["ops"]) == 4 and "problems" not in answer
    assert search(client, "mindspore", {"op_type": "aicore_type", "device_id": "1"}).get_json()["source"] == \
        "ascend_mindspore_profiler_1.db"


# --- broken databases ----------------------------------------------------------------------------


def test_truncated_database_is_named_and_the_rest_answers(client: FlaskClient) -> None:
    status, code, message = error(search(client, "truncated", {"op_type": "aicore_detail", "device_id": "0"}))
    assert (status, code) == (400, "50546087")
    assert "ascend_pytorch_profiler_0.db of rank 0" in message and "truncated" in message
    assert error(get(client, "memory-record", "truncated", "0"))[:2] == (400, "50546087")
    assert client.get(f"{API}/profile/timeline-summary?dir=./truncated&device_id=0").status_code == 400
    assert get(client, "step-trace-time", "truncated", "0").status_code == 200  # analysis.db is whole
    assert search(client, "truncated", {"op_type": "aicore_detail", "device_id": "1"}).status_code == 200
    assert len(get(client, "cluster-step-trace", "truncated").get_json()["ranks"]) == 2


def test_non_sqlite_analysis_db_leaves_the_rank_out_of_the_cluster(client: FlaskClient) -> None:
    status, code, message = error(get(client, "step-trace-time", "garbage", "0"))
    assert (status, code) == (400, "50546087")
    assert "analysis.db of rank 0" in message and "not a SQLite database" in message
    answer = get(client, "cluster-step-trace", "garbage").get_json()
    assert [r["rank_id"] for r in answer["ranks"]] == [1]
    assert answer["problems"][0]["rank_id"] == 0 and "not a SQLite database" in answer["problems"][0]["message"]
    assert search(client, "garbage", {"op_type": "aicore_type", "device_id": "0"}).status_code == 200


def test_missing_table_and_missing_column(client: FlaskClient) -> None:
    status, code, message = error(search(client, "no_table", {"op_type": "aicore_type", "device_id": "0"}))
    assert (status, code) == (400, "50546084")
    assert "COMPUTE_TASK_INFO in ascend_pytorch_profiler_0.db of rank 0" in message
    assert get(client, "memory-record", "no_table", "0").status_code == 200
    status, code, message = error(search(client, "no_column", {"op_type": "aicore_detail", "device_id": "0"}))
    assert (status, code) == (400, "50546087")
    assert "ascend_pytorch_profiler_0.db of rank 0" in message and "streamId of table TASK" in message
    assert get(client, "communication", "no_column", "0").status_code == 200


def test_absent_tables_answer_as_absent_files(client: FlaskClient) -> None:
    """A database without PYTORCH_API / CANN_API / NPU_MODULE_MEM answers those views as the text export answers a
    missing file (50546084 naming what is missing and when it is written); the rest of the rank answers."""
    for view, table, why in (("operator-details", "PYTORCH_API", "CPU activities"),
                             ("api-statistic", "CANN_API", "CANN layer"),
                             ("npu-module-mem", "NPU_MODULE_MEM", "profile_memory=True")):
        status, code, message = error(get(client, view, "no_host", "0"))
        assert (status, code) == (400, "50546084"), view
        assert f"<{table} in ascend_pytorch_profiler_0.db of rank 0>" in message and why in message, message
        assert get(client, view, "no_host", "1").status_code == 200, view
    for view in ("overview", "memory-record", "step-trace-time", "communication"):
        answer = get(client, view, "no_host", "0")
        assert answer.status_code == 200 and "problems" not in answer.get_json(), view
    assert get(client, "advice", "no_host").get_json()["rules"][0]["status"] in ("ok", "found")


@pytest.fixture
def writer(base: Path) -> Iterator[sqlite3.Connection]:
    """A writer holding the exclusive lock of rank 0's database in the `locked` job (as a profiler writing it)."""
    con = sqlite3.connect(base / "locked/profiler/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db",
                          isolation_level=None)
    con.execute("BEGIN EXCLUSIVE")
    con.execute("DELETE FROM ACC_PMU")
    yield con
    con.execute("ROLLBACK")
    con.close()


def test_locked_database_answers_locked_then_reads_once_free(client: FlaskClient, base: Path,
                                                             writer: sqlite3.Connection) -> None:
    status, code, message = error(search(client, "locked", {"op_type": "aicore_type", "device_id": "0"}))
    assert (status, code) == (400, "50546087")
    assert "ascend_pytorch_profiler_0.db of rank 0" in message and "locked" in message
    assert search(client, "locked", {"op_type": "aicore_type", "device_id": "1"}).status_code == 200
    writer.execute("ROLLBACK")
    writer.execute("BEGIN")  # the fixture's ROLLBACK needs an open transaction
    answer = search(client, "locked", {"op_type": "aicore_type", "device_id": "0"})
    assert answer.status_code == 200 and answer.get_json()["size"] > 10  # the error was not cached


def test_wal_database_is_read_without_creating_files_and_refused_while_written(client: FlaskClient,
                                                                               base: Path) -> None:
    out = base / "wal/profiler/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT"
    db = out / "ascend_pytorch_profiler_0.db"
    assert db.read_bytes()[18:20] == b"\x02\x02"  # WAL in the header
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN")
    writer.execute("DELETE FROM ACC_PMU")  # a write in progress: the -wal file exists
    try:
        assert (out / f"{db.name}-wal").exists()
        status, code, message = error(get(client, "memory-record", "wal", "0"))
        assert (status, code) == (400, "50546087") and "being written" in message
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    before = sorted(p.name for p in out.iterdir())
    assert before == ["analysis.db", "ascend_pytorch_profiler_0.db"]
    answer = get(client, "memory-record", "wal", "0")
    assert answer.status_code == 200 and answer.get_json()["peak_reserved_mb"] > 0
    assert sorted(p.name for p in out.iterdir()) == before  # no -shm / -wal made by the reader


def test_cluster_analysis_db_answers_as_the_text_output(client: FlaskClient) -> None:
    require_shared(CLUSTER_REFERENCE)
    from_db = get(client, "cluster-analysis", "cluster_db").get_json()
    from_text = get(client, "cluster-analysis", "cluster_text").get_json()
    assert from_db["available"]
    assert [p["message"] for p in from_db["problems"]] == [  # the only table the test database lacks
        "The file <ClusterCommAnalyzerMatrix in cluster_analysis.db> not found."]
    assert from_db["step_trace"] == from_text["step_trace"]
    rows = read_csv(CLUSTER_REFERENCE / "cluster_step_trace_time.csv")
    assert [(r["step"], r["type"], r["index"]) for r in from_db["step_trace"]] == \
        [(int(r["Step"]), r["Type"], int(r["Index"]) if r["Index"].isdigit() else r["Index"]) for r in rows]
    assert from_db["communication_group"] == json.loads((CLUSTER_REFERENCE / "communication_group.json").read_text())
    send, receive = from_db["communication"]
    assert (send["name"], send["rank_id"], send["step"], send["type"], send["group"]) == \
        ("hcom_send__1", 0, 2, "p2p", "p2p-0")
    assert (send["elapse_time_ms"], send["wait_time_ratio"]) == (2.0, round(0.5 / (0.5 + 1.5), 4))
    assert receive["synchronization_time_ratio"] == 0.0 and receive["idle_time_ms"] == 1.0
    assert from_db["matrix"] == []


# --- the advisor and compare on database ranks ---------------------------------------------------------------


def _advise_output(base: Path, rank: str) -> Path:
    return next((base / "advise" / "profiler").glob(f"rank_{rank}/*/ASCEND_PROFILER_OUTPUT"))


def test_every_advisor_rule_fires_on_database_ranks(client: FlaskClient, base: Path) -> None:
    answer = get(client, "advice", "advise").get_json()
    assert "problems" not in answer and answer["ranks"] == [0, 1, 2, 3]
    findings = {f["id"]: f for f in answer["findings"]}
    assert {r["id"]: r["status"] for r in answer["rules"]} == {
        "slow_rank_step": "ok", "slow_rank_vote": "found", "slow_link": "found", "low_bandwidth": "found",
        "free_time": "found", "aicpu": "found", "dispatch_gap": "found"}
    vote = findings["slow_rank_vote"]
    assert vote["ranks"] == [3] and vote["evidence"]["votes"] == [{"rank_id": 3, "votes": 4}]
    analysis = [_advise_output(base, r) / "analysis.db" for r in ("0", "1", "2", "3")]
    links = link_gbps(analysis)
    means = {t: sum(v for k, v in links.items() if k[2] == t) / sum(k[2] == t for k in links) for *_, t in links}
    slow = {(s, d): round(v, 4) for (s, d, t), v in links.items() if v < 0.8 * means[t]}
    assert {(r["src"], r["dst"]): r["gbps"] for r in findings["slow_link"]["evidence"]["rows"]} == slow
    assert (0, 1) in slow
    low = findings["low_bandwidth"]["evidence"]["rows"]
    assert [(r["rank_id"], r["transport"], r["cause"]) for r in low] == [(1, "HCCS", "small packets")]
    assert low[0]["gbps"] == pytest.approx(round(rank_gbps(analysis[1])["HCCS"], 4))
    kernel = query(_advise_output(base, "2") / "ascend_pytorch_profiler_2.db",
                   "SELECT o.value FROM COMPUTE_TASK_INFO c JOIN STRING_IDS o ON o.id = c.opType "
                   "JOIN STRING_IDS k ON k.id = c.taskType WHERE k.value = 'AI_CPU'")
    aicpu = findings["aicpu"]["evidence"]["rows"]
    assert [(r["rank_id"], r["op_type"], r["count"], r["total_us"]) for r in aicpu] == \
        [(2, kernel[0][0], 1, AICPU_NS / 1000)]
    gaps = findings["dispatch_gap"]
    share, longest = idle_gaps(_advise_output(base, "1") / "ascend_pytorch_profiler_1.db")
    assert gaps["ranks"] == [1] and gaps["severity"] == "high"
    assert gaps["evidence"]["rows"][0]["share"] == pytest.approx(share, abs=1e-4) and share > 0.25
    assert gaps["evidence"]["rows"][0]["longest_us"] == pytest.approx(longest / 1000, abs=0.5)  # µs on the epoch
    assert longest > 100_000_000


def test_compare_a_database_rank_with_a_text_rank(client: FlaskClient) -> None:
    answer = get(client, "compare", "mixed", "0", base_device_id="1").get_json()
    assert "problems" not in answer
    mine = op_type_totals("torch_npu_db_level1", "0")
    theirs: dict[str, list[float]] = {}
    for row in read_csv(text_output("1") / "op_statistic.csv"):
        acc = theirs.setdefault(row["OP Type"], [0, 0.0])
        acc[0] += int(row["Count"])
        acc[1] += float(row["Total Time(us)"])
    got = {r["op_type"]: r for r in answer["op_types"]}
    assert set(got) == set(mine) | set(theirs)
    for name, row in got.items():
        count, total = mine.get(name, (0, 0.0))
        base_count, base_total = theirs.get(name, (0, 0.0))
        assert (row["count"], row["base_count"]) == (count, base_count)
        assert (row["total_us"], row["base_total_us"]) == pytest.approx((total, base_total), abs=1e-3)
    text_row = read_csv(text_output("1") / "step_trace_time.csv")[0]
    db_step = expected_steps("torch_npu_db_level1", "0")[0]
    assert answer["steps"]["computing_us"] == {"value": pytest.approx(db_step["computing_us"]),
                                               "base": pytest.approx(float(text_row["Computing"])),
                                               "diff": pytest.approx(db_step["computing_us"]
                                                                     - float(text_row["Computing"]), abs=1e-3)}
