"""Local reads through `ingest.storage` (issue 29): no final symlink followed, regular files only (a FIFO never
blocks), what was opened checked against the registered base dir, whole-file reads bounded, no absolute path in
any error."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mindinsight_clone.ingest import storage

SECRET = b"root:x:0:0:TOP-SECRET"

READERS: dict[str, Callable[[Path], Any]] = {
    "open_binary": lambda p: storage.open_binary(p).read(),
    "open_text": lambda p: storage.open_text(p).read(),
    "read_bytes": storage.read_bytes,
    "read_range": lambda p: storage.read_range(p, 0, 100),
}


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """tmp/base (registered) with run/sub/ok.txt, beside tmp/outside/sub/ok.txt (the secret)."""
    base = tmp_path / "base"
    (base / "run" / "sub").mkdir(parents=True)
    (base / "run" / "sub" / "ok.txt").write_bytes(b"fine\n")
    (tmp_path / "outside" / "sub").mkdir(parents=True)
    (tmp_path / "outside" / "sub" / "ok.txt").write_bytes(SECRET)
    storage.confine_reads_to(base)
    return base


def _error(read: Callable[[Path], Any], path: Path, root: Path) -> OSError:
    with pytest.raises(OSError) as info:
        read(path)
    assert str(root) not in str(info.value) and "root:x" not in str(info.value)
    return info.value


@pytest.mark.parametrize("reader", READERS)
def test_a_regular_file_inside_reads(base: Path, reader: str) -> None:
    assert READERS[reader](base / "run" / "sub" / "ok.txt") in (b"fine\n", "fine\n")


@pytest.mark.parametrize("reader", READERS)
def test_a_final_symlink_is_not_followed(base: Path, reader: str) -> None:
    link = base / "run" / "sub" / "ok.txt"
    link.unlink()
    os.symlink(base.parent / "outside" / "sub" / "ok.txt", link)
    error = _error(READERS[reader], link, base.parent)
    assert isinstance(error, storage.SymlinkRefusedError) and str(error).startswith("ok.txt is a symbolic link")


@pytest.mark.parametrize("reader", READERS)
def test_a_directory_swapped_for_a_symlink_out_is_refused(base: Path, reader: str) -> None:
    shutil.rmtree(base / "run" / "sub")
    os.symlink(base.parent / "outside" / "sub", base / "run" / "sub")
    error = _error(READERS[reader], base / "run" / "sub" / "ok.txt", base.parent)
    assert isinstance(error, storage.OutsideBaseError) and isinstance(error, PermissionError)
    assert "outside the summary base dir" in str(error)


def test_a_directory_swapped_for_a_symlink_out_is_not_listed(base: Path) -> None:
    assert [e.name for e in storage.list_dir(base / "run" / "sub")[0]] == ["ok.txt"]
    shutil.rmtree(base / "run" / "sub")
    os.symlink(base.parent / "outside" / "sub", base / "run" / "sub")
    _error(lambda p: storage.list_dir(p), base / "run" / "sub", base.parent)
    assert list(storage.iter_dir(base / "run" / "sub")) == []


def test_a_symlink_that_stays_inside_the_base_dir_is_fine_for_directories(base: Path) -> None:
    os.symlink(base / "run" / "sub", base / "run" / "alias")
    assert storage.read_bytes(base / "run" / "alias" / "ok.txt") == b"fine\n"
    assert [e.name for e in storage.list_dir(base / "run" / "alias")[0]] == ["ok.txt"]


def test_paths_under_no_registered_base_dir_are_not_checked(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "f.txt").write_bytes(b"library use")
    os.symlink(tmp_path / "real", tmp_path / "alias")
    assert storage.read_bytes(tmp_path / "alias" / "f.txt") == b"library use"


@pytest.mark.timeout(10)  # a blocking open would hang here
@pytest.mark.parametrize("reader", READERS)
def test_a_fifo_is_refused_without_blocking(base: Path, reader: str) -> None:
    fifo = base / "run" / "fifo"
    os.mkfifo(fifo)  # no writer: a blocking open would never return
    error = _error(READERS[reader], fifo, base.parent)
    assert isinstance(error, storage.NotRegularFileError) and str(error) == "fifo is not a regular file (a FIFO); not read"


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.timeout(10)  # reading /dev/zero never ends
@pytest.mark.parametrize("reader", READERS)
def test_a_device_is_refused(reader: str) -> None:
    error = _error(READERS[reader], Path("/dev/zero"), Path("/nowhere"))
    assert isinstance(error, storage.NotRegularFileError) and "a character device" in str(error)


def test_a_directory_is_not_a_file(base: Path) -> None:
    with pytest.raises(IsADirectoryError):
        storage.read_bytes(base / "run")


def test_missing_files_name_no_absolute_path(base: Path) -> None:
    error = _error(storage.read_bytes, base / "run" / "nope.txt", base.parent)
    assert isinstance(error, FileNotFoundError)


def test_whole_file_reads_are_bounded(base: Path) -> None:
    path = base / "run" / "sub" / "ok.txt"
    assert storage.read_bytes(path, max_size=5) == b"fine\n"
    assert storage.read_bytes(path, 2) == b"fi"
    error = _error(lambda p: storage.read_bytes(p, max_size=4), path, base.parent)
    assert isinstance(error, storage.FileTooLargeError) and str(error) == "ok.txt has 5 bytes, above the 4 bytes " \
                                                                          "allowed; not read"


