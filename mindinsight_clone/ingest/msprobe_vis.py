"""`msprobe graph_visualize` output (issue 35): the `*.vis.db` SQLite file tb-graph-ascend draws.

Tables (README "msprobe graph_visualize"): `tb_config` (graph_type build|compare, node_colors: colour -> value range
and accuracy level, rank_list, step_list, overflow_check), `tb_nodes` (one row per node per graph `<NPU|Bench>_<step>_
<rank>`: node_name, node_type 0 module / 1 api / 9 api collection, up_node, node_order, precision_index null / 0..1,
overflow_level, matched_node_link, stack_id, input_data / output_data JSON), `tb_stack` (stack_info JSON frames).
Opened read-only; a remote file is copied to a temporary file first (bounded).

The older JSON `.vis` (msprobe 1.2 to 8.2.0) is read by `msprobe_vis_json`; `open_graph` is the one place that picks
the reader by file type, and both answer through `VisGraphs` (config / graphs / nodes / node).
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

from mindinsight_clone.ingest import msprobe_vis_json, storage
from mindinsight_clone.ingest.storage import Location

T = TypeVar("T")

MAX_REMOTE_BYTES = 1 << 30
NODE_COLUMNS = ("node_name", "node_type", "up_node", "node_order", "precision_index", "overflow_level",
                "matched_node_link", "stack_id", "data_source", "step", "rank", "micro_step_id")
NODES_SQL = f"SELECT {', '.join(NODE_COLUMNS)} FROM tb_nodes WHERE graph_id = ? ORDER BY node_order"  # noqa: S608 (constant columns)


class VisGraphs(Protocol):
    """A graph_visualize file, whichever its format: what `read_config`, `read_graphs`, `read_nodes`, `read_node`
    answer for a `.vis.db`."""

    def config(self) -> dict[str, Any]: ...

    def graphs(self) -> list[dict[str, Any]]: ...

    def nodes(self, graph: str) -> list[dict[str, Any]]: ...

    def node(self, graph: str, name: str) -> dict[str, Any] | None: ...


class ParsedCache(Protocol):
    """A cache of parsed files by file version (analyzers/profiler/cache.ParsedFileCache is one)."""

    def get(self, kind: str, path: Location, parse: Callable[[Location], T]) -> T: ...


@contextmanager
def open_graph(location: Location, cache: ParsedCache | None = None) -> Iterator[VisGraphs]:
    """The graph_visualize file at `location`, `.vis.db` (SQLite) or `.vis` (JSON, parsed once per file version
    when a `cache` is given). ValueError when it is not msprobe's; OSError when unreadable or too big."""
    if msprobe_vis_json.is_vis_json(location.name):
        yield (cache.get("msprobe-vis-json", location, msprobe_vis_json.read) if cache is not None
               else msprobe_vis_json.read(location))
        return
    with open_db(location) as conn:
        yield _Db(conn)


class _Db:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def config(self) -> dict[str, Any]:
        return read_config(self.conn)

    def graphs(self) -> list[dict[str, Any]]:
        return read_graphs(self.conn)

    def nodes(self, graph: str) -> list[dict[str, Any]]:
        return read_nodes(self.conn, graph)

    def node(self, graph: str, name: str) -> dict[str, Any] | None:
        return read_node(self.conn, graph, name)


@contextmanager
def open_db(location: Location) -> Iterator[sqlite3.Connection]:
    """A read-only connection to an msprobe `.vis.db` (ValueError when it is not one; OSError when unreadable)."""
    with open_sqlite(location, {"tb_config", "tb_nodes"}, "graph_visualize") as conn:
        yield conn


@contextmanager
def open_sqlite(location: Location, tables: set[str], tool: str) -> Iterator[sqlite3.Connection]:
    """A read-only connection to an msprobe SQLite output holding `tables` (ValueError otherwise)."""
    temp: str | None = None
    path = str(location)
    if storage.is_remote(location):
        data = storage.read_bytes(location, max_size=MAX_REMOTE_BYTES)
        handle, temp = tempfile.mkstemp(suffix=".vis.db")
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        path = temp
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    except sqlite3.Error as exc:
        raise ValueError(f"{location.name} cannot be opened as SQLite: {exc}") from exc
    try:
        try:
            found = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"{location.name} is not an SQLite database: {exc}") from exc
        if not tables <= found:
            raise ValueError(f"{location.name} is not an msprobe {tool} database (no {' / '.join(sorted(tables))})")
        yield conn
    finally:
        conn.close()
        if temp:
            os.unlink(temp)


def read_config(conn: sqlite3.Connection) -> dict[str, Any]:
    row = conn.execute("SELECT graph_type, task, overflow_check, node_colors, rank_list, step_list FROM tb_config "
                       "LIMIT 1").fetchone()
    if row is None:
        return {"graph_type": None, "task": None, "overflow_check": False, "colors": [], "ranks": [], "steps": []}
    return {"graph_type": row[0], "task": row[1], "overflow_check": bool(row[2]),
            "colors": msprobe_vis_json.color_legend(_json(row[3])),
            "ranks": _json(row[4]) or [], "steps": _json(row[5]) or []}


def read_graphs(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    rows = conn.execute("SELECT graph_id, data_source, step, rank, COUNT(*) FROM tb_nodes "
                        "GROUP BY graph_id, data_source, step, rank ORDER BY step, rank, data_source DESC")
    return [{"graph": r[0], "side": r[1], "step": r[2], "rank": r[3], "nodes": r[4]} for r in rows]


def read_nodes(conn: sqlite3.Connection, graph: str) -> list[dict[str, Any]]:
    out = []
    for r in conn.execute(NODES_SQL, (graph,)):
        row = dict(zip(NODE_COLUMNS, r, strict=True))
        link = _json(row["matched_node_link"])
        out.append({"name": row["node_name"], "parent": row["up_node"] or None, "type": _int(row["node_type"]),
                    "order": row["node_order"], "precision_index": row["precision_index"],
                    "overflow_level": row["overflow_level"] or None, "matched": bool(link),
                    "stack_id": row["stack_id"]})
    return out


def read_node(conn: sqlite3.Connection, graph: str, name: str) -> dict[str, Any] | None:
    row = conn.execute("SELECT input_data, output_data, stack_id, matched_node_link FROM tb_nodes WHERE graph_id = ? "
                       "AND node_name = ?", (graph, name)).fetchone()
    if row is None:
        return None
    stack = None
    if row[2]:
        found = conn.execute("SELECT stack_info FROM tb_stack WHERE id = ?", (row[2],)).fetchone()
        stack = _json(found[0]) if found else None
    return {"inputs": _json(row[0]) or {}, "outputs": _json(row[1]) or {}, "stack": stack or [],
            "matched_node_link": _json(row[3]) or []}


def _json(text: Any) -> Any:
    if not isinstance(text, str) or not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
