"""LineageEvent protobuf messages -> plain Python values, with MindInsight's field semantics.

MindInsight converts with `MessageToDict`: only fields that are set appear, float32 fields are printed
with the shortest decimal that round-trips as float32 (0.01, not 0.009999999776482582), int64 `model.size`
comes back as an int. The dataset graph follows `organize_graph` (parameters flattened into the node,
`children` always present, the string 'None' read as null).
"""

from __future__ import annotations

import json
import logging
import math
import struct
from typing import Any

log = logging.getLogger(__name__)

JsonDict = dict[str, Any]


def shortest_float32(value: float) -> float:
    """The shortest decimal that reads back as the same float32 (protobuf's ToShortestFloat)."""
    if not math.isfinite(value):
        return value
    target = struct.unpack("<f", struct.pack("<f", value))[0]
    for precision in range(6, 18):
        rounded = float(f"{value:.{precision}g}")
        if struct.unpack("<f", struct.pack("<f", rounded))[0] == target:
            return rounded
    return value


def _fields(message: Any, names: tuple[str, ...], floats: tuple[str, ...] = ()) -> JsonDict:
    """The set fields of a proto2 message among `names`, float32 ones shortened."""
    out: JsonDict = {}
    for name in names:
        if message.HasField(name):
            value = getattr(message, name)
            out[name] = shortest_float32(value) if name in floats else value
    return out


def train_lineage(message: Any) -> JsonDict:
    """TrainLineage -> {hyper_parameters, train_dataset, algorithm, model} (set parts only)."""
    out: JsonDict = {}
    if message.HasField("hyper_parameters"):
        out["hyper_parameters"] = _fields(
            message.hyper_parameters,
            ("optimizer", "learning_rate", "loss_function", "epoch", "parallel_mode", "device_num", "batch_size"),
            floats=("learning_rate",),
        )
    if message.HasField("train_dataset"):
        out["train_dataset"] = _fields(message.train_dataset, ("train_dataset_path", "train_dataset_size"))
    if message.HasField("algorithm"):
        out["algorithm"] = _fields(message.algorithm, ("network", "loss"), floats=("loss",))
    if message.HasField("model"):
        out["model"] = _fields(message.model, ("path", "size"))
    return out


def evaluation_lineage(message: Any) -> JsonDict:
    """EvaluationLineage -> {metric: dict | None, valid_dataset: dict} (set parts only).

    `metric` is a JSON string written by MindSpore; an unreadable one is logged and read as {}.
    """
    out: JsonDict = {}
    if message.HasField("metric"):
        out["metric"] = _metric(message.metric)
    if message.HasField("valid_dataset"):
        out["valid_dataset"] = _fields(message.valid_dataset, ("valid_dataset_path", "valid_dataset_size"))
    return out


def _metric(text: str) -> JsonDict:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        log.warning("lineage metric is not JSON: %.200r", text)
        return {}
    return value if isinstance(value, dict) else {}


def user_defined_info(message: Any) -> JsonDict:
    """UserDefinedInfo -> {name: value}; each `user_info` entry holds one key in one typed map."""
    out: JsonDict = {}
    for item in message.user_info:
        for map_name in ("map_str", "map_int32", "map_double", "map_dict"):
            entries = getattr(item, map_name)
            if not entries:
                continue
            for key in entries:
                value = entries[key]
                out[key] = user_defined_info(value) if map_name == "map_dict" else value
                break
            break
    return out


def dataset_graph(message: Any) -> JsonDict:
    """DatasetGraph -> MindInsight's nested dict: node parameters, `operations`, `sampler`, `children`."""
    node = _node(message)
    node["children"] = [dataset_graph(child) for child in message.children]
    return node


def _node(message: Any) -> JsonDict:
    node: JsonDict = {}
    node.update(_parameters(message.parameter))
    if len(message.operations):
        node["operations"] = [_operation(op) for op in message.operations]
    sampler = _operation(message.sampler)
    if sampler:
        node["sampler"] = sampler
    return node


def _operation(message: Any) -> JsonDict:
    op = _parameters(message.operationParam)
    if len(message.size):
        op["size"] = list(message.size)
    if len(message.weights):
        op["weights"] = [shortest_float32(w) for w in message.weights]
    return op


def _parameters(message: Any) -> JsonDict:
    params: JsonDict = {}
    for map_name in ("mapStr", "mapBool", "mapInt", "mapDouble"):
        for key, value in getattr(message, map_name).items():
            params[key] = None if value == "None" else value
    for key, str_list in message.mapStrList.items():
        params[key] = [None if s == "" else s for s in str_list.strValue]
    return params
