"""SummaryWriter: files it writes read back exactly and look like MindSpore's on the wire."""

from __future__ import annotations

import io
import json
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage

from mindinsight_clone.ingest.event_parser import parse_lineage_records, parse_summary_records
from mindinsight_clone.ingest.record_reader import read_all
from mindinsight_clone.proto import anf_ir_pb2, lineage_pb2, summary_pb2
from mindinsight_clone.summary import SummaryWriter
from mindinsight_clone.summary.encode import calc_histogram_bins, histogram_proto, image_proto
from tests.conftest import FIXTURES, require_shared


def _events(path: Path) -> list[summary_pb2.Event]:
    out = []
    for payload in read_all(path).records:
        event = summary_pb2.Event()
        event.ParseFromString(payload)
        out.append(event)
    return out


def test_file_names_and_version_event_first(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path, timestamp=1700000000, host="box") as writer:
        pass
    assert writer.summary_path.name == "events.out.events.summary.1700000000.0.box_MS"
    assert not writer.lineage_path.exists()  # created on the first lineage write only
    (version,) = _events(writer.summary_path)
    assert version.version == "MindSpore.Event:1" and not version.HasField("step")


def test_round_trip_of_every_kind(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    hist_values = rng.normal(size=200).astype(np.float32)
    tensor = rng.normal(size=(2, 3)).astype(np.float32)
    graph = anf_ir_pb2.GraphProto(name="g")
    graph.node.add(name="1", op_type="ReLU")
    with SummaryWriter(tmp_path, timestamp=1, host="h") as writer:
        writer.add_graph(graph)
        for step in (1, 2):
            writer.add_scalar("loss", 1.0 / step, step)
            writer.add_scalar("nan", float("nan"), step)
            writer.add_histogram("w", hist_values, step)
            writer.add_image("img", rng.random((3, 1, 5, 7)), step)
            writer.add_tensor("t", tensor, step)
        writer.add_landscape("land", {"x": np.arange(3, dtype=np.float32), "y": np.arange(3, dtype=np.float32),
                                      "z": np.ones((3, 3)), "decomposition": "PCA", "unit": "step",
                                      "step_per_epoch": 4, "path": {"x": [0.0], "y": [0.0], "z": [1.0],
                                                                     "intervals": [1, 2]}}, step=0)
    name = writer.summary_path.name
    parsed = parse_summary_records(read_all(writer.summary_path).records, name)
    assert parsed.problems == []
    values = parsed.values
    assert [(v.plugin, v.tag, v.step) for v in values] == [
        ("graph", name, 0),
        *[(p, t, s) for s in (1, 2) for p, t in (("scalar", "loss/scalar"), ("scalar", "nan/scalar"),
                                                  ("histogram", "w/histogram"), ("image", "img/image"),
                                                  ("tensor", "t/tensor"))],
        ("loss_landscape", "land/loss_landscape", 0),
    ]
    assert values[0].value == graph
    assert values[1].value == 1.0 and values[6].value == 0.5 and np.isnan(values[2].value)
    hist = values[3].value
    assert hist.total == 200 and hist.count.sum() == 200 and hist.min == hist_values.min()
    assert len(hist.left) == calc_histogram_bins(200) == 21
    image = values[4].value
    assert (image.width, image.height) == (21, 5)  # 3 images of 5x7 side by side
    assert PILImage.open(io.BytesIO(image.encoded)).size == (21, 5)
    np.testing.assert_array_equal(values[5].value.array, tensor)
    assert values[5].value.data_type == "DT_FLOAT32"
    assert values[-1].value.metadata.step_per_epoch == 4


def test_one_event_per_step(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path, timestamp=1, host="h") as writer:
        for step in range(1, 4):
            writer.add_scalar("a", step, step)
            writer.add_scalar("b", -step, step)
    events = _events(writer.summary_path)
    assert [e.WhichOneof("what") for e in events] == ["version", "summary", "summary", "summary"]
    assert [e.step for e in events[1:]] == [1, 2, 3]
    assert all(len(e.summary.value) == 2 for e in events[1:])


def test_lineage_round_trip(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path, timestamp=1, host="h") as writer:
        writer.add_dataset_graph({"op_type": "Batch", "batch_size": 32, "drop_remainder": True,
                                  "children": [{"op_type": "Map", "input_columns": ["image"],
                                                "operations": [{"tensor_op_name": "Normalize"}]}]})
        writer.add_user_defined_info({"seed": 3, "team": "x", "noise": 0.25})
        writer.add_train_lineage(optimizer="Adam", learning_rate=0.01, batch_size=32, epoch=3, network="LeNet5",
                                 loss=0.5, model_path='{"ckpt": null}', model_size=0, train_dataset_size=100)
        writer.add_eval_lineage({"accuracy": 0.9}, valid_dataset_size=64)
    events = parse_lineage_records(read_all(writer.lineage_path).records, writer.lineage_path.name).events
    assert [e.WhichOneof("what") for e in events] == [
        "dataset_graph", "user_defined_info", "train_lineage", "evaluation_lineage"]
    graph = events[0].dataset_graph
    assert graph.parameter.mapStr["op_type"] == "Batch" and graph.parameter.mapInt["batch_size"] == 32
    assert graph.parameter.mapBool["drop_remainder"] is True
    child = graph.children[0]
    assert list(child.parameter.mapStrList["input_columns"].strValue) == ['"image"']  # JSON-quoted, as MindSpore
    assert child.operations[0].operationParam.mapStr["tensor_op_name"] == "Normalize"
    info = events[1].user_defined_info
    assert [dict(u.map_int32) or dict(u.map_str) or dict(u.map_double) for u in info.user_info] == [
        {"seed": 3}, {"team": "x"}, {"noise": 0.25}]
    hyper = events[2].train_lineage.hyper_parameters
    assert (hyper.optimizer, hyper.batch_size, hyper.epoch) == ("Adam", 32, 3)
    assert hyper.learning_rate == pytest.approx(0.01)
    assert events[2].train_lineage.model.size == 0 and events[2].train_lineage.model.HasField("size")
    assert json.loads(events[3].evaluation_lineage.metric) == {"accuracy": 0.9}
    assert all(not e.HasField("step") for e in events)  # MindSpore writes no step in lineage events


def test_closed_writer_refuses_values(tmp_path: Path) -> None:
    writer = SummaryWriter(tmp_path, timestamp=1, host="h")
    writer.close()
    writer.close()
    with pytest.raises(ValueError, match="closed"):
        writer.add_scalar("a", 1.0, 1)


def test_same_timestamp_twice_is_refused(tmp_path: Path) -> None:
    SummaryWriter(tmp_path, timestamp=1, host="h").close()
    with pytest.raises(FileExistsError):
        SummaryWriter(tmp_path, timestamp=1, host="h")


@pytest.mark.parametrize(("count", "bins"), [(0, 0), (4, 2), (5, 2), (8, 3), (10, 3), (16, 2),
                                             (64, 7), (72, 8), (128, 13), (150, 16), (190, 20), (256, 26),
                                             (576, 58), (840, 85), (1000, 90), (20000, 90)])
def test_histogram_bins_match_mindspore(count: int, bins: int) -> None:
    # pairs (finite values -> buckets) observed in the MindSpore 2.10 fixtures (MANIFEST per_step)
    assert calc_histogram_bins(count) == bins


def test_images_in_the_other_layouts() -> None:
    assert (image_proto(np.zeros((4, 6, 3), np.uint8), "HWC").width, image_proto(
        np.zeros((4, 6, 3), np.uint8), "HWC").height) == (6, 4)
    assert image_proto(np.zeros((10, 3, 8, 8)), "NCHW").width == 64  # 8 per row, 2 rows
    assert image_proto(np.zeros((10, 3, 8, 8)), "NCHW").height == 16
    assert image_proto(np.zeros((2, 5, 5, 1)), "NHWC").width == 10
    assert image_proto(np.zeros((5, 9)), "HW").height == 5
    with pytest.raises(ValueError):
        image_proto(np.zeros((1, 4, 8, 8)))  # 4 channels: MindSpore drops these
    with pytest.raises(ValueError):
        image_proto(np.zeros((8, 8)), "NCHW")


def test_image_scaling_rules() -> None:
    def pixels(array: np.ndarray) -> np.ndarray:
        encoded = image_proto(array[None, None], "NCHW").encoded_image
        return np.asarray(PILImage.open(io.BytesIO(encoded)))[..., 0]

    np.testing.assert_array_equal(pixels(np.array([[0, 128, 255]], np.uint8)), [[0, 128, 255]])
    np.testing.assert_array_equal(pixels(np.array([[0.0, 0.5, 1.0]])), [[0, 127, 255]])
    np.testing.assert_array_equal(pixels(np.array([[-2.0, 0.0, 2.0]])), [[0, 127, 255]])


# ---------------------------------------------------------------------- against real MindSpore files
def _layout(data: bytes, descriptor: Any = summary_pb2.Event.DESCRIPTOR) -> list[Any]:
    """The wire layout of a message: (field number, wire type[, nested layout]) in wire order,
    values dropped; nested messages are followed through the descriptor."""
    out: list[Any] = []
    i = 0
    while i < len(data):
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, i = _varint(data, i)
            out.append((number, wire))
        elif wire in (1, 5):
            i += 8 if wire == 1 else 4
            out.append((number, wire))
        elif wire == 2:
            size, i = _varint(data, i)
            body = data[i:i + size]
            i += size
            field = descriptor.fields_by_number.get(number)
            message_type = field.message_type if field is not None else None
            if message_type is not None and not message_type.GetOptions().map_entry:
                out.append((number, wire, _layout(body, message_type)))
            else:
                out.append((number, wire))
        else:
            raise ValueError(f"wire type {wire}")
    return out


def _varint(data: bytes, i: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        byte = data[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, i


def _fixture_events(name: str) -> list[summary_pb2.Event]:
    require_shared()
    return _events(sorted((FIXTURES / name).glob("*_MS"))[0])


def test_same_record_structure_as_mindspore_for_scalars_and_histograms(tmp_path: Path) -> None:
    # crc_corrupt's step-1 record: two scalars and a 256-value histogram (26 buckets)
    real = _fixture_events("crc_corrupt")
    real_step = real[1]
    loss, acc = real_step.summary.value[0].scalar_value, real_step.summary.value[1].scalar_value
    hist = real_step.summary.value[2].histogram
    # rebuild 256 values that give the same bucket counts (left edges of each bucket)
    values = np.concatenate([np.full(b.count, b.left, np.float32) for b in hist.buckets])
    values[0], values[-1] = hist.min, hist.max
    with SummaryWriter(tmp_path, timestamp=1, host="h") as writer:
        writer.add_scalar("edge/loss", loss, 1)
        writer.add_scalar("edge/acc", acc, 1)
        writer.add_histogram("edge/weights", values, 1)
    ours = _events(writer.summary_path)
    assert _layout(ours[0].SerializeToString()) == _layout(real[0].SerializeToString())  # version event
    assert _layout(ours[1].SerializeToString()) == _layout(real_step.SerializeToString())
    assert len(ours[1].summary.value[2].histogram.buckets) == len(hist.buckets) == 26


def test_same_bytes_as_mindspore_for_known_histograms(tmp_path: Path) -> None:
    by_tag = {v.tag: v for e in _fixture_events("record_api") for v in e.summary.value}
    constant = histogram_proto(np.full(16, 0.5, np.float32))  # 16 x 0.5 (MANIFEST expect)
    assert constant.SerializeToString() == by_tag["hist/constant"].histogram.SerializeToString()
    all_nan = histogram_proto(np.full(10, np.nan, np.float32))
    assert all_nan.SerializeToString() == by_tag["hist/all_nan"].histogram.SerializeToString()


def test_same_structure_for_images_tensors_and_graphs(tmp_path: Path) -> None:
    real = _fixture_events("summary_ops")
    real_graph = next(e for e in real if e.HasField("graph_def"))
    real_values = {v.WhichOneof("value"): v for e in real for v in e.summary.value}
    with SummaryWriter(tmp_path, timestamp=1, host="h") as writer:
        writer.add_graph(real_graph.graph_def)
        writer.add_image("input_image", np.random.default_rng(0).random((4, 3, 16, 16)), 1)
        writer.add_tensor("logits", np.random.default_rng(1).normal(size=(4, 4)).astype(np.float32), 1)
    ours = _events(writer.summary_path)
    assert _layout(ours[1].SerializeToString()) == _layout(real_graph.SerializeToString())
    our_image, our_tensor = ours[2].summary.value
    image = real_values["image"].image
    assert (our_image.image.width, our_image.image.height, our_image.image.colorspace) == (
        image.width, image.height, image.colorspace) == (64, 16, 3)
    value = summary_pb2.Summary.Value.DESCRIPTOR
    assert _layout(our_image.SerializeToString(), value) == _layout(real_values["image"].SerializeToString(), value)
    assert _layout(our_tensor.SerializeToString(), value) == _layout(real_values["tensor"].SerializeToString(), value)


def test_lineage_structure_matches_mindspore(tmp_path: Path) -> None:
    require_shared()
    real_path = FIXTURES / "lenet_collector" / "events.out.events.summary.1795313145.0.vm_lineage"
    real = read_all(real_path).records
    train = parse_lineage_records(real, "x").events[2].train_lineage
    with SummaryWriter(tmp_path, timestamp=1, host="h") as writer:
        hp = train.hyper_parameters
        writer.add_train_lineage(optimizer=hp.optimizer, learning_rate=hp.learning_rate,
                                 loss_function=hp.loss_function, epoch=hp.epoch, parallel_mode=hp.parallel_mode,
                                 device_num=hp.device_num, batch_size=hp.batch_size,
                                 train_dataset_size=train.train_dataset.train_dataset_size,
                                 network=train.algorithm.network, loss=train.algorithm.loss,
                                 model_path=train.model.path, model_size=train.model.size)
    ours = read_all(writer.lineage_path).records
    descriptor = lineage_pb2.LineageEvent.DESCRIPTOR
    assert _layout(ours[0], descriptor) == _layout(real[2], descriptor)
    assert ours[0][9:] == real[2][9:]  # identical after the wall time
    header = struct.unpack_from("<Q", (writer.lineage_path).read_bytes(), 0)[0]
    assert header == len(ours[0])
