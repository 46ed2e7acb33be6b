"""Hostile dump `.npy` files (issue 29): crafted headers answer a clear 4xx for that tensor and a row marked with
its problem in the iteration's table (the other rows served), and a file truncated while it is being read never
takes the process down (it used to be memory-mapped: SIGBUS). Reads that could kill the process run in a child.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from tests.conftest import require_shared
from tests.integration.test_debugger_api import API, DUMP, DUMP_ID, make_client
from tests.integration.test_debugger_watchpoints import copy_dump

REPO = Path(__file__).resolve().parents[2]
WHERE = {"dump_id": DUMP_ID, "rank": 0, "graph_id": 0}
GOOD_ROWS = 195  # tensors of one iteration of the fixture dump
BIG_SHAPE = (12_288, 1024)  # float32, 48 MB: above npy_file.SMALL_FILE_BYTES (not read whole with its header)


def npy_bytes(header: str, data: bytes = b"", version: int = 2) -> bytes:
    """A .npy file with exactly this header text (not checked: crafted files are the point)."""
    magic = b"\x93NUMPY" + bytes([version, 0])
    width = 2 if version == 1 else 4
    text = header.encode("latin1")
    pad = -(len(magic) + width + len(text) + 1) % 64
    text += b" " * pad + b"\n"
    return magic + len(text).to_bytes(width, "little") + text + data


def header_text(descr: str, shape: str) -> str:
    return f"{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}"


CRAFTED = {  # op name -> file bytes
    "long-shape": npy_bytes(header_text("'<f4'", "(" + "1, " * 100_000 + ")"), b"\0" * 4),  # 300k characters
    "long-v1": npy_bytes(header_text("'<f4'", "(" + "1, " * 20_000 + ")"), b"\0" * 4, version=1),  # 20,000 dims
    "many-dims": npy_bytes(header_text("'<f4'", "(" + "1, " * 40 + ")"), b"\0" * 4, version=1),  # a short header
    "nested-record": npy_bytes(header_text("[('a', [('b', '<f4'), ('c', [('d', '<i2')])])]", "(2,)"), b"\0" * 12),
    "subarray": npy_bytes(header_text("[('a', '<f4', (3,))]", "(2,)"), b"\0" * 24),
    "object": npy_bytes(header_text("'|O'", "(1,)"), b"\x80\x04N."),
    "unicode": npy_bytes(header_text("'<U4'", "(2,)"), b"\0" * 32),
    "zero-and-huge": npy_bytes(header_text("'<f4'", f"(0, {2 ** 62}, {2 ** 62})")),
    "count-vs-size": npy_bytes(header_text("'<f4'", "(1000000000000,)"), b"\0" * 64),
}


def crafted_name(op: str) -> str:
    return f"Add.Default_crafted-{op}-Add-op1.0.0.1795510518100000.output.0.DefaultFormat.Float32.npy"


def iteration_dir(base: Path, iteration: int) -> Path:
    return base / "dump" / "lenet" / "rank_0" / "LeNet" / "0" / str(iteration)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_shared(DUMP)
    base = tmp_path_factory.mktemp("hostile-npy")
    copy_dump(base)
    for op, data in CRAFTED.items():
        (iteration_dir(base, 2) / crafted_name(op)).write_bytes(data)
    return base


@pytest.fixture(scope="module")
def client(base: Path) -> FlaskClient:
    return make_client(base, base.parent / (base.name + "-ws"))


def tensor_query(op: str, **extra: Any) -> dict[str, Any]:
    return {**WHERE, "iteration": 2, "op_name": f"Default_crafted-{op}-Add-op1", "io": "output", "slot": 0, **extra}


def test_crafted_headers_are_rows_with_a_problem_and_the_rest_is_served(base: Path, client: FlaskClient) -> None:
    response = client.get(f"{API}/tensors", query_string={**WHERE, "iteration": 2, "limit": 1000})
    assert response.status_code == 200, response.get_json()
    answer = response.get_json()
    assert answer["total"] == GOOD_ROWS + len(CRAFTED)
    by_file = {r["file"]: r for r in answer["tensors"]}
    for op in CRAFTED:
        bad = by_file[crafted_name(op)]
        assert bad["error"] and bad["count"] is None and bad["max"] is None, (op, bad)
        assert len(bad["error"]) < 300 and str(base) not in bad["error"], (op, bad["error"])
    good = [r for r in answer["tensors"] if not r["file"].startswith("Add.Default_crafted")]
    assert len(good) == GOOD_ROWS and all(r["error"] is None and r["count"] for r in good)
    errors = {op: by_file[crafted_name(op)]["error"] for op in CRAFTED}
    assert "dimensions" in errors["many-dims"] and "header" in errors["long-shape"] and "header" in errors["long-v1"]
    assert "object" in errors["object"] and "structured" in errors["nested-record"]
    assert "truncated" in errors["count-vs-size"]


@pytest.mark.parametrize("op", sorted(CRAFTED))
@pytest.mark.parametrize("detail", ["data", "histogram"])
def test_a_request_about_a_crafted_file_is_a_4xx(base: Path, client: FlaskClient, op: str, detail: str) -> None:
    response = client.get(f"{API}/tensor", query_string=tensor_query(op, detail=detail))
    body = response.get_json()
    assert response.status_code == 400, body
    assert body["error_code"] == "5054B286" and str(base) not in body["error_msg"] and len(body["error_msg"]) < 400


def test_compare_and_watchpoints_over_crafted_files(base: Path, client: FlaskClient) -> None:
    compare = client.get(f"{API}/tensor/compare", query_string={**tensor_query("nested-record"), "other_iteration": 3})
    assert compare.status_code in (400, 404), compare.get_json()
    check = client.post(f"{API}/watchpoints/check", json={"dump_id": DUMP_ID, "conditions": [{"id": "nan_or_inf"}],
                                                          "iterations": [2]})
    assert check.status_code == 200, check.get_json()
    assert check.get_json()["error_count"] == len(CRAFTED)


# ------------------------------------------------------------------------------ truncated while being read
CHILD_DIRECT = """
import os, sys
import numpy as np
from pathlib import Path
from mindinsight_clone.ingest.npy_file import NpyArray, NpyError, read_header
path = Path(sys.argv[1])
header, prefix = read_header(path, path.stat().st_size)
array = NpyArray(path, header, prefix)
chunks = array.chunks(1 << 20)
next(chunks)  # the read is under way
os.truncate(path, header.offset + 4096)
try:
    if sys.argv[2] == "window":
        array.window((slice(12000, 12010), slice(0, 10)))
    else:
        for chunk in chunks:
            float(np.asarray(chunk).sum())
