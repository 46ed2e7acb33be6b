"""operator_details.csv (`profile/operator-details`) from the database export: one row per framework operator with
its host self / total time, input shapes, call stack and the device time of the work it launched.

torch_npu computes the file in its OperatorViewParser (torch_npu/profiler/analysis/prof_view/
_operator_view_parser.py, with prof_common_func/_tree_builder.py and prof_parse/_fwk_cann_relation_parser.py);
this module does the same computation over the tables the database holds:

* **operators** = `PYTORCH_API` rows of type `op` (`ENUM_API_TYPE`; times stored as TEXT, ns), nested into a tree
  by time as TreeBuilder.build_tree does (sorted by start; an operator is a child of the latest open operator that
  has not ended before it starts, whatever its thread). Host total = its duration, host self = that minus its
  children's durations. `ProfilerStep#N` operators are in the tree, not in the table.
* **launches**: every `CANN_API` call whose `connectionId` some device work carries (what the text export's
  trace_view.json draws as HostToDevice arrows): compute kernels (`TASK` ⋈ `COMPUTE_TASK_INFO`), `MEMCPY_ASYNC`
  tasks and communication operators (`COMMUNICATION_OP`, whole). HCCL's own tasks and the event record / wait
  tasks carry no arrow in the text export of this profiler version, so they count for no operator. **One** task per
  launch counts: the earliest of those carrying its connection id, as torch_npu keeps the first arrow end of each
  flow (CANNFileParser.combine_acl_to_npu's `setdefault`), so e.g. the second MEMCPY_ASYNC of an
  aclopCompileAndExecute counts for no operator either (checked: this reproduces the text fixture's
  operator_details.csv from its trace_view.json exactly).
* The join of TASK to COMPUTE_TASK_INFO needs `COMPUTE_TASK_INFO.globalTaskId` unique (its PRIMARY KEY in real
  exports): a file where it is not is refused as damaged (issue 29: a crafted one made the join quadratic).
* **launch -> operator**: with a task queue (`PYTORCH_API` rows of type `queue`: `Enqueue` on the operator's
  thread, `Dequeue@<op>` on the launching thread, paired by their `CONNECTION_IDS` id), a launch belongs to the
  dequeue whose [start, end] holds its start (walked in time order as combine_kernel_dict does), that to its
  enqueue, and the enqueue to the innermost operator open at its start on the same thread. Without a task queue
  the launch belongs to the innermost operator open at its start (TreeBuilder.update_tree_node_info).
* **device self** = the launched work's durations summed over the operator's own launches, **device total** over
  its subtree's; **with AICore** counts the compute kernels whose core is `AI_CORE` or `AI_VECTOR_CORE` only (the
  text export's trace labels both `AI_CORE`; its operator_details.csv sums exactly those).
* **input shapes** = `inputShapes` through `STRING_IDS`. torch_npu between 2024-03 and 2024-11 wrote the two
  columns crossed (commit 1ac959e42 "fix the incorrect order of torch_op input type and shape"): when the
  `inputShapes` values hold type names (letters) and the `inputDtypes` values do not, the latter are read.
* **call stack** = `PYTORCH_CALLCHAINS` frames of the operator's `callchainId` by `stackDepth`, joined with
  `;` + CR LF, the separator torch_npu split them on (the text export's cells hold the same string).
* At profiler Level0 the database records no core for the compute kernels (`COMPUTE_TASK_INFO.taskType` `N/A`;
  the text export's trace still labels them): an operator whose launched work includes such a kernel answers
  null in the AI Core columns, and `problems` says how many.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from mindinsight_clone.analyzers.profiler.adapters.ascend_db.ascend_db import (
    INT_NULL,
    Db,
    profiler_db,
    read_parsed,
    strings,
)
from mindinsight_clone.analyzers.profiler.engine import ascend_csv
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.column_query import Row
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles

log = logging.getLogger(__name__)
Problems = list[dict[str, Any]]
API_TYPES = {"op": 50001, "queue": 50002}  # torch_npu's ApiType, when ENUM_API_TYPE lacks them
STEP_MARK = "ProfilerStep#"
OPS_WHY = "written when CPU activities are profiled"
CALL_STACK_SEPARATOR = ";\r\n"  # what torch_npu split the call stack on (and what its text export holds)
Work = tuple[float, float, float]  # device µs, of which on AI cores, kernels whose core is not recorded
NO_WORK: Work = (0.0, 0.0, 0.0)
Texts = dict[int, str]  # STRING_IDS id -> text


def _plus(a: Work, b: Work) -> Work:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@dataclass
class _Tree:
    """The operator tree: node 0 is the root; the others are operators (their row in `op` arrays)."""

    start: list[int] = field(default_factory=lambda: [0])
    end: list[int] = field(default_factory=lambda: [0])
    tid: list[int] = field(default_factory=lambda: [INT_NULL])
    row: list[int] = field(default_factory=lambda: [-1])
    parent: list[int] = field(default_factory=lambda: [-1])
    children: list[list[int]] = field(default_factory=lambda: [[]])
    # per node: [device µs, on AI cores µs, kernels of unknown core] of its own launches, then of its subtree
    device: list[list[float]] = field(default_factory=lambda: [[0.0] * 6])

    def add(self, start: int, end: int, tid: int, row: int, parent: int) -> int:
        node = len(self.start)
        self.start.append(start)
        self.end.append(end)
        self.tid.append(tid)
        self.row.append(row)
        self.parent.append(parent)
        self.children.append([])
        self.device.append([0.0] * 6)
        self.children[parent].append(node)
        return node

    def charge(self, node: int, work: Work) -> None:
        """Device work launched by `node` itself: its self and the totals of it and its ancestors (the root left
        out), as TorchOpNode.update_corr_id does."""
        for i, value in enumerate(work):
            self.device[node][i] += value
        while node > 0:
            for i, value in enumerate(work):
                self.device[node][3 + i] += value
            node = self.parent[node]

    def child_at(self, node: int, ts: int) -> int | None:
        """TorchOpNode.match_child_node: the last child starting at or before `ts` (the first child when none
        does), if it ends after `ts`."""
        kids = self.children[node]
        if not kids:
            return None
        left, right = 0, len(kids) - 1
        while right > left:
            mid = left + (right - left + 1) // 2
            if ts >= self.start[kids[mid]]:
                left = mid
            else:
                right = mid - 1
        return kids[left] if self.end[kids[left]] > ts else None

    def innermost_at(self, ts: int) -> int | None:
        """TreeBuilder.update_tree_node_info's node: the innermost operator open at `ts`, descending from the root."""
        node = self.child_at(0, ts)
        while node is not None:
            deeper = self.child_at(node, ts)
            if deeper is None:
                return node
            node = deeper
        return None


