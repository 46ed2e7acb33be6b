"""RecordReader: framing, CRC checks, resuming on growing files, and every kind of damage."""

from __future__ import annotations

import logging
import os
import struct
import time
import tracemalloc
from pathlib import Path

import pytest
from crc32c import crc32c

from mindinsight_clone.ingest.record_reader import (
    FRAME_BYTES,
    RESYNC_SCAN_BYTES,
    RecordReader,
    frame_record,
    masked_crc32c,
    read_all,
)
from tests.conftest import FIXTURES, require_shared
from tests.unit.ingest.helpers import header, scalar_event, write_records


def test_masked_crc_matches_the_tfrecord_definition() -> None:
    assert crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value
    assert masked_crc32c(b"") == 0xA282EAD8  # crc 0 -> just the mask delta
    crc = 0xE3069283
    expected = (((crc >> 15) | (crc << 17)) + 0xA282EAD8) % 2**32
    assert masked_crc32c(b"123456789") == expected


def test_crcs_of_a_real_mindspore_record_verify() -> None:
    require_shared()
    data = (FIXTURES / "crc_corrupt" / "events.out.events.summary.1795313460.0.vm_MS").read_bytes()
    length, length_crc = struct.unpack_from("<QI", data, 0)
    assert masked_crc32c(data[:8]) == length_crc
    payload = data[12:12 + length]
    assert masked_crc32c(payload) == struct.unpack_from("<I", data, 12 + length)[0]
    assert frame_record(payload) == data[:FRAME_BYTES + length]


def test_reads_all_records_in_order(tmp_path: Path) -> None:
    payloads = [scalar_event(i, loss=float(i)) for i in range(50)] + [b""]
    offsets = write_records(tmp_path / "f", payloads)
    result = RecordReader(tmp_path / "f").read()
    assert result.records == payloads
    assert result.offsets == offsets
    assert result.offset == (tmp_path / "f").stat().st_size
    assert not result.problems and not result.stopped and not result.reset and result.pending_bytes == 0


def test_empty_file_gives_nothing(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"")
    result = RecordReader(tmp_path / "f").read()
    assert result.records == [] and result.problems == [] and result.offset == 0


@pytest.mark.parametrize("cut", [1, 8, 11, 12, 13, 40, -4, -1])
def test_partial_record_waits_then_completes(tmp_path: Path, cut: int) -> None:
    first, second = scalar_event(1, loss=1.0), scalar_event(2, loss=2.0)
    framed = frame_record(first) + frame_record(second)
    split = len(frame_record(first)) + (cut if cut > 0 else len(frame_record(second)) + cut)
    path = tmp_path / "f"
    path.write_bytes(framed[:split])
    reader = RecordReader(path)
    result = reader.read()
    assert result.records == [first]
    assert result.offset == len(frame_record(first))
    assert result.pending_bytes == split - len(frame_record(first))
    assert not result.problems and not result.stopped
    with path.open("ab") as f:  # the writer finishes the record
        f.write(framed[split:])
    result = reader.read()
    assert result.records == [second]
    assert result.offsets == [len(frame_record(first))]
    assert result.offset == len(framed) and result.pending_bytes == 0
    assert reader.read().records == []  # nothing new


def test_resumes_at_a_given_offset(tmp_path: Path) -> None:
    payloads = [scalar_event(i, loss=1.0) for i in range(5)]
    offsets = write_records(tmp_path / "f", payloads)
    result = RecordReader(tmp_path / "f", offset=offsets[3]).read()
    assert result.records == payloads[3:]


def test_payload_crc_mismatch_skips_exactly_that_record(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    payloads = [scalar_event(i, loss=float(i)) for i in range(6)]
    offsets = write_records(tmp_path / "f", payloads)
    data = bytearray((tmp_path / "f").read_bytes())
    data[offsets[2] + 12 + 3] ^= 0x01  # one bit inside the third payload
    (tmp_path / "f").write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING):
        result = RecordReader(tmp_path / "f").read()
    assert result.records == payloads[:2] + payloads[3:]
    assert [(p.kind, p.offset, p.file) for p in result.problems] == [("payload_crc", offsets[2], "f")]
    assert not result.stopped and result.offset == len(data)
    assert "payload CRC mismatch" in caplog.text


def test_footer_crc_damage_also_skips_only_that_record(tmp_path: Path) -> None:
    payloads = [scalar_event(i, loss=float(i)) for i in range(3)]
    offsets = write_records(tmp_path / "f", payloads)
    data = bytearray((tmp_path / "f").read_bytes())
    data[offsets[1] - 1] ^= 0xFF  # last byte of record 0's payload CRC
    (tmp_path / "f").write_bytes(bytes(data))
    result = RecordReader(tmp_path / "f").read()
    assert result.records == payloads[1:]
    assert [p.kind for p in result.problems] == ["payload_crc"]


