"""Compare, advice and the new Ascend tables over an `s3://` base dir (a real loopback S3 server) answer exactly what
they answer locally: they read through the loaders of the storage seam only."""

from __future__ import annotations

from typing import Any

import pytest

from mindinsight_clone.analyzers.profiler.adapters.ascend_text import ascend_tables
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir, scan_profiler_dir
from mindinsight_clone.analyzers.profiler.views import (
    advice,
    ascend_overview,
    cluster_matrix,
    cluster_steps,
    compare,
    npu_module_mem,
    operator_tables,
)
from mindinsight_clone.ingest import storage
from tests.conftest import SHARED, require_shared
from tests.s3_server import S3Server

ASCEND = SHARED / "fixtures" / "ascend"
BUCKET = "profiler-advice-unit"
JOBS = ("torch_npu_level0", "torch_npu_level1")


@pytest.fixture(scope="module")
def s3_base(s3_server: S3Server) -> storage.Location:
    for job in JOBS:
        require_shared(ASCEND / job)
        for path in sorted((ASCEND / job).rglob("*")):  # every file but the traces, which these views never read
            if path.is_file() and path.name != "trace_view.json":
                s3_server.put(BUCKET, f"base/{job}/{path.relative_to(ASCEND / job).as_posix()}", path.read_bytes())
    return storage.base_location(f"s3://{BUCKET}/base", s3_server.storage_options)


def _answers(pdir: ProfilerDir, other: ProfilerDir, cache: ParsedFileCache | None) -> dict[str, Any]:
    out: dict[str, Any] = {"advice": advice.advice(pdir, cache), "matrix": cluster_matrix.cluster_matrix(pdir),
                           "cluster": cluster_steps.cluster_step_trace(pdir, cache)}
    dev0, dev1 = pdir.devices["0"], pdir.devices["1"]
    out["compare"] = compare.compare(dev0, dev1, cache)
    out["compare_jobs"] = compare.compare(dev1, other.devices["0"], cache)
    out["overview"] = ascend_overview.overview(pdir, dev0, cache)
    out["modules"] = npu_module_mem.npu_module_mem(dev1, 20, cache)
    out["details"] = operator_tables.search(dev0, ascend_tables.OPERATOR_DETAILS, "conv", None, "descending", 5, 1,
                                          cache)
    if dev0.output_file(ascend_tables.API_STATISTIC.file) is not None:
        out["apis"] = operator_tables.search(dev0, ascend_tables.API_STATISTIC, "", "count", "ascending", 10, 0, cache)
    return out


def test_compare_and_advice_over_s3_equal_local(s3_base: storage.Location) -> None:
    local = {j: scan_profiler_dir(ASCEND / j / "profiler", f"./{j}/profiler") for j in JOBS}
    remote = {j: scan_profiler_dir(s3_base / j / "profiler", f"./{j}/profiler") for j in JOBS}
    expected = _answers(local["torch_npu_level1"], local["torch_npu_level0"], ParsedFileCache())
    assert expected["compare"]["op_types"] and expected["advice"]["rules"] and expected["matrix"]["cells"]
    assert _answers(remote["torch_npu_level1"], remote["torch_npu_level0"], ParsedFileCache()) == expected
    assert (_answers(remote["torch_npu_level0"], remote["torch_npu_level1"], None)
            == _answers(local["torch_npu_level0"], local["torch_npu_level1"], None))
