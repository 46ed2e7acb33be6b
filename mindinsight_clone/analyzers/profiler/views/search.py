"""`POST profile/ops/search`: validate the search condition, then filter/sort/page the op table."""

from __future__ import annotations

from typing import Any

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.adapters.legacy import legacy_ops
from mindinsight_clone.analyzers.profiler.engine import column_query, conditions
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir
from mindinsight_clone.analyzers.profiler.views import ascend_ops, op_stats
from mindinsight_clone.errors import ParamTypeError


def check_device_int(device_id: str) -> str:
    """MindInsight's `to_int(device_id, 'device_id')` check (50540001 when it is not an integer)."""
    try:
        int(device_id)
    except ValueError:
        raise ParamTypeError("device_id", "Integer") from None
    return device_id


def validate_ops_condition(condition: Any) -> tuple[str, str, dict[str, Any]]:
    """Check the body in MindInsight's order; return (op_type, device_id, condition)."""
    body = conditions.check_dict(condition)
    device_id = conditions.check_device_id(body)
    op_type = body.get("op_type")
    if not isinstance(op_type, str) or op_type not in (*op_stats.OP_TYPES, *ascend_ops.ALL_CORES):
        raise conditions.op_type_error(op_stats.OP_TYPES_MESSAGE)
    conditions.check_group(body)
    cols = ascend_ops.ASCEND_COLUMNS[op_type] if op_type in ascend_ops.ALL_CORES else op_stats.columns(op_type)
    sort = body.get("sort_condition")
    name = sort.get("name") if isinstance(sort, dict) else None
    if name in ascend_ops.ASCEND_COLUMNS.get(op_type, ()):  # a column only the Ascend tables have
        cols = (*cols, name)
    scope = legacy_ops.SORT_SCOPE.get(op_type)  # MindInsight 2.3.1's list for the old layout's AI Core/CPU tables
    conditions.check_sort(body, (*cols, *(scope or ())), scope)
    conditions.check_ops_filter(body, op_stats.DISPLAY_KEYS)
    return op_type, check_device_int(device_id), body


def search_ops(pdir: ProfilerDir, op_type: str, device_id: str, condition: dict[str, Any],
               cache: ParsedFileCache | None = None) -> dict[str, Any]:
    """ops/search over the host tables (op_stats.py) or, for a rank whose format has kernel tables, those; the old
    layout's AI Core / AI CPU tables are profile_views.OldLayout's."""
    device = pdir.device(device_id)
    filters = condition.get("filter_condition") or {}
    if op_type in ascend_ops.ASCEND_COLUMNS and device is not None and rank_tables.reads("kernels", device):
        result = ascend_ops.search(device, op_type, condition, cache)
        return op_stats.aicore_detail_view(result, filters) if op_type.endswith("_detail") and \
            op_type != "aicpu_detail" else result
    if op_type in ascend_ops.ALL_CORES:  # every core in one table: only the Ascend output has it
        raise conditions.op_type_error(op_stats.OP_TYPES_MESSAGE)
    if op_type in op_stats.DYNAMIC_COLUMNS:
        return op_stats.dynamic_shape_query(op_type, device, filters)
    table = op_stats.load_table(op_type, device, cache)
    result = column_query.query_rows(table, condition)
    if op_type == "aicore_detail":
        result = op_stats.aicore_detail_view(result, filters)
    return result
