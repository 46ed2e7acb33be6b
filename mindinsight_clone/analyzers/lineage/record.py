"""Merge a run's lineage files into one RunLineage.

MindSpore writes one `*_lineage` file per training (or eval) session into the run's folder, so a run that
was restarted has several. Files are applied in write order and a later file wins *per field*: a restart's
train lineage replaces the learning rate it recorded but keeps the dataset graph, the user-defined values
and the metrics that only an earlier session recorded (MindInsight started afresh at every file with a
train lineage or a dataset graph and so dropped them; docs/lineage.md). Inside one file the last event of
each kind wins. A run is a lineage only if some file holds a train, eval or graph event (user-defined info
alone is not one), but user-defined info is kept from every file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mindinsight_clone.analyzers.lineage.files import FileLineage, file_order_key

JsonDict = dict[str, Any]

# MindInsight's FIELD_MAPPING, in its order: field -> (part of the lineage, key inside it).
FIELDS: dict[str, tuple[str, str | None]] = {
    "summary_dir": ("summary_dir", None),
    "loss_function": ("hyper_parameters", "loss_function"),
    "train_dataset_path": ("train_dataset", "train_dataset_path"),
    "train_dataset_count": ("train_dataset", "train_dataset_size"),
    "test_dataset_path": ("valid_dataset", "valid_dataset_path"),
    "test_dataset_count": ("valid_dataset", "valid_dataset_size"),
    "network": ("algorithm", "network"),
    "optimizer": ("hyper_parameters", "optimizer"),
    "learning_rate": ("hyper_parameters", "learning_rate"),
    "epoch": ("hyper_parameters", "epoch"),
    "batch_size": ("hyper_parameters", "batch_size"),
    "device_num": ("hyper_parameters", "device_num"),
    "loss": ("algorithm", "loss"),
    "model_size": ("model", "size"),
    "dataset_mark": ("dataset_mark", None),
}
MODEL_FIELDS = tuple(name for name in FIELDS if name != "summary_dir")


@dataclass
class _State:
    parts: dict[str, JsonDict] = field(default_factory=lambda: {
        "hyper_parameters": {}, "train_dataset": {}, "algorithm": {}, "model": {}, "valid_dataset": {}})
    metric: JsonDict = field(default_factory=dict)
    user_defined: JsonDict = field(default_factory=dict)
    dataset_graph: JsonDict = field(default_factory=dict)


@dataclass(frozen=True)
class RunLineage:
    """The merged lineage of one run; `dataset_mark` is given per query by marks.assign_marks."""

    train_id: str
    update_time: float
    order_key: tuple[int, float, str]  # (newest file-name timestamp, mtime, id): newest first, descending
    values: JsonDict  # FIELDS (except dataset_mark) -> value or None
    metric: JsonDict
    user_defined: JsonDict
    dataset_graph: JsonDict

    def value(self, key: str, dataset_mark: str | None = None) -> Any:
        """A search/sort field: a FIELDS name, `metric/<x>` or `user_defined/<x>`."""
        if key.startswith(("metric/", "user_defined/")):
            group, name = key.split("/", 1)
            return (self.metric if group == "metric" else self.user_defined).get(name)
        if key == "dataset_mark":
            return dataset_mark
        return self.values.get(key)

    def model_lineage(self, dataset_mark: str | None) -> JsonDict:
        """The `model_lineage` object of a search result."""
        out = {name: self.values.get(name) for name in MODEL_FIELDS}
        out["dataset_mark"] = dataset_mark
        out["metric"] = self.metric
        out["user_defined"] = self.user_defined
        return out


def merge(train_id: str, update_time: float, files: list[FileLineage]) -> RunLineage | None:
    """Apply the files in the given (write) order, later files winning per field; None if none of them
    holds a lineage."""
    state = _State()
    newest = 0
    found = False
    for item in files:
        for info in item.user_defined:
            state.user_defined.update(info)
        if not item.has_lineage:
            continue
        found = True
        if item.train is not None:
            for part, fields in item.train.items():
                state.parts.setdefault(part, {}).update(fields)
        if item.evaluation is not None:
            if "valid_dataset" in item.evaluation:
                state.parts["valid_dataset"].update(item.evaluation["valid_dataset"])
            if item.evaluation.get("metric") is not None:
                state.metric.update(item.evaluation["metric"])
        if item.graph:
            state.dataset_graph = item.graph
        newest = max(newest, file_order_key(item.name)[0])
    if not found:
        return None
    values: JsonDict = {"summary_dir": train_id}
    for name, (part, key) in FIELDS.items():
        if part in state.parts and key is not None:
            values[name] = state.parts[part].get(key)
    return RunLineage(train_id, update_time, (newest, update_time, train_id), values, state.metric,
                      state.user_defined, state.dataset_graph)
