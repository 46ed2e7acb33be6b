"""The notebook magic in a real IPython kernel (jupyter_client + ipykernel): `%load_ext mindinsight_clone`, then
`%mindinsight_clone` starts one real server (gunicorn) that later calls reuse, shows it in an iframe whose src
fits each proxy mode, lists and stops it. One kernel and one server for the module."""

from __future__ import annotations

import html
import http.cookiejar
import os
import re
import socket
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import pytest

from mindinsight_clone import notebook
from mindinsight_clone.server import lifecycle
from tests.conftest import REPO
from tests.unit.analyzers.lineage.builders import write_run

jupyter_client = pytest.importorskip("jupyter_client")
pytest.importorskip("ipykernel")

HUB_PREFIX = "/user/alice/"
TEMPLATE = "https://nb.example.com/user/alice/proxy/%PORT%/"
IFRAME_SRC = re.compile(r'<iframe[^>]* src="([^"]+)"')
NOTEBOOK_ENV = ("JUPYTERHUB_SERVICE_PREFIX", "VSCODE_PID", "MINDINSIGHT_CLONE_PROXY_URL")


@dataclass
class Output:
    """What one cell sent on iopub: stream text and the HTML of display_data."""

    stdout: str = ""
    stderr: str = ""
    html: list[str] = field(default_factory=list)

    @property
    def src(self) -> str:
        assert len(self.html) == 1, (self.html, self.stdout, self.stderr)
        found = IFRAME_SRC.search(self.html[0])
        assert found, self.html[0]
        return html.unescape(found.group(1))


@dataclass
class Kernel:
    client: Any

    def run(self, code: str) -> Output:
        out = Output()

        def hook(msg: dict[str, Any]) -> None:
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                setattr(out, content["name"], getattr(out, content["name"]) + content["text"])
            elif kind == "display_data" and "text/html" in content["data"]:
                out.html.append(content["data"]["text/html"])
            elif kind == "error":
                out.stderr += "\n".join(content["traceback"])

        reply = self.client.execute_interactive(code, output_hook=hook, timeout=90)
        assert reply["content"]["status"] == "ok", (reply["content"], out)
        return out


@pytest.fixture(scope="module")
def held_port() -> Iterator[int]:
    """A busy port given as MINDINSIGHT_PORT: the magic must pick a free one (8080 is left to others)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("notebook-base")
    write_run(base, "run_a", 1_700_000_000)
    return base, tmp_path_factory.mktemp("notebook-workspace")


@pytest.fixture(scope="module")
def kernel(dirs: tuple[Path, Path], held_port: int) -> Iterator[Kernel]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MINDINSIGHT_") and k not in NOTEBOOK_ENV}
    env["MINDINSIGHT_PORT"] = str(held_port)
    manager = jupyter_client.KernelManager(kernel_name="python3")
    manager.start_kernel(env=env, cwd=str(REPO))
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        yield Kernel(client)
    finally:
        for record in lifecycle.list_servers(str(dirs[1])):  # a failed test leaves no server behind
            lifecycle.stop(str(dirs[1]), record.port)
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def opener() -> urllib.request.OpenerDirector:
    """A browser-like client: keeps the token's cookie across the redirect."""
    return urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    with opener().open(urllib.request.Request(url, headers=headers or {}), timeout=20) as resp:
        return resp.status, resp.read().decode("utf-8", "replace")


def test_magic_starts_reuses_lists_and_stops(kernel: Kernel, dirs: tuple[Path, Path], held_port: int) -> None:
    base, workspace = dirs
    flags = f"--summary-base-dir {base} --workspace {workspace}"
    assert "Error" not in kernel.run("%load_ext mindinsight_clone").stderr

    # JupyterHub: auto picks jupyter-server-proxy; the server gets /user/alice/proxy/absolute/<port> as its prefix
    started = kernel.run(f"%env JUPYTERHUB_SERVICE_PREFIX={HUB_PREFIX}\n%mindinsight_clone {flags} --auth-token generate")
    assert "Launching mindinsight-clone..." in started.stdout, started
    [record] = lifecycle.list_servers(str(workspace))
    port, token = record.port, record.auth_token
    assert port != held_port and token and record.url_path_prefix == f"/user/alice/proxy/absolute/{port}"
    assert started.src == f"/user/alice/proxy/absolute/{port}/?token={token}"
    assert "Open mindinsight-clone in a new tab" in started.html[0]
    # what jupyter-server-proxy forwards: the same path, the hub's Host header; the token link sets the cookie
    status, page = get(f"http://127.0.0.1:{port}{started.src}", {"Host": "hub.example.com"})
    assert status == 200 and "<html" in page.lower()

    # the same base dir again: reused (same port, same process), shown direct
    direct = kernel.run(f"%mindinsight_clone {flags} --proxy direct")
    assert f"Reusing mindinsight-clone on port {port} (pid {record.pid})" in direct.stdout, direct
    assert f"%mindinsight_clone stop --port {port} --workspace {workspace}" in direct.stdout
    assert direct.src == f"http://localhost:{port}/user/alice/proxy/absolute/{port}/?token={token}"
    assert get(direct.src)[0] == 200
    assert [r.pid for r in lifecycle.list_servers(str(workspace))] == [record.pid]

    # a proxy URL template (ModelArts, TENSORBOARD_PROXY_URL style) wins in auto mode
    templated = kernel.run(f"%env MINDINSIGHT_CLONE_PROXY_URL={TEMPLATE}\n%mindinsight_clone {flags}")
    assert "Reusing" in templated.stdout
    assert templated.src == (f"https://nb.example.com/user/alice/proxy/{port}/user/alice/proxy/absolute/{port}/"
                             f"?token={token}")

    listed = kernel.run(f"%mindinsight_clone list --workspace {workspace}")
    assert f"  - port {port}: summary base dir {base.resolve()} (started " in listed.stdout, listed
    assert f"pid {record.pid})" in listed.stdout

    stopped = kernel.run(f"%mindinsight_clone stop --workspace {workspace}")
    assert f"Stopped mindinsight-clone on port {port} (pid {record.pid})." in stopped.stdout, stopped
    assert not psutil.pid_exists(record.pid)
    assert lifecycle.list_servers(str(workspace)) == []
    assert "No known mindinsight-clone instances running" in kernel.run(
        f"%mindinsight_clone list --workspace {workspace}").stdout


