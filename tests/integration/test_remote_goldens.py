"""MindInsight 2.3.1's captured answers (../shared/reference/mindinsight/golden) over the reference corpus
served from the loopback S3 server: the lineage, graph and profiler (old layout) golden tests run again here
(imported), with their corpus clients overridden to read `s3://goldens/reference/corpus`; likewise the 84 answers
over MindInsight's old Ascend/GPU profiler layout (old_profiler/golden), from `s3://goldens/reference/old_profiler`,
with the damaged-file cases of that layout.

Not replayed here: the datavisual goldens of test_golden_replay.py, whose train-jobs order and
update times follow file mtimes that the test sets on a local copy (an object's LastModified cannot be set).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from flask.testing import FlaskClient

from tests.conftest import REFERENCE, require_shared
from tests.integration.test_graph_api import (  # noqa: F401  (collected again here, over S3)
    test_errors,
    test_json_keys_are_sorted,
    test_matches_mindinsight,
    test_nodes_paging_extension,
    test_tag_selects_the_graph_in_both_modes,
)
from tests.integration.test_lineage_api import (  # noqa: F401
    test_dataset_graph_without_train_id_is_a_400,
    test_golden,
)
from tests.integration.test_old_profiler_api import (  # noqa: F401
    OLD,
    test_improvement_communication_data_per_rank,
    test_improvement_device_list_from_the_files,
    test_old_ascend_layout_matches_mindinsight,
    test_step_trace_from_the_csv,
)
from tests.integration.test_profiler_api import (  # noqa: F401
    test_deliberate_differences,
    test_errors_never_show_absolute_paths,
    test_old_layout_matches_golden,
    test_propose_keeps_mindinsight_key_order,
)
from tests.remote_base import s3_app
from tests.s3_server import S3Server

CORPUS = REFERENCE / "corpus"
BUCKET, PREFIX = "goldens", "reference/corpus"  # the last component is the local dir's name, as for the fixtures
_uploaded: set[str] = set()


def _corpus_url(server: S3Server) -> str:
    require_shared(CORPUS)
    if server.endpoint not in _uploaded:
        server.upload_tree(CORPUS, BUCKET, PREFIX)
        _uploaded.add(server.endpoint)
    return f"s3://{BUCKET}/{PREFIX}"


@pytest.fixture(scope="module")
def corpus_client(s3_server: S3Server, tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    return s3_app(s3_server, _corpus_url(s3_server), tmp_path_factory.mktemp("ws-goldens")).test_client()


@pytest.fixture(scope="module")
def old_client(s3_server: S3Server, tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    """One app for the profiler goldens (they only read): a load over S3 per test would cost minutes."""
    return s3_app(s3_server, _corpus_url(s3_server), tmp_path_factory.mktemp("ws-profiler")).test_client()


@pytest.fixture(scope="module")
def old_layout_client(s3_server: S3Server, tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    """MindInsight's old Ascend/GPU profiler layout (3 runs, 84 goldens) read from the loopback S3 server."""
    corpus = require_shared(OLD / "corpus")
    if f"old:{s3_server.endpoint}" not in _uploaded:
        s3_server.upload_tree(corpus, BUCKET, "reference/old_profiler")
        _uploaded.add(f"old:{s3_server.endpoint}")
    url = f"s3://{BUCKET}/reference/old_profiler"
    return s3_app(s3_server, url, tmp_path_factory.mktemp("ws-old-profiler")).test_client()


def test_old_layout_damaged_files_over_s3(s3_server: S3Server, tmp_path: Path) -> None:
    """A cut step trace and a missing cluster file fail only their views, naming the file, over S3 too."""
    prof = require_shared(OLD / "corpus") / "cluster4" / "profiler"
    prefix = "damaged/old_profiler/cluster4/profiler"
    for path in prof.iterdir():
        data = path.read_bytes()
        if path.name == "step_trace_raw_2_detail_time.csv":
            data = data[: len(data) // 2]
        if path.name != "ascend_cluster_analyse_pipeline-parallel_2_4_3.csv":
            s3_server.put(BUCKET, f"{prefix}/{path.name}", data)
    client = s3_app(s3_server, f"s3://{BUCKET}/damaged/old_profiler", tmp_path / "ws").test_client()
    api = "/v1/mindinsight/profile"
    response = client.get(f"{api}/training-trace/graph?dir=./cluster4&device_id=2")
    assert response.get_json() == {"error_code": "50546087", "error_msg": "Raw file error. "
                                   "<step_trace_raw_2_detail_time.csv> has no average row (truncated file?)."}
    response = client.post(f"{api}/cluster-step-trace-summary?train_id=./cluster4", data="{}", content_type="application/json")
    assert response.get_json()["error_code"] in ("50546084", "50546087")
    assert client.get(f"{api}/training-trace/graph?dir=./cluster4&device_id=1").status_code == 200
    assert client.get(f"{api}/cluster-flops?train_id=./cluster4").status_code == 200