@pytest.mark.parametrize("byte", [0, 3, 9])  # in the length, in its high bytes, in the length CRC
def test_damaged_length_header_resynchronises_at_the_next_record(tmp_path: Path, byte: int) -> None:
    payloads = [scalar_event(i, loss=float(i)) for i in range(20)]
    offsets = write_records(tmp_path / "f", payloads)
    data = bytearray((tmp_path / "f").read_bytes())
    data[offsets[7] + byte] ^= 0x10
    (tmp_path / "f").write_bytes(bytes(data))
    reader = RecordReader(tmp_path / "f")
    result = reader.read()
    assert result.records == payloads[:7] + payloads[8:]  # only the damaged record is lost
    assert result.offsets == offsets[:7] + offsets[8:]
    assert [(p.kind, p.offset) for p in result.problems] == [("length_crc", offsets[7])]
    skipped = offsets[8] - offsets[7]
    assert f"skipped {skipped} bytes to the next valid record at byte {offsets[8]}" in result.problems[0].message
    assert not result.stopped and result.offset == len(data) and result.pending_bytes == 0
    with (tmp_path / "f").open("ab") as f:  # and it keeps following the file
        f.write(frame_record(scalar_event(99, loss=9.0)))
    again = reader.read()
    assert again.records == [scalar_event(99, loss=9.0)] and again.problems == []


def test_damage_in_the_last_record_waits_for_the_next_one(tmp_path: Path) -> None:
    payloads = [scalar_event(i, loss=float(i)) for i in range(5)]
    offsets = write_records(tmp_path / "f", payloads)
    data = bytearray((tmp_path / "f").read_bytes())
    data[offsets[4] + 9] ^= 0x01
    (tmp_path / "f").write_bytes(bytes(data))
    reader = RecordReader(tmp_path / "f")
    first = reader.read()
    assert first.records == payloads[:4]
    assert [(p.kind, p.offset) for p in first.problems] == [("length_crc", offsets[4])]
    assert "yet" in first.problems[0].message
    assert reader.resyncing and not first.stopped and first.pending_bytes == 0
    assert reader.read().problems == []  # reported once, not on every call
    later = [scalar_event(i, loss=float(i)) for i in range(5, 8)]
    with (tmp_path / "f").open("ab") as f:
        f.write(frame_record(later[0])[:7])  # a partial header is not a record yet
    assert reader.read().records == []
    with (tmp_path / "f").open("ab") as f:
        f.write(frame_record(later[0])[7:] + b"".join(frame_record(p) for p in later[1:]))
    result = reader.read()
    assert result.records == later and not reader.resyncing
    assert [p.kind for p in result.problems] == ["length_crc"]
    assert f"next valid record at byte {len(data)}" in result.problems[0].message


def test_resync_scan_is_bounded(tmp_path: Path) -> None:
    path = tmp_path / "f"
    good = frame_record(scalar_event(1, loss=1.0))
    with path.open("wb") as f:
        f.write(good + header(10, good_crc=False))
        f.write(b"\xab" * (RESYNC_SCAN_BYTES + 1024))  # no plausible header anywhere in it
        f.write(frame_record(scalar_event(2, loss=2.0)))  # beyond the bound: never looked for
    result = read_all(path)
    assert result.records == [good[12:-4]]
    assert result.stopped and [p.kind for p in result.problems] == ["length_crc"]
    assert "file not read further" in result.problems[0].message


