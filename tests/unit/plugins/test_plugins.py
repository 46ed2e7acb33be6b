"""Plugin functions against MindInsight's goldens (when ../shared is present) and on small inputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import orjson
import pytest

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.errors import ParamValueError
from mindinsight_clone.plugins import histograms, images, landscape, scalars, tensors
from mindinsight_clone.plugins.common import calc_histogram_bins
from mindinsight_clone.plugins.tensor_stats import parse_dims, statistics
from mindinsight_clone.store.data_manager import DataManager
from tests.conftest import REFERENCE, require_shared


@pytest.fixture(scope="module")
def corpus() -> DataManager:
    require_shared(REFERENCE)
    dm = DataManager(settings_for_tests(summary_base_dir=str(REFERENCE / "corpus"), reload_interval=0))
    dm.reload()
    return dm


def golden(prefix: str) -> dict:  # type: ignore[type-arg]
    path = next((REFERENCE / "golden").glob(f"{prefix}_*.json"))
    return json.loads(path.read_text())["response"]  # type: ignore[no-any-return]


def test_histogram_rebinning_matches_golden_190(corpus: DataManager) -> None:
    body = histograms.histograms(corpus.run_cache("./run_basic"), "./run_basic", "fc1.weight/histogram")
    assert body == golden("190")


def test_scalar_points_match_golden_185(corpus: DataManager) -> None:
    body = scalars.scalar_metadata(corpus.run_cache("./run_basic"), "loss/scalar")
    assert orjson.loads(orjson.dumps(body)) == golden("185")


def test_image_metadata_matches_golden_187(corpus: DataManager) -> None:
    assert images.image_metadata(corpus.run_cache("./run_basic"), "input/image") == golden("187")


@pytest.mark.parametrize(("prefix", "detail", "step", "dims"), [
    ("191", None, None, None), ("192", "stats", None, None), ("193", "histogram", None, None),
    ("194", "data", "30", "[0,:,:]"),
])
def test_tensors_match_goldens(corpus: DataManager, prefix: str, detail: str | None, step: str | None,
                               dims: str | None) -> None:
    rows = tensors.tensor_rows(corpus.run_cache("./run_basic"), "./run_basic", ["feat/tensor"], detail, step, dims)
    assert {"tensors": rows} == golden(prefix)


def test_landscape_points_match_golden_082_apart_from_lineage(corpus: DataManager) -> None:
    item = landscape.landscape_for(corpus.run_cache("./landscape"), "./landscape", "final", None, None)
    want = golden("082")["landscapes"][0]
    assert item["points"] == want["points"] and item["convergence_point"] == want["convergence_point"]


def test_interval_id_is_stable_and_signed_decimal() -> None:
    assert landscape.interval_id([1, 2, 3]) == landscape.interval_id([1, 2, 3])
    assert landscape.interval_id([1, 2, 3]) != landscape.interval_id([1, 3])
    int(landscape.interval_id([1, 2, 3]))


def test_calc_histogram_bins() -> None:
    assert [calc_histogram_bins(n) for n in (0, 5, 6, 10, 11, 200, 280, 281)] == [1, 2, 3, 3, 3, 21, 29, 30]


def test_sniff_mime() -> None:
    assert images.sniff_mime(b"\x89PNG\r\n\x1a\nxxx") == "image/png"
    assert images.sniff_mime(b"\xff\xd8\xff\xe0") == "image/jpeg"
    assert images.sniff_mime(b"GIF89a") == "image/gif"
    assert images.sniff_mime(b"nope") == "application/octet-stream"


def test_parse_dims_errors() -> None:
    assert parse_dims("[0, :, 1:3]") == (0, slice(None), slice(1, 3))
    with pytest.raises(ParamValueError, match="At most 2 dimensions"):
        parse_dims("[:,:,:]")
    with pytest.raises(ParamValueError, match="start with"):
        parse_dims("0,:")
    with pytest.raises(ParamValueError, match="Convert int"):
        parse_dims("[a,:]")


def test_statistics_count_invalid_values_apart() -> None:
    s = statistics(np.array([1.0, np.nan, np.inf, -np.inf, -2.0, 0.0]))
    assert (s.count, s.nan_count, s.pos_inf_count, s.neg_inf_count) == (6, 1, 1, 1)
    assert (s.max, s.min, s.avg) == (1.0, -2.0, -1.0 / 3)


def test_merge_envelope_bounds_bucket_count() -> None:
    buckets = [{"step_start": i, "step_end": i, "min": float(i), "max": float(i), "count": 1} for i in range(10)]
    merged = scalars.merge_envelope(buckets, 3)
    assert len(merged) <= 3 and merged[0]["min"] == 0.0 and merged[-1]["max"] == 9.0
    assert sum(b["count"] for b in merged) == 10


def test_scalar_csv_leaves_nan_empty() -> None:
    text = scalars.to_csv([("./a", "t", {"step": 1, "wall_time": 2.0, "value": float("nan")})])
    assert text.splitlines() == ["train_id,tag,step,wall_time,value", "./a,t,1,2.0,"]


def test_fixture_path_helper_exists() -> None:
    assert isinstance(REFERENCE, Path)
