"""Validation of `search_condition` bodies (ops/search, minddata-pipeline/op-queue) with MindInsight's codes.

50546182 device_id, 50546183 op_type, 50546184 group_condition, 50546185 sort_condition,
50546186 filter_condition, 50546188 minddata pipeline operator. Messages follow MindInsight 2.3.1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mindinsight_clone.errors import ProfilerParamTypeError, ProfilerSearchConditionError

DEVICE_ID, OP_TYPE, GROUP, SORT, FILTER, PIPELINE_OP = 0x182, 0x183, 0x184, 0x185, 0x186, 0x188
FILTER_KEYS = ["in", "not_in", "partial_match_str_in"]
MAX_LIMIT, MAX_OFFSET = 100, 1000000


def _err(value: int, part: str, detail: str) -> ProfilerSearchConditionError:
    return ProfilerSearchConditionError(value, f"The {part} in search_condition error, {detail}")


def op_type_error(detail: str) -> ProfilerSearchConditionError:
    return _err(OP_TYPE, "op_type", detail)


def sort_error(detail: str) -> ProfilerSearchConditionError:
    return _err(SORT, "sort_condition", detail)


def pipeline_op_error(op_id: int) -> ProfilerSearchConditionError:
    return ProfilerSearchConditionError(PIPELINE_OP, f"The minddata pipeline operator {op_id} does not exist.")


def check_dict(condition: Any, what: str = "search_condition") -> dict[str, Any]:
    if not isinstance(condition, dict):
        raise ProfilerParamTypeError(f"Invalid {what} type, it should be dict.")
    return condition


def check_device_id(condition: dict[str, Any]) -> str:
    if "device_id" in condition and not isinstance(condition["device_id"], str):
        raise _err(DEVICE_ID, "device_id", "Invalid device_id type, it should be str.")
    return str(condition.get("device_id", "0"))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_group(condition: dict[str, Any]) -> None:
    if "group_condition" not in condition:
        return
    group = condition["group_condition"]
    if not isinstance(group, dict):
        raise _err(GROUP, "group_condition", "The group condition must be dict.")
    if "limit" in group:
        limit = group["limit"]
        if not _is_int(limit):
            raise _err(GROUP, "group_condition", "The limit must be int.")
        if not 1 <= limit <= MAX_LIMIT:
            raise _err(GROUP, "group_condition", f"The limit must in [1, {MAX_LIMIT}].")
    if "offset" in group:
        offset = group["offset"]
        if not _is_int(offset):
            raise _err(GROUP, "group_condition", "The offset must be int.")
        if offset < 0:
            raise _err(GROUP, "group_condition", "The offset must ge 0.")
        if offset > MAX_OFFSET:
            raise _err(GROUP, "group_condition", f"The offset must le {MAX_OFFSET}.")


def check_sort(condition: dict[str, Any], columns: Sequence[str], shown: Sequence[str] | None = None) -> None:
    """`columns` are the accepted names; `shown` (default: `columns`) is the list the error message prints."""
    if "sort_condition" not in condition:
        return
    sort = condition["sort_condition"]
    if not isinstance(sort, dict):
        raise _err(SORT, "sort_condition", "The sort condition must be dict.")
    if "name" in sort:
        name = sort["name"]
        if not isinstance(name, str):
            raise _err(SORT, "sort_condition", "Wrong sorted name type.")
        if name not in columns:
            raise _err(SORT, "sort_condition", f"The sorted_name must be in {list(shown or columns)}")
    if "type" in sort:
        sort_type = sort["type"]
        if sort_type and sort_type not in ("ascending", "descending"):
            raise _err(SORT, "sort_condition", "The sorted type must be ascending or descending.")


def check_op_filter(op_condition: Any, item_type: type = str, type_name: str = "str") -> None:
    if not isinstance(op_condition, dict):
        raise _err(FILTER, "filter_condition", "The filter condition value must be dict.")
    for key, value in op_condition.items():
        if not isinstance(value, list):
            raise _err(FILTER, "filter_condition", "The filter value must be list")
        if key not in FILTER_KEYS:
            raise _err(FILTER, "filter_condition", f"The filter key must in {FILTER_KEYS}.")
        for item in value:
            if not isinstance(item, item_type) or isinstance(item, bool):
                raise _err(FILTER, "filter_condition", f"The item in filter value must be {type_name}.")


def check_ops_filter(condition: dict[str, Any], extra_keys: Sequence[str] = ()) -> None:
    """op_type / op_name filters; `extra_keys` are display switches some tables accept (passed through)."""
    if "filter_condition" not in condition:
        return
    filters = condition["filter_condition"]
    if not isinstance(filters, dict):
        raise _err(FILTER, "filter_condition", "The filter condition must be dict.")
    if not filters:
        return
    for key in ("op_type", "op_name"):
        if key in filters:
            check_op_filter(filters[key])
    if not any(k in filters for k in ("op_type", "op_name", *extra_keys)):
        raise _err(FILTER, "filter_condition", "The key of filter_condition is not support")


def check_pipeline_filter(condition: dict[str, Any]) -> None:
    if "filter_condition" not in condition:
        return
    filters = condition["filter_condition"]
    if not isinstance(filters, dict):
        raise _err(FILTER, "filter_condition", "The filter condition must be dict.")
    for key, value in filters.items():
        if key == "op_id":
            check_op_filter(value, int, "int")
        elif key == "op_type":
            check_op_filter(value)
        elif key == "is_display_op_detail":
            if not isinstance(value, bool):
                raise _err(FILTER, "filter_condition", "The condition must be bool.")
        else:
            raise _err(FILTER, "filter_condition", f"The key {key} of filter_condition is not support.")
