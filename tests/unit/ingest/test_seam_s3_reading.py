"""Discovery and record reading over a real S3-compatible server on loopback (moto): the storage seam end to end."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from mindinsight_clone.ingest import scalar_batch, storage
from mindinsight_clone.ingest.record_reader import RecordReader, frame_record
from mindinsight_clone.ingest.summary_watcher import scan_runs
from mindinsight_clone.store import discovery
from tests.s3_server import S3Server
from tests.unit.store.summary_files import scalar_event, version_event, write_records

BUCKET = "seam"


def _records(count: int, first: int = 0, tag: str = "loss") -> list[bytes]:
    return [scalar_event(step, {tag: float(step) / 2}) for step in range(first, first + count)]


def _framed(payloads: list[bytes]) -> bytes:
    return b"".join(frame_record(p) for p in payloads)


def _tree(root: Path) -> None:
    write_records(root / "run_a" / "events.out.events.summary.100.0.h_MS", [version_event(), *_records(3)])
    (root / "run_b").mkdir()
    (root / "run_b" / "ms_output_0.pb").write_bytes(b"\x0a\x00")
    write_records(root / "job" / "out" / "rank_0" / "events.out.events.summary.200.0.h_MS", _records(2))
    write_records(root / "job" / "out" / "rank_1" / "events.out.events.summary.201.0.h_MS", _records(2))
    ops = root / "prof" / "profiler" / "rank_0" / "ASCEND_PROFILER_OUTPUT"
    ops.mkdir(parents=True)
    (ops / "op_statistic.csv").write_text("OP Type,Count\nMatMul,3\n")
    (root / "notes").mkdir()
    (root / "notes" / "readme.txt").write_text("not a run")


@pytest.fixture
def s3_tree(s3_server: S3Server, tmp_path: Path, request: pytest.FixtureRequest) -> storage.Location:
    _tree(tmp_path / "tree")
    prefix = f"disc/{request.node.name}"
    s3_server.upload_tree(tmp_path / "tree", BUCKET, prefix)
    return storage.base_location(f"s3://{BUCKET}/{prefix}", s3_server.storage_options)


@pytest.fixture
def dead_base() -> Iterator[storage.Location]:
    """An endpoint that refuses connections: a port we hold bound but never listen on (so no other
    process, e.g. another test's S3 server, can take it meanwhile)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        yield storage.base_location("s3://dead/base", {"endpoint_url": f"http://127.0.0.1:{port}", "key": "k",
                                                        "secret": "s"})


# ---------------------------------------------------------------------- discovery
def test_runs_of_an_s3_prefix_are_found_as_on_disk(s3_tree: storage.Location, tmp_path: Path) -> None:
    remote = scan_runs(s3_tree)
    local = scan_runs(tmp_path / "tree")
    assert sorted(r.train_id for r in remote.runs) == sorted(r.train_id for r in local.runs) == [
        "./prof", "./run_a", "./run_b"]
    by_id = {r.train_id: r for r in remote.runs}
    assert [(f.name, f.size) for f in by_id["./run_a"].summary_files] == [
        (f.name, f.size) for f in {r.train_id: r for r in local.runs}["./run_a"].summary_files]
    assert [f.name for f in by_id["./run_b"].pb_files] == ["ms_output_0.pb"]
    assert by_id["./prof"].profiler_dirs == ["profiler"]
    assert by_id["./run_a"].update_time > 0 and by_id["./prof"].update_time > 0  # object times stand in
    assert storage.is_remote(by_id["./run_a"].path)
    assert not remote.failed and not remote.truncated


def test_nested_runs_with_max_depth_and_profiler_type(s3_tree: storage.Location) -> None:
    result = discovery.scan_result(s3_tree, 999, max_depth=4)
    ids = sorted(r.train_id for r in result.runs)
    assert ids == ["./job/out/rank_0", "./job/out/rank_1", "./prof", "./run_a", "./run_b"]
    prof = next(r for r in result.runs if r.train_id == "./prof")
    assert prof.profiler_type == "ascend" and prof.graph_mode == "static"  # looked up by the scan, not per request
    assert discovery.profiler_type(prof) == "ascend"


def test_a_scan_makes_a_bounded_number_of_requests(s3_server: S3Server, s3_tree: storage.Location) -> None:
    before = s3_server.requests_logged()
    result = scan_runs(s3_tree, max_depth=4)
    made = s3_server.requests_logged() - before
    # base; run_a, run_b, job, prof, notes; job/out; its 2 rank dirs; prof/profiler and the probe under it (2)
    assert result.listings == 12
    assert made == result.listings  # one request per listing (small dirs), nothing per file
    before = s3_server.requests_logged()
    bounded = scan_runs(s3_tree, max_depth=4, max_scan_dirs=2)
    assert bounded.truncated and bounded.listings == 2  # the base and the first directory, then it stops
    assert s3_server.requests_logged() - before == 2


def test_max_scan_entries_cuts_remote_listings(s3_tree: storage.Location) -> None:
    result = scan_runs(s3_tree, max_scan_entries=2)
    assert result.truncated


def test_a_failing_store_is_not_an_empty_one(dead_base: storage.Location) -> None:
    result = scan_runs(dead_base)
    assert result.runs == []
    assert set(result.failed) == {"./"} and "cannot list s3://dead/base" in result.failed["./"]