def _api_type(db: Db, name: str) -> int:
    if db.has("ENUM_API_TYPE"):
        for type_id, type_name in db.rows("SELECT id, name FROM ENUM_API_TYPE"):
            if type_name == name and isinstance(type_id, int):
                return type_id
    return API_TYPES[name]


# The device work of each connection (see the module doc): compute kernels and MEMCPY_ASYNC tasks from TASK (the
# communication tasks left out), communication operators whole; `ai` = the compute kernels on AI_CORE/AI_VECTOR_CORE.
_TASKS_WITH_COMPUTE = (
    "SELECT t.connectionId, t.startNs, t.endNs - t.startNs, CASE WHEN c.taskType IN (SELECT id FROM STRING_IDS "
    "WHERE TRIM(value) IN ('AI_CORE', 'AI_VECTOR_CORE')) THEN t.endNs - t.startNs ELSE 0 END, "
    "CASE WHEN c.globalTaskId IS NOT NULL AND IFNULL(c.taskType NOT IN (SELECT id FROM STRING_IDS "
    "WHERE TRIM(value) NOT IN ('', 'N/A')), 1) THEN 1 ELSE 0 END "
    "FROM TASK t LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId "
    "WHERE t.connectionId IS NOT NULL AND (c.globalTaskId IS NOT NULL "
    "OR t.taskType IN (SELECT id FROM STRING_IDS WHERE TRIM(value) = 'MEMCPY_ASYNC'))")
_TASKS_MEMCPY = ("SELECT t.connectionId, t.startNs, t.endNs - t.startNs, 0, 0 FROM TASK t "
                 "WHERE t.connectionId IS NOT NULL "
                 "AND t.taskType IN (SELECT id FROM STRING_IDS WHERE TRIM(value) = 'MEMCPY_ASYNC')")
_NOT_COMM = ("AND t.globalTaskId NOT IN (SELECT globalTaskId FROM COMMUNICATION_TASK_INFO "
             "WHERE globalTaskId IS NOT NULL)")
_COMM_OPS = "SELECT connectionId, startNs, endNs - startNs, 0, 0 FROM COMMUNICATION_OP WHERE connectionId IS NOT NULL"
_LAUNCHES = ("WITH work(connectionId, startNs, ns, ai, unknown) AS ({work}), "
             "first AS (SELECT connectionId, ns, ai, unknown, ROW_NUMBER() OVER (PARTITION BY connectionId "
             "ORDER BY startNs) AS k FROM work) "
             "SELECT a.startNs, f.ns, f.ai, f.unknown FROM CANN_API a "
             "JOIN first f ON f.connectionId = a.connectionId AND f.k = 1 WHERE a.startNs IS NOT NULL")


