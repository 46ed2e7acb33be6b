"""MindSpore's dump layout (synchronous "e2e" Dump, `MINDSPORE_DUMP_CONFIG`), read by name only: parses no tensor.

```
<dump root>/                      the config's "path"; dump_id = this folder relative to the base dir
  rank_<id>/                      one per process (msrun writes rank_0, rank_1, ...)
    .dump_metadata/               data_dump.json (the user's config), config.json (device, version)
    <net_name>/<graph_id>/<iteration>/
      <op_type>.<op_name>.<task>.<stream>.<timestamp>.<input|output>.<slot>.<format>.<dtype>.npy
      statistic.csv               Ascend/GPU with saved_data "statistic" or "full"
    graphs/ms_output_trace_code_graph_<graph_id>.pb|.ir
    execution_order/ms_execution_order_graph_<graph_id>.csv, ms_global_execution_order_graph_<graph_id>.csv
```

A dump root is recognised from the listing the run discovery makes anyway: a directory with `rank_<id>/`
subdirectories, the first of which holds `.dump_metadata/` or `<net>/<graph>/<iteration>/*.npy` (a few bounded
listings, see `is_dump_rank`). The names follow what MindSpore 2.10 writes (../shared/fixtures/mindspore_debug):
`op_name` is the kernel's full scope name with `/` replaced by `_`, `dtype` is capitalised (`Float32`), and the
op name may itself hold dots, so a name is split from both ends (the first field and the last seven are fixed).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from dataclasses import dataclass

from mindinsight_clone.ingest.storage import Entry, Location

RANK_DIR = re.compile(r"rank_(\d+)")
METADATA_DIR = ".dump_metadata"
GRAPHS_DIR = "graphs"
EXECUTION_ORDER_DIR = "execution_order"
NOT_NET_DIRS = frozenset({METADATA_DIR, GRAPHS_DIR, EXECUTION_ORDER_DIR, "constants"})
STATISTIC_CSV = "statistic.csv"
IO_KINDS = ("input", "output")
PARAMETER = "Parameter"  # op_type of graph parameters and graph inputs
MAX_PROBE_NETS = 4  # net folders looked into when a rank has no .dump_metadata/
TENSOR_SUFFIX = ".npy"


@dataclass(frozen=True, slots=True)
class TensorName:
    """The fields of one tensor file name."""

    op_type: str
    op_name: str  # as in the file: scope with `/` -> `_`, e.g. Default_network-WithLossCell__backbone-..._Conv2D-op0
    task_id: int
    stream_id: int
    timestamp: int  # microseconds since the epoch when MindSpore wrote the file
    io: str  # "input" | "output"
    slot: int
    format: str
    dtype: str  # MindSpore's type name, e.g. Float32, Bool, Int64


def parse_tensor_name(file_name: str) -> TensorName | None:
    """The fields of `<op_type>.<op_name>.<task>.<stream>.<timestamp>.<io>.<slot>.<format>.<dtype>.npy`, or None."""
    if not file_name.endswith(TENSOR_SUFFIX):
        return None
    parts = file_name[:-len(TENSOR_SUFFIX)].split(".")
    if len(parts) < 9:
        return None
    op_type, op_name = parts[0], ".".join(parts[1:-7])
    task, stream, stamp, kind, slot, fmt, dtype = parts[-7:]
    if not (op_type and op_name and fmt and dtype) or kind not in IO_KINDS:
        return None
    if not (task.isdigit() and stream.isdigit() and stamp.isdigit() and slot.isdigit()):
        return None
    return TensorName(op_type, op_name, int(task), int(stream), int(stamp), kind, int(slot), fmt, dtype)


def why_not_a_tensor_name(file_name: str) -> str:
    """A short reason `parse_tensor_name` refused `file_name` (for the API's list of skipped files)."""
    if not file_name.endswith(TENSOR_SUFFIX):
        return "not a .npy file"
    fields = file_name[:-len(TENSOR_SUFFIX)].split(".")
    if len(fields) < 9:
        return (f"{len(fields)} dot-separated fields, expected 9 "
                "(op_type.op_name.task.stream.timestamp.io.slot.format.dtype)")
    return "task, stream, timestamp and slot must be integers and io input|output"


def rank_of(name: str) -> int | None:
    match = RANK_DIR.fullmatch(name)
    return int(match.group(1)) if match else None


def rank_dirs(entries: list[Entry]) -> list[Entry]:
    """The `rank_<id>` subdirectories of a listing, by rank id."""
    ranks = [e for e in entries if e.is_dir and not e.is_symlink and rank_of(e.name) is not None]
    return sorted(ranks, key=lambda e: rank_of(e.name) or 0)


def is_number_dir(entry: Entry) -> bool:
    return entry.is_dir and not entry.is_symlink and entry.name.isdigit()


def net_dirs(entries: list[Entry]) -> list[Entry]:
    """The `<net_name>` folders of a rank's listing (everything but MindSpore's side folders), by name."""
    return sorted((e for e in entries if e.is_dir and not e.is_symlink and e.name not in NOT_NET_DIRS),
                  key=lambda e: e.name)


def is_dump_rank(rank: Location, list_dir: Callable[[Location], list[Entry]]) -> bool:
    """Whether `rank` (a `rank_<id>` folder) holds a dump: `.dump_metadata/`, or `<net>/<graph>/<iteration>/`
    with a `.npy` file in it. At most 1 + 3 * MAX_PROBE_NETS listings; the walk over a real dump stops early."""
    entries = list_dir(rank)
    if any(e.is_dir and e.name == METADATA_DIR for e in entries):
        return True
    for net in net_dirs(entries)[:MAX_PROBE_NETS]:
        graph = next((e for e in sorted(list_dir(net.location), key=lambda e: e.name) if is_number_dir(e)), None)
        if graph is None:
            continue
        iteration = next((e for e in sorted(list_dir(graph.location), key=lambda e: e.name) if is_number_dir(e)),
                         None)
        if iteration is not None and any(e.name.endswith(TENSOR_SUFFIX) for e in list_dir(iteration.location)):
            return True
    return False


# ---------------------------------------------------------------------- side files
def graph_file_names(graph_id: int) -> tuple[str, str]:
    """The `.pb` and `.ir` names of a graph under `rank_<id>/graphs/`."""
    return f"ms_output_trace_code_graph_{graph_id}.pb", f"ms_output_trace_code_graph_{graph_id}.ir"


def execution_order_name(graph_id: int) -> str:
    return f"ms_execution_order_graph_{graph_id}.csv"


def parse_execution_order(text: str) -> list[str]:
    """Kernel full names in execution order (the first line is the header `NodeExecutionOrder-FullNameWithScope`)."""
    lines = [line.strip() for line in text.splitlines()]
    if lines and lines[0].startswith("NodeExecutionOrder"):
        lines = lines[1:]
    return [line for line in lines if line]


# statistic.csv (MindSpore's tensor_stat_dump.cc): a fixed leading part, then the statistics asked for
# ("statistic_category"); the 2.x default header is
#   Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,Slot,Data Size,Data Type,Shape,Max Value,Min Value,Avg Value,
#   Count,Negative Zero Count,Positive Zero Count,NaN Count,Negative Inf Count,Positive Inf Count,Zero Count
STAT_COLUMNS = {  # csv column -> our statistic
    "Max Value": "max", "Min Value": "min", "Avg Value": "mean", "Count": "count",
    "Negative Zero Count": "neg_count", "Positive Zero Count": "pos_count", "NaN Count": "nan_count",
    "Negative Inf Count": "neg_inf_count", "Positive Inf Count": "pos_inf_count", "Zero Count": "zero_count",
    "L2Norm Value": "l2norm",
}


@dataclass(frozen=True, slots=True)
class StatisticRow:
    name: TensorName
    shape: list[int]
    data_type: str
    values: dict[str, float | None]  # our statistic names -> value (None when the cell is empty or not a number)


def parse_statistic_csv(text: str) -> tuple[list[StatisticRow], int]:
    """The rows of a statistic.csv and how many rows could not be read (wrong field count, bad numbers)."""
    reader = csv.DictReader(io.StringIO(text))
    rows: list[StatisticRow] = []
    bad = 0
    for raw in reader:
        try:
            name = TensorName(raw["Op Type"], raw["Op Name"].replace("/", "_"), int(raw["Task ID"]),
                              int(raw["Stream ID"]), int(raw["Timestamp"]), raw["IO"].strip().lower(),
                              int(raw["Slot"]), "", raw["Data Type"])
            shape_text = (raw.get("Shape") or "").strip().strip("()[]\"")
            shape = [int(d) for d in re.split(r"[,\s]+", shape_text) if d]
        except (KeyError, TypeError, ValueError, AttributeError):
            bad += 1
            continue
        values: dict[str, float | None] = {}
        for column, key in STAT_COLUMNS.items():
            if column in raw:
                values[key] = _number(raw[column])
        rows.append(StatisticRow(name, shape, raw["Data Type"], values))
    return rows, bad


def _number(cell: str | None) -> float | None:
    if cell is None:
        return None
    text = cell.strip().lower()
    if text in ("", "null", "none"):
        return None
    try:
        return float(text)  # accepts nan / inf
    except ValueError:
        return None
