"""Python values -> the lineage messages MindSpore's SummaryCollector writes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mindinsight_clone.proto import lineage_pb2


def train_lineage(*, optimizer: str | None = None, learning_rate: float | None = None,
                  loss_function: str | None = None, epoch: int | None = None,
                  parallel_mode: str | None = None, device_num: int | None = None,
                  batch_size: int | None = None, train_dataset_path: str | None = None,
                  train_dataset_size: int | None = None, network: str | None = None,
                  loss: float | None = None, model_path: str | None = None,
                  model_size: int | None = None) -> lineage_pb2.TrainLineage:
    """A TrainLineage; fields left as None are not written."""
    msg = lineage_pb2.TrainLineage()
    _set(msg.hyper_parameters, optimizer=optimizer, learning_rate=learning_rate, loss_function=loss_function,
         epoch=epoch, parallel_mode=parallel_mode, device_num=device_num, batch_size=batch_size)
    _set(msg.train_dataset, train_dataset_path=train_dataset_path, train_dataset_size=train_dataset_size)
    _set(msg.algorithm, network=network, loss=loss)
    _set(msg.model, path=model_path, size=model_size)
    return msg


def evaluation_lineage(metrics: Mapping[str, float] | None = None, *, valid_dataset_path: str | None = None,
                       valid_dataset_size: int | None = None) -> lineage_pb2.EvaluationLineage:
    """An EvaluationLineage; `metrics` is stored as a JSON object string, as MindSpore does."""
    msg = lineage_pb2.EvaluationLineage()
    if metrics is not None:
        msg.metric = json.dumps(dict(metrics))
    _set(msg.valid_dataset, valid_dataset_path=valid_dataset_path, valid_dataset_size=valid_dataset_size)
    return msg


def user_defined_info(info: Mapping[str, Any]) -> lineage_pb2.UserDefinedInfo:
    """Custom lineage: one `user_info` entry per key (str, int, float or a nested dict)."""
    msg = lineage_pb2.UserDefinedInfo()
    for key, value in info.items():
        entry = msg.user_info.add()
        if isinstance(value, bool) or not isinstance(value, (str, int, float, Mapping)):
            raise TypeError(f"custom lineage {key!r}: unsupported type {type(value).__name__}")
        if isinstance(value, str):
            entry.map_str[key] = value
        elif isinstance(value, int):
            entry.map_int32[key] = value
        elif isinstance(value, float):
            entry.map_double[key] = value
        else:
            entry.map_dict[key].CopyFrom(user_defined_info(value))
    return msg


def dataset_graph(node: Mapping[str, Any]) -> lineage_pb2.DatasetGraph:
    """A dataset pipeline as MindSpore serializes it: a dict per op with `children`, `operations`
    (tensor ops) and `sampler`; other keys go to the typed parameter maps."""
    msg = lineage_pb2.DatasetGraph()
    for key, value in node.items():
        if key == "children":
            for child in value:
                msg.children.append(dataset_graph(child))
        elif key == "operations":
            for op in value:
                _fill_parameter(msg.operations.add().operationParam, op)
        elif key == "sampler":
            _fill_parameter(msg.sampler.operationParam, value)
        else:
            _fill_parameter(msg.parameter, {key: value})
    return msg


def _fill_parameter(param: lineage_pb2.OperationParameter, values: Mapping[str, Any]) -> None:
    for key, value in values.items():
        if isinstance(value, bool):
            param.mapBool[key] = value
        elif isinstance(value, int):
            param.mapInt[key] = value
        elif isinstance(value, float):
            param.mapDouble[key] = value
        elif isinstance(value, (list, tuple)):
            param.mapStrList[key].strValue.extend(json.dumps(v) for v in value)
        elif value is not None:
            param.mapStr[key] = value if isinstance(value, str) else json.dumps(value)


def _set(msg: Any, **fields: Any) -> None:
    for name, value in fields.items():
        if value is not None:
            setattr(msg, name, value)
