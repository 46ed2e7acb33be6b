from __future__ import annotations

import math

from mindinsight_clone.analyzers.lineage import convert
from mindinsight_clone.analyzers.lineage.files import parse_events
from mindinsight_clone.proto import lineage_pb2
from tests.unit.analyzers.lineage.builders import eval_event, graph_event, train_event, user_event


def test_shortest_float32_matches_protobuf_json() -> None:
    assert convert.shortest_float32(0.009999999776482582) == 0.01
    assert convert.shortest_float32(0.693181098) == 0.6931811
    assert convert.shortest_float32(0.05000000074505806) == 0.05
    assert math.isnan(convert.shortest_float32(math.nan))
    assert convert.shortest_float32(math.inf) == math.inf


def test_train_lineage_only_set_fields() -> None:
    event = lineage_pb2.LineageEvent(wall_time=1.0)
    event.train_lineage.hyper_parameters.epoch = 0  # set to the default: still present (proto2 presence)
    out = convert.train_lineage(event.train_lineage)
    assert out == {"hyper_parameters": {"epoch": 0}}


def test_train_lineage_values() -> None:
    out = convert.train_lineage(train_event(lr=0.01, batch_size=16, loss=0.693181098).train_lineage)
    assert out["hyper_parameters"]["learning_rate"] == 0.01
    assert out["hyper_parameters"]["batch_size"] == 16
    assert out["algorithm"] == {"network": "Net", "loss": 0.6931811}
    assert out["model"] == {"path": '{"ckpt": null}', "size": 0}
    assert out["train_dataset"] == {"train_dataset_size": 64}


def test_evaluation_metric_json_and_bad_json() -> None:
    assert convert.evaluation_lineage(eval_event({"acc": 0.5}).evaluation_lineage)["metric"] == {"acc": 0.5}
    event = eval_event(None)
    assert "metric" not in convert.evaluation_lineage(event.evaluation_lineage)
    event.evaluation_lineage.metric = "{not json"
    assert convert.evaluation_lineage(event.evaluation_lineage)["metric"] == {}


def test_user_defined_scalars_and_nested_dict() -> None:
    event = user_event(note="x", seed=3, lr=0.5)
    nested = event.user_defined_info.user_info.add()
    inner = nested.map_dict["opt"].user_info.add()
    inner.map_str["name"] = "adam"
    assert convert.user_defined_info(event.user_defined_info) == {
        "note": "x", "seed": 3, "lr": 0.5, "opt": {"name": "adam"}}


def test_dataset_graph_shape() -> None:
    event = graph_event(batch_size=4)
    g = event.dataset_graph
    g.parameter.mapStr["shard"] = "None"
    g.parameter.mapStrList["columns"].strValue.extend(["image", ""])
    g.parameter.mapBool["drop_remainder"] = True
    g.parameter.mapDouble["ratio"] = 0.25
    op = g.operations.add()
    op.operationParam.mapStr["tensor_op_name"] = "Decode"
    g.sampler.operationParam.mapStr["sampler_name"] = "RandomSampler"
    g.sampler.size.extend([1, 2])
    g.sampler.weights.extend([0.1])
    out = convert.dataset_graph(g)
    assert out == {
        "op_type": "Batch", "batch_size": 4, "shard": None, "columns": ["image", None], "drop_remainder": True,
        "ratio": 0.25, "operations": [{"tensor_op_name": "Decode"}],
        "sampler": {"sampler_name": "RandomSampler", "size": [1, 2], "weights": [0.1]},
        "children": [{"op_type": "GeneratorDataset", "children": []}],
    }


def test_file_keeps_last_event_of_each_kind_and_all_user_info() -> None:
    lineage = parse_events("f", [train_event(lr=0.1), user_event(a=1), train_event(lr=0.2), user_event(b="x")])
    assert lineage.train is not None and lineage.train["hyper_parameters"]["learning_rate"] == 0.2
    assert lineage.user_defined == [{"a": 1}, {"b": "x"}]
    assert lineage.has_lineage
    assert not parse_events("g", [user_event(a=1)]).has_lineage
