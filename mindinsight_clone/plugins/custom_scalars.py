"""Custom scalars plugin (TensorBoard `add_custom_scalars`): `custom-scalars?train_id=`.

The layout as written: categories (`title`, `closed`) of charts; a multiline chart names regular expressions over
the run's scalar tags as on disk (`multiline.tags`), a margin chart a value/lower/upper tag per series
(`margin.series`). For a margin chart `matched` gives the series' MindInsight tag names (`<tag>/scalar`) the run
has. Multiline patterns are matched by the client against `plugins.scalar` (as TensorBoard does, in the
browser): a regular expression from a file could take exponential time, never on the server's threads.
"""

from __future__ import annotations

from typing import Any

from mindinsight_clone.errors import KindDataNotExistError
from mindinsight_clone.store.run_cache import RunCache

NAME = "custom_scalars"
SCALAR_SUFFIX = "/scalar"


def layout(cache: RunCache) -> dict[str, Any]:
    tags = cache.tags(NAME)
    if not tags:
        raise KindDataNotExistError("Detail: this train job has no custom scalars layout.")
    scalars = set(cache.tags("scalar"))
    categories = []
    for tag in tags:
        samples = cache.samples(NAME, tag)
        if not samples:
            continue
        for category in samples[-1].value.categories:
            charts = []
            for chart in category["charts"]:
                if "margin" in chart:
                    wanted = [t for s in chart["margin"]["series"] for t in (s["value"], s["lower"], s["upper"]) if t]
                    chart = {**chart, "matched": [t + SCALAR_SUFFIX for t in wanted if t + SCALAR_SUFFIX in scalars]}
                charts.append(chart)
            categories.append({**category, "charts": charts})
    return {"tags": tags, "categories": categories}
