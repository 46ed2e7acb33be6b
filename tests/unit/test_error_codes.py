"""The error codes the UI translates (frontend/src/i18n/errors.*.ts, checked there against errors.py): a
ProfilerSearchConditionError is raised with its value, so the values raised are listed on the class."""

from __future__ import annotations

from mindinsight_clone.analyzers.profiler.adapters.legacy import legacy_cluster, legacy_ops, legacy_step_trace
from mindinsight_clone.analyzers.profiler.engine import conditions
from mindinsight_clone.errors import ProfilerSearchConditionError


def test_every_search_condition_value_raised_is_listed() -> None:
    raised = {conditions.DEVICE_ID, conditions.OP_TYPE, conditions.GROUP, conditions.SORT, conditions.FILTER,
              conditions.PIPELINE_OP, legacy_cluster.STEP_NUM_NOT_SUPPORTED, legacy_cluster.COLUMN_NOT_EXIST,
              legacy_ops.COLUMN_NOT_EXIST, legacy_step_trace.STEP_NUM_NOT_SUPPORTED, 0x186}
    assert raised <= set(ProfilerSearchConditionError.values)
    assert {ProfilerSearchConditionError(v, "x").error_code for v in ProfilerSearchConditionError.values} >= {
        "50546102", "50546180", "50546188"}
