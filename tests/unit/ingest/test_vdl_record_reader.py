"""`VdlRecordReader`: VisualDL's `u64 length | Record` framing, resumable, tolerant of damage; the proto copy's
wire numbers."""

from __future__ import annotations

import struct
from pathlib import Path

from mindinsight_clone.ingest.vdl_parser import is_vdlrecords_file, parse_vdl_columns, vdl_timestamp
from mindinsight_clone.ingest.vdl_record_reader import RESYNC_SCAN_BYTES, VdlRecordReader, is_record_shaped
from mindinsight_clone.proto import vdl_record_pb2

Record = vdl_record_pb2.Record


def _frame(step: int, value: float = 1.0, tag: str = "loss") -> bytes:
    payload = Record(values=[Record.Value(id=step, tag=tag, timestamp=1000 * step, value=value)]).SerializeToString()
    return struct.pack("<Q", len(payload)) + payload


def test_wire_numbers_visualdl_writes() -> None:
    value = Record.Value.DESCRIPTOR.fields_by_name
    assert {n: value[n].number for n in ("id", "tag", "timestamp", "value", "image", "audio", "embeddings",
                                         "histogram", "pr_curve", "meta_data", "roc_curve", "text", "hparam",
                                         "tag_value")} == {
        "id": 1, "tag": 2, "timestamp": 3, "value": 4, "image": 5, "audio": 6, "embeddings": 7, "histogram": 8,
        "pr_curve": 9, "meta_data": 10, "roc_curve": 11, "text": 12, "hparam": 13, "tag_value": 14}
    assert Record.DESCRIPTOR.fields_by_name["values"].number == 1


def test_name_rule() -> None:
    assert is_vdlrecords_file("vdlrecords.1795863355.log") and is_vdlrecords_file("my_vdlrecords.log")
    assert not is_vdlrecords_file("events.out.tfevents.1") and not is_vdlrecords_file("vdlgraph.1.log")
    assert vdl_timestamp("vdlrecords.1795863355.log") == 1795863355 and vdl_timestamp("my_vdlrecords.log") is None


def test_shape_check() -> None:
    payload = _frame(3)[8:]
    assert is_record_shaped(payload) and is_record_shaped(b"")
    assert not is_record_shaped(payload[:-1]) and not is_record_shaped(payload[:5] + _frame(4)[:8])


def test_reads_incrementally_and_waits_for_a_cut_tail(tmp_path: Path) -> None:
    frames = [_frame(s, float(s)) for s in range(5)]
    path = tmp_path / "vdlrecords.1.log"
    path.write_bytes(b"".join(frames[:2]) + frames[2][:4])  # cut inside record 2's length
    reader = VdlRecordReader(path)
    first = reader.read()
    assert len(first.records) == 2 and first.pending_bytes == 4 and not first.problems
    with path.open("ab") as f:
        f.write(frames[2][4:] + frames[3][:10])  # then inside record 3's payload
    second = reader.read()
    assert second.offsets == [len(frames[0]) + len(frames[1])] and not second.problems
    with path.open("ab") as f:
        f.write(frames[3][10:] + frames[4])
    third = reader.read()
    parsed = parse_vdl_columns(third.records, path.name, third.offsets)
    assert parsed.scalars["loss/scalar"] == [3, 3.0, 3.0, 4, 4.0, 4.0] and third.pending_bytes == 0


def test_garbage_then_records_is_skipped_once(tmp_path: Path) -> None:
    """Garbage mid-file (an absurd length here) is one problem; reading resyncs at the next record, also when
    that record is appended later (a live file)."""
    path = tmp_path / "vdlrecords.1.log"
    garbage = b"\xff" * 40
    path.write_bytes(_frame(0) + garbage)
    reader = VdlRecordReader(path)
    first = reader.read()
    start = len(_frame(0))
    assert len(first.records) == 1 and [(p.kind, p.offset) for p in first.problems] == [("bad_payload", start)]
    assert reader.resyncing and not reader.stopped
    with path.open("ab") as f:
        f.write(_frame(1) + _frame(2))
    second = reader.read()
    assert [len(second.records), second.offsets[0]] == [2, start + len(garbage)] and not second.problems


def test_gives_up_past_the_scan_bound(tmp_path: Path) -> None:
    path = tmp_path / "vdlrecords.1.log"
    path.write_bytes(_frame(0) + b"\xff" * (RESYNC_SCAN_BYTES + 16) + _frame(1))
    result = VdlRecordReader(path).read()
    assert len(result.records) == 1 and result.stopped and len(result.problems) == 2


def test_shrunk_file_reads_again(tmp_path: Path) -> None:
    path = tmp_path / "vdlrecords.1.log"
    path.write_bytes(_frame(0) + _frame(1))
    reader = VdlRecordReader(path)
    assert len(reader.read().records) == 2
    path.write_bytes(_frame(5))  # truncated and rewritten in place (same inode)
    again = reader.read()
    assert again.reset and len(again.records) == 1
