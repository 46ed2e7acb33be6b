"""The TensorBoard kinds served from the loopback S3 server: test_tb_kinds_api.py's read-only tests run again here
(imported) with their `app` fixture over `s3://tensorboard/shared/tensorboard`, where ../shared/fixtures/tensorboard
is uploaded (test_remote_tfevents.py's pattern). Every read goes through the storage seam: event files, the
add_scalars sub-folders found below a run, the hparams session runs and the projector files."""

from __future__ import annotations

import pytest
from flask import Flask

from tests.integration.test_tb_kinds_api import (  # noqa: F401  (collected again here, over S3)
    DEPTH,
    TB_FIXTURES,
    client,
    expected,
    test_add_scalars_group_has_its_eight_series,
    test_audio_metadata_and_wav_bytes,
    test_custom_scalars_layout,
    test_embedding_shape_rows_and_sprite,
    test_every_scalar_series_as_written,
    test_every_text_value_as_written,
    test_hparams_sessions_for_the_lineage_page,
    test_hparams_sessions_of_the_parent_run,
    test_megatron_diff_is_the_five_arguments,
    test_mesh_components,
    test_mindformers_config_compared_key_by_key,
    test_pr_counts_at_a_threshold,
    test_runs_and_plugin_tags_as_tensorboard_lists_them,
    test_samples_twins_named,
    test_text_latest_is_the_newest_text_of_every_tag,
)
from tests.remote_base import s3_app
from tests.s3_server import S3Server

BUCKET, PREFIX = "tensorboard", "shared/tensorboard"


@pytest.fixture(scope="module")
def app(s3_server: S3Server, tmp_path_factory: pytest.TempPathFactory, expected: dict) -> Flask:  # noqa: F811
    count = s3_server.upload_tree(TB_FIXTURES, BUCKET, PREFIX)
    assert count == sum(1 for p in TB_FIXTURES.rglob("*") if p.is_file())
    return s3_app(s3_server, f"s3://{BUCKET}/{PREFIX}", tmp_path_factory.mktemp("ws"), max_depth=DEPTH)
