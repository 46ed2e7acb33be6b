"""Graph endpoints through create_app over the reference corpus, checked against MindInsight's goldens.

Every captured graph request (nodes, nodes/names, single-node, nodes/all; normal and optimize; errors
242-253) is replayed and its status and JSON body compared with MindInsight 2.3.1's answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.ingest.event_parser import parse_summary_records
from mindinsight_clone.ingest.record_reader import read_all
from mindinsight_clone.proto import anf_ir_pb2
from mindinsight_clone.server.app import create_app
from mindinsight_clone.server.services import EXTENSION_KEY
from tests.conftest import REFERENCE, require_shared

GOLDEN = REFERENCE / "golden"
CORPUS = REFERENCE / "corpus"
API = "/v1/mindinsight/datavisual/graphs"


def _golden_cases() -> list[Path]:
    if not GOLDEN.exists():
        return []
    cases = []
    for path in sorted(GOLDEN.glob("[0-9][0-9][0-9]_*.json")):
        data = json.loads(path.read_text())
        if isinstance(data, dict) and "/datavisual/graphs/" in data.get("request", ""):
            cases.append(path)
    return cases


def _client(base: Path, tmp_path: Path) -> FlaskClient:
    app = create_app(settings_for_tests(summary_base_dir=str(base), workspace=str(tmp_path / "ws")),
                     start_background=False)
    app.extensions[EXTENSION_KEY].data_manager.reload()
    return app.test_client()


@pytest.fixture(scope="module")
def corpus_client(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    require_shared(CORPUS)
    return _client(CORPUS, tmp_path_factory.mktemp("graphs"))


CASES = _golden_cases()


def test_the_graph_goldens_are_there() -> None:
    require_shared(GOLDEN)
    names = {p.name[:3] for p in CASES}
    assert {"067", "068", "069", "070", "244", "245", "248", "249", "250", "251", "252", "253"} <= names
    assert len(CASES) >= 70


@pytest.mark.parametrize("golden", CASES, ids=[p.stem for p in CASES])
def test_matches_mindinsight(corpus_client: FlaskClient, golden: Path) -> None:
    expected = json.loads(golden.read_text())
    response = corpus_client.get(expected["path"])
    assert response.status_code == expected["status"]
    assert response.get_json() == expected["response"]


def test_json_keys_are_sorted(corpus_client: FlaskClient) -> None:
    body = corpus_client.get(f"{API}/nodes?train_id=./run_basic&name=Default").get_data(as_text=True)
    first = json.loads(body)["nodes"][0]
    assert list(first) == sorted(first)


@pytest.mark.parametrize(("query", "code"), [
    ("nodes?train_id=./nope", "50545005"),
    ("nodes?train_id=../etc", "50545005"),
    ("nodes?train_id=./run_basic%00", "50545011"),
    ("nodes?train_id=./run_basic&mode=OPTIMIZE", "50540002"),
    ("nodes?train_id=./run_basic&name=Default/nope", "50545009"),
    ("nodes/all?train_id=./run_basic&name=Nope", "50545009"),
    ("nodes/names?train_id=./run_basic&search=a&limit=x", "50540001"),
    ("nodes/names?train_id=./run_basic&search=a&offset=1.5", "50540001"),
    ("single-node?train_id=./run_b&name=x", "5054500C"),
])
def test_errors(corpus_client: FlaskClient, query: str, code: str) -> None:
    response = corpus_client.get(f"{API}/{query}")
    assert response.status_code == 400
    assert response.get_json()["error_code"] == code


def test_tag_selects_the_graph_in_both_modes(corpus_client: FlaskClient) -> None:
    tag = "events.out.events.summary.1795311185.0.vm_MS"
    normal = corpus_client.get(f"{API}/nodes?train_id=./run_basic&tag={tag}")
    assert normal.status_code == 200 and normal.get_json()["nodes"][0]["name"] == "Default"
    for optimized_tag in (f"{tag} (optimized)", tag):  # the plain tag is accepted in optimize mode too
        response = corpus_client.get(f"{API}/nodes?train_id=./run_basic&mode=optimize&tag={optimized_tag}")
        assert response.status_code == 200
    wrong = corpus_client.get(f"{API}/nodes?train_id=./run_basic&mode=normal&tag={tag} (optimized)")
    assert wrong.get_json()["error_code"] == "5054500C"


def test_nodes_paging_extension(corpus_client: FlaskClient) -> None:
    everything = corpus_client.get(f"{API}/nodes?train_id=./run_basic&name=Default").get_json()["nodes"]
    names = [n["name"] for n in everything]
    page = corpus_client.get(f"{API}/nodes?train_id=./run_basic&name=Default&offset=1&limit=5").get_json()
    assert page["total"] == len(everything)
    assert [n["name"] for n in page["nodes"]] == names[5:10]


def _run_basic_graph() -> Any:
    path = next(CORPUS.glob("run_basic/*_MS"))
    values = parse_summary_records(read_all(path).records, path.name).values
    return next(v.value for v in values if v.plugin == "graph")


def test_pb_graph_file_is_a_tag_of_its_own(tmp_path: Path) -> None:
    require_shared(CORPUS)
    run = tmp_path / "base" / "run_pb"
    run.mkdir(parents=True)
    model = anf_ir_pb2.ModelProto()
    model.graph.CopyFrom(_run_basic_graph())
    (run / "ms_output_after_hwopt_0.pb").write_bytes(model.SerializeToString())
    client = _client(tmp_path / "base", tmp_path)
    nodes = client.get(f"{API}/nodes?train_id=./run_pb&tag=ms_output_after_hwopt_0.pb").get_json()
    assert [n["name"] for n in nodes["nodes"]] == ["Default"]
    default = client.get(f"{API}/nodes?train_id=./run_pb").get_json()  # the only tag is the default
    assert default == nodes
    optimized = client.get(f"{API}/nodes?train_id=./run_pb&mode=optimize").get_json()
    assert [n["name"] for n in optimized["nodes"]] == ["Default"]