def _launches(db: Db) -> list[tuple[int, Work]]:
    """(start ns, work) of each CANN_API call that launched device work (see the module doc), by start; calls
    starting at the same ns are merged, as the text export keys them by start time. The first task of each
    connection is picked inside SQLite, so one row per launch leaves it."""
    if not (db.has("CANN_API") and db.has("TASK")):
        return []
    db.require("CANN_API", ("startNs", "connectionId"))
    db.require("TASK", ("connectionId", "startNs", "endNs", "globalTaskId", "taskType"))
    if db.has("COMPUTE_TASK_INFO"):
        db.require("COMPUTE_TASK_INFO", ("globalTaskId", "taskType"))
        db.require_unique("COMPUTE_TASK_INFO", "globalTaskId", "its kernels cannot be joined to their TASK rows")
        tasks = _TASKS_WITH_COMPUTE
    else:
        tasks = _TASKS_MEMCPY
    if db.has("COMMUNICATION_TASK_INFO"):
        tasks += " " + _NOT_COMM
    parts = [tasks]
    if db.has("COMMUNICATION_OP"):
        db.require("COMMUNICATION_OP", ("connectionId", "startNs", "endNs"))
        parts.append(_COMM_OPS)
    by_start: dict[int, Work] = {}
    for start, ns, ai, unknown in db.rows(_LAUNCHES.format(work=" UNION ALL ".join(parts))):
        if isinstance(ns, int) and isinstance(ai, int):
            by_start[int(start)] = _plus(by_start.get(int(start), NO_WORK), (ns / 1000.0, ai / 1000.0, unknown))
    return sorted(by_start.items())


def _queue(db: Db, queue_type: int, text: Texts) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
    """(enqueues, dequeues): (start, end or thread, correlation id), each by start (ties in table order)."""
    corr: dict[int, int] = {}
    if db.has("CONNECTION_IDS"):
        for key, connection in db.rows("SELECT id, connectionId FROM CONNECTION_IDS ORDER BY rowid"):
            corr.setdefault(key, connection)
    enqueues, dequeues = [], []
    sql = ("SELECT CAST(startNs AS INTEGER), CAST(endNs AS INTEGER), globalTid, connectionId, name FROM PYTORCH_API "
           "WHERE type = ? ORDER BY rowid")
    for start, end, tid, key, name in db.rows(sql, (queue_type,)):
        label = text.get(name, "")
        if start is None or end is None or key not in corr:
            continue
        if label.startswith("Enqueue"):
            enqueues.append((start, tid, corr[key]))
        elif label.startswith("Dequeue"):
            dequeues.append((start, end, corr[key]))
    enqueues.sort(key=lambda e: e[0])
    dequeues.sort(key=lambda e: e[0])
    return enqueues, dequeues


def _by_dequeue(launches: list[tuple[int, Work]], dequeues: list[tuple[int, int, int]]) -> dict[int, Work]:
    """correlation id -> work of the launches inside its dequeue (FwkCANNRelationParser.combine_kernel_dict)."""
    out: dict[int, Work] = {}
    index = 0
    for start, work in launches:
        while index < len(dequeues):
            begin, end, corr = dequeues[index]
            if begin > start:
                break
            if start <= end:
                out[corr] = _plus(out.get(corr, NO_WORK), work)
                break
            index += 1
    return out


def _shapes_column(db: Db, text: Texts, op_type: int) -> str:
    """`inputShapes`, or `inputDtypes` when this file has the two crossed (see the module doc)."""
    have = db.tables()["PYTORCH_API"]
    if "inputDtypes" not in have:
        return "inputShapes"
    counts = {}
    for column in ("inputShapes", "inputDtypes"):
        used = [r[0] for r in db.rows(f'SELECT DISTINCT "{column}" FROM PYTORCH_API WHERE type = ? '  # noqa: S608
                                      f'AND "{column}" IS NOT NULL LIMIT 1000', (op_type,))]
        texts = [text.get(i, "") for i in used]
        counts[column] = sum(any(c.isalpha() for c in t) for t in texts)
    if counts["inputShapes"] > counts["inputDtypes"]:
        log.info("%s: inputShapes and inputDtypes of PYTORCH_API are crossed (torch_npu 2024-03..2024-11); "
                 "input shapes read from inputDtypes", db.label)
        return "inputDtypes"
    return "inputShapes"


