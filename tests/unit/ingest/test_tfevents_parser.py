"""TensorBoard event files -> the same typed values as MindSpore summaries (ingest.tfevents_parser)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mindinsight_clone.ingest import formats, tfevents_convert
from mindinsight_clone.ingest.event_parser import ParsedColumns
from mindinsight_clone.ingest.record_reader import RecordReader
from mindinsight_clone.ingest.summary_watcher import scan_run
from mindinsight_clone.ingest.tfevents_parser import (
    TfeventsState,
    is_tfevents_file,
    parse_tfevents_columns,
    parse_tfevents_event,
)
from mindinsight_clone.ingest.values import Histogram, Image, SummaryValue, Text
from mindinsight_clone.proto import tb_event_pb2, tb_summary_pb2, tb_tensor_pb2, tb_types_pb2
from mindinsight_clone.store.loader import summary_file_order
from tests.unit.ingest.tfevents_files import (
    WALL0,
    png,
    tensorboardx_run,
    tf2_histogram,
    tf2_run,
    tf2_scalar,
)


def _read(path: Path) -> tuple[list[bytes], list[int]]:
    result = RecordReader(path).read()
    assert not result.problems
    return list(result.records), list(result.offsets)


def _scalars(parsed: ParsedColumns, tag: str) -> list[tuple[int, float]]:
    col = parsed.scalars[tag]
    return list(zip(col[0::3], col[2::3], strict=True))


def _values(parsed: ParsedColumns, plugin: str, tag: str) -> list[SummaryValue]:
    return [v for v in parsed.items if isinstance(v, SummaryValue) and v.plugin == plugin and v.tag == tag]


def test_file_names() -> None:
    assert is_tfevents_file("events.out.tfevents.1700000000.host.123.0")
    assert is_tfevents_file("events.out.tfevents.1700000000.host.123.0.v2")
    assert not is_tfevents_file("events.out.events.summary.1700000000.0.host_MS")
    assert not is_tfevents_file("my.events.out.tfevents.1700000000")
    assert not is_tfevents_file("events.out.tfevents.host")


def test_tensorboardx_file_every_scalar_step_exact(tmp_path: Path) -> None:
    written = tensorboardx_run(tmp_path, range(0, 40))
    (path,) = written.files
    records, offsets = _read(path)
    parsed = parse_tfevents_columns(records, path.name, offsets)
    assert not parsed.problems
    for disk_tag, expected in written.scalars.items():
        assert _scalars(parsed, disk_tag + "/scalar") == expected  # float32 values, bit for bit
    images = _values(parsed, "image", "input/image")
    assert [v.step for v in images] == [s for s, _ in written.images["input/image"]]
    assert all(isinstance(v.value, Image) and v.value.encoded.startswith(b"\x89PNG") for v in images)
    assert (images[0].value.width, images[0].value.height) == (6, 4)
    hists = _values(parsed, "histogram", "weights/histogram")
    assert [(v.step, int(v.value.total)) for v in hists] == written.histograms["weights"]
    assert all(len(v.value.left) <= tfevents_convert.MAX_BUCKETS for v in hists)
    assert all(v.wall_time == WALL0 + v.step for v in hists)


def test_tensorboardx_text_is_a_text_value(tmp_path: Path) -> None:
    written = tensorboardx_run(tmp_path, range(0, 3))
    (path,) = written.files
    parser = formats.RecordsParser()
    parsed = parser(*_read(path)[:1], path.name, [])
    texts = [v for v in parsed.items if isinstance(v, SummaryValue) and v.plugin == "text"]
    # tensorboardX names a text summary "<tag>/text_summary"; the tag stays as on disk
    assert [v.tag for v in texts] == [f"{t}/text_summary" for t in written.text_tags]
    assert texts[0].step == 2 and texts[0].value == Text("hello **tensorboard**", 21)


def test_tf2_file_tensors_with_metadata_on_first_value_only(tmp_path: Path) -> None:
    written = tf2_run(tmp_path, range(1, 21))
    (path,) = written.files
    records, offsets = _read(path)
    state = TfeventsState()
    # read in two batches: the second holds no metadata; the state carries each tag's plugin over
    first = parse_tfevents_columns(records[:5], path.name, offsets[:5], state)
    second = parse_tfevents_columns(records[5:], path.name, offsets[5:], state)
    assert not first.problems and not second.problems
    assert _scalars(first, "epoch_loss/scalar") + _scalars(second, "epoch_loss/scalar") == written.scalars["epoch_loss"]
    hists = _values(first, "histogram", "dense/kernel/histogram") + _values(second, "histogram", "dense/kernel/histogram")
    assert [(v.step, int(v.value.total)) for v in hists] == written.histograms["dense/kernel"]
    for tag in ("samples/image", "samples/1/image"):
        got = [(v.step, v.value.encoded) for v in _values(first, "image", tag) + _values(second, "image", tag)]
        assert got == written.images[tag]
    texts = _values(first, "text", "config") + _values(second, "text", "config")
    assert [(v.step, v.value.text) for v in texts] == [(s, f"step {s}") for s in range(1, 21)]


def test_tf2_histogram_buckets_as_written(tmp_path: Path) -> None:
    data = np.random.default_rng(3).standard_normal(500)
    ev = tb_event_pb2.Event(wall_time=WALL0, step=4)
    tf2_histogram(ev, "h", data, 12, first=True)
    (value,) = parse_tfevents_event(ev.SerializeToString(), "events.out.tfevents.1.h")
    counts, edges = np.histogram(data, bins=12)
    hist = value.value
    assert isinstance(hist, Histogram) and value.tag == "h/histogram" and value.step == 4
    np.testing.assert_allclose(hist.left, edges[:-1])
    np.testing.assert_allclose(hist.left + hist.width, edges[1:])
    np.testing.assert_array_equal(hist.count, counts)
    assert hist.min == edges[0] and hist.max == edges[-1]


def test_undescribed_tensors_are_classified_by_shape() -> None:
    """A reader that starts without the tag's metadata (e.g. state lost) still gets the kinds right."""
    ev = tb_event_pb2.Event(wall_time=WALL0, step=2)
    tf2_scalar(ev, "s", 1.5, first=False)
    tf2_histogram(ev, "h", np.arange(10.0), 5, first=False)
    values = parse_tfevents_event(ev.SerializeToString(), "events.out.tfevents.1.x")
    assert [(v.plugin, v.tag, v.step) for v in values] == [("scalar", "s/scalar", 2), ("histogram", "h/histogram", 2)]
    assert values[0].value == 1.5


