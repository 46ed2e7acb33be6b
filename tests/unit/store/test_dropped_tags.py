"""Tags beyond the tag limit: reported (count in train-jobs, a log line) and next to free in memory."""

from __future__ import annotations

import logging
import tracemalloc
from pathlib import Path

import pytest

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from mindinsight_clone.store.data_manager import DataManager
from tests.unit.store.summary_files import scalar_event, version_event, write_records

TAGS = 20_000


def many_tag_run(run_dir: Path, tags: int, steps: int = 3) -> Path:
    """One event per step holding every tag (as a SummaryRecord flush of many summary ops writes them)."""
    payloads = [version_event()]
    payloads += [scalar_event(s, {f"t{i}": float(s) for i in range(tags)}) for s in range(1, steps + 1)]
    return write_records(run_dir / "events.out.events.summary.1700000000.0.host_MS", payloads)


def test_dropped_tags_are_counted_logged_and_listed(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    many_tag_run(tmp_path / "base" / "run", 2000)
    settings = settings_for_tests(summary_base_dir=str(tmp_path / "base"), workspace=str(tmp_path / "ws"),
                                  reload_interval=0, max_tags_per_run=300)  # MindInsight's limit (no longer the default)
    app = create_app(settings, start_background=False)
    with caplog.at_level(logging.WARNING, logger="mindinsight_clone.store.loader"):
        app.extensions["mindinsight_clone"].data_manager.reload()
    (job,) = app.test_client().get("/v1/mindinsight/datavisual/train-jobs").get_json()["train_jobs"]
    assert len(job["plugins"]["scalar"]) == 300
    assert job["dropped_tags"] == 1700
    assert job["is_integrity"] is True and "problems" not in job  # the files are fine; only the limit dropped tags
    assert "run ./run: 1700 tags dropped so far by the tag limits (max_tags_per_run=300" in caplog.text


def test_a_run_within_the_limit_has_no_dropped_tags_field(tmp_path: Path) -> None:
    many_tag_run(tmp_path / "base" / "run", 10)
    app = create_app(settings_for_tests(summary_base_dir=str(tmp_path / "base"), workspace=str(tmp_path / "ws"),
                                        reload_interval=0), start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    (job,) = app.test_client().get("/v1/mindinsight/datavisual/train-jobs").get_json()["train_jobs"]
    assert "dropped_tags" not in job


def test_dropped_tags_cost_next_to_nothing_while_loading(tmp_path: Path) -> None:
    """Was ~3 KB per distinct tag (every evicted tag's reservoir kept alive until its batch ended)."""
    many_tag_run(tmp_path / "run", TAGS)
    dm = DataManager(settings_for_tests(summary_base_dir=str(tmp_path), reload_interval=0, max_tags_per_run=300))
    tracemalloc.start()
    try:
        dm.reload()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert dm.run_status("./run").dropped_tags == TAGS - 300
    per_tag = peak / TAGS
    assert per_tag < 1500, f"{per_tag:.0f} bytes per tag at peak"  # parse columns only, no reservoirs
