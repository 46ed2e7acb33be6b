"""TensorBoard event files (tensorboardX and TF2-style, and a run holding both formats) served from the loopback
S3 server: test_tfevents_api.py's read-only tests run again here (imported) with their `app` fixture over
`s3://tfevents/<test>/base`, the same tree that test's `written` fixture makes in tmp and uploads here."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask

from tests.integration.test_tfevents_api import (  # noqa: F401  (collected again here, over S3)
    client,
    test_every_scalar_step_exact,
    test_histograms_present_and_sampled_like_mindspore,
    test_images_served_as_written,
    test_mixed_run_serves_both_formats,
    test_runs_listed_with_mindinsight_tag_names,
    written,
)
from tests.remote_base import s3_app
from tests.s3_server import S3Server


@pytest.fixture
def app(s3_server: S3Server, tmp_path: Path, request: pytest.FixtureRequest) -> Flask:
    pytest.importorskip("tensorboardX", reason="tensorboardX (dev extra) writes the tfevents fixtures")
    request.getfixturevalue("written")  # the runs, written into tmp_path/base
    prefix = f"{request.node.name}/base".replace("[", "-").replace("]", "")
    s3_server.upload_tree(tmp_path / "base", "tfevents", prefix)
    return s3_app(s3_server, f"s3://tfevents/{prefix}", tmp_path / "ws", scalar_samples=1000)