def test_histogram_proto_with_many_buckets_is_merged_exactly() -> None:
    limits = np.linspace(-5, 5, 301)[1:]
    counts = np.arange(300, dtype=np.float64)
    proto = tb_summary_pb2.HistogramProto(min=-5.0, max=5.0, num=float(counts.sum()), sum=0.0,
                                          bucket_limit=limits.tolist(), bucket=counts.tolist())
    hist = tfevents_convert.histogram_from_proto(proto)
    assert len(hist.count) <= tfevents_convert.MAX_BUCKETS
    assert hist.count.sum() == counts.sum()
    assert hist.left[0] == -5.0 and hist.left[-1] + hist.width[-1] == 5.0
    assert (hist.width >= 0).all()


def test_tensor_encodings() -> None:
    t = tb_tensor_pb2.TensorProto(dtype=tb_types_pb2.DT_FLOAT, float_val=[2.5])
    assert tfevents_convert.scalar_from_tensor(t) == 2.5
    t = tb_tensor_pb2.TensorProto(dtype=tb_types_pb2.DT_DOUBLE, double_val=[-1.25])
    assert tfevents_convert.scalar_from_tensor(t) == -1.25
    t = tb_tensor_pb2.TensorProto(dtype=tb_types_pb2.DT_HALF, half_val=[int(np.float16(0.5).view(np.uint16))])
    assert tfevents_convert.scalar_from_tensor(t) == 0.5
    t = tb_tensor_pb2.TensorProto(dtype=tb_types_pb2.DT_BFLOAT16, half_val=[0x3FC0])  # 1.5 in bfloat16
    assert tfevents_convert.scalar_from_tensor(t) == 1.5
    t = tb_tensor_pb2.TensorProto(dtype=tb_types_pb2.DT_INT64, int64_val=[7])
    t.tensor_shape.dim.add(size=2)
    t.tensor_shape.dim.add(size=2)
    assert tfevents_convert.tensor_array(t).tolist() == [[7, 7], [7, 7]]  # version 0: one value fills the shape
    bad = tb_tensor_pb2.TensorProto(dtype=tb_types_pb2.DT_FLOAT, float_val=[1.0, 2.0, 3.0])
    bad.tensor_shape.dim.add(size=2)
    with pytest.raises(ValueError, match="does not fill"):
        tfevents_convert.tensor_array(bad)
    huge = tb_tensor_pb2.TensorProto(dtype=tb_types_pb2.DT_FLOAT)
    huge.tensor_shape.dim.add(size=1 << 40)
    with pytest.raises(ValueError, match="more than"):
        tfevents_convert.tensor_array(huge)
    odd = tb_tensor_pb2.TensorProto(dtype=tb_types_pb2.DT_DOUBLE, tensor_content=b"\x00" * 7)
    with pytest.raises(ValueError, match="whole number"):
        tfevents_convert.tensor_array(odd)


