"""Validate a lineage search condition with MindInsight's rules, order and messages.

Every failure is a LineageSearchConditionParamError (50542218, `Search_condition param error: ...`).
Checks run in MindInsight's order: the body type, limit/offset types, sorted_name/sorted_type, then each
filter key in body order (attribute, dict, operators, metric values), then per-field value rules.
"""

from __future__ import annotations

from typing import Any

from mindinsight_clone.analyzers.lineage.record import FIELDS
from mindinsight_clone.errors import LineageSearchConditionParamError

OPERATORS = ("eq", "lt", "gt", "le", "ge", "in", "not_in")
CONTROL_KEYS = ("limit", "offset", "sorted_name", "sorted_type", "lineage_type")
LINEAGE_TYPES = ("dataset", "model")
SORTED_TYPES = ("ascending", "descending", None)
MAX_INT = 2**63 - 1

STR_FIELDS = ("summary_dir", "loss_function", "train_dataset_path", "test_dataset_path", "network", "optimizer",
              "dataset_mark")
INT_FIELDS = ("train_dataset_count", "test_dataset_count", "epoch", "batch_size", "device_num", "model_size")
NUMBER_FIELDS = ("learning_rate", "loss")

_DICT_STR = "It should be a dict and the value should be a string."
_DICT_INT = "It should be a dict and the value should be a integer between 0 and pow(2, 63) -1."
FIELD_MESSAGES = {
    "summary_dir": f"The parameter summary_dir is invalid. {_DICT_STR}",
    "loss_function": f"The parameter loss_function is invalid. {_DICT_STR}",
    "train_dataset_path": f"The parameter train_dataset_path is invalid. {_DICT_STR}",
    "train_dataset_count": f"The parameter train_dataset_count is invalid. {_DICT_INT}",
    "test_dataset_path": f"The parameter test_dataset_path is invalid. {_DICT_STR}",
    "test_dataset_count": f"The parameter test_dataset_count is invalid. {_DICT_INT}",
    "network": f"The parameter network is invalid. {_DICT_STR}",
    "optimizer": f"The parameter optimizer is invalid. {_DICT_STR}",
    "learning_rate": "The parameter learning_rate is invalid. It should be a dict and the value should be a float "
                     "or a integer.",
    "epoch": "The parameter epoch is invalid. It should be a positive integer.",
    "batch_size": "The parameter batch_size is invalid. It should be a non-negative integer.",
    "device_num": "The parameter device_num is invalid. It should be a non-negative integer.",
    "loss": "The parameter loss is invalid. It should be a float.",
    "model_size": "The parameter model_size is invalid. It should be an integer between 0 and pow(2, 63) -1.",
    "dataset_mark": "The parameter dataset_mark is invalid. It should be a string.",
    "lineage_type": "The parameter lineage_type is invalid. It should be 'dataset' or 'model'.",
}


class _FieldError(Exception):
    """A per-field rule failed; the text decides whether MindInsight shows it or the field's message."""


def _fail(detail: str) -> LineageSearchConditionParamError:
    return LineageSearchConditionParamError(detail)


def validate(condition: Any) -> dict[str, Any]:
    """Return the condition if valid, else raise LineageSearchConditionParamError."""
    if not isinstance(condition, dict):
        raise _fail("TypeError. Invalid search_condition type, it should be dict.")
    for name in ("limit", "offset"):
        if name in condition and (isinstance(condition[name], bool) or not isinstance(condition[name], int)):
            raise _fail(f"TypeError. The {name} must be int.")
    _check_sorting(condition)
    for attr, value in condition.items():
        if attr not in CONTROL_KEYS:
            _check_filter_shape(attr, value)
    _check_field_rules(condition)
    return condition


