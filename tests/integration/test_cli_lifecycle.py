"""start -> health -> stop with the real gunicorn, and every way `start` must refuse."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from mindinsight_clone.server import lifecycle
from tests.conftest import free_port, run_cli


def health(port: int) -> dict[str, object]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/mindinsight/health", timeout=5) as resp:
        return json.loads(resp.read())


def port_is_free(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT is not "in use"
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[int, Path, Path]]:
    base, ws, port = tmp_path / "base", tmp_path / "ws", free_port()
    base.mkdir()
    result = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws))
    assert result.returncode == 0, result.stdout + result.stderr
    yield port, base, ws
    run_cli("stop", "--port", str(port), "--workspace", str(ws))


def test_start_health_stop_frees_port(server: tuple[int, Path, Path]) -> None:
    port, _, ws = server
    assert health(port)["status"] == "ok"
    assert (ws / "log" / "gunicorn" / f"access.{port}.log").exists()
    assert (ws / "log" / f"app.{port}.log").exists()
    stopped = run_cli("stop", "--port", str(port), "--workspace", str(ws))
    assert stopped.returncode == 0, stopped.stderr
    assert "Stopped" in stopped.stdout
    assert port_is_free(port)
    again = run_cli("stop", "--port", str(port), "--workspace", str(ws))
    assert again.returncode == 1
    assert "No mindinsight-clone server" in again.stderr


def test_start_prints_addresses(tmp_path: Path) -> None:
    base, ws, port = tmp_path, tmp_path / "ws", free_port()
    result = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws))
    try:
        assert result.returncode == 0, result.stderr
        assert f"Workspace: {ws}" in result.stdout
        assert f"Summary base dir: {base}" in result.stdout
        assert f"Web address: http://127.0.0.1:{port}" in result.stdout
        assert "started" in result.stdout
    finally:
        run_cli("stop", "--port", str(port), "--workspace", str(ws))


def test_second_start_on_busy_port_fails_and_leaves_first(server: tuple[int, Path, Path], tmp_path: Path) -> None:
    port, base, ws = server
    other_ws = tmp_path / "other-ws"
    second = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(other_ws))
    assert second.returncode != 0
    assert f"Port {port}" in second.stderr and "not available" in second.stderr
    same = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws))
    assert same.returncode != 0 and "already running" in same.stderr
    assert health(port)["status"] == "ok"


def test_stop_never_kills_a_foreign_process(tmp_path: Path) -> None:
    port = free_port()
    with socket.socket() as foreign:
        foreign.bind(("127.0.0.1", port))
        foreign.listen()
        result = run_cli("stop", "--port", str(port), "--workspace", str(tmp_path / "ws"))
        assert result.returncode == 1
        assert "did not start" in result.stderr
        assert psutil.pid_exists(psutil.Process().pid)


def test_stop_refuses_a_forged_pid_file(tmp_path: Path) -> None:
    """A pid file naming some other live process (here: this test) must not get it killed."""
    port, ws = free_port(), tmp_path / "ws"
    (ws / "run").mkdir(parents=True)
    me = psutil.Process()
    record = {"pid": me.pid, "create_time": me.create_time(), "port": port, "host": "127.0.0.1",
              "summary_base_dir": str(tmp_path)}
    (ws / "run" / f"mindinsight-clone.{port}.pid").write_text(json.dumps(record))
    result = run_cli("stop", "--port", str(port), "--workspace", str(ws))
    assert result.returncode == 1
    assert me.is_running()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--port", "0"], "--port"),
        (["--port", "70000"], "--port"),
        (["--port", "abc"], "--port"),
        (["--reload-interval", "-1"], "--reload-interval"),
        (["--reload-interval", "1.5"], "--reload-interval"),
        (["--config", "file:/nonexistent/x.yaml"], "does not exist"),
        (["--config", "ftp:x"], "--config must be"),
    ],
)
def test_bad_flags_are_refused(tmp_path: Path, args: list[str], message: str) -> None:
    result = run_cli("start", "--summary-base-dir", str(tmp_path), "--workspace", str(tmp_path / "ws"),
                     "--port", str(free_port()), *args)
    assert result.returncode == 2
    assert message in result.stderr


def test_missing_and_non_directory_summary_dir(tmp_path: Path) -> None:
    missing = run_cli("start", "--port", str(free_port()), "--summary-base-dir", str(tmp_path / "nope"),
                      "--workspace", str(tmp_path / "ws"))
    assert missing.returncode == 1 and "does not exist" in missing.stderr
    a_file = tmp_path / "file"
    a_file.write_text("x")
    not_dir = run_cli("start", "--port", str(free_port()), "--summary-base-dir", str(a_file),
                      "--workspace", str(tmp_path / "ws"))
    assert not_dir.returncode == 1 and "is not a directory" in not_dir.stderr


def test_unwritable_workspace(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the workspace should be")
    result = run_cli("start", "--port", str(free_port()), "--summary-base-dir", str(tmp_path),
                     "--workspace", str(blocker / "ws"))
    assert result.returncode == 1 and "not writable" in result.stderr


def test_config_and_environment_precedence(tmp_path: Path) -> None:
    """defaults < --config < MINDINSIGHT_* env < flag, observed on the running server."""
    base, ws = tmp_path / "base", tmp_path / "ws"
    base.mkdir()
    port_config, port_env, port_flag = free_port(), free_port(), free_port()
    config = tmp_path / "settings.yaml"
    config.write_text(f"port: {port_config}\nreload_interval: 7\nworkspace: {ws}\nsummary_base_dir: {base}\n")
    env = {"MINDINSIGHT_PORT": str(port_env)}

    result = run_cli("start", "--config", f"file:{config}", "--port", str(port_flag), env=env)
    assert result.returncode == 0, result.stderr
    try:
        assert health(port_flag)["status"] == "ok"
        with urllib.request.urlopen(f"http://127.0.0.1:{port_flag}/v1/mindinsight/ui-config") as resp:
            assert json.loads(resp.read())["reload_interval"] == 7  # from the config file
    finally:
        run_cli("stop", "--port", str(port_flag), "--workspace", str(ws))

    result = run_cli("start", "--config", f"file:{config}", env=env)
    assert result.returncode == 0, result.stderr
    try:
        assert health(port_env)["status"] == "ok"  # env beats config
        assert port_is_free(port_config)
    finally:
        run_cli("stop", "--config", f"file:{config}", env=env)


def test_python_config_file(tmp_path: Path) -> None:
    port, ws = free_port(), tmp_path / "ws"
    config = tmp_path / "conf.py"
    config.write_text(f"PORT = {port}\nWORKSPACE = {str(ws)!r}\nSUMMARY_BASE_DIR = {str(tmp_path)!r}\n")
    result = run_cli("start", "--config", f"file:{config}")
    try:
        assert result.returncode == 0, result.stderr
        assert health(port)["status"] == "ok"
    finally:
        run_cli("stop", "--port", str(port), "--workspace", str(ws))


def test_version_and_help() -> None:
    assert run_cli("--version").stdout.strip().startswith("mindinsight-clone, version ")
    for command in ("start", "stop"):
        result = run_cli(command, "--help")
        assert result.returncode == 0 and "[default:" in result.stdout


def test_binding_beyond_loopback_warns_loudly(tmp_path: Path) -> None:
    """The warning comes before any check; a missing dir then stops the start before anything binds."""
    result = run_cli("start", "--host", "0.0.0.0", "--port", str(free_port()), "--summary-base-dir",
                     str(tmp_path / "missing"), "--workspace", str(tmp_path / "ws"))
    assert result.returncode == 1
    assert "WARNING: binding to 0.0.0.0" in result.stderr and "--allowed-hosts" in result.stderr


def test_loopback_binding_does_not_warn(tmp_path: Path) -> None:
    result = run_cli("start", "--port", str(free_port()), "--summary-base-dir", str(tmp_path / "missing"),
                     "--workspace", str(tmp_path / "ws"))
    assert result.returncode == 1 and "WARNING" not in result.stderr


def test_start_prints_a_stop_command_with_port_and_workspace(tmp_path: Path) -> None:
    base, ws, port = tmp_path, tmp_path / "ws", free_port()
    result = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws))
    try:
        assert result.returncode == 0, result.stderr
        assert f"Stop it with: mindinsight-clone stop --port {port} --workspace {ws}" in result.stdout
    finally:
        run_cli("stop", "--port", str(port), "--workspace", str(ws))


def test_stop_by_port_stops_our_server_started_with_another_workspace(server: tuple[int, Path, Path],
                                                                      tmp_path: Path) -> None:
    port, _, ws = server
    record = json.loads((ws / "run" / f"mindinsight-clone.{port}.pid").read_text())
    master = psutil.Process(record["pid"])
    family = [master, *master.children(recursive=True)]
    assert len(family) >= 2  # master and its worker
    result = run_cli("stop", "--port", str(port), "--workspace", str(tmp_path / "some-other-ws"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Stopped mindinsight-clone on port {port} (pid {master.pid})" in result.stdout
    psutil.wait_procs(family, timeout=10)
    assert not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in family)
    assert port_is_free(port)
    assert not (ws / "run" / f"mindinsight-clone.{port}.pid").exists()  # its own workspace's record is gone


LISTENER = ("import socket, sys, time\n"
            "s = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(); print('up', flush=True)\n"
            "time.sleep(120)\n")


def test_stop_by_port_never_touches_a_listener_that_only_looks_like_ours(tmp_path: Path) -> None:
    """A python process on the port whose command line mimics our gunicorn, but that `start` did not launch."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MINDINSIGHT_")}
    proc = subprocess.Popen([sys.executable, "-c", LISTENER, str(port), "gunicorn", lifecycle.APP_SPEC],
                            stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "up"
        result = run_cli("stop", "--port", str(port), "--workspace", str(tmp_path / "ws"))
        assert result.returncode == 1
        assert "did not start" in result.stderr
        assert proc.poll() is None  # still running
    finally:
        proc.kill()
        proc.wait()


def _file_size_limit(limit: int) -> None:
    import resource
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))


