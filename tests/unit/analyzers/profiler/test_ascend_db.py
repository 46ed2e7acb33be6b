"""The read-only SQLite reader of the Ascend database export (analyzers/profiler/adapters/ascend_db/ascend_db.py) and its spool for
remote files (db_spool.py), on small databases made here with sqlite3 and on the fixture's (read in place)."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import numpy as np
import pytest

from mindinsight_clone.analyzers.profiler.adapters.ascend_db import ascend_db
from mindinsight_clone.analyzers.profiler.adapters.ascend_db.ascend_db import (
    INT_NULL,
    DbRef,
    StringIds,
    open_db,
    read_header,
)
from mindinsight_clone.analyzers.profiler.engine.db_spool import DbSpool
from mindinsight_clone.errors import ProfilerFileNotFoundError, ProfilerRawFileError
from tests.conftest import SHARED, require_shared

FIXTURE_DB = (SHARED / "fixtures" / "ascend_db" / "torch_npu_db_level1" / "profiler" / "rank0_ascend_pt"
              / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db")


def make_db(path: Path, rows: int = 50) -> Path:
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE T (a INTEGER, b NUMERIC, c TEXT)")
        con.executemany("INSERT INTO T VALUES (?, ?, ?)",
                        [(i, None if i % 7 == 0 else i * 10, str(1_736_000_000_000_000_000 + i)) for i in range(rows)])
    con.close()
    return path


def test_int_columns_cast_text_and_mark_null(tmp_path: Path) -> None:
    ref = DbRef(make_db(tmp_path / "t.db"), "3")
    with open_db(ref, None) as db:
        cols = db.int_columns({"a": "a", "b": "b", "c": "c"}, "FROM T ORDER BY rowid")
        assert db.has("T") and not db.has("U")
    assert cols["a"].tolist() == list(range(50))
    assert cols["b"].tolist() == [INT_NULL if i % 7 == 0 else i * 10 for i in range(50)]
    assert cols["c"].tolist() == [1_736_000_000_000_000_000 + i for i in range(50)]  # TEXT ns read exactly


@pytest.mark.skipif(not ascend_db.adbc_available(), reason="the ascend-db extra (ADBC) is not installed")
def test_both_column_readers_agree_on_the_fixture() -> None:
    require_shared(FIXTURE_DB)
    tables = {"TASK": {"gid": "globalTaskId", "start": "startNs", "end": "endNs", "stream": "streamId",
                       "model": "modelId"},
              "PYTORCH_API": {"start": "startNs", "end": "endNs", "dims": "inputShapes"},  # TEXT times, NULL ids
              "COMPUTE_TASK_INFO": {"gid": "globalTaskId", "name": "name", "shapes": "inputShapes"}}
    with open_db(DbRef(FIXTURE_DB, "0"), None) as db:
        for table, select in tables.items():
            stdlib = db.int_columns(select, f"FROM {table}", adbc=False)
            arrow = db.int_columns(select, f"FROM {table}", adbc=True)
            expected = db.rows(f"SELECT {', '.join(select.values())} FROM {table}")
            for i, name in enumerate(select):
                assert stdlib[name].dtype == arrow[name].dtype == np.int64
                assert np.array_equal(stdlib[name], arrow[name]), (table, name)
                assert stdlib[name].tolist() == [INT_NULL if r[i] is None else int(r[i]) for r in expected]


def test_require_tells_missing_table_from_missing_column(tmp_path: Path) -> None:
    with open_db(DbRef(make_db(tmp_path / "ascend_pytorch_profiler_2.db"), "2"), None) as db:
        with pytest.raises(ProfilerFileNotFoundError, match=r"U in ascend_pytorch_profiler_2\.db of rank 2"):
            db.require("U", ("a",), "written at Level1")
        with pytest.raises(ProfilerRawFileError, match=r"lacks the column\(s\) z of table T"):
            db.require("T", ("a", "z"))


@pytest.mark.parametrize(("content", "words"), [
    (b"", "is empty"),
    (b"PK\x03\x04 a zip file, not a database" * 10, "is not a SQLite database"),
])
def test_header_refuses_what_is_not_sqlite(tmp_path: Path, content: bytes, words: str) -> None:
    path = tmp_path / "analysis.db"
    path.write_bytes(content)
    with pytest.raises(ProfilerRawFileError, match=f"analysis.db of rank 0> {words}"):
        read_header(DbRef(path, "0"))


def test_header_finds_truncation_and_damage(tmp_path: Path) -> None:
    path = make_db(tmp_path / "t.db", rows=5000)
    whole = path.read_bytes()
    assert read_header(DbRef(path, "0")).page_count * read_header(DbRef(path, "0")).page_size == len(whole)
    path.write_bytes(whole[: len(whole) // 3])
    with pytest.raises(ProfilerRawFileError, match=f"is truncated: {len(whole) // 3} of {len(whole)} bytes"):
        read_header(DbRef(path, "0"))
    path.write_bytes(whole[:16] + b"\x03\x00" + whole[18:])  # page size 768: not a power of two
    with pytest.raises(ProfilerRawFileError, match="damaged SQLite header"):
        read_header(DbRef(path, "0"))


def test_damaged_pages_are_a_clear_error(tmp_path: Path) -> None:
    path = make_db(tmp_path / "t.db", rows=5000)
    data = bytearray(path.read_bytes())
    data[4096:8192] = b"\xff" * 4096  # a b-tree page overwritten, size unchanged
    path.write_bytes(bytes(data))
    with pytest.raises(ProfilerRawFileError, match=r"t\.db of rank 0> (is damaged|cannot be read)"), \
            open_db(DbRef(path, "0"), None) as db:
        db.int_columns({"a": "a"}, "FROM T")


def test_a_symlinked_database_is_not_opened(tmp_path: Path) -> None:
    target = make_db(tmp_path / "real.db")
    link = tmp_path / "ascend_pytorch_profiler_0.db"
    link.symlink_to(target)
    with pytest.raises(ProfilerRawFileError, match="a symbolic link is not followed"), \
            open_db(DbRef(link, "0"), None) as db:
        db.rows("SELECT 1 FROM T")
    # a regular file swapped for a link after the header check is refused too
    plain = make_db(tmp_path / "ascend_pytorch_profiler_1.db")
    header = read_header(DbRef(plain, "1"))
    plain.unlink()
    plain.symlink_to(target)
    assert not ascend_db._same_file(DbRef(plain, "1"), header)


def test_reading_writes_nothing(tmp_path: Path) -> None:
    path = make_db(tmp_path / "t.db")
    stamp = path.stat().st_mtime_ns
    with open_db(DbRef(path, "0"), None) as db:
        db.int_columns({"a": "a"}, "FROM T")
        with pytest.raises(ProfilerRawFileError):
            db.rows("DELETE FROM T")  # query_only / mode=ro refuse
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.db"] and path.stat().st_mtime_ns == stamp


def test_string_ids_column_interns_and_marks_unknown_ids() -> None:
    ids = StringIds(np.array([3, 7, 268435456], dtype=np.int64), ("MatMul", " Add ", "Conv2D"))
    dense, texts = ids.column(np.array([268435456, 3, 3, 99, INT_NULL, 7], dtype=np.int64))
    assert [texts[i] for i in dense] == ["Conv2D", "MatMul", "MatMul", "", "", "Add"]
    assert len(texts) == 4  # only the strings used, "" once
    assert ids.text(7) == " Add " and ids.text(8) == "" and ids.text(None) == ""


# --- spool ---------------------------------------------------------------------------------------


def test_spool_copies_once_per_identity_and_refetches_a_changed_file(tmp_path: Path) -> None:
    source = make_db(tmp_path / "a.db")
    spool = DbSpool(tmp_path / "spool", max_bytes=10 << 20)
    first = spool.local_copy(source, "a.db of rank 0")
    assert first.read_bytes() == source.read_bytes() and spool.local_copy(source, "x") == first
    with sqlite3.connect(source) as con:
        con.execute("INSERT INTO T VALUES (1, 2, '3')")
    con.close()
    os.utime(source, (time.time() + 5, time.time() + 5))
    second = spool.local_copy(source, "a.db of rank 0")
    assert second != first and second.read_bytes() == source.read_bytes()


def test_spool_drops_least_recently_used_and_refuses_what_cannot_fit(tmp_path: Path) -> None:
    sources = [make_db(tmp_path / f"{i}.db", rows=3000) for i in range(3)]
    size = sources[0].stat().st_size
    spool = DbSpool(tmp_path / "spool", max_bytes=2 * size + size // 2)
    a = spool.local_copy(sources[0], "0")
    b = spool.local_copy(sources[1], "1")
    past = time.time() - 100
    os.utime(b, (past, past))  # b is now the least recently used
    spool.local_copy(sources[0], "0")
    c = spool.local_copy(sources[2], "2")
    assert a.exists() and c.exists() and not b.exists()
    assert spool.nbytes <= spool.max_bytes
    small = DbSpool(tmp_path / "small", max_bytes=size - 1)
    with pytest.raises(ProfilerRawFileError, match="profiler_db_spool_mb"):
        small.local_copy(sources[0], "0.db of rank 0")
    assert not (tmp_path / "small").exists()  # nothing written for a refused file
