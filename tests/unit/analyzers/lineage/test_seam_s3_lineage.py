"""Lineage files over an s3:// base (moto on loopback): read through the storage seam; a store that fails
afterwards keeps what was read."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindinsight_clone.analyzers.lineage.files import FileCache
from mindinsight_clone.ingest import storage
from mindinsight_clone.summary import SummaryWriter
from tests.s3_server import running_s3_server


def test_remote_lineage_is_read_and_kept_when_the_store_fails(tmp_path: Path) -> None:
    pytest.importorskip("moto.server")
    run = tmp_path / "tree" / "run"
    with SummaryWriter(run, timestamp=100, host="h") as writer:
        writer.add_train_lineage(optimizer="Adam", learning_rate=0.01, epoch=3, batch_size=32, loss=0.5)
        writer.add_eval_lineage({"accuracy": 0.9})
    name = next(p.name for p in run.iterdir() if p.name.endswith("_lineage"))
    cache = FileCache()
    with running_s3_server(tmp_path) as server:
        server.upload_tree(tmp_path / "tree", "lineage", "base")
        location = storage.base_location("s3://lineage/base", server.storage_options) / "run" / name
        first = cache.get(location)
        assert first is not None and first.train is not None and first.evaluation is not None
        assert first.train["hyper_parameters"]["learning_rate"] == pytest.approx(0.01)
    # the store is gone: a changed stamp makes the cache try again; what was read stays
    again = cache.get(location, stamp=(1, 1.0))
    assert again is first and cache.parses == 1
    assert FileCache().get(location, stamp=(1, 1.0)) is None  # nothing read before: nothing to show
