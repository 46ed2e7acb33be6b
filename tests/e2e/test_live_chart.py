"""A training run that is still being written: the open scalars chart shows new steps by itself.

A SummaryWriter appends steps to a run in a temporary base dir served by its own server
(`--reload-interval 1`); the page is opened once with a 1 s auto-refresh (`/?refresh=1#/...`)
and is never reloaded while the writer adds steps, and a tag that appears later gets its chart.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mindinsight_clone.summary import SummaryWriter
from tests.conftest import REPO, free_port, run_cli

STAMP = 1_795_000_000


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    base, ws, port = tmp_path / "logs", tmp_path / "ws", free_port()
    (base / "live").mkdir(parents=True)
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws),
                      "--reload-interval", "1")
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        yield f"http://127.0.0.1:{port}", base / "live"
    finally:
        run_cli("stop", "--port", str(port), "--workspace", str(ws))


def write_steps(writer: SummaryWriter, start: int, end: int, tag: str = "loss") -> None:
    for step in range(start, end + 1):
        writer.add_scalar(tag, 2.0 * math.exp(-step / 40) + 0.05 * math.sin(step), step)
    writer.flush()


def last_x(page: Any, chart_id: str) -> str | None:
    return page.evaluate(
        "id => { const c = window.__charts && window.__charts[id]; return c && c.series.length ? String(c.series[0].lastX) : null }",
        chart_id)


def test_open_chart_follows_a_growing_run(page: Any, live_server: tuple[str, Path], screenshot: Any) -> None:
    base, run_dir = live_server
    writer = SummaryWriter(run_dir, timestamp=STAMP)
    try:
        write_steps(writer, 1, 20)
        page.goto(f"{base}/?refresh=1#/scalars?train_id=./live")
        page.wait_for_function(
            "() => { const c = window.__charts && window.__charts['scalar:loss/scalar']; return !!c && c.series[0]?.lastX === 20 }",
            timeout=30_000)
        navigations: list[str] = []
        page.on("framenavigated", lambda frame: navigations.append(frame.url) if frame == page.main_frame else None)
        page.evaluate("() => { window.__sameDocument = true }")

        t0 = time.monotonic()
        write_steps(writer, 21, 60)
        page.wait_for_function(
            "() => window.__charts['scalar:loss/scalar'].series[0].lastX === 60", timeout=20_000)
        seen_after = time.monotonic() - t0
        card = page.locator("[data-chart-id='scalar:loss/scalar']")
        assert card.get_attribute("data-last-x") == "60"
        assert int(card.get_attribute("data-point-count")) == 60

        # A tag that appears later gets its own chart ("all tags" is the default selection).
        write_steps(writer, 61, 80, tag="accuracy")
        page.wait_for_function(
            "() => { const c = window.__charts['scalar:accuracy/scalar']; return !!c && c.series[0]?.lastX === 80 }",
            timeout=20_000)
        assert page.locator("[data-testid=scalar-card]").count() == 2
        # Still the same document: nothing reloaded the page.
        assert page.evaluate("() => window.__sameDocument === true")
        assert not [u for u in navigations if "#/scalars" not in u]
        screenshot(page, "live_chart")
        assert seen_after < 15, f"new steps took {seen_after:.1f} s to show"
    finally:
        writer.close()
