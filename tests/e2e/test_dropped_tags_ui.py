"""Tags over --max-tags-per-run are said, not dropped silently (issue 34): a badge on the summary list and a
banner on the run's pages naming the setting that raises the limit."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import serve
from tests.unit.ingest.tfevents_files import tensorboardx_run

TAGS = [f"metric_{i}" for i in range(6)]
LIMIT = 3


@pytest.fixture(scope="module")
def limited_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = tmp_path_factory.mktemp("dropped-base")
    tensorboardx_run(base / "many", [1, 2, 3], scalar_tags=TAGS, image_every=99, hist_every=99, text=False)
    yield from serve(base, tmp_path_factory.mktemp("dropped-ws"), "--max-tags-per-run", str(LIMIT))


def test_dropped_tags_badge_and_banner(limited_server: str, page: Any) -> None:
    page.goto(f"{limited_server}/#/scalars?train_id=./many")  # opening the run loads it (and counts the drops)
    banner = page.locator('[data-testid="run-dropped-tags"]')
    banner.wait_for()
    assert banner.get_attribute("data-count") == str(len(TAGS) - LIMIT)
    assert "--max-tags-per-run" in banner.inner_text()

    page.goto(f"{limited_server}/#/summary-manage")
    badge = page.locator('[data-testid="summary-dropped-tags"]')
    badge.wait_for()
    assert badge.inner_text().startswith(str(len(TAGS) - LIMIT))
    assert "--max-tags-per-run" in (badge.get_attribute("title") or "")
