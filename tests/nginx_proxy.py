"""A real reverse proxy for tests and benchmarks: Debian's nginx, started in the foreground with its own prefix,
config, pid file and logs in a temporary directory, listening on a loopback port, with an upstream of replicas.

The config is docs/deploy.md's recipe reduced to what a test needs: round robin over the replicas, the next replica
tried on a connection error, a timeout or a 502/503 (`proxy_next_upstream`), `proxy_buffering off`. The access log
names the replica(s) each request went to (`upstream=...`: two addresses when nginx retried on the next one).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

LOG_FORMAT = '$status "$request" upstream=$upstream_addr upstream_status=$upstream_status'


def nginx_binary() -> str | None:
    """nginx on PATH or in /usr/sbin (Debian's place, often not on a non-root PATH)."""
    return shutil.which("nginx", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"]))


@dataclass
class Nginx:
    port: int
    directory: Path
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def access_log(self) -> Path:
        return self.directory / "access.log"

    def access_lines(self) -> list[str]:
        return self.access_log.read_text(errors="replace").splitlines() if self.access_log.exists() else []


def config(directory: Path, port: int, upstreams: Sequence[int], keepalive: int = 0) -> str:
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=30s;" for p in upstreams)
    pool = f"        keepalive {keepalive};\n" if keepalive else ""
    return f"""worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    log_format replicas '{LOG_FORMAT}';
    access_log {directory}/access.log replicas;
    client_body_temp_path {directory}/client_body;
    proxy_temp_path {directory}/proxy;
    upstream mindinsight {{
{servers}
{pool}    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://mindinsight;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_connect_timeout 2s;
            proxy_read_timeout 120s;
            proxy_next_upstream error timeout http_502 http_503;
            proxy_buffering off;
        }}
    }}
}}
"""


@contextlib.contextmanager
def running_nginx(directory: Path, port: int, upstreams: Sequence[int], keepalive: int = 0,
                  timeout: float = 20.0) -> Iterator[Nginx]:
    """Start nginx in the foreground (`daemon off;`) on `port` over `upstreams`; stop it (by its pid) on exit."""
    binary = nginx_binary()
    if binary is None:
        raise FileNotFoundError("nginx is not installed (scripts/run_tests installs it with apt as root)")
    directory.mkdir(parents=True, exist_ok=True)
    conf = directory / "nginx.conf"
    conf.write_text(config(directory, port, upstreams, keepalive), encoding="utf-8")
    command = [binary, "-p", str(directory), "-e", str(directory / "error.log"), "-c", str(conf),
               "-g", "daemon off;"]
    with (directory / "console.log").open("wb") as console:
        process = subprocess.Popen(command, stdout=console, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if process.poll() is not None or time.monotonic() > deadline:
                errors = "".join(p.read_text(errors="replace") for p in (directory / "console.log",
                                                                         directory / "error.log") if p.exists())
                raise RuntimeError(f"nginx did not start: {errors}")
            time.sleep(0.05)
        yield Nginx(port=port, directory=directory, process=process)
    finally:
        process.terminate()  # SIGTERM: nginx's fast shutdown (master and workers)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
