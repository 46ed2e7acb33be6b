"""The tensors of one dumped iteration: rows of the tensor table, with statistics computed once per file.

A row's statistics come from the tensor's `.npy` file (read in bounded chunks, then kept in the workspace's
`StatsCache`, keyed by the file's identity), or, when the iteration has a `statistic.csv` (Ascend/GPU) and no
`.npy` for that tensor (`saved_data: "statistic"`), from that csv (`source` says which; the csv has no std).
A file that cannot be read (truncated, not a .npy...) gives a row with `error` and null statistics; it is
never cached, so a file still being written is read again once it is complete.

A tensor file larger than INLINE_STATS_BYTES gets its statistics only when they are asked for explicitly
(`debugger/tensor?detail=stats`, a watchpoint check): a table page or a window never reads a huge tensor whole.
Until then its row has `source` "deferred" and null statistics (the shape and dtype come from its header).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mindinsight_clone.analyzers.debugger.naming import KernelNames
from mindinsight_clone.analyzers.debugger.stats import TensorStats, tensor_stats
from mindinsight_clone.analyzers.debugger.stats_cache import FileKey, StatsCache, file_key
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.dump_layout import PARAMETER, StatisticRow, TensorName
from mindinsight_clone.ingest.npy_file import NpyArray, NpyError, read_header
from mindinsight_clone.ingest.storage import Entry

log = logging.getLogger(__name__)

INLINE_STATS_BYTES = 1 << 30
PARAMETER_ORDER = 1 << 40  # Parameter files sort after every kernel (MindSpore writes them at the end of a step)


@dataclass(frozen=True, slots=True)
class TensorItem:
    name: TensorName
    entry: Entry | None  # the .npy file; None for a tensor that only statistic.csv describes
    csv: StatisticRow | None = None

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.name.op_name, self.name.io, self.name.slot)

    @property
    def file_key(self) -> FileKey | None:
        e = self.entry
        return None if e is None else file_key(e.location_text, e.size, e.mtime, e.identity)


def items_of(files: Iterable[tuple[TensorName, Entry]], csv_rows: Sequence[StatisticRow]) -> list[TensorItem]:
    """The iteration's tensors: its .npy files, plus the statistic.csv rows that have no file."""
    by_name: dict[TensorName, StatisticRow] = {}
    for row in csv_rows:
        by_name[_without_format(row.name)] = row
    items = [TensorItem(name, entry, by_name.pop(_without_format(name), None)) for name, entry in files]
    items += [TensorItem(row.name, None, row) for row in by_name.values()]
    return items


def _without_format(name: TensorName) -> TensorName:
    return TensorName(name.op_type, name.op_name, name.task_id, name.stream_id, name.timestamp, name.io, name.slot,
                      "", "")


def order_key(item: TensorItem, names: KernelNames) -> tuple[int, int, int, int]:
    """Execution order (then io: inputs first, then slot); kernels without a match by time; Parameters last."""
    _, index, _ = names.node_of(item.name.op_type, item.name.op_name)
    if item.name.op_type == PARAMETER:
        first = PARAMETER_ORDER
    elif index is None:
        first = PARAMETER_ORDER - 1
    else:
        first = index
    return (first, item.name.timestamp if index is None else 0, 0 if item.name.io == "input" else 1, item.name.slot)


def read_facts(entry: Entry) -> dict[str, Any]:
    """Shape, dtype and statistics of one .npy file (raises NpyError / OSError)."""
    header, prefix = read_header(entry.location, entry.size)
    stats = tensor_stats(NpyArray(entry.location, header, prefix).chunks())
    return {"shape": list(header.shape), "npy_dtype": str(header.dtype), "stats": stats.to_dict(), "source": "npy"}


