"""A real S3-compatible server on loopback for tests: moto's standalone server (`moto.server`), started as
a child process on a free port. Tests talk to it through s3fs/botocore exactly as they would to S3 or OBS.

`S3Server.url(prefix)` gives the `s3://` URL and `storage_options` the options `--storage-options` takes.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
               "AWS_DEFAULT_REGION": "us-east-1"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class S3Server:
    endpoint: str
    process: subprocess.Popen[bytes]
    log_path: Path
    buckets: set[str] = field(default_factory=set)

    @property
    def storage_options(self) -> dict[str, Any]:
        return {"endpoint_url": self.endpoint, "key": CREDENTIALS["AWS_ACCESS_KEY_ID"],
                "secret": CREDENTIALS["AWS_SECRET_ACCESS_KEY"]}

    def client(self) -> Any:
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1",
                            aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
                            aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"])

    def bucket(self, name: str) -> str:
        if name not in self.buckets:
            self.client().create_bucket(Bucket=name)
            self.buckets.add(name)
        return name

    def upload_tree(self, local: Path, bucket: str, prefix: str) -> int:
        """Upload every regular file under `local` to `s3://bucket/prefix/<relative path>`; returns the count."""
        client = self.client()
        self.bucket(bucket)
        count = 0
        for path in sorted(local.rglob("*")):
            if path.is_file() and not path.is_symlink():
                key = f"{prefix.strip('/')}/{path.relative_to(local).as_posix()}".lstrip("/")
                client.upload_file(str(path), bucket, key)
                count += 1
        return count

    def put(self, bucket: str, key: str, data: bytes) -> None:
        self.client().put_object(Bucket=self.bucket(bucket), Key=key, Body=data)

    def requests_logged(self) -> int:
        """HTTP requests the server has answered so far (one log line each)."""
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return sum(1 for line in text.splitlines() if '" 2' in line or '" 3' in line or '" 4' in line
                   or '" 5' in line)


@contextlib.contextmanager
def running_s3_server(log_dir: Path) -> Iterator[S3Server]:
    """Start moto's server on a free loopback port; stop it on exit."""
    port = _free_port()
    log_path = log_dir / f"moto-{port}.log"
    env = {**os.environ, **CREDENTIALS}
    with log_path.open("wb") as log:
        process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                                   stdout=log, stderr=subprocess.STDOUT, env=env)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(endpoint + "/moto-api/", timeout=2):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"moto server did not start: {log_path.read_text(errors='replace')}") from None
                time.sleep(0.2)
        yield S3Server(endpoint=endpoint, process=process, log_path=log_path)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