def test_magic_reports_errors_without_a_traceback(kernel: Kernel, dirs: tuple[Path, Path], tmp_path: Path) -> None:
    out = kernel.run(f"%mindinsight_clone --summary-base-dir {tmp_path / 'missing'} --workspace {dirs[1]}")
    assert "Error: Summary base dir" in out.stderr and "does not exist" in out.stderr and not out.html
    out = kernel.run("%mindinsight_clone --proxy nowhere")
    assert "Error: Invalid value for '--proxy'" in out.stderr
    out = kernel.run(f"%env MINDINSIGHT_CLONE_PROXY_URL=\n%mindinsight_clone --workspace {dirs[1]} --summary-base-dir "
                     f"{dirs[0]} --proxy url")
    assert "MINDINSIGHT_CLONE_PROXY_URL set to a URL with %PORT%" in out.stderr
    assert lifecycle.list_servers(str(dirs[1])) == []


def record(port: int, host: str = "127.0.0.1", prefix: str = "", token: str = "") -> lifecycle.PidRecord:
    return lifecycle.PidRecord(pid=1, create_time=time.time(), port=port, host=host, summary_base_dir="/d",
                               url_path_prefix=prefix, auth_token=token)


def test_viewer_urls_of_servers_started_elsewhere() -> None:
    """A server `start` launched without the absolute prefix goes through /proxy/<port>/ (which strips)."""
    assert notebook.viewer_url(record(9001, prefix="/team/mi"), "server-proxy", {}) == "/proxy/9001/team/mi/"
    assert notebook.viewer_url(record(9001), "server-proxy-strip", {"JUPYTERHUB_SERVICE_PREFIX": "/user/b"}) == \
        "/user/b/proxy/9001/"
    assert notebook.viewer_url(record(9001, host="10.1.2.3", token="a b"), "direct", {}) == \
        "http://10.1.2.3:9001/?token=a%20b"
    assert notebook.viewer_url(record(9001, host="0.0.0.0"), "direct", {}) == "http://localhost:9001/"


def test_auto_mode_rule() -> None:
    assert notebook.choose_mode("auto", {"MINDINSIGHT_CLONE_PROXY_URL": TEMPLATE, "VSCODE_PID": "1"}) == "url"
    assert notebook.choose_mode("auto", {"JUPYTERHUB_SERVICE_PREFIX": "/user/a/"}) == "server-proxy"
    assert notebook.choose_mode("auto", {"VSCODE_PID": "1"}) == "direct"
    assert notebook.choose_mode("direct", {"JUPYTERHUB_SERVICE_PREFIX": "/user/a/"}) == "direct"


def test_direct_mode_lets_the_notebook_page_frame_the_server_it_starts() -> None:
    from mindinsight_clone.config import settings_for_tests
    from mindinsight_clone.notebook import LOCAL_NOTEBOOK_FRAMERS, settings_to_start

    started = settings_to_start(settings_for_tests(), {"port": 1}, "direct", {})
    assert started.frame_ancestors == LOCAL_NOTEBOOK_FRAMERS
    own = settings_to_start(settings_for_tests(frame_ancestors="https://nb.example.com"), {"port": 1}, "direct", {})
    assert own.frame_ancestors == "https://nb.example.com"  # the user's value wins
    template = {"MINDINSIGHT_CLONE_PROXY_URL": "https://hub.example.com/proxy/%PORT%/"}
    assert settings_to_start(settings_for_tests(), {"port": 1}, "url", template).frame_ancestors == ""  # same origin
