"""Start and stop the gunicorn server as a user meets it: checks, pid file, health wait, clean stop.

`start` refuses precisely (port, directories, workspace) before anything runs, launches gunicorn in
its own session, waits until the app answers /health, and records the master's pid and start time
in <workspace>/run/. `stop` only signals a process that the pid file names AND that psutil confirms
is our gunicorn, started at the recorded time.
"""

from __future__ import annotations

import contextlib
import dataclasses
import ipaddress
import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from mindinsight_clone.config import SettingError, Settings, base_dirs, is_url, storage_options
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.bases import describe_setting
from mindinsight_clone.server.deferred import DeferredModule

if TYPE_CHECKING:
    import psutil
else:
    psutil = DeferredModule("psutil")  # imported on first use: `start` launches gunicorn without it

APP_SPEC = "mindinsight_clone.server.worker:create_app_from_env()"  # loading starts before the app is built
CONF_SPEC = "python:mindinsight_clone.server.gunicorn_conf"
HEALTH_PATH = "/v1/mindinsight/health"
GENERATE_TOKEN = "generate"  # noqa: S105 - the --auth-token value that asks start for a random token
HEALTH_POLL_S = 0.02  # until the port answers: a refused connection costs nothing, and start returns this soon after


class LifecycleError(Exception):
    """A start/stop failure with the message to print; `exit_code` is the process exit status."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class PidRecord:
    pid: int
    create_time: float
    port: int
    host: str
    summary_base_dir: str
    url_path_prefix: str = ""
    auth_token: str = ""  # the file is written 0600, as Jupyter's runtime files: the notebook magic reads it


def record_for(settings: Settings, pid: int) -> PidRecord:
    return PidRecord(pid=pid, create_time=psutil.Process(pid).create_time(), port=settings.port, host=settings.host,
                     summary_base_dir=settings.summary_base_dir, url_path_prefix=settings.url_path_prefix,
                     auth_token=settings.auth_token)


def write_pid_record(workspace: str, record: PidRecord) -> None:
    path = pid_file(workspace, record.port)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(record.__dict__))


def list_servers(workspace: str) -> list[PidRecord]:
    """The servers `start` started with this workspace that are still running, by port."""
    records = []
    for path in sorted((Path(workspace) / "run").glob("mindinsight-clone.*.pid")):
        port = path.name.split(".")[1]
        record = read_pid_record(workspace, int(port)) if port.isdigit() else None
        if record is not None and our_server(record) is not None:
            records.append(record)
    return records


def pid_file(workspace: str, port: int) -> Path:
    return Path(workspace) / "run" / f"mindinsight-clone.{port}.pid"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def web_origin(settings: Settings) -> str:
    """`http://host:port` of the server as this machine reaches it (a wildcard bind is reached on loopback)."""
    host = settings.host
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1" if host == "0.0.0.0" else "::1"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{settings.port}"


def web_address(settings: Settings) -> str:
    """The UI's address: `http://host:port<prefix>/`."""
    return f"{web_origin(settings)}{settings.url_path_prefix}/"


def login_link(settings: Settings) -> str:
    """The address `start` prints: the UI's, with `?token=` when the server needs a token."""
    address = web_address(settings)
    return f"{address}?token={quote(settings.auth_token, safe='')}" if settings.auth_token else address


def with_token(settings: Settings) -> Settings:
    """`--auth-token generate` replaced by a random token (made here, before any worker starts)."""
    if settings.auth_token != GENERATE_TOKEN:
        return settings
    import secrets  # here: `start` without `--auth-token generate` launches gunicorn without it (hmac, hashlib)

    return dataclasses.replace(settings, auth_token=secrets.token_urlsafe(32))


# --- checks -------------------------------------------------------------------------------


def check_summary_dir(path: str, options: str = "{}") -> None:
    """A local base dir must be a readable directory; a URL one must have its backend installed and answer
    one listing call (`options`: the --storage-options JSON)."""
    if is_url(path):
        check_remote_summary_dir(path, options)
        return
    if not os.path.exists(path):
        raise LifecycleError(f"Summary base dir {path} does not exist.")
    if not os.path.isdir(path):
        raise LifecycleError(f"Summary base dir {path} is not a directory.")
    if not os.access(path, os.R_OK | os.X_OK):
        raise LifecycleError(f"Summary base dir {path} is not readable.")