def csv_facts(row: StatisticRow) -> dict[str, Any]:
    v = row.values
    count = int(v.get("count") or 0)
    bad = sum(int(v.get(k) or 0) for k in ("nan_count", "pos_inf_count", "neg_inf_count"))
    stats = TensorStats(count, count - bad, int(v.get("nan_count") or 0), int(v.get("pos_inf_count") or 0),
                        int(v.get("neg_inf_count") or 0), int(v.get("zero_count") or 0), int(v.get("neg_count") or 0),
                        int(v.get("pos_count") or 0), v.get("min"), v.get("max"), v.get("mean"), None, None)
    return {"shape": row.shape, "npy_dtype": None, "stats": stats.to_dict(), "source": "statistic.csv"}


class FactsSource:
    """Facts (shape, dtype, statistics) of tensor items: from the workspace cache, else computed and cached."""

    def __init__(self, cache: StatsCache) -> None:
        self.cache = cache

    def facts(self, items: Sequence[TensorItem], force: bool = False) -> list[dict[str, Any]]:
        """Facts of `items`, in order; statistics of files above INLINE_STATS_BYTES only with `force`."""
        keys = [item.file_key for item in items]
        known = self.cache.get_many(k for k in keys if k is not None)
        out: list[dict[str, Any]] = []
        new: list[tuple[FileKey, dict[str, Any]]] = []
        for item, key in zip(items, keys, strict=True):
            if key is None:
                out.append(csv_facts(item.csv) if item.csv is not None else {"error": "no file"})
                continue
            facts = known.get(key)
            if facts is None and not force and item.entry is not None and item.entry.size > INLINE_STATS_BYTES:
                facts = self.header_only(item)
            elif facts is None:
                facts = self.compute(item)
                if "error" not in facts and facts.get("stats") is not None:
                    new.append((key, facts))
            out.append(facts)
        self.cache.put_many(new)
        return out

    @staticmethod
    def header_only(item: TensorItem) -> dict[str, Any]:
        """Shape and dtype of a huge file, its statistics deferred (never cached: `error` keeps it out)."""
        assert item.entry is not None
        try:
            header, _ = read_header(item.entry.location, item.entry.size)
        except (NpyError, OSError) as exc:
            return {"error": str(exc)}
        return {"shape": list(header.shape), "npy_dtype": str(header.dtype), "stats": None, "source": "deferred",
                "error": None}

    @staticmethod
    def compute(item: TensorItem) -> dict[str, Any]:
        assert item.entry is not None
        try:
            return read_facts(item.entry)
        except (NpyError, OSError, ValueError, TypeError) as exc:
            log.warning("cannot read %s: %s", storage.describe(item.entry.location), exc)
            if item.csv is not None:
                return {**csv_facts(item.csv), "error": str(exc)}
            return {"error": str(exc)}


def row(item: TensorItem, facts: dict[str, Any], names: KernelNames) -> dict[str, Any]:
    """One line of the tensor table (the issue's fields first, then ours)."""
    n = item.name
    node, index, how = names.node_of(n.op_type, n.op_name)
    stats = facts.get("stats") or {}
    out: dict[str, Any] = {
        "op_name": n.op_name, "op_type": n.op_type, "io": n.io, "slot": n.slot, "dtype": n.dtype,
        "shape": facts.get("shape"), "count": stats.get("count"),
        "min": stats.get("min"), "max": stats.get("max"), "mean": stats.get("mean"), "std": stats.get("std"),
        "nan_count": stats.get("nan_count"), "pos_inf_count": stats.get("pos_inf_count"),
        "neg_inf_count": stats.get("neg_inf_count"), "zero_count": stats.get("zero_count"), "node_name": node,
        # extensions
        "finite_count": stats.get("finite_count"), "neg_count": stats.get("neg_count"),
        "pos_count": stats.get("pos_count"), "abs_mean": stats.get("abs_mean"), "npy_dtype": facts.get("npy_dtype"),
        "task_id": n.task_id, "stream_id": n.stream_id, "timestamp": n.timestamp, "format": n.format,
        "execution_order": index, "node_match": how, "file": item.entry.name if item.entry is not None else None,
        "size_bytes": item.entry.size if item.entry is not None else None, "source": facts.get("source"),
        "error": facts.get("error"),
    }
    return out