def test_bad_records_are_reported_and_atomic(tmp_path: Path) -> None:
    good = tb_event_pb2.Event(wall_time=WALL0, step=1)
    good.summary.value.add(tag="loss", simple_value=0.5)
    mixed = tb_event_pb2.Event(wall_time=WALL0, step=2)
    mixed.summary.value.add(tag="loss", simple_value=0.25)  # would be emitted, but the record is broken:
    broken = mixed.summary.value.add(tag="img")
    broken.metadata.plugin_data.plugin_name = "images"
    broken.tensor.dtype = tb_types_pb2.DT_STRING
    broken.tensor.string_val.extend([b"wide", b"3", png(2, 3, 0)])  # width is not a number
    last = tb_event_pb2.Event(wall_time=WALL0, step=3)
    last.summary.value.add(tag="loss", simple_value=0.125)
    payloads = [good.SerializeToString(), b"\xff\xff\xff not a protobuf", mixed.SerializeToString(),
                last.SerializeToString()]
    parsed = parse_tfevents_columns(payloads, "events.out.tfevents.1.x", [0, 10, 20, 30])
    assert _scalars(parsed, "loss/scalar") == [(1, 0.5), (3, 0.125)]
    assert [(p.offset, p.kind) for p in parsed.problems] == [(10, "bad_payload"), (20, "bad_payload")]
    assert "width and height" in parsed.problems[1].message


def test_graphs_and_unknown_plugins_yield_nothing() -> None:
    ev = tb_event_pb2.Event(wall_time=WALL0, step=1)
    other = ev.summary.value.add(tag="custom")
    other.metadata.plugin_data.plugin_name = "someone_elses_plugin"
    other.tensor.dtype = tb_types_pb2.DT_FLOAT
    other.tensor.float_val.extend([0.0] * 6)
    other.tensor.tensor_shape.dim.add(size=6)
    graph = tb_event_pb2.Event(wall_time=WALL0, graph_def=b"\x0a\x00")
    version = tb_event_pb2.Event(wall_time=WALL0, file_version="brain.Event:2")
    parsed = parse_tfevents_columns([version.SerializeToString(), graph.SerializeToString(), ev.SerializeToString()],
                                    "events.out.tfevents.1.x", [0, 1, 2])
    assert parsed.items == [] and parsed.problems == []


def test_bad_audio_and_pr_curve_records_are_problems_not_values() -> None:
    sound = tb_event_pb2.Event(wall_time=WALL0, step=1)
    sound.summary.value.add(tag="sound").audio.sample_rate = 16000  # no bytes: not a WAV
    pr = tb_event_pb2.Event(wall_time=WALL0, step=1)
    value = pr.summary.value.add(tag="pr")
    value.metadata.plugin_data.plugin_name = "pr_curves"
    value.tensor.dtype = tb_types_pb2.DT_FLOAT
    value.tensor.float_val.extend([0.0] * 6)
    value.tensor.tensor_shape.dim.add(size=6)  # [6], not [6, n]
    parsed = parse_tfevents_columns([sound.SerializeToString(), pr.SerializeToString()], "events.out.tfevents.1.x",
                                    [0, 40])
    assert parsed.items == []
    assert [(p.offset, p.kind) for p in parsed.problems] == [(0, "bad_payload"), (40, "bad_payload")]
    assert "RIFF/WAVE" in parsed.problems[0].message and "[6, num_thresholds]" in parsed.problems[1].message


def test_discovery_and_file_order(tmp_path: Path) -> None:
    from mindinsight_clone.summary.writer import SummaryWriter

    tf2_run(tmp_path / "run", range(1, 3), timestamp=1_700_000_300)
    tf2_run(tmp_path / "run", range(3, 5), timestamp=1_700_000_100)
    with SummaryWriter(tmp_path / "run", timestamp=1_700_000_200) as writer:
        writer.add_scalar("ms_loss", 1.0, step=1)
    (tmp_path / "run" / "events.out.tfevents.notanumber").write_bytes(b"")
    info = scan_run(tmp_path, "./run")
    assert info is not None
    names = [f.name for f in info.summary_files]
    assert len(names) == 3 and sum(is_tfevents_file(n) for n in names) == 2
    ordered = summary_file_order(names)
    assert ordered[0].startswith("events.out.tfevents.1700000100") and "summary.1700000200" in ordered[1]
    assert ordered[2].startswith("events.out.tfevents.1700000300")
    assert info.create_time == 1_700_000_300  # the newest file's timestamp, as for summary files


