"""The storage seam over a local dir and over a real S3-compatible server on loopback (moto)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mindinsight_clone.ingest import storage
from tests.s3_server import S3Server


def _tree(root: Path) -> None:
    (root / "run" / "profiler").mkdir(parents=True)
    (root / "run" / "a.bin").write_bytes(b"0123456789")
    (root / "run" / "profiler" / "x.csv").write_text("h\n1\n")


@pytest.fixture
def s3_base(s3_server: S3Server, tmp_path: Path, request: pytest.FixtureRequest) -> storage.Location:
    _tree(tmp_path)
    prefix = f"seam/{request.node.name}"
    s3_server.upload_tree(tmp_path, "unit", prefix)
    return storage.base_location(f"s3://unit/{prefix}", s3_server.storage_options)


@pytest.fixture
def local_base(tmp_path: Path) -> storage.Location:
    _tree(tmp_path)
    return storage.base_location(str(tmp_path))


@pytest.fixture(params=["local", "s3"])
def base(request: pytest.FixtureRequest) -> storage.Location:
    return request.getfixturevalue(f"{request.param}_base")  # type: ignore[no-any-return]


def test_listing_stat_and_reads_are_the_same_on_every_backend(base: storage.Location) -> None:
    entries, truncated = storage.list_dir(base / "run")
    assert not truncated
    kinds = {e.name: (e.is_dir, e.is_file) for e in entries}
    assert kinds == {"a.bin": (False, True), "profiler": (True, False)}
    info = storage.stat(base / "run" / "a.bin")
    assert (info.size, info.is_file) == (10, True)
    assert storage.read_bytes(base / "run" / "a.bin") == b"0123456789"
    assert storage.read_bytes(base / "run" / "a.bin", limit=4) == b"0123"
    with storage.open_binary(base / "run" / "a.bin") as f:
        f.seek(6)
        assert f.read() == b"6789"
        assert storage.file_size(f) == 10
    with storage.open_text(base / "run" / "profiler" / "x.csv", newline="") as t:
        assert t.read() == "h\n1\n"
    assert storage.is_dir(base / "run") and not storage.is_file(base / "run")
    assert not storage.exists(base / "run" / "missing")
    with pytest.raises(FileNotFoundError):
        storage.stat(base / "run" / "missing")
    with pytest.raises(OSError):
        storage.read_bytes(base / "nope.bin")


def test_listing_limit_says_it_cut(base: storage.Location) -> None:
    entries, truncated = storage.list_dir(base / "run", limit=1)
    assert len(entries) == 1 and truncated


@pytest.mark.parametrize("relative", ["..", "../x", "run/../..", "/etc", "a\\b", "a\x00", "", "run//a.bin",
                                      "./run", "s3://other/x", "C:x"])
def test_confine_refuses_path_tricks(base: storage.Location, relative: str) -> None:
    assert storage.confine(base, relative) is None


def test_confine_accepts_plain_relative_paths(base: storage.Location) -> None:
    target = storage.confine(base, "run/a.bin")
    assert target is not None and storage.read_bytes(target) == b"0123456789"


def test_confine_refuses_a_symlink_out_of_the_base(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    base = tmp_path / "base"
    base.mkdir()
    os.symlink(outside, base / "link")
    assert storage.confine(base, "link") is None
    assert storage.confine(base, "link/x") is None


def test_a_grown_object_reads_from_the_old_offset(s3_server: S3Server) -> None:
    s3_server.put("unit", "grow/obj", b"abc")
    loc = storage.base_location("s3://unit/grow", s3_server.storage_options) / "obj"
    assert storage.stat(loc).size == 3
    s3_server.put("unit", "grow/obj", b"abcdef")
    with storage.open_binary(loc) as f:
        assert storage.file_size(f) == 6
        f.seek(3)
        assert f.read() == b"def"


def test_url_forms() -> None:
    assert storage.base_location("file:///tmp/x") == Path("/tmp/x")
    assert isinstance(storage.base_location("/tmp/x"), Path)
    from mindinsight_clone.config import is_url

    assert is_url("s3://b/p") and not is_url("/tmp/a://b") and not is_url("C://x")
    with pytest.raises(storage.StorageConfigError, match="unknown storage scheme"):
        storage.base_location("nosuchscheme://x")


def test_a_missing_backend_names_the_extra() -> None:
    try:
        import gcsfs  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("gcsfs is installed here; the message is only given without it")
    with pytest.raises(storage.StorageConfigError, match=r"pip install 'mindinsight-clone\[gcs\]'"):
        storage.base_location("gs://bucket/prefix")


@pytest.mark.parametrize(("message", "kind"), [
    ('Could not connect to the endpoint URL: "http://127.0.0.1:40451/failing?list-type=2&prefix=base%2F"', OSError),
    ('Could not connect to the endpoint URL: "http://127.0.0.1:34038/b403/base"', OSError),
    ("An error occurred (404) when calling the HeadObject operation: Not Found", FileNotFoundError),
    ("An error occurred (NoSuchKey) when calling the GetObject operation: The key does not exist", FileNotFoundError),
    ("An error occurred (AccessDenied) when calling the ListObjectsV2 operation: Access Denied", PermissionError),
])
def test_a_store_error_is_classified_by_its_words_not_its_urls(message: str, kind: type[OSError]) -> None:
    """A store that cannot be reached on port 40451 is failing (its runs are kept with a problem), not a missing
    prefix (its runs would be dropped): the codes are never looked for inside a URL."""
    err = storage._as_oserror(RuntimeError(message), Path("/base"))
    assert type(err) is kind and message in str(err)
