"""The whole UI behind --url-path-prefix /team/mi and --auth-token generate, in Chromium (issue 31).

One real server (the CLI, on the same data as `ui_server`) is started under the prefix with a generated token.
The printed link is opened (the cookie is set, the token leaves the URL), then every page of the app's router:
each draws with no console error (the `page` fixture), and every request any page made has its path under
`/team/mi/` (no absolute URL left in the SPA: API calls, chunks, workers, images)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.conftest import free_port, require_shared, run_cli
from tests.e2e.conftest import REPO
from tests.e2e.test_ui_access import GRAPH_RUN, _pages

PREFIX = "/team/mi"
# router pages _pages() leaves out (TensorBoard kinds): opened on a MindSpore run, they show their empty state
TB_ROUTES = [f"/{kind}?train_id={GRAPH_RUN}" for kind in
             ("text", "pr-curves", "audio", "projector", "custom-scalars", "mesh")] + ["/config-diff"]


@pytest.fixture(scope="module")
def prefixed_server(tmp_path_factory: pytest.TempPathFactory, ui_base_dir: Path) -> Iterator[tuple[str, str]]:
    """(the printed link with its token, the UI's address) of a server under PREFIX with a generated token."""
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    port, ws = free_port(), tmp_path_factory.mktemp("prefix-ws")
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(ui_base_dir), "--workspace", str(ws),
                      "--reload-interval", "1", "--url-path-prefix", PREFIX, "--auth-token", "generate")
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        found = re.search(r"Web address: (\S+/team/mi/)(\?token=\S+)", started.stdout)
        assert found, started.stdout
        yield found.group(1) + found.group(2), found.group(1)
    finally:
        run_cli("stop", "--port", str(port), "--workspace", str(ws))


def test_every_page_loads_under_the_prefix_after_the_token_link(page: Any, prefixed_server: tuple[str, str]) -> None:
    require_shared()  # _pages() names runs of ../shared/fixtures/mindspore
    link, root = prefixed_server
    requested: list[str] = []
    page.on("request", lambda req: requested.append(req.url))
    page.goto(link)
    assert page.url.split("#")[0] == root  # the redirect dropped the token from the address bar
    page.wait_for_selector("[data-testid=summary-row]")
    for route, ready in _pages():
        page.goto(f"{root}#{route}")
        page.wait_for_selector(ready)
    for route in TB_ROUTES:
        page.goto(f"{root}#{route}")
        page.wait_for_selector("[data-testid=app-header]")
        page.wait_for_load_state("networkidle")
    web = [url for url in requested if urlsplit(url).scheme in ("http", "https")]
    outside = [url for url in web if not urlsplit(url).path.startswith(PREFIX + "/")]
    assert not outside, outside
    assert sum(f"{PREFIX}/v1/mindinsight/" in url for url in web) > 50  # the pages really asked the API
    assert not [url for url in web[1:] if "token=" in url]  # only the link itself carried the token
