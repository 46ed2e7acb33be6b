"""The summary list's Export in Chromium (issue 31): pick two runs with their boxes, click Export, and the
downloaded zip (Playwright's expect_download) holds both runs' folders. One server on two writer-made runs."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mindinsight_clone.summary.writer import SummaryWriter
from tests.e2e.conftest import serve
from tests.e2e.test_core_pages import goto

RUNS = ("./run_a", "./run_b", "./run_c")


@pytest.fixture(scope="module")
def export_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = tmp_path_factory.mktemp("export-ui") / "base"
    for i, run in enumerate(RUNS):
        with SummaryWriter(base / run[2:], timestamp=1_700_000_000 + i, host="h") as w:
            for step in range(1, 21):
                w.add_scalar("loss", 1.0 / step, step)
    yield from serve(base, tmp_path_factory.mktemp("export-ui-ws"))


def test_pick_two_runs_and_export_downloads_one_zip_with_both(page: Any, export_server: str, tmp_path: Path) -> None:
    goto(page, export_server, "/summary-manage")
    button = page.get_by_test_id("summary-export")
    assert button.get_attribute("aria-disabled") == "true"
    for run in RUNS[:2]:
        page.locator(f"[data-testid=summary-row][data-train-id='{run}'] [data-testid=summary-diff-pick]").check()
    assert button.get_attribute("data-count") == "2"
    href = button.get_attribute("href")
    assert href and href.startswith(export_server + "/v1/mindinsight/datavisual/export?")  # relative to the page
    with page.expect_download() as info:
        button.click()
    download = info.value
    assert download.suggested_filename.startswith("mindinsight-export-") and download.suggested_filename.endswith(
        ".zip")
    path = tmp_path / "export.zip"
    download.save_as(path)
    with zipfile.ZipFile(path) as bundle:
        names = set(bundle.namelist())
        manifest = json.loads(bundle.read("manifest.json"))
    assert {"runs/run_a/scalars.csv", "runs/run_b/scalars.csv"} <= names and "runs/run_c/scalars.csv" not in names
    assert sorted(r["train_id"] for r in manifest["runs"]) == list(RUNS[:2])

    # the header box picks every run shown, and unpicks them
    page.get_by_test_id("summary-pick-page").check()
    assert button.get_attribute("data-count") == "3"
    page.get_by_test_id("summary-pick-page").uncheck()
    assert button.get_attribute("data-count") == "0"