def check_remote_summary_dir(url: str, options: str = "{}") -> None:
    shown = storage.redact(url)
    try:
        base = storage.base_location(url, storage_options(options))
    except (storage.StorageConfigError, SettingError) as err:
        raise LifecycleError(f"Summary base dir {shown}: {err}") from None
    try:
        storage.list_dir(base, limit=1)
    except FileNotFoundError:
        raise LifecycleError(f"Summary base dir {shown} does not exist (nothing is stored under it).") from None
    except NotADirectoryError:
        raise LifecycleError(f"Summary base dir {shown} is not a directory.") from None
    except OSError as err:
        raise LifecycleError(f"Summary base dir {shown} cannot be listed: {err}. Check the endpoint, bucket, "
                             "credentials and --storage-options.") from None


def prepare_workspace(workspace: str) -> None:
    """Create <workspace>/{log,run} and prove we can write there (the probe file is removed whatever happens)."""
    probe = Path(workspace) / "run" / f".probe.{os.getpid()}"
    try:
        for sub in ("log/gunicorn", "run"):
            (Path(workspace) / sub).mkdir(parents=True, exist_ok=True, mode=0o700)
        probe.write_text("ok", encoding="utf-8")
    except OSError as err:
        raise LifecycleError(f"Workspace {workspace} is not writable: {err.strerror or err}.") from None
    finally:
        with contextlib.suppress(OSError):
            probe.unlink(missing_ok=True)


def port_owner(port: int) -> str | None:
    """'name (pid N)' of the process listening on `port`, if we can tell."""
    with contextlib.suppress(psutil.Error, OSError):
        for conn in psutil.net_connections(kind="inet"):
            if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.pid:
                try:
                    name = psutil.Process(conn.pid).name()
                except psutil.Error:
                    name = "a process"
                return f"{name} (pid {conn.pid})"
    return None


def check_port_free(host: str, port: int) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as err:
            owner = port_owner(port)
            held = f" It is held by {owner}." if owner else ""
            raise LifecycleError(f"Port {port} on {host} is not available: {err.strerror or err}.{held}") from None


# --- pid records ---------------------------------------------------------------------------


def read_pid_record(workspace: str, port: int) -> PidRecord | None:
    path = pid_file(workspace, port)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return PidRecord(**data)
    except (OSError, ValueError, TypeError):
        return None


def our_server(record: PidRecord) -> psutil.Process | None:
    """The live process of `record` if it really is our gunicorn master, else None."""
    try:
        proc = psutil.Process(record.pid)
        cmdline = " ".join(proc.cmdline())
        if abs(proc.create_time() - record.create_time) > 1.0:
            return None
        if "gunicorn" in cmdline and APP_SPEC in cmdline and proc.status() != psutil.STATUS_ZOMBIE:
            return proc
    except psutil.Error:
        return None
    return None


# --- start ---------------------------------------------------------------------------------


def gunicorn_command() -> list[str]:
    return [sys.executable, "-m", "gunicorn", "-c", CONF_SPEC, APP_SPEC]


def child_environment(settings: Settings) -> dict[str, str]:
    env = dict(os.environ)
    env.update(settings.to_env())
    return env


def preflight(settings: Settings) -> None:
    """Every check `start` makes before launching anything."""
    for _name, path in base_dirs(settings.summary_base_dir):  # one plain dir, or each of name=path,...
        check_summary_dir(path, settings.storage_options)
    prepare_workspace(settings.workspace)
    record = read_pid_record(settings.workspace, settings.port)
    if record and our_server(record):
        raise LifecycleError(
            f"mindinsight-clone is already running on port {settings.port} (pid {record.pid}, summary base dir "
            f"{describe_setting(record.summary_base_dir)}). Use `mindinsight-clone stop --port {settings.port}` "
            "to stop it."
        )
    check_port_free(settings.host, settings.port)


def wait_healthy(settings: Settings, proc: subprocess.Popen[bytes], timeout: float) -> None:
    import urllib.error  # here, not at the top: the CLI's start imports less before it launches gunicorn
    import urllib.request

    url = web_origin(settings) + settings.url_path_prefix + HEALTH_PATH
    headers = {"Authorization": f"Bearer {settings.auth_token}"} if settings.auth_token else {}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise LifecycleError(f"The server exited during start (code {proc.returncode}).")
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=2) as resp:  # noqa: S310 - our own http URL
                if resp.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(HEALTH_POLL_S)
    raise LifecycleError(f"The server did not answer {HEALTH_PATH} within {timeout:.0f} s.")