def _call_stacks(db: Db, text: Texts) -> dict[int, str]:
    if not db.has("PYTORCH_CALLCHAINS"):
        return {}
    frames: dict[int, list[str]] = {}
    for chain, stack in db.rows("SELECT id, stack FROM PYTORCH_CALLCHAINS ORDER BY id, stackDepth, rowid"):
        frames.setdefault(chain, []).append(text.get(stack, ""))
    return {chain: CALL_STACK_SEPARATOR.join(parts) for chain, parts in frames.items()}


def _parse(db: Db, cache: ParsedFileCache | None) -> tuple[tuple[Row, ...], Problems]:
    db.require("PYTORCH_API", ("startNs", "endNs", "globalTid", "name", "type"), OPS_WHY)
    ids = strings(db, cache)
    text: Texts = dict(zip(ids.ids.tolist(), ids.values, strict=True))  # one lookup per cell, no search
    op_type, queue_type = _api_type(db, "op"), _api_type(db, "queue")
    have = db.tables()["PYTORCH_API"]
    shapes = _shapes_column(db, text, op_type)
    chain = "callchainId" if "callchainId" in have else "NULL"
    report = ascend_csv.ReadReport(f"PYTORCH_API in {db.label}")
    ops = db.rows(f'SELECT CAST(startNs AS INTEGER), CAST(endNs AS INTEGER), globalTid, name, "{shapes}", '  # noqa: S608
                  f"{chain} FROM PYTORCH_API WHERE type = ? ORDER BY rowid", (op_type,))
    timed = [i for i, op in enumerate(ops) if op[0] is not None and op[1] is not None]
    if len(timed) < len(ops):
        report.skip("operator without a start or end time", len(ops) - len(timed))
    timed.sort(key=lambda i: ops[i][0])  # stable: equal starts keep the table's order
    enqueues, dequeues = _queue(db, queue_type, text)
    queued = bool(enqueues and dequeues)
    launches = _launches(db)
    by_corr = _by_dequeue(launches, dequeues) if queued else {}

    tree = _Tree()
    last = 0
    events = [(ops[i][0], 0, n, i) for n, i in enumerate(timed)]
    if queued:
        events += [(start, 1, n, -1) for n, (start, _tid, _corr) in enumerate(enqueues)]
    events.sort(key=lambda e: (e[0], e[1], e[2]))  # TreeBuilder's stable sort of operators + enqueues by start
    for ts, kind, n, row in events:
        while last > 0 and ts > tree.end[last]:
            last = tree.parent[last]
        if kind == 0:
            start, end, tid = ops[row][0], ops[row][1], ops[row][2]
            last = tree.add(start, end, tid, row, last)
        elif last > 0 and tree.tid[last] == enqueues[n][1]:
            found = by_corr.get(enqueues[n][2])
            if found is not None:
                tree.charge(last, found)
    if not queued:
        for start, work in launches:
            node = tree.innermost_at(start)
            if node is not None:
                tree.charge(node, work)

    stacks = _call_stacks(db, text)
    rows: list[Row] = []
    unknown_cores = 0
    for node in range(1, len(tree.start)):
        start, end, _tid, name_id, shape_id, chain_id = ops[tree.row[node]]
        name = text.get(name_id, "")
        if STEP_MARK in name:
            continue
        children = sum(tree.end[c] - tree.start[c] for c in tree.children[node])
        self_us, ai_self, unknown_self, total_us, ai_total, unknown_total = tree.device[node]
        unknown_cores += unknown_total > 0
        rows.append([name, text.get(shape_id, "").strip(),
                     stacks.get(chain_id, "") if chain_id is not None else "",
                     (end - start - children) / 1000.0, (end - start) / 1000.0, self_us, total_us,
                     None if unknown_self else ai_self, None if unknown_total else ai_total])
    if unknown_cores:
        report.note(f"{unknown_cores} operator(s) without their time on AI cores (null): the database records no "
                    "core for the kernels they launched (COMPUTE_TASK_INFO.taskType N/A, profiler Level0)")
    report.log()
    return tuple(rows), report.problems()


def operator_rows(device: DeviceFiles, cache: ParsedFileCache | None) -> tuple[tuple[Row, ...], Problems]:
    """operator_details.csv's rows (name, input_shapes, call_stack, host_self_us, host_total_us, device_self_us,
    device_total_us, device_self_aicore_us, device_total_aicore_us) from the database export."""
    return read_parsed(profiler_db(device), cache, "ascend_db_operator_details", lambda db: _parse(db, cache))