def test_workspace_probe_is_removed_when_the_write_fails(tmp_path: Path) -> None:
    """A full workspace (a 1-byte file-size limit: the probe's 2 bytes fail after its file was made): `start`
    refuses, and leaves no `.probe.<pid>` behind."""
    base, ws = tmp_path / "base", tmp_path / "ws"
    base.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MINDINSIGHT_")}
    result = subprocess.run([sys.executable, "-m", "mindinsight_clone", "start", "--port", str(free_port()),
                             "--summary-base-dir", str(base), "--workspace", str(ws)],
                            capture_output=True, text=True, env=env, timeout=60,
                            preexec_fn=lambda: _file_size_limit(1))
    assert result.returncode != 0
    assert "is not writable" in result.stderr and "File too large" in result.stderr
    assert (ws / "run").is_dir() and not list((ws / "run").glob(".probe.*"))


def test_a_whole_mindinsight_command_line_starts(tmp_path: Path) -> None:
    """MindInsight 2.3.1's debugger flags start a server that warns (console and app log) they are retired, and
    --max-graph-node-size is the graph limit the server applies (issue 31)."""
    from tests.integration.test_hostile_graphs import ir_text

    base, ws, port = tmp_path / "base", tmp_path / "ws", free_port()
    (base / "models").mkdir(parents=True)
    (base / "models" / "wide.ir").write_text(ir_text([f"a{i}/Conv2D-op{i}" for i in range(20)]))
    result = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws),
                     "--enable-debugger", "True", "--debugger-port", "50051", "--offline-debugger-mem-limit",
                     "16384", "--max-offline-debugger-session-num", "2", "--max-graph-node-size", "10")
    try:
        assert result.returncode == 0, result.stdout + result.stderr
        for flag in ("--enable-debugger", "--debugger-port", "--offline-debugger-mem-limit",
                     "--max-offline-debugger-session-num"):
            assert f"WARNING: {flag} is accepted for MindInsight command lines but retired" in result.stderr
        assert "--max-graph-node-size" not in result.stderr  # honoured, not retired
        log = (ws / "log" / f"app.{port}.log").read_text()
        assert "--enable-debugger is accepted for MindInsight command lines but retired" in log
        url = f"http://127.0.0.1:{port}/v1/mindinsight/models/graph/nodes?model_id=./models/wide.ir"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url, timeout=10)
        body = json.loads(refused.value.read())
        assert refused.value.code == 400 and body["error_code"] == "50545022"  # 20 operators with their scopes > 10
    finally:
        run_cli("stop", "--port", str(port), "--workspace", str(ws))
