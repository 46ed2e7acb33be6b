"""Shared test helpers: where ../shared is, free ports, and running our real CLI."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.s3_server import S3Server, running_s3_server

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
FIXTURES = SHARED / "fixtures" / "mindspore"
REFERENCE = SHARED / "reference" / "mindinsight"


def require_shared(path: Path = SHARED) -> Path:
    """Skip the calling test when ../shared (MindSpore-written fixtures) is not beside the repo."""
    if not path.exists():
        pytest.skip(f"{path} is absent: the real MindSpore fixtures live in ../shared (present in CI)")
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    """Run `python -m mindinsight_clone ARGS` with a clean MINDINSIGHT_* environment."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("MINDINSIGHT_")}
    base.update(env or {})
    return subprocess.run([sys.executable, "-m", "mindinsight_clone", *args], capture_output=True, text=True,
                          env=base, timeout=timeout, cwd=REPO)


@pytest.fixture
def fixtures_dir() -> Path:
    return require_shared(FIXTURES)


@pytest.fixture
def reference_dir() -> Path:
    return require_shared(REFERENCE)


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """A real S3-compatible server (moto's standalone server) on a loopback port, for the whole session."""
    pytest.importorskip("moto.server", reason="moto[server] (dev extra) runs the loopback S3 server")
    pytest.importorskip("s3fs", reason="s3fs (the [s3] extra) reads s3:// base dirs")
    with running_s3_server(tmp_path_factory.mktemp("moto")) as server:
        yield server
