"""The ways docs/remote-storage.md says to configure an S3 base dir, each tried against the loopback S3 server:
`storage_options` as a mapping in a `--config` YAML file, and credentials plus endpoint from the environment
only (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_ENDPOINT_URL_S3`, no options at all)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
import yaml

from mindinsight_clone.config import resolve
from mindinsight_clone.server.app import create_app
from tests.s3_server import CREDENTIALS, S3Server
from tests.unit.store.summary_files import scalar_run

API = "/v1/mindinsight/datavisual"


def _upload_run(server: S3Server, tmp_path: Path) -> str:
    prefix = f"cfg-{uuid.uuid4().hex[:8]}"
    scalar_run(tmp_path / "up" / "run", range(1, 6), ["loss"])
    server.upload_tree(tmp_path / "up", "config", prefix)
    return f"s3://config/{prefix}"


def _served_steps(settings: object) -> list[int]:
    app = create_app(settings, start_background=False)  # type: ignore[arg-type]
    app.extensions["mindinsight_clone"].data_manager.reload()
    body = app.test_client().get(f"{API}/scalar/metadata?train_id=./run&tag=loss/scalar").get_json()
    return [m["step"] for m in body["metadatas"]]


def test_storage_options_as_a_mapping_in_a_yaml_config_file(s3_server: S3Server, tmp_path: Path) -> None:
    url = _upload_run(s3_server, tmp_path)
    config = tmp_path / "mindinsight.yaml"
    config.write_text(yaml.safe_dump({"summary_base_dir": url, "storage_options": s3_server.storage_options,
                                      "reload_interval": 0, "workspace": str(tmp_path / "ws")}))
    settings = resolve(config=f"file:{config}", environ={})
    assert json.loads(settings.storage_options) == s3_server.storage_options
    assert settings.summary_base_dir == url
    assert _served_steps(settings) == [1, 2, 3, 4, 5]


def test_credentials_and_endpoint_from_the_environment_only(s3_server: S3Server, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    url = _upload_run(s3_server, tmp_path)
    for name in ("AWS_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))  # no ~/.aws of the machine
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    for name, value in CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", s3_server.endpoint)
    settings = resolve(cli={"summary_base_dir": url, "workspace": str(tmp_path / "ws"), "reload_interval": 0,
                            "storage_options": "{}"}, environ={})
    assert _served_steps(settings) == [1, 2, 3, 4, 5]
