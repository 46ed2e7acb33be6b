"""The real Ascend profiler output (../shared/fixtures/ascend, 2 ranks, Level0 and Level1) served from the
loopback S3 server passes the same checks as from disk: test_ascend_profiler.py's tests run again here
(imported) with their `client` fixture reading `s3://ascend/shared/ascend`; their expected values still
come from the local CSV/JSON files.
"""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from tests.conftest import SHARED, require_shared
from tests.integration.test_ascend_profiler import (  # noqa: F401  (collected again here, over S3)
    test_aicore_detail_sort_search_and_paging,
    test_aicore_type_matches_op_statistic_or_kernel_aggregation,
    test_aicpu_tables_are_empty_without_ai_cpu_kernels,
    test_cluster_step_trace_averages_and_slow_ranks,
    test_communication_matches_the_json_files,
    test_communication_missing_at_level0_says_why,
    test_devices_list_both_ranks,
    test_memory_record_downsampling_keeps_the_peaks,
    test_memory_record_peaks_series_and_top_operators,
    test_ops_search_rejects_unknown_sort_column,
    test_step_trace_time_matches_the_file,
    test_timeline_from_trace_view,
    test_train_jobs_say_ascend,
)
from tests.remote_base import s3_app
from tests.s3_server import S3Server

ASCEND = SHARED / "fixtures" / "ascend"


@pytest.fixture(scope="module")
def client(s3_server: S3Server, tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    """One app for the module (the tests only read): a load over S3 per test would cost minutes."""
    require_shared(ASCEND)
    s3_server.upload_tree(ASCEND, "ascend", "shared/ascend")
    return s3_app(s3_server, "s3://ascend/shared/ascend", tmp_path_factory.mktemp("ws-ascend")).test_client()
