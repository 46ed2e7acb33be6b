"""`profile/operator-details` and `profile/api-statistic`: a rank's framework operators and CANN API statistics
(specs in ascend_tables.py), filtered by a substring of the name, sorted and paged with column_query.query_rows. The
table comes from whichever export the rank is written in (rank_tables.py); `source` says what was read.
"""

from __future__ import annotations

from typing import Any

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.adapters.ascend_text.ascend_tables import TableSpec
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.column_query import query_rows
from mindinsight_clone.analyzers.profiler.engine.numbers import with_problems
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles


def search(device: DeviceFiles, spec: TableSpec, text: str, sort_name: str | None, sort_type: str,
           limit: int, offset: int, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    """`{"col_name", "object", "size", "source"}`: rows whose search column holds `text`, sorted, page `offset` of
    `limit`."""
    table, problems = rank_tables.load(spec.table, device, cache)
    source = rank_tables.source(spec.table, device)
    condition: dict[str, Any] = {"sort_condition": {"name": sort_name or spec.default_sort, "type": sort_type},
                                 "group_condition": {"limit": limit, "offset": offset}}
    if text:
        condition["filter_condition"] = {spec.search_column: {"partial_match_str_in": [text]}}
    answer = query_rows(table, condition)
    answer["source"] = source
    return with_problems(answer, problems)
