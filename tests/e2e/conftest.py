"""Browser tests: our real server (started with the CLI) driven in Debian's Chromium through Playwright.

Fixtures:
* `ui_server` (session): base URL of a server on ../shared/fixtures/mindspore (real MindSpore files,
  read in place), or, where ../shared is absent, on demo data written by scripts/make_demo_data.
* `browser` (session) and `page` (per test): a fresh page that fails the test on console errors or
  uncaught page errors unless the test empties `page.console_errors`.
* `screenshot(page, name)`: writes test-artifacts/screenshots/<name>.png (CI keeps that folder).
Every test here is marked `browser`; all are skipped with a reason when chromium is not installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, REPO, free_port, run_cli

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOTS = REPO / "test-artifacts" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


def _summary_base_dir(tmp: Path) -> Path:
    if FIXTURES.exists():
        return FIXTURES
    demo = tmp / "demo"
    subprocess.run([sys.executable, str(REPO / "scripts" / "make_demo_data"), str(demo)], check=True,
                   timeout=120)
    return demo


@pytest.fixture(scope="session")
def ui_base_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _summary_base_dir(tmp_path_factory.mktemp("ui-data"))


@pytest.fixture(scope="session")
def ui_server(tmp_path_factory: pytest.TempPathFactory, ui_base_dir: Path) -> Iterator[str]:
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    port, ws = free_port(), tmp_path_factory.mktemp("ui-ws")
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(ui_base_dir), "--workspace",
                      str(ws), "--reload-interval", "1")
    assert started.returncode == 0, started.stdout + started.stderr
    yield f"http://127.0.0.1:{port}"
    run_cli("stop", "--port", str(port), "--workspace", str(ws))


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed (scripts/run_tests installs it as root)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield instance
        instance.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = context.new_page()
    pg.console_errors = []
    pg.on("console", lambda msg: pg.console_errors.append(msg.text) if msg.type == "error" else None)
    pg.on("pageerror", lambda err: pg.console_errors.append(str(err)))
    pg.set_default_timeout(15_000)
    yield pg
    errors = list(pg.console_errors)
    context.close()
    assert not errors, f"console errors: {errors}"


@pytest.fixture
def screenshot() -> Callable[[Any, str], Path]:
    def take(pg: Any, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        pg.screenshot(path=str(path), full_page=True)
        return path

    return take


# ---- Ascend profiler views (test_ascend_ui.py): a server on ../shared/fixtures/ascend (2 ranks, Level0 and Level1)
ASCEND_FIXTURES = FIXTURES.parent / "ascend"


@pytest.fixture(scope="session")
def ascend_ui_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not ASCEND_FIXTURES.exists():
        pytest.skip(f"{ASCEND_FIXTURES} is absent: the real Ascend profiler output lives in ../shared (present in CI)")
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    port, ws = free_port(), tmp_path_factory.mktemp("ascend-ui-ws")
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(ASCEND_FIXTURES), "--workspace",
                      str(ws), "--reload-interval", "1")
    assert started.returncode == 0, started.stdout + started.stderr
    yield f"http://127.0.0.1:{port}"
    run_cli("stop", "--port", str(port), "--workspace", str(ws))


def serve(base: Path, workspace: Path, *options: str) -> Iterator[str]:
    """Our server on `base` (extra CLI `options`, e.g. `--max-depth 3`) for one test module: yields its URL."""
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    port = free_port()
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(workspace),
                      "--reload-interval", "1", *options)
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        run_cli("stop", "--port", str(port), "--workspace", str(workspace))
