"""Write small, real `*_lineage` files (LineageEvent protobufs, MindSpore framing) for the lineage tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mindinsight_clone.ingest.record_reader import frame_record
from mindinsight_clone.proto import lineage_pb2


def train_event(lr: float = 0.01, batch_size: int = 8, epoch: int = 2, loss: float = 0.5, network: str = "Net",
                optimizer: str = "Momentum", dataset_size: int = 64) -> lineage_pb2.LineageEvent:
    event = lineage_pb2.LineageEvent(wall_time=1.0, step=0)
    t = event.train_lineage
    t.hyper_parameters.optimizer = optimizer
    t.hyper_parameters.learning_rate = lr
    t.hyper_parameters.loss_function = "SoftmaxCrossEntropyWithLogits"
    t.hyper_parameters.epoch = epoch
    t.hyper_parameters.device_num = 1
    t.hyper_parameters.batch_size = batch_size
    t.train_dataset.train_dataset_size = dataset_size
    t.algorithm.network = network
    t.algorithm.loss = loss
    t.model.path = '{"ckpt": null}'
    t.model.size = 0
    return event


def eval_event(metric: dict[str, Any] | None = None, valid_size: int = 32) -> lineage_pb2.LineageEvent:
    event = lineage_pb2.LineageEvent(wall_time=2.0, step=0)
    if metric is not None:
        event.evaluation_lineage.metric = json.dumps(metric)
    event.evaluation_lineage.valid_dataset.valid_dataset_size = valid_size
    return event


def graph_event(batch_size: int = 8) -> lineage_pb2.LineageEvent:
    event = lineage_pb2.LineageEvent(wall_time=1.0, step=0)
    g = event.dataset_graph
    g.parameter.mapStr["op_type"] = "Batch"
    g.parameter.mapInt["batch_size"] = batch_size
    child = g.children.add()
    child.parameter.mapStr["op_type"] = "GeneratorDataset"
    return event


def user_event(**values: Any) -> lineage_pb2.LineageEvent:
    event = lineage_pb2.LineageEvent(wall_time=1.0, step=0)
    for key, value in values.items():
        item = event.user_defined_info.user_info.add()
        if isinstance(value, str):
            item.map_str[key] = value
        elif isinstance(value, int):
            item.map_int32[key] = value
        else:
            item.map_double[key] = value
    return event


def write_lineage(directory: Path, timestamp: int, *events: lineage_pb2.LineageEvent) -> Path:
    """`events.out.events.summary.<ts>.0.host_lineage` holding the events (the run dir is created)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"events.out.events.summary.{timestamp}.0.host_lineage"
    path.write_bytes(b"".join(frame_record(e.SerializeToString()) for e in events))
    return path


def write_run(base: Path, name: str, timestamp: int, *, batch_size: int = 8, lr: float = 0.01,
              metric: dict[str, Any] | None = None, **user: Any) -> Path:
    """A run with a training session file (graph, user info, train) and an eval session file."""
    run = base / name
    write_lineage(run, timestamp, graph_event(batch_size), user_event(**user), train_event(lr, batch_size))
    write_lineage(run, timestamp + 1, eval_event(metric if metric is not None else {"Accuracy": 0.5}))
    return run
