"""`resolve_train_dir` over a local base dir and over an S3 prefix (moto on loopback): one check, `storage.confine`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mindinsight_clone.errors import ParamMissError, QueryStringContainsNullByteError, TrainJobNotExistError
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.train_id import InvalidTrainId, resolve_train_dir
from tests.s3_server import S3Server

TRICKS = ["../x", "./..", "./../other", "./run/../..", "./run/..", "./a\\b", "./s3://other/x", "./s3:/other",
          "/etc", "./", "./run//x", "./.", "./run/./x", "C:x", "x"]


def _tree(root: Path) -> None:
    for run in ("run", "job/rank_0"):
        (root / run).mkdir(parents=True)
        (root / run / "events.summary.1").write_bytes(b"x")


@pytest.fixture
def s3_base(s3_server: S3Server, tmp_path: Path, request: pytest.FixtureRequest) -> storage.Location:
    _tree(tmp_path / "tree")
    # a sibling prefix and another bucket that an escaping id would reach
    (tmp_path / "sibling" / "secret").mkdir(parents=True)
    (tmp_path / "sibling" / "secret" / "canary").write_bytes(b"canary")
    s3_server.upload_tree(tmp_path / "sibling", "trainid", f"{request.node.name}-sibling")
    s3_server.upload_tree(tmp_path / "sibling", "otherbucket", "x")
    s3_server.upload_tree(tmp_path / "tree", "trainid", f"{request.node.name}/base")
    return storage.base_location(f"s3://trainid/{request.node.name}/base", s3_server.storage_options)


def test_remote_runs_resolve_inside_the_prefix(s3_base: storage.Location) -> None:
    assert resolve_train_dir(s3_base, "./run") == s3_base / "run"
    assert resolve_train_dir(s3_base, "./run/") == s3_base / "run"
    assert resolve_train_dir(s3_base, "./job/rank_0") == s3_base / "job" / "rank_0"
    assert storage.is_remote(resolve_train_dir(s3_base, "./"))


@pytest.mark.parametrize("train_id", [t for t in TRICKS if t != "./"])
def test_remote_path_tricks_are_refused(s3_base: storage.Location, train_id: str) -> None:
    with pytest.raises(TrainJobNotExistError):
        resolve_train_dir(s3_base, train_id)


@pytest.mark.parametrize("train_id", ["./%2e%2e", "./%2e%2e/%2e%2e/otherbucket", "./..%2f..%2fsibling"])
def test_remote_encoded_dots_are_plain_names_that_do_not_exist(s3_base: storage.Location, train_id: str) -> None:
    """An id arrives URL-decoded once; what is left of `%2e` is a literal key name inside the prefix."""
    with pytest.raises(TrainJobNotExistError) as raised:
        resolve_train_dir(s3_base, train_id)
    assert not isinstance(raised.value, InvalidTrainId)  # refused as missing, looked up inside the prefix only


def test_remote_missing_and_file_ids_do_not_exist(s3_base: storage.Location) -> None:
    for train_id in ("./nope", "./run/events.summary.1", "./job/rank_9"):
        with pytest.raises(TrainJobNotExistError) as raised:
            resolve_train_dir(s3_base, train_id)
        assert not isinstance(raised.value, InvalidTrainId)


def test_remote_syntax_errors_are_the_same(s3_base: storage.Location) -> None:
    with pytest.raises(ParamMissError):
        resolve_train_dir(s3_base, "")
    with pytest.raises(QueryStringContainsNullByteError):
        resolve_train_dir(s3_base, "./run\x00")
    with pytest.raises(InvalidTrainId):
        resolve_train_dir(s3_base, "./" + "a" * 256)


def test_a_dead_store_means_the_run_does_not_exist() -> None:
    import socket

    pytest.importorskip("s3fs")
    with socket.socket() as sock:  # bound, never listening: connections are refused, nobody else takes the port
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        base = storage.base_location("s3://dead/base", {"endpoint_url": f"http://127.0.0.1:{port}", "key": "k",
                                                         "secret": "s", "config_kwargs": {"retries": {"max_attempts": 1}}})
        with pytest.raises(TrainJobNotExistError) as raised:
            resolve_train_dir(base, "./run")
    assert not isinstance(raised.value, InvalidTrainId)


# ------------------------------------------------------------------ local: the same rules as before the seam
def test_local_returns_the_real_path_and_accepts_str(tmp_path: Path) -> None:
    _tree(tmp_path / "base")
    os.symlink(tmp_path / "base", tmp_path / "alias")
    assert resolve_train_dir(tmp_path / "alias", "./run") == (tmp_path / "base" / "run").resolve()
    assert resolve_train_dir(str(tmp_path / "base"), "./job/rank_0") == (tmp_path / "base" / "job" / "rank_0")
    assert resolve_train_dir(tmp_path / "base", "./") == (tmp_path / "base").resolve()


@pytest.mark.parametrize("train_id", [t for t in TRICKS if t != "./"])
def test_local_path_tricks_are_refused(tmp_path: Path, train_id: str) -> None:
    _tree(tmp_path / "base")
    with pytest.raises(TrainJobNotExistError):
        resolve_train_dir(tmp_path / "base", train_id)


def test_local_symlinks_anywhere_on_the_way_are_invalid(tmp_path: Path) -> None:
    _tree(tmp_path / "base")
    (tmp_path / "outside" / "run").mkdir(parents=True)
    os.symlink(tmp_path / "outside", tmp_path / "base" / "out")
    os.symlink(tmp_path / "base" / "run", tmp_path / "base" / "inner")
    for train_id in ("./out", "./out/run", "./inner"):
        with pytest.raises(InvalidTrainId):
            resolve_train_dir(tmp_path / "base", train_id)


def test_local_missing_or_unreadable_is_not_found(tmp_path: Path) -> None:
    _tree(tmp_path / "base")
    with pytest.raises(TrainJobNotExistError) as raised:
        resolve_train_dir(tmp_path / "base", "./nope")
    assert not isinstance(raised.value, InvalidTrainId)
    if os.geteuid() == 0:
        return  # root reads through any mode
    locked = tmp_path / "base" / "job"
    locked.chmod(0)
    try:
        with pytest.raises(TrainJobNotExistError) as raised:
            resolve_train_dir(tmp_path / "base", "./job/rank_0")
        assert not isinstance(raised.value, InvalidTrainId)
    finally:
        locked.chmod(0o755)


def test_urls_are_shown_without_credentials() -> None:
    assert storage.redact("s3://AKIA:secret@bucket/prefix") == "s3://bucket/prefix"
    assert storage.redact("hdfs://user@namenode:8020/data") == "hdfs://namenode:8020/data"
    assert storage.redact("s3://bucket/a@b") == "s3://bucket/a@b"  # an @ in the key is not a credential
    assert storage.redact("/local/path@x") == "/local/path@x"