except NpyError as exc:
    print(exc)
    sys.exit(0)
sys.exit(3)
"""


def run_child(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], cwd=REPO, capture_output=True,
                          text=True, timeout=120, check=False)


def write_big(path: Path) -> None:
    np.save(path, np.arange(np.prod(BIG_SHAPE), dtype=np.float32).reshape(BIG_SHAPE))


@pytest.mark.parametrize("read", ["chunks", "window"])
def test_a_file_truncated_under_a_read_is_an_error_not_a_crash(tmp_path: Path, read: str) -> None:
    path = tmp_path / "big.npy"
    write_big(path)
    child = run_child(CHILD_DIRECT, str(path), read)
    assert child.returncode != -signal.SIGBUS, "the process died of SIGBUS"
    assert child.returncode == 0, child.stderr
    assert "truncated" in child.stdout


CHILD_SERVER = """
import json, os, sys, threading, time
from pathlib import Path
from tests.integration.test_debugger_api import make_client
base, path = Path(sys.argv[1]), Path(sys.argv[2])
client = make_client(base, base.parent / "ws-child")
query = {"dump_id": "./dump/lenet", "rank": 0, "graph_id": 0, "iteration": 3, "op_name": "Default_big-MatMul-op9",
         "io": "output", "slot": 0}
table = client.get("/v1/mindinsight/debugger/tensors", query_string={**query, "search": "big"}).get_json()
assert table["tensors"][0]["error"] is None, table  # listed, header read, statistics computed
whole = path.read_bytes()
statuses = []
for attempt in range(2):
    path.write_bytes(whole)  # the listing (and the statistics it keys) is still the first one: the histogram reads
    answers = []  # the file again, chunk by chunk
    worker = threading.Thread(target=lambda: answers.append(client.get(
        "/v1/mindinsight/debugger/tensor", query_string={**query, "detail": "histogram"})))
    worker.start()
    time.sleep(0.01 * attempt)
    os.truncate(path, len(whole) // 3)
    worker.join()
    statuses.append(answers[0].status_code)
window = client.get("/v1/mindinsight/debugger/tensor", query_string={**query, "shape": "[12000:12010, 0:10]"})
print(json.dumps({"statuses": statuses, "window": window.status_code, "error": window.get_json()}))
"""

BIG_NAME = "MatMul.Default_big-MatMul-op9.0.0.1795510518999999.output.0.DefaultFormat.Float32.npy"


def test_the_server_survives_a_file_truncated_under_its_reads(tmp_path: Path) -> None:
    require_shared(DUMP)
    base = tmp_path / "base"
    copy_dump(base)
    path = iteration_dir(base, 3) / BIG_NAME
    write_big(path)
    child = run_child(CHILD_SERVER, str(base), str(path))
    assert child.returncode != -signal.SIGBUS, "the server process died of SIGBUS"
    assert child.returncode == 0, child.stderr[-3000:]
    answer = json.loads(child.stdout.strip().splitlines()[-1])
    assert set(answer["statuses"]) <= {200, 400} and 400 in answer["statuses"], answer
    assert answer["window"] == 400 and answer["error"]["error_code"] == "5054B286", answer
    assert str(base) not in json.dumps(answer)
