"""The statistics index of one msprobe dump.json (issue 35: "index once, keep the index in the workspace"): the
watchpoints' `StatsTable` (every tensor slot in execution order: node, (io, index), Max / Min / Mean / Norm) kept
as Parquet in the workspace's table store, so a check over many steps parses each dump.json once — not once per
server start or per replica. Columns: node, code (int32), max, min, mean, norm (float64, null where msprobe wrote
no number); the node names, the (io, index) keys and the cut flag are the file's metadata.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mindinsight_clone.ingest import msprobe_dump
from mindinsight_clone.ingest.msprobe_dump import DumpFile

STATS = ("max", "min", "mean", "norm")


@dataclass(frozen=True, slots=True)
class StatsTable:
    """The tensor slots of one dump.json in execution order: their node, (io, index) and four statistics."""

    names: list[str]  # node names, execution order
    node: np.ndarray  # int32 [n]: the slot's node (position in names)
    code: np.ndarray  # int32 [n]: the slot's (io, index), position in keys
    keys: list[tuple[str, str]]  # (io, index) of each code
    values: np.ndarray  # float64 [n, 4]: max, min, mean, norm (NaN where not written, see present)
    present: np.ndarray  # bool [n, 4]: msprobe wrote a number (null, absent or not numeric: False)
    complete: bool  # False: a cut dump.json (its complete entries are here)

    @property
    def nbytes(self) -> int:  # the cache's weight: the arrays, and the node names (~100 bytes each with the list)
        return int(self.node.nbytes + self.code.nbytes + self.values.nbytes + self.present.nbytes) + \
            100 * len(self.names) + 100 * len(self.keys) + 1024

    def __len__(self) -> int:
        return len(self.node)


def stats_table(dump: DumpFile) -> StatsTable:
    """One pass over the parsed entries (the only Python loop per file); the rest is numpy."""
    names: list[str] = []
    nodes: list[int] = []
    codes: list[int] = []
    keys: dict[tuple[str, str], int] = {}
    raw: list[Any] = []
    for i, node in enumerate(dump.nodes):
        names.append(node.name)
        for slot in node.slots:
            leaf = slot.leaf
            if leaf is None or "dtype" not in leaf or "shape" not in leaf:  # Slot.is_tensor
                continue
            key = (slot.io, slot.index)
            code = keys.get(key)
            if code is None:
                code = keys[key] = len(keys)
            nodes.append(i)
            codes.append(code)
            raw += (leaf.get("Max"), leaf.get("Min"), leaf.get("Mean"), leaf.get("Norm"))
    values, present = _numbers(raw)
    return StatsTable(names, np.array(nodes, np.int32), np.array(codes, np.int32), list(keys),
                      values.reshape(-1, 4), present.reshape(-1, 4), dump.complete)


def _numbers(raw: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Statistics as msprobe_dump.stat_number reads them (numbers; "inf"/"nan" text; anything else, booleans
    included, not a number), vectorised for the usual case of floats, ints and nulls."""
    kinds = set(map(type, raw))
    if kinds <= {float, int, type(None)}:
        values = np.array(raw, dtype=np.float64)  # None -> NaN
        present = np.not_equal(np.array(raw, dtype=object), np.array(None, dtype=object)) \
            if type(None) in kinds else np.ones(len(raw), dtype=bool)
        return values, np.asarray(present, dtype=bool)
    numbers = [msprobe_dump.stat_number(v) for v in raw]
    return (np.array([np.nan if v is None else v for v in numbers], dtype=np.float64),
            np.array([v is not None for v in numbers], dtype=bool))




class StatsTableCodec:
    """StatsTable <-> Arrow (analyzers/profiler/engine/table_store.py writes and reads the Parquet file)."""

    version = "msprobe-stats-1"

    def encode(self, value: StatsTable) -> tuple[Any, dict[str, Any]]:
        import pyarrow as pa

        columns: dict[str, Any] = {"node": pa.array(value.node, pa.int32()), "code": pa.array(value.code, pa.int32())}
        for j, name in enumerate(STATS):
            columns[name] = pa.array(value.values[:, j], pa.float64(), mask=~value.present[:, j])
        meta = {"names": value.names, "keys": [list(k) for k in value.keys], "complete": value.complete}
        return pa.table(columns), meta

    def decode(self, batches: Iterable[Any], num_rows: int, schema: Any, meta: dict[str, Any]) -> StatsTable:
        import pyarrow as pa

        table = pa.Table.from_batches(list(batches), schema=schema) if num_rows else None
        values = np.full((num_rows, len(STATS)), np.nan)
        present = np.zeros((num_rows, len(STATS)), dtype=bool)
        node = np.zeros(num_rows, np.int32)
        code = np.zeros(num_rows, np.int32)
        if table is not None:
            node = table.column("node").to_numpy().astype(np.int32)
            code = table.column("code").to_numpy().astype(np.int32)
            for j, name in enumerate(STATS):
                column = table.column(name)
                present[:, j] = column.is_valid().to_numpy(zero_copy_only=False)
                values[:, j] = column.to_numpy(zero_copy_only=False)  # nulls come back as NaN
        return StatsTable([str(n) for n in meta.get("names", [])], node, code,
                          [(str(a), str(b)) for a, b in meta.get("keys", [])], values, present,
                          bool(meta.get("complete", True)))


STATS_CODEC = StatsTableCodec()
