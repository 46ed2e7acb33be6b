"""dataset_mark: one number per distinct dataset graph, shared by runs with identical graphs.

MindInsight numbers graphs from "2" ("1" is reserved) in dict order and takes the next number as
max() over the *string* keys, so after "9" it hands out "10" again and again. Here marks are integers
counted up, and runs are taken oldest first, so the marks do not depend on the query and a new run
never renumbers older ones.
"""

from __future__ import annotations

from collections.abc import Iterable

import orjson

from mindinsight_clone.analyzers.lineage.record import RunLineage

FIRST_MARK = 2


def assign_marks(runs: Iterable[RunLineage]) -> dict[str, str]:
    """train_id -> mark, for all runs (pass every run, not a filtered subset)."""
    seen: dict[bytes, str] = {}
    marks: dict[str, str] = {}
    for run in sorted(runs, key=lambda r: r.order_key):
        key = orjson.dumps(run.dataset_graph, option=orjson.OPT_SORT_KEYS)
        mark = seen.get(key)
        if mark is None:
            mark = str(FIRST_MARK + len(seen))
            seen[key] = mark
        marks[run.train_id] = mark
    return marks