def test_tensorboard_wire_numbers() -> None:
    """Field numbers TensorBoard's published event/summary/tensor protos use (what writers put on the wire)."""
    def numbers(message: type, *names: str) -> dict[str, int]:
        fields = message.DESCRIPTOR.fields_by_name  # type: ignore[attr-defined]
        return {n: fields[n].number for n in names}

    assert numbers(tb_event_pb2.Event, "wall_time", "step", "file_version", "graph_def", "summary",
                   "session_log", "tagged_run_metadata", "meta_graph_def", "source_metadata") == {
        "wall_time": 1, "step": 2, "file_version": 3, "graph_def": 4, "summary": 5, "session_log": 7,
        "tagged_run_metadata": 8, "meta_graph_def": 9, "source_metadata": 10}
    assert numbers(tb_summary_pb2.Summary.Value, "tag", "simple_value", "image", "histo", "audio", "tensor",
                   "metadata", "node_name") == {
        "tag": 1, "simple_value": 2, "image": 4, "histo": 5, "audio": 6, "tensor": 8, "metadata": 9, "node_name": 7}
    assert numbers(tb_summary_pb2.HistogramProto, "min", "max", "num", "sum", "sum_squares", "bucket_limit",
                   "bucket") == {"min": 1, "max": 2, "num": 3, "sum": 4, "sum_squares": 5, "bucket_limit": 6,
                                 "bucket": 7}
    assert numbers(tb_tensor_pb2.TensorProto, "dtype", "tensor_shape", "tensor_content", "float_val",
                   "double_val", "string_val", "half_val", "int64_val") == {
        "dtype": 1, "tensor_shape": 2, "tensor_content": 4, "float_val": 5, "double_val": 6, "string_val": 8,
        "half_val": 13, "int64_val": 10}
    assert (tb_types_pb2.DT_FLOAT, tb_types_pb2.DT_DOUBLE, tb_types_pb2.DT_STRING, tb_types_pb2.DT_HALF) == (1, 2, 7, 19)
    assert tb_event_pb2.Event.DESCRIPTOR.full_name == "mindinsight_clone.tensorboard.Event"  # no clash


def test_tensorboardx_bytes_decode_with_our_protos() -> None:
    """A message serialized by tensorboardX's own generated code reads back field for field."""
    tbx_summary = pytest.importorskip("tensorboardX.proto.summary_pb2")
    theirs = tbx_summary.Summary()
    value = theirs.value.add(tag="t")
    value.histo.min, value.histo.max = -1.0, 2.0
    value.histo.bucket_limit.extend([0.0, 2.0])
    value.histo.bucket.extend([3.0, 4.0])
    ours = tb_summary_pb2.Summary.FromString(theirs.SerializeToString())
    assert ours.value[0].tag == "t" and list(ours.value[0].histo.bucket) == [3.0, 4.0]


def test_no_tensorflow_or_tensorboard_at_run_time() -> None:
    import subprocess
    import sys

    code = ("import sys, mindinsight_clone.ingest.formats, mindinsight_clone.server.app; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tensorflow', 'tensorboard', 'tensorboardX')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert proc.stdout.strip() == "[]"


def test_tensor_scalars_only_for_the_scalars_plugin() -> None:
    """The one-value fast path takes a float32 rank-0 tensor as a scalar only when its tag is a `scalars` tag."""
    def record(step: int, tag: str, value: float, plugin: str, first: bool, content: bool = True) -> bytes:
        ev = tb_event_pb2.Event(wall_time=WALL0 + step, step=step)
        v = ev.summary.value.add(tag=tag)
        if first:
            v.metadata.plugin_data.plugin_name = plugin
        v.tensor.dtype = tb_types_pb2.DT_FLOAT
        if content:
            v.tensor.tensor_content = np.float32(value).tobytes()
        else:
            v.tensor.float_val.append(value)
        return ev.SerializeToString()

    payloads = [record(1, "loss", 0.5, "scalars", True), record(1, "other", 7.0, "custom", True),
                record(2, "loss", 0.25, "scalars", False, content=False), record(2, "other", 8.0, "custom", False),
                record(3, "loss", 0.125, "scalars", False)]
    parsed = parse_tfevents_columns(payloads, "events.out.tfevents.1.x", list(range(5)))
    assert list(parsed.scalars) == ["loss/scalar"] and not parsed.problems
    assert _scalars(parsed, "loss/scalar") == [(1, 0.5), (2, 0.25), (3, 0.125)]