def start_background(settings: Settings, timeout: float = 60.0) -> PidRecord:
    """Launch gunicorn detached, wait for /health, write the pid file. Leaves nothing on failure."""
    preflight(settings)
    console_log = Path(settings.workspace) / "log" / "gunicorn" / f"console.{settings.port}.log"
    with console_log.open("ab") as out:
        proc = subprocess.Popen(
            gunicorn_command(),
            env=child_environment(settings),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,
            cwd=settings.workspace,
        )
    try:
        wait_healthy(settings, proc, timeout)
    except LifecycleError as err:
        terminate_tree(proc.pid)
        raise LifecycleError(f"{err} See the logs in {console_log.parent}.") from None
    record = record_for(settings, proc.pid)
    write_pid_record(settings.workspace, record)
    return record


def run_foreground(settings: Settings) -> int:
    """Run gunicorn attached to this terminal (containers, debugging); returns its exit code."""
    preflight(settings)
    proc = subprocess.Popen(gunicorn_command(), env=child_environment(settings), cwd=settings.workspace)
    record = record_for(settings, proc.pid)
    write_pid_record(settings.workspace, record)
    path = pid_file(settings.workspace, settings.port)
    try:
        return proc.wait()
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGTERM)
        return proc.wait()
    finally:
        path.unlink(missing_ok=True)


# --- stop ----------------------------------------------------------------------------------


def terminate_tree(pid: int, grace: float = 10.0) -> None:
    """SIGTERM a process and its descendants; SIGKILL whatever is left after `grace` seconds."""
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.terminate()
    _, alive = psutil.wait_procs(procs, timeout=grace)
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(alive, timeout=grace)


def stop(workspace: str, port: int) -> PidRecord:
    """Stop our server on `port`; raise LifecycleError when there is none.

    The pid file of `workspace` is tried first. Without one (the server was started with another
    --workspace), the process listening on `port` is stopped if psutil shows it is our gunicorn master
    for that port (command line and MINDINSIGHT_PORT in its environment); anything else is left alone.
    """
    record = read_pid_record(workspace, port)
    proc = our_server(record) if record else None
    path = pid_file(workspace, port)
    if record is None or proc is None:
        path.unlink(missing_ok=True)  # a stale record of a server that is gone
        found = our_listener(port)
        if found is None:
            owner = port_owner(port)
            other = f" Port {port} is used by {owner}, which mindinsight-clone did not start." if owner else ""
            raise LifecycleError(f"No mindinsight-clone server started from workspace {workspace} is running on "
                                 f"port {port}.{other}")
        proc, record = found
        path = pid_file(proc.environ().get("MINDINSIGHT_WORKSPACE", workspace), port)
    terminate_tree(proc.pid)
    path.unlink(missing_ok=True)
    return record


def is_our_master(proc: psutil.Process, port: int) -> bool:
    """Whether `proc` is a gunicorn master that `start` launched for `port` (never raises)."""
    try:
        cmdline = proc.cmdline()
        env = proc.environ()
        return (any("gunicorn" in part for part in cmdline) and APP_SPEC in cmdline
                and env.get("MINDINSIGHT_PORT") == str(port) and proc.status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:  # gone, or not ours to inspect (another user's process)
        return False


def our_listener(port: int) -> tuple[psutil.Process, PidRecord] | None:
    """Our gunicorn master listening on `port` (found through its socket, a worker's or its own), or None."""
    pids: set[int] = set()
    with contextlib.suppress(psutil.Error, OSError):
        for conn in psutil.net_connections(kind="inet"):
            if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.pid:
                pids.add(conn.pid)
    for pid in sorted(pids):
        try:
            proc = psutil.Process(pid)
            parent = proc.parent()
        except psutil.Error:
            continue
        # a worker holds the inherited socket too: its parent is the master
        for candidate in (parent, proc) if parent is not None else (proc,):
            if is_our_master(candidate, port):
                env = candidate.environ()
                return candidate, PidRecord(candidate.pid, candidate.create_time(), port,
                                            env.get("MINDINSIGHT_HOST", ""),
                                            env.get("MINDINSIGHT_SUMMARY_BASE_DIR", ""),
                                            env.get("MINDINSIGHT_URL_PATH_PREFIX", ""),
                                            env.get("MINDINSIGHT_AUTH_TOKEN", ""))
    return None
