"""event_parser: Event payloads -> SummaryValues (MindInsight tag names), lineage payloads -> messages."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mindinsight_clone.ingest import event_parser as ep
from mindinsight_clone.ingest.values import Histogram, Image, SummaryValue, Tensor
from mindinsight_clone.proto import anf_ir_pb2, lineage_pb2, summary_pb2

FILE = "events.out.events.summary.1700000000.0.host_MS"


def _event(step: int = 3, wall_time: float = 1234.5) -> summary_pb2.Event:
    return summary_pb2.Event(wall_time=wall_time, step=step)


def test_version_event_yields_nothing() -> None:
    payload = summary_pb2.Event(wall_time=1.0, version="MindSpore.Event:1").SerializeToString()
    assert ep.parse_summary_event(payload, FILE) == []


def test_scalars_are_tagged_the_mindinsight_way_and_keep_nan_inf() -> None:
    event = _event()
    for tag, value in (("loss/auto", 0.25), ("nan", math.nan), ("inf", math.inf), ("ninf", -math.inf)):
        event.summary.value.add(tag=tag, scalar_value=value)
    values = ep.parse_summary_event(event.SerializeToString(), FILE)
    assert [(v.plugin, v.tag, v.step, v.wall_time, v.source_file) for v in values] == [
        ("scalar", "loss/auto/scalar", 3, 1234.5, FILE),
        ("scalar", "nan/scalar", 3, 1234.5, FILE),
        ("scalar", "inf/scalar", 3, 1234.5, FILE),
        ("scalar", "ninf/scalar", 3, 1234.5, FILE),
    ]
    assert values[0].value == 0.25
    assert math.isnan(values[1].value)
    assert values[2].value == math.inf and values[3].value == -math.inf


def test_scalar_is_float32_on_disk() -> None:
    event = _event()
    event.summary.value.add(tag="lr", scalar_value=0.1)
    (value,) = ep.parse_summary_event(event.SerializeToString(), FILE)
    assert value.value == float(np.float32(0.1)) != 0.1


def test_image_stays_encoded_with_its_size() -> None:
    event = _event()
    event.summary.value.add(tag="img", image=summary_pb2.Summary.Image(
        height=16, width=64, colorspace=3, encoded_image=b"\x89PNG...")
    )
    (value,) = ep.parse_summary_event(event.SerializeToString(), FILE)
    assert value.plugin == "image" and value.tag == "img/image"
    assert value.value == Image(width=64, height=16, encoded=b"\x89PNG...")


def test_histogram_becomes_arrays() -> None:
    hist = summary_pb2.Summary.Histogram(count=13, nan_count=1, pos_inf_count=1, neg_inf_count=1,
                                         min=-1.0, max=1.0, sum=0.5)
    hist.buckets.add(left=-1.0, width=1.0, count=4)
    hist.buckets.add(left=0.0, width=1.0, count=6)
    event = _event()
    event.summary.value.add(tag="w", histogram=hist)
    (value,) = ep.parse_summary_event(event.SerializeToString(), FILE)
    h = value.value
    assert isinstance(h, Histogram) and value.tag == "w/histogram"
    np.testing.assert_array_equal(h.left, [-1.0, 0.0])
    np.testing.assert_array_equal(h.width, [1.0, 1.0])
    np.testing.assert_array_equal(h.count, [4, 6])
    assert (h.min, h.max, h.sum, h.nan_count, h.pos_inf_count, h.neg_inf_count) == (-1.0, 1.0, 0.5, 1, 1, 1)
    assert h.total == 13


def test_empty_histogram() -> None:
    event = _event()
    event.summary.value.add(tag="all_nan", histogram=summary_pb2.Summary.Histogram(count=10, nan_count=10))
    (value,) = ep.parse_summary_event(event.SerializeToString(), FILE)
    assert value.value.left.size == 0 and value.value.total == 10


def _tensor(data_type: int, dims: tuple[int, ...], **data: object) -> anf_ir_pb2.TensorProto:
    proto = anf_ir_pb2.TensorProto(dims=dims, data_type=data_type)  # type: ignore[arg-type]
    for name, values in data.items():
        if name == "raw_data":
            proto.raw_data = values  # type: ignore[assignment]
        else:
            getattr(proto, name).extend(values)
    return proto


@pytest.mark.parametrize(("proto", "name", "dtype", "expected"), [
    (_tensor(anf_ir_pb2.DT_FLOAT32, (2, 2), float_data=[1, 2, math.nan, math.inf]), "DT_FLOAT32", np.float32,
     [[1, 2], [math.nan, math.inf]]),
    (_tensor(anf_ir_pb2.DT_INT32, (3,), float_data=[1, -2, 3]), "DT_INT32", np.int32, [1, -2, 3]),
    (_tensor(anf_ir_pb2.DT_FLOAT16, (2,), float_data=[0.5, -1]), "DT_FLOAT16", np.float16, [0.5, -1]),
    (_tensor(anf_ir_pb2.DT_FLOAT64, (2,), double_data=[0.1, 0.2]), "DT_FLOAT64", np.float64, [0.1, 0.2]),
    (_tensor(anf_ir_pb2.DT_INT64, (2,), int64_data=[2**40, -1]), "DT_INT64", np.int64, [2**40, -1]),
    (_tensor(anf_ir_pb2.DT_UINT64, (1,), uint64_data=[2**63]), "DT_UINT64", np.uint64, [2**63]),
    (_tensor(anf_ir_pb2.DT_BOOL, (2,), int32_data=[1, 0]), "DT_BOOL", np.bool_, [True, False]),
    (_tensor(anf_ir_pb2.DT_INT16, (2,), raw_data=np.array([7, -7], "<i2").tobytes()), "DT_INT16", np.int16,
     [7, -7]),
])
def test_tensor_decoding(proto: anf_ir_pb2.TensorProto, name: str, dtype: type, expected: list) -> None:
    event = _event()
    event.summary.value.add(tag="t", tensor=proto)
    (value,) = ep.parse_summary_event(event.SerializeToString(), FILE)
    tensor = value.value
    assert isinstance(tensor, Tensor) and value.tag == "t/tensor"
    assert tensor.data_type == name and tensor.dims == tuple(proto.dims)
    assert tensor.array.dtype == dtype and tensor.array.shape == tuple(proto.dims)
    np.testing.assert_array_equal(tensor.array, np.array(expected, dtype=dtype))


def test_non_integral_float_storage_of_an_int_tensor_is_not_truncated() -> None:
    tensor = ep.tensor_to_numpy(_tensor(anf_ir_pb2.DT_INT32, (2,), float_data=[1.5, 2]))
    assert tensor.data_type == "DT_INT32" and tensor.array.dtype == np.float32
    np.testing.assert_array_equal(tensor.array, [1.5, 2])


def test_same_tag_two_kinds_gives_two_tags() -> None:
    event = _event()
    event.summary.value.add(tag="logits", histogram=summary_pb2.Summary.Histogram(count=0))
    event.summary.value.add(tag="logits", tensor=_tensor(anf_ir_pb2.DT_FLOAT32, (1,), float_data=[1]))
    assert [v.tag for v in ep.parse_summary_event(event.SerializeToString(), FILE)] == [
        "logits/histogram", "logits/tensor"]


def test_landscape_value_and_arrays() -> None:
    land = summary_pb2.LossLandscape()
    land.landscape.x.CopyFrom(_tensor(anf_ir_pb2.DT_FLOAT32, (2,), float_data=[0, 1]))
    land.landscape.y.CopyFrom(_tensor(anf_ir_pb2.DT_FLOAT32, (2,), float_data=[0, 1]))
    land.landscape.z.CopyFrom(_tensor(anf_ir_pb2.DT_FLOAT64, (2, 2), float_data=[1, 2, 3, 4]))
    land.loss_path.intervals.extend([1, 2])
    land.metadata.decomposition, land.metadata.unit, land.metadata.step_per_epoch = "PCA", "step", 12
    event = _event(step=0)
    event.summary.value.add(tag="landscape_[1, 2]", loss_landscape=land)
    (value,) = ep.parse_summary_event(event.SerializeToString(), FILE)
    assert value.plugin == "loss_landscape" and value.tag == "landscape_[1, 2]/loss_landscape"
    assert value.value == land
    arrays = ep.landscape_arrays(value.value)
    np.testing.assert_array_equal(arrays["landscape"]["z"], [[1, 2], [3, 4]])  # type: ignore[index]
    assert arrays["path"]["intervals"] == [1, 2]  # type: ignore[index]
    assert arrays["metadata"] == {"decomposition": "PCA", "unit": "step", "step_per_epoch": 12}


def test_graph_is_tagged_with_the_file_name() -> None:
    graph = anf_ir_pb2.GraphProto(name="g")
    graph.node.add(name="1", op_type="Conv2D")
    payload = summary_pb2.Event(wall_time=5.0, graph_def=graph).SerializeToString()
    (value,) = ep.parse_summary_event(payload, FILE)
    assert (value.plugin, value.tag, value.step) == ("graph", FILE, 0)
    assert value.value == graph


def test_pb_graph_file() -> None:
    model = anf_ir_pb2.ModelProto(graph=anf_ir_pb2.GraphProto(name="opt"))
    value = ep.parse_pb_graph(model.SerializeToString(), "ms_output_optimize.pb", wall_time=3.0)
    assert value == SummaryValue("graph", "ms_output_optimize.pb", 0, 3.0, model.graph, "ms_output_optimize.pb")


def test_bad_payload_is_skipped_and_reported() -> None:
    good = _event(step=1)
    good.summary.value.add(tag="a", scalar_value=1.0)
    records = [good.SerializeToString(), b"\xff\xff\xff\xff", good.SerializeToString()]
    result = ep.parse_summary_records(records, FILE, offsets=[0, 40, 80])
    assert [v.step for v in result.values] == [1, 1]
    assert [(p.file, p.offset, p.kind) for p in result.problems] == [(FILE, 40, "bad_payload")]
    with pytest.raises(ep.PayloadError):
        ep.parse_summary_event(b"\xff\xff\xff\xff", FILE)


def test_records_keep_their_own_graph_and_landscape_messages() -> None:
    graphs = [summary_pb2.Event(wall_time=1.0, graph_def=anf_ir_pb2.GraphProto(name=f"g{i}")) for i in range(2)]
    result = ep.parse_summary_records([g.SerializeToString() for g in graphs], FILE)
    assert [v.value.name for v in result.values] == ["g0", "g1"]


def test_lineage_payloads() -> None:
    train = lineage_pb2.LineageEvent(wall_time=1.0)
    train.train_lineage.hyper_parameters.learning_rate = 0.01
    version = lineage_pb2.LineageEvent(wall_time=1.0, version="MindSpore.Event:1")
    records = [version.SerializeToString(), train.SerializeToString(), b"\x0a\xff"]
    result = ep.parse_lineage_records(records, "x_lineage", offsets=[0, 10, 20])
    assert result.events == [train]
    assert [(p.offset, p.kind) for p in result.problems] == [(20, "bad_payload")]
    assert ep.parse_lineage_event(train.SerializeToString()).train_lineage.hyper_parameters.learning_rate == \
        pytest.approx(0.01)
    with pytest.raises(ep.PayloadError):
        ep.parse_lineage_event(b"\x0a\xff")


def test_data_type_names_are_mindinsight_names() -> None:
    assert ep.DATA_TYPE_NAMES[11] == "DT_FLOAT32"
    assert ep.DATA_TYPE_NAMES[4] == "DT_INT32"
    assert ep.DATA_TYPE_NAMES[14] == "DT_TENSOR"


def test_a_value_that_cannot_be_converted_drops_its_whole_record(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_value: object) -> object:
        raise ValueError("inconsistent tensor")

    monkeypatch.setitem(ep._CONVERT, "tensor", broken)
    bad = _event(step=2)
    bad.summary.value.add(tag="a", scalar_value=1.0)
    bad.summary.value.add(tag="t", tensor=_tensor(anf_ir_pb2.DT_FLOAT32, (1,), float_data=[1]))
    good = _event(step=3)
    good.summary.value.add(tag="a", scalar_value=2.0)
    result = ep.parse_summary_records([bad.SerializeToString(), good.SerializeToString()], FILE, [0, 99])
    assert [(v.tag, v.step) for v in result.values] == [("a/scalar", 3)]
    assert [(p.offset, p.kind) for p in result.problems] == [(0, "bad_payload")]
    assert "inconsistent tensor" in result.problems[0].message
