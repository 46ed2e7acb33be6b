"""Helpers for tests that serve a summary base dir from the loopback S3 server (tests/s3_server.py).

`upload_fixtures` puts ../shared/fixtures/mindspore/ into the bucket once per server (several test modules
share it); `s3_app` is create_app over an `s3://bucket/prefix` base with the server's storage options, loaded
once like the local tests do it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flask import Flask

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.ingest import storage
from mindinsight_clone.server.app import create_app
from tests.conftest import FIXTURES, require_shared
from tests.s3_server import S3Server

FIXTURES_BUCKET = "fixtures"
# the last component equals the local dir's name, so train-jobs' `name` is the same for both bases
FIXTURES_PREFIX = "shared/mindspore"

_uploaded: dict[str, str] = {}


def upload_fixtures(server: S3Server) -> str:
    """Upload ../shared/fixtures/mindspore/ to the server (once) and return its `s3://` URL."""
    require_shared(FIXTURES)
    if server.endpoint not in _uploaded:
        count = server.upload_tree(FIXTURES, FIXTURES_BUCKET, FIXTURES_PREFIX)
        assert count == sum(1 for p in FIXTURES.rglob("*") if p.is_file())
        _uploaded[server.endpoint] = f"s3://{FIXTURES_BUCKET}/{FIXTURES_PREFIX}"
    return _uploaded[server.endpoint]


def s3_location(server: S3Server, url: str) -> storage.Location:
    return storage.base_location(url, server.storage_options)


def s3_settings(server: S3Server, url: str, workspace: Path, **overrides: Any) -> Any:
    return settings_for_tests(summary_base_dir=url, storage_options=json.dumps(server.storage_options),
                              workspace=str(workspace), **{"reload_interval": 0, **overrides})


def s3_app(server: S3Server, url: str, workspace: Path, **overrides: Any) -> Flask:
    """create_app over an S3 base dir, without the background thread, loaded once."""
    app = create_app(s3_settings(server, url, workspace, **overrides), start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app


def local_app(base: Path, workspace: Path, **overrides: Any) -> Flask:
    """The same over a local dir (the reference side of the differential tests)."""
    settings = settings_for_tests(summary_base_dir=str(base), workspace=str(workspace),
                                  **{"reload_interval": 0, **overrides})
    app = create_app(settings, start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app
