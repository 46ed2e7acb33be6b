"""PR-curve plugin (TensorBoard `add_pr_curve`): `pr-curves?train_id=&tag=`.

Each kept step gives its thresholds (i / (n - 1), as tensorboardX and TensorBoard write them) and the six rows
of the tensor: true/false positives/negatives, precision and recall at each threshold. A client draws ROC
from the same counts (TPR = tp / (tp + fn), FPR = fp / (fp + tn)).

A VisualDL `add_roc_curve` step (tag `<tag>/roc_curve`) is one of these too, its precision and recall computed
from its counts; it adds `"kind": "roc"` and its `tpr` and `fpr` rows as VisualDL stored them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_clone.errors import KindDataNotExistError
from mindinsight_clone.ingest.tfevents_kinds import PR_ROWS
from mindinsight_clone.plugins.common import tag_samples
from mindinsight_clone.store.reservoir import Sample
from mindinsight_clone.store.run_cache import RunCache

NAME = "pr_curve"


def _curves(samples: list[Sample]) -> list[dict[str, Any]]:
    out = []
    for s in samples:
        counts = s.value.counts
        n = counts.shape[1]
        item: dict[str, Any] = {"step": s.step, "wall_time": s.wall_time,
                                "thresholds": (np.arange(n) / max(n - 1, 1)).tolist()}
        for name, row in zip(PR_ROWS, counts, strict=True):
            item[name] = [None if not np.isfinite(v) else v for v in row.tolist()]
        roc = getattr(s.value, "roc", None)
        if roc is not None:
            item["kind"] = "roc"
            for name, row in zip(("tpr", "fpr"), roc, strict=True):
                item[name] = [None if not np.isfinite(v) else v for v in row.tolist()]
        out.append(item)
    return out


def pr_curves(cache: RunCache, tag: str) -> dict[str, Any]:
    tag_samples(cache, NAME, tag, KindDataNotExistError)  # MindInsight-style error when there is none
    return {"curves": cache.memo(NAME, tag, "curves", _curves)}
