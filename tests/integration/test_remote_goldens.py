"""MindInsight 2.3.1's captured answers (../shared/reference/mindinsight/golden) over the reference corpus
served from the loopback S3 server: the lineage, graph and profiler (old layout) golden tests run again here
(imported), with their corpus clients overridden to read `s3://goldens/reference/corpus`.

Not replayed here: the datavisual goldens of test_golden_replay.py, whose train-jobs order and
update times follow file mtimes that the test sets on a local copy (an object's LastModified cannot be set).
"""

from __future__ import annotations

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