def _check_sorting(condition: dict[str, Any]) -> None:
    if "sorted_name" in condition:
        name = condition["sorted_name"]
        valid = isinstance(name, str) and (
            name in FIELDS or name == "tag"
            or (name.startswith("metric/") and len(name) > len("metric/"))
            or (name.startswith("user_defined/") and len(name) > len("user_defined/")))
        if not valid:
            raise _fail(f"ValueError. The sorted_name must be in {list(FIELDS)} or start with `metric/` or "
                        "`user_defined/`.")
    if "sorted_type" in condition:
        if "sorted_name" not in condition:
            raise _fail("ValueError. The sorted_name must exist when sorted_type exists.")
        if condition["sorted_type"] not in SORTED_TYPES:
            raise _fail("ValueError. The sorted_type must be ascending or descending.")


def _check_filter_shape(attr: str, value: Any) -> None:
    if attr not in FIELDS and not attr.startswith(("metric/", "user_defined/")):
        raise _fail("ValueError. The search attribute not supported.")
    if not isinstance(value, dict):
        raise _fail(f"TypeError. The search_condition element {attr} should be dict.")
    if any(op not in OPERATORS for op in value):
        raise _fail("ValueError. The compare condition should be in ('eq', 'lt', 'gt', 'le', 'ge', 'in', 'not_in').")
    if attr.startswith("metric/"):
        if attr == "metric/":
            raise _fail("ValueError. The search attribute not supported.")
        try:
            _numbers(value)
        except _FieldError:
            raise _fail(f"The parameter {attr} is invalid. It should be a dict and the value should be a float "
                        "or a integer") from None


def _check_field_rules(condition: dict[str, Any]) -> None:
    """Per-field value rules (MindInsight's schema): range of limit/offset, then fields by name."""
    if "limit" in condition and not 0 < condition["limit"] <= 100:
        raise _fail("Invalid input limit. 0 < limit <= 100")
    if "offset" in condition and not 0 <= condition["offset"] <= 100000:
        raise _fail("Invalid input offset. 0 <= offset <= 100000")
    if "lineage_type" in condition and not isinstance(condition["lineage_type"], dict):
        raise _fail(FIELD_MESSAGES["lineage_type"])
    for name in sorted(n for n in condition if n in FIELD_MESSAGES):
        try:
            _check_field(name, condition[name])
        except _FieldError as exc:
            text = str(exc)
            message = f"The parameter {name} is invalid. {text}" if "operation" in text.lower() \
                else FIELD_MESSAGES[name]
            raise _fail(message) from None


def _check_field(name: str, value: dict[str, Any]) -> None:
    if name in NUMBER_FIELDS:
        _numbers(value)
    elif name in INT_FIELDS:
        _typed(value, int)
    elif name in STR_FIELDS or name == "lineage_type":
        if any(op not in ("in", "eq", "not_in") for op in value):
            raise _FieldError("Its operation should be `eq`, `in` or `not_in`.")
        _typed(value, str)
        if name == "lineage_type":
            wanted = [v for op, v in value.items() if op not in ("in", "not_in")]
            wanted += [*value.get("in", []), *value.get("not_in", [])]
            if not all(isinstance(v, str) and v in LINEAGE_TYPES for v in wanted):
                raise _FieldError(f"Given lineage type should be one of {list(LINEAGE_TYPES)}.")


def _lists(value: dict[str, Any]) -> None:
    for op in ("in", "not_in"):
        if op in value and not isinstance(value[op], (list, tuple)):
            raise _FieldError(f"The value of `{op}` operation must be list or tuple.")


def _numbers(value: dict[str, Any]) -> None:
    """int or float operands (not bool); `in`/`not_in` take lists."""
    _lists(value)
    for op, operand in value.items():
        if op not in ("in", "not_in") and (isinstance(operand, bool) or not isinstance(operand, (int, float))):
            raise _FieldError("Wrong value type.")


def _typed(value: dict[str, Any], kind: type) -> None:
    _lists(value)
    for op, operand in value.items():
        if op in ("in", "not_in"):
            continue
        if isinstance(operand, bool) or not isinstance(operand, kind):
            raise _FieldError("Wrong value type.")
        if isinstance(operand, int) and not 0 <= operand <= MAX_INT:
            raise _FieldError("Int value should <= pow(2, 63) - 1.")