def test_a_missing_prefix_is_empty_not_failing(s3_server: S3Server) -> None:
    s3_server.bucket(BUCKET)
    result = scan_runs(storage.base_location(f"s3://{BUCKET}/no/such/prefix", s3_server.storage_options))
    assert result.runs == [] and result.failed == {}


# ---------------------------------------------------------------------- record reading
def _object(s3_server: S3Server, key: str, data: bytes) -> storage.Location:
    s3_server.put(BUCKET, key, data)
    return storage.base_location(f"s3://{BUCKET}", s3_server.storage_options) / key


def test_incremental_reads_from_the_offset_and_longer_is_appended(s3_server: S3Server) -> None:
    first = _records(3)
    loc = _object(s3_server, "rr/grow/events.summary.1", _framed(first))
    reader = RecordReader(loc)
    got = reader.read()
    assert got.records == first and not got.reset and not got.problems
    offset = reader.offset
    # the object is replaced by a longer one whose first bytes differ (same lengths): read from the offset on,
    # only the new records come back; a re-read from 0 would return the changed ones
    changed = [scalar_event(step, {"loss": -1.0}) for step in range(3)]
    assert [len(c) for c in changed] == [len(f) for f in first]
    more = _records(2, first=3)
    s3_server.put(BUCKET, "rr/grow/events.summary.1", _framed(changed + more))
    again = reader.read()
    assert again.records == more and again.offsets[0] == offset and not again.reset
    assert storage.file_identity(storage.open_binary(loc)) == ()  # remote objects: the name is the identity


def test_a_shorter_object_is_a_reset(s3_server: S3Server) -> None:
    loc = _object(s3_server, "rr/shrink/events.summary.1", _framed(_records(4)))
    reader = RecordReader(loc)
    assert len(reader.read().records) == 4
    fresh = _records(1, first=10)
    s3_server.put(BUCKET, "rr/shrink/events.summary.1", _framed(fresh))
    result = reader.read()
    assert result.reset and [p.kind for p in result.problems] == ["shrunk"]
    assert result.records == fresh and result.offsets == [0]


def test_damaged_records_are_reported_and_skipped(s3_server: S3Server) -> None:
    good = _records(3)
    data = bytearray(_framed(good))
    first_len = len(frame_record(good[0]))
    data[first_len + 14] ^= 0xFF  # a byte of the second record's payload
    loc = _object(s3_server, "rr/damaged/events.summary.1", bytes(data))
    result = RecordReader(loc).read()
    assert result.records == [good[0], good[2]]
    assert [(p.kind, p.offset) for p in result.problems] == [("payload_crc", first_len)]


def test_too_large_stops_the_file(s3_server: S3Server) -> None:
    loc = _object(s3_server, "rr/large/events.summary.1", _framed(_records(2)))
    result = RecordReader(loc, max_record_bytes=8).read()
    assert result.stopped and [p.kind for p in result.problems] == ["too_large"]


def test_a_dead_store_is_an_unreadable_problem_not_an_exception(dead_base: storage.Location) -> None:
    result = RecordReader(dead_base / "run" / "events.summary.1").read()
    assert [p.kind for p in result.problems] == ["unreadable"] and result.records == []


def test_scalar_batch_reads_the_same_columns_remotely(s3_server: S3Server, tmp_path: Path) -> None:
    payloads = _records(300)
    local = write_records(tmp_path / "events.summary.1", payloads)
    loc = _object(s3_server, "rr/batch/events.summary.1", local.read_bytes())
    size = local.stat().st_size
    end_local, cols_local = scalar_batch.read_scalar_records(local, 0, size, 1000)
    end_remote, cols_remote = scalar_batch.read_scalar_records(loc, 0, size, 1000)
    assert end_remote == end_local == size
    assert cols_remote.items == cols_local.items
    for tag, (steps, _walls, values) in cols_local.arrays.items():
        assert cols_remote.arrays[tag][0].tolist() == steps.tolist()
        assert cols_remote.arrays[tag][2].tolist() == values.tolist()


def test_a_cut_remote_listing_hides_nothing_from_later_lookups(s3_server: S3Server) -> None:
    for i in range(6):
        s3_server.put(BUCKET, f"cut/dir/obj{i}", b"x" * i)
    base = storage.base_location(f"s3://{BUCKET}/cut", s3_server.storage_options)
    entries, truncated = storage.list_dir(base / "dir", limit=2)
    assert truncated and [e.name for e in entries] == ["obj0", "obj1"]
    assert storage.stat(base / "dir" / "obj5").size == 5  # not answered "missing" from a partial cached listing
    full, cut = storage.list_dir(base / "dir")
    assert not cut and len(full) == 6


def test_s3_timeout_and_retry_defaults_fill_only_what_is_not_given(s3_server: S3Server) -> None:
    given = {"endpoint_url": s3_server.endpoint, "config_kwargs": {"read_timeout": 99}}
    options = storage.with_defaults("s3", given)
    assert options["config_kwargs"] == {"connect_timeout": 5, "read_timeout": 99,
                                        "retries": {"max_attempts": 3, "mode": "standard"}}
    assert given["config_kwargs"] == {"read_timeout": 99}  # the caller's mapping is left alone
    assert storage.with_defaults("gs", {"token": "anon"}) == {"token": "anon"}
    base = storage.base_location(f"s3://{BUCKET}/x", {**s3_server.storage_options, **given})
    assert base.storage_options["config_kwargs"]["connect_timeout"] == 5
