"""A notebook page (another origin: the Jupyter server's port) frames the UI only when the server allows it:
`--frame-ancestors` (what the notebook magic's direct mode sets) lets the page draw; the default refuses."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import free_port, run_cli
from tests.e2e.conftest import REPO


@pytest.fixture(scope="module")
def framing_server(tmp_path_factory: pytest.TempPathFactory, ui_base_dir: Path) -> Iterator[str]:
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    port, ws = free_port(), tmp_path_factory.mktemp("frame-ws")
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(ui_base_dir), "--workspace", str(ws),
                      "--frame-ancestors", "http://127.0.0.1:* http://localhost:*")
    assert started.returncode == 0, started.stdout + started.stderr
    yield f"http://127.0.0.1:{port}"
    run_cli("stop", "--port", str(port), "--workspace", str(ws))


@pytest.fixture(scope="module")
def notebook_page_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A static server on its own port, standing in for the notebook's origin."""
    root = tmp_path_factory.mktemp("notebook-page")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _open_in_frame(page: Any, pages: tuple[Path, str], target: str) -> Any:
    root, origin = pages
    name = f"nb{free_port()}.html"
    (root / name).write_text(f'<!doctype html><link rel="icon" href="data:,"><iframe id="viewer" src="{target}/" width="1200" height="800">'
                             "</iframe>", encoding="utf-8")
    page.goto(f"{origin}/{name}")
    page.wait_for_timeout(300)
    return next((f for f in page.frames if f.url.startswith(target)), None)


def test_a_notebook_page_frames_the_ui_when_allowed(page: Any, framing_server: str,
                                                    notebook_page_server: tuple[Path, str]) -> None:
    frame = _open_in_frame(page, notebook_page_server, framing_server)
    assert frame is not None
    frame.wait_for_selector("#app *", timeout=15_000)  # the SPA drew inside the frame


def test_the_default_refuses_to_be_framed_by_another_origin(page: Any, ui_server: str,
                                                            notebook_page_server: tuple[Path, str]) -> None:
    _open_in_frame(page, notebook_page_server, ui_server)
    page.wait_for_timeout(500)
    drawn = [f for f in page.frames if f.url.startswith(ui_server)]
    assert not drawn or not drawn[0].query_selector("#app *")
    assert any("frame-ancestors" in e for e in page.console_errors), page.console_errors
    page.console_errors.clear()
