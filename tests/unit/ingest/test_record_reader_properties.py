"""Property tests: random, truncated and bit-flipped streams never raise, hang or over-allocate."""

from __future__ import annotations

import tempfile
import tracemalloc
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mindinsight_clone.ingest.record_reader import ReadResult, RecordReader, frame_record, read_all
from tests.unit.ingest.helpers import header

CAP = 4096  # max_record_bytes in these tests
PROPERTY_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

payload_lists = st.lists(st.binary(max_size=300), min_size=0, max_size=12)


def _read(data: bytes) -> tuple[list[bytes], ReadResult]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f"
        path.write_bytes(data)
        result = read_all(path, max_record_bytes=CAP)
        return result.records, result


@PROPERTY_SETTINGS
@given(st.binary(max_size=2000))
def test_random_bytes_never_raise(data: bytes) -> None:
    records, result = _read(data)
    assert all(len(r) <= CAP for r in records)
    assert 0 <= result.offset <= len(data)


@PROPERTY_SETTINGS
@given(payload_lists, st.data())
def test_truncated_stream_yields_a_prefix(payloads: list[bytes], data: st.DataObject) -> None:
    stream = b"".join(frame_record(p) for p in payloads)
    cut = data.draw(st.integers(0, len(stream)))
    records, result = _read(stream[:cut])
    assert records == payloads[: len(records)]
    assert not result.problems
    whole = sum(len(frame_record(p)) for p in records)
    assert result.offset == whole
    assert result.pending_bytes == cut - whole


@PROPERTY_SETTINGS
@given(payload_lists.filter(bool), st.data())
def test_bit_flip_loses_one_record_or_the_tail(payloads: list[bytes], data: st.DataObject) -> None:
    stream = bytearray(b"".join(frame_record(p) for p in payloads))
    index = data.draw(st.integers(0, len(stream) - 1))
    stream[index] ^= 1 << data.draw(st.integers(0, 7))
    records, result = _read(bytes(stream))
    # CRC32C catches every single-bit error: a damaged header stops the file (a prefix is kept),
    # a damaged payload or payload CRC loses exactly that record
    allowed = [payloads[:k] for k in range(len(payloads))]
    allowed += [payloads[:k] + payloads[k + 1:] for k in range(len(payloads))]
    assert records in allowed
    assert len(result.problems) == 1


@PROPERTY_SETTINGS
@given(payload_lists, st.integers(CAP + 1, 2**64 - 1))
def test_oversized_length_stops_without_allocating_it(payloads: list[bytes], length: int) -> None:
    stream = b"".join(frame_record(p) for p in payloads) + header(length) + b"\0" * 64
    tracemalloc.start()
    try:
        records, result = _read(stream)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert records == payloads
    assert result.stopped and result.problems[-1].kind == "too_large"
    assert peak < 4 * 1024 * 1024


@PROPERTY_SETTINGS
@given(payload_lists, st.lists(st.integers(1, 64), max_size=20))
def test_growing_file_read_in_pieces_equals_one_read(payloads: list[bytes], pieces: list[int]) -> None:
    stream = b"".join(frame_record(p) for p in payloads)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f"
        path.write_bytes(b"")
        reader = RecordReader(path, max_record_bytes=CAP)
        got: list[bytes] = []
        pos = 0
        for size in [*pieces, len(stream)]:
            with path.open("ab") as f:
                f.write(stream[pos:pos + size])
            pos = min(len(stream), pos + size)
            result = reader.read()
            assert not result.problems
            got += result.records
        assert got == payloads
