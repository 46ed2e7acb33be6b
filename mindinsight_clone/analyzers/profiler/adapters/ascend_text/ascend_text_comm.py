"""communication.json and communication_matrix.json of the Ascend text export (written at profiler Level1+).

communication.json: `{stepN: {p2p|collective: {"<op>@<group>": {"Communication Time Info": {...},
"Communication Bandwidth Info": {HCCS|RDMA|PCIE|SDMA|SIO: {...}}}, "Total Op Info": {...}}}}`.
communication_matrix.json: `{stepN: {p2p|collective: {"<optype>-<top1|middle|...|total>@<group>": {"<src>-<dst>":
{Transport Type, Transit Size(MB), Transit Time(ms), Bandwidth(GB/s), Op Name}}}}}`.

Both are small (one entry per communication op), so they are parsed whole with orjson. `Total Op Info` (the
profiler's per-step sum) is kept apart in `totals`, so `ops` holds real operators only.
"""

from __future__ import annotations

from typing import Any

import orjson

from mindinsight_clone.analyzers.profiler.engine import ascend_csv
from mindinsight_clone.analyzers.profiler.engine.numbers import num, step_of
from mindinsight_clone.errors import ProfilerRawFileError
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

COMMUNICATION = "communication.json"
MATRIX = "communication_matrix.json"
TOTAL = "Total Op Info"
_TIMES = {
    "elapse_time_ms": "Elapse Time(ms)",
    "transit_time_ms": "Transit Time(ms)",
    "wait_time_ms": "Wait Time(ms)",
    "synchronization_time_ms": "Synchronization Time(ms)",
    "idle_time_ms": "Idle Time(ms)",
    "wait_time_ratio": "Wait Time Ratio",
    "synchronization_time_ratio": "Synchronization Time Ratio",
}


def split_key(key: str) -> tuple[str, str]:
    name, _, group = key.partition("@")
    return name, group


def load_json(path: Location, lbl: str) -> dict[str, Any]:
    try:
        data = orjson.loads(storage.read_bytes(path))
    except OSError as err:
        raise ProfilerRawFileError(f"<{lbl}> cannot be read: {ascend_csv.reason(err)}") from None
    except orjson.JSONDecodeError as err:
        raise ProfilerRawFileError(f"<{lbl}> is not valid JSON (truncated?): {err}") from None
    if not isinstance(data, dict):
        raise ProfilerRawFileError(f"<{lbl}> is not a JSON object.")
    return data


def _packets(distribution: Any) -> int | None:
    """The number of packets of a link: `Size Distribution` is `{size_mb: [count, time_ms]}`."""
    if not isinstance(distribution, dict):
        return None
    total = 0
    for entry in distribution.values():
        count = entry[0] if isinstance(entry, list) and entry else entry
        if isinstance(count, int | float) and not isinstance(count, bool):
            total += int(count)
    return total


def op_row(name: str, group: str, step: int | str, kind: str, info: dict[str, Any]) -> dict[str, Any]:
    times = info.get("Communication Time Info")
    times = times if isinstance(times, dict) else {}
    row: dict[str, Any] = {"name": name, "group": group, "step": step}
    row.update({key: num(times.get(header)) for key, header in _TIMES.items()})
    bandwidth: dict[str, Any] = {}
    links = info.get("Communication Bandwidth Info")
    for link, values in (links.items() if isinstance(links, dict) else ()):
        if isinstance(values, dict):
            bandwidth[link] = {"size_mb": num(values.get("Transit Size(MB)")),
                               "time_ms": num(values.get("Transit Time(ms)")),
                               "gbps": num(values.get("Bandwidth(GB/s)")),
                               "large_packet_ratio": num(values.get("Large Packet Ratio")),
                               "packets": _packets(values.get("Size Distribution"))}
    row["bandwidth"] = bandwidth
    row["type"] = kind
    row["start_us"] = num(times.get("Start Timestamp(us)"))
    return row


def parse_ops(path: Location, rank: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    data = load_json(path, ascend_csv.label(COMMUNICATION, rank))
    ops: list[dict[str, Any]] = []
    totals: list[dict[str, Any]] = []
    skipped: list[str] = []
    for step_key, kinds in data.items():
        if not isinstance(kinds, dict):
            skipped.append(step_key)
            continue
        for kind, entries in kinds.items():
            if not isinstance(entries, dict):
                continue
            for key, info in entries.items():
                if not isinstance(info, dict):
                    skipped.append(key)
                    continue
                name, group = split_key(key)
                row = op_row(name, group, step_of(step_key), kind, info)
                (totals if key == TOTAL else ops).append(row)
    return ops, totals, skipped


def link_row(op: str, group: str, step: int | str, kind: str, src: str, dst: str, link: dict[str, Any]
             ) -> dict[str, Any]:
    """One src→dst entry of a communication matrix (a rank's, or the cluster analyser's)."""
    return {"op": op, "src": int(src), "dst": int(dst), "transport": link.get("Transport Type"),
            "size_mb": num(link.get("Transit Size(MB)")), "time_ms": num(link.get("Transit Time(ms)")),
            "gbps": num(link.get("Bandwidth(GB/s)")), "group": group, "step": step, "type": kind}


def parse_matrix(path: Location, rank: str) -> tuple[list[dict[str, Any]], list[str]]:
    data = load_json(path, ascend_csv.label(MATRIX, rank))
    cells: list[dict[str, Any]] = []
    skipped: list[str] = []
    for step_key, kinds in data.items():
        for kind, entries in (kinds.items() if isinstance(kinds, dict) else ()):
            for key, links in (entries.items() if isinstance(entries, dict) else ()):
                op, group = split_key(key)
                for pair, link in (links.items() if isinstance(links, dict) else ()):
                    src, _, dst = pair.partition("-")
                    if not isinstance(link, dict) or not src.isdigit() or not dst.isdigit():
                        skipped.append(f"{key} {pair}")
                        continue
                    cells.append({**link_row(op, group, step_of(step_key), kind, src, dst, link),
                                  "op_name": link.get("Op Name")})
    return cells, skipped