def test_bogus_length_just_under_the_cap_is_checked_in_bounded_chunks(tmp_path: Path) -> None:
    """A header announcing ~100 MB (valid length CRC, under the cap) over 100 MB of zeros with a wrong
    payload CRC: found bad while reading it chunk by chunk, never allocated (was ~3x the length)."""
    path = tmp_path / "sparse"
    length = 100_000_000
    good = frame_record(scalar_event(1, loss=1.0))
    with path.open("wb") as f:
        f.write(good + header(length))
        f.truncate(len(good) + 12 + length + 4)  # sparse payload and a zero (wrong) payload CRC
    after = frame_record(scalar_event(2, loss=2.0))
    with path.open("ab") as f:
        f.write(after)
    tracemalloc.start()
    try:
        result = read_all(path, max_record_bytes=length + 1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.records == [good[12:-4], after[12:-4]]
    assert [(p.kind, p.offset) for p in result.problems] == [("payload_crc", len(good))]
    assert peak < 8 * 1024 * 1024


def test_a_large_valid_record_is_allocated_once(tmp_path: Path) -> None:
    payload = os.urandom(20 * 1024 * 1024)
    write_records(tmp_path / "f", [payload])
    tracemalloc.start()
    try:
        result = RecordReader(tmp_path / "f").read()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.records == [payload]
    assert peak < len(payload) + 4 * 1024 * 1024


def test_length_beyond_the_cap_stops_without_allocating(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(frame_record(scalar_event(1, loss=1.0)) + header(10**12) + b"x" * 100)
    tracemalloc.start()
    try:
        result = RecordReader(path, max_record_bytes=1024).read()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(result.records) == 1
    assert [p.kind for p in result.problems] == ["too_large"] and result.stopped
    assert peak < 2 * 1024 * 1024


def test_record_just_under_the_cap_is_read(tmp_path: Path) -> None:
    payload = b"a" * 1000
    write_records(tmp_path / "f", [payload])
    assert RecordReader(tmp_path / "f", max_record_bytes=1000).read().records == [payload]
    assert RecordReader(tmp_path / "f", max_record_bytes=999).read().problems[0].kind == "too_large"


def test_huge_sparse_file_with_a_huge_length_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "sparse"
    with path.open("wb") as f:
        f.write(header(1_900_000_000))  # plausible-looking length, valid CRC, beyond the default cap
        f.truncate(2 * 1024**3)  # 2 GB, sparse
    start = time.perf_counter()
    tracemalloc.start()
    try:
        result = RecordReader(path).read()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 2
    assert peak < 8 * 1024 * 1024
    assert [p.kind for p in result.problems] == ["too_large"] and result.records == []


def test_large_partial_record_within_the_cap_waits_without_reading_past_eof(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(header(400_000_000) + b"x" * 10)  # announced 400 MB, only 10 bytes written
    tracemalloc.start()
    try:
        result = RecordReader(path).read()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.records == [] and result.problems == [] and not result.stopped
    assert result.pending_bytes == 22
    assert peak < 8 * 1024 * 1024


def test_garbage_file_is_rejected_at_offset_zero(tmp_path: Path) -> None:
    path = tmp_path / "events.out.events.summary.1.0.x"
    path.write_bytes(b"this is not a summary file\n" * 100)
    reader = RecordReader(path)
    result = reader.read()
    assert result.records == [] and reader.resyncing  # nothing valid in it (yet)
    assert [(p.kind, p.offset) for p in result.problems] == [("length_crc", 0)]


def test_shrunk_file_is_reported_and_reread_from_zero(tmp_path: Path) -> None:
    path = tmp_path / "f"
    payloads = [scalar_event(i, loss=float(i)) for i in range(4)]
    write_records(path, payloads)
    reader = RecordReader(path)
    assert len(reader.read().records) == 4
    with path.open("r+b") as f:  # truncated in place: same inode, fewer bytes
        f.truncate(len(frame_record(payloads[0])))
    result = reader.read()
    assert result.reset
    assert [p.kind for p in result.problems] == ["shrunk"]
    assert result.records == payloads[:1]
    assert result.offset == len(frame_record(payloads[0]))


def test_replaced_file_is_reported_and_reread_from_zero(tmp_path: Path) -> None:
    path = tmp_path / "f"
    write_records(path, [scalar_event(i, loss=float(i)) for i in range(3)])
    reader = RecordReader(path)
    reader.read()
    new = [scalar_event(i, loss=-float(i)) for i in range(5)]
    write_records(tmp_path / "g", new)
    os.replace(tmp_path / "g", path)  # a new inode, larger than before
    result = reader.read()
    assert result.reset and [p.kind for p in result.problems] == ["replaced"]
    assert result.records == new


def test_deleted_file_is_reported_without_exception(tmp_path: Path) -> None:
    path = tmp_path / "f"
    write_records(path, [scalar_event(1, loss=1.0)])
    reader = RecordReader(path)
    reader.read()
    path.unlink()
    result = reader.read()
    assert result.records == [] and [p.kind for p in result.problems] == ["unreadable"]
    assert reader.offset == result.offset > 0  # the position is kept in case it comes back


def test_unreadable_path_is_reported_without_exception(tmp_path: Path) -> None:
    result = RecordReader(tmp_path).read()  # a directory cannot be read as a file
    assert result.records == [] and [p.kind for p in result.problems] == ["unreadable"]
    assert RecordReader(tmp_path / "missing").read().problems[0].kind == "unreadable"


def test_small_budget_returns_more_and_continues(tmp_path: Path) -> None:
    payloads = [b"p" * 600_000 for _ in range(5)]
    write_records(tmp_path / "f", payloads)
    reader = RecordReader(tmp_path / "f", chunk_bytes=1)
    got, calls = [], 0
    while True:
        result = reader.read()
        got += result.records
        calls += 1
        if not result.more:
            break
    assert got == payloads and calls > 1


def test_record_larger_than_the_read_chunk(tmp_path: Path) -> None:
    payloads = [b"s", os.urandom(3 * 1024 * 1024), b"e"]
    write_records(tmp_path / "f", payloads)
    assert read_all(tmp_path / "f").records == payloads
