"""`profile/communication` from communication.json and communication_matrix.json (written at profiler Level1+).

communication.json: `{stepN: {p2p|collective: {"<op>@<group>": {"Communication Time Info": {...},
"Communication Bandwidth Info": {HCCS|RDMA|PCIE|SDMA|SIO: {...}}}, "Total Op Info": {...}}}}`.
communication_matrix.json: `{stepN: {p2p|collective: {"<optype>-<top1|middle|...|total>@<group>": {"<src>-<dst>":
{Transport Type, Transit Size(MB), Transit Time(ms), Bandwidth(GB/s), Op Name}}}}}`.

Both are small (one entry per communication op), so they are parsed whole with orjson. `Total Op Info` (the
profiler's per-step sum) is answered apart in `totals`, so `ops` holds real operators only.
"""

from __future__ import annotations

from typing import Any

import orjson

from mindinsight_clone.analyzers.profiler import ascend_csv, ascend_db_tables
from mindinsight_clone.analyzers.profiler.cache import ParsedFileCache, cached
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
from mindinsight_clone.analyzers.profiler.numbers import num, step_of
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
                    cells.append({"op": op, "src": int(src), "dst": int(dst),
                                  "transport": link.get("Transport Type"),
                                  "size_mb": num(link.get("Transit Size(MB)")),
                                  "time_ms": num(link.get("Transit Time(ms)")),
                                  "gbps": num(link.get("Bandwidth(GB/s)")),
                                  "group": group, "step": step_of(step_key), "type": kind,
                                  "op_name": link.get("Op Name")})
    return cells, skipped


def ops_for(device: DeviceFiles, cache: ParsedFileCache | None = None
            ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    """The parsed communication of a rank: (ops, totals, skipped keys), cached; the rows are shared (read only).
    From communication.json, or the analysis database of a database export. ProfilerFileNotFoundError when the
    rank has none."""
    if device.export == "db":
        ops, totals, _ = ascend_db_tables.ops(device, cache)
        return ops, totals, []
    rank = device.device_id
    path = ascend_csv.require(device.output_file(COMMUNICATION), COMMUNICATION, rank,
                              "written at profiler Level1 and above")
    return cached(cache, "communication", path, lambda p: parse_ops(p, rank))


def has_ops(device: DeviceFiles, cache: ParsedFileCache | None = None) -> bool:
    """Whether the rank wrote its communication ops: communication.json, or CommAnalyzerTime (profiler Level1+)."""
    if device.export == "db":
        return ascend_db_tables.has_analysis_table(device, "CommAnalyzerTime", cache)
    return device.output_file(COMMUNICATION) is not None


def has_matrix(device: DeviceFiles, cache: ParsedFileCache | None = None) -> bool:
    """Whether the rank wrote src→dst links: communication_matrix.json, or CommAnalyzerMatrix (profiler Level1+)."""
    if device.export == "db":
        return ascend_db_tables.has_analysis_table(device, "CommAnalyzerMatrix", cache)
    return device.output_file(MATRIX) is not None


def ops_label(device: DeviceFiles) -> str:
    """What a problem names as the source of the rank's communication ops."""
    return ascend_db_tables.analysis_label(device, "CommAnalyzerTime") if device.export == "db" else COMMUNICATION


def matrix_label(device: DeviceFiles) -> str:
    return ascend_db_tables.analysis_label(device, "CommAnalyzerMatrix") if device.export == "db" else MATRIX


def matrix_for(device: DeviceFiles, cache: ParsedFileCache | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """The parsed communication_matrix.json of a rank: (cells, skipped links), cached; ProfilerFileNotFoundError
    when the rank has none, ProfilerRawFileError when it cannot be read."""
    if device.export == "db":
        cells, bad = ascend_db_tables.matrix(device, cache)
        return cells, ["src/dst rank not a number"] * bad
    rank = device.device_id
    path = ascend_csv.require(device.output_file(MATRIX), MATRIX, rank, "written at profiler Level1 and above")
    return cached(cache, "communication_matrix", path, lambda p: parse_matrix(p, rank))


def communication(device: DeviceFiles, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    if device.export == "db":
        return ascend_db_tables.communication(device, cache)
    rank = device.device_id
    ops, totals, skipped = ops_for(device, cache)
    problems: list[dict[str, Any]] = []
    if skipped:
        problems.append({"file": ascend_csv.label(COMMUNICATION, rank),
                         "message": f"{len(skipped)} entr(y/ies) skipped: not an object"})
    matrix: list[dict[str, Any]] = []
    if device.output_file(MATRIX) is None:
        problems.append({"file": ascend_csv.label(MATRIX, rank), "message": "missing: no src→dst matrix"})
    else:
        try:
            matrix, bad = matrix_for(device, cache)
        except ProfilerRawFileError as err:
            problems.append({"file": ascend_csv.label(MATRIX, rank), "message": err.message})
        else:
            if bad:
                problems.append({"file": ascend_csv.label(MATRIX, rank),
                                 "message": f"{len(bad)} link(s) skipped: not `<src>-<dst>` with an object"})
    answer: dict[str, Any] = {"ops": [dict(o) for o in ops], "matrix": [dict(m) for m in matrix],
                              "totals": [dict(t) for t in totals]}
    if problems:
        answer["problems"] = problems
    return answer
