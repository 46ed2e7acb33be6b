"""A failing store while a run's add_scalars sub-folders are listed keeps what was known (DataManager)."""

from __future__ import annotations

from pathlib import Path

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.ingest.summary_watcher import ScanResult, scan_runs
from mindinsight_clone.store.data_manager import DataManager
from mindinsight_clone.summary.tfevents_writer import TfeventsWriter


def test_members_are_kept_when_their_listing_failed(tmp_path: Path) -> None:
    with TfeventsWriter(tmp_path / "base" / "run", timestamp=1_700_000_000, host="h") as w:
        w.add_scalars("load", {"e0": 0.5, "e1": 0.5}, 1)
    dm = DataManager(settings_for_tests(summary_base_dir=str(tmp_path / "base"), workspace=str(tmp_path / "ws")))
    dm.reload()
    (run,) = dm.runs()
    assert [m.key for m in run.members] == ["e0", "e1"] and len(run.member_files) == 2
    # the next scan lists the run but not its sub-folders (what ingest.summary_watcher reports on a failing store)
    (bare,) = scan_runs(tmp_path / "base").runs
    bare.members, bare.member_files = [], []
    result = ScanResult(runs=[bare], total_runs=1, failed={"./run": "cannot list s3://b/base/run/load: timeout"})
    (kept,) = dm._keep_unlisted(result)
    assert [m.key for m in kept.members] == ["e0", "e1"] and {f.name for f in kept.member_files} == \
        {f.name for f in run.member_files}
    assert dm.run_status("./run").problems[-1].message == "cannot list s3://b/base/run/load: timeout"
    dm.stop()
