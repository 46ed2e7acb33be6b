"""`msprobe compare` result files (issue 35): `compare_result_*.csv` as msprobe writes them (28 columns in statistics
mode, 27 in tensor mode: README "msprobe compare"), read as a table of strings keyed by msprobe's column names.
`.xlsx` results hold the same table; they are not read here (no spreadsheet dependency): the answer says so."""

from __future__ import annotations

import csv
import io

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

MAX_BYTES = 256 << 20
REQUIRED = ("NPU Name", "Bench Name", "Result")


def read_compare_csv(location: Location) -> tuple[list[str], list[dict[str, str]]]:
    """(columns, rows). ValueError when the file is not an msprobe compare result; OSError when unreadable."""
    text = storage.read_bytes(location, max_size=MAX_BYTES).decode("utf-8-sig", errors="replace")
    reader = csv.DictReader(io.StringIO(text))
    columns = list(reader.fieldnames or [])
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise ValueError(f"{location.name} is not an msprobe compare result (no column {', '.join(missing)})")
    return columns, [{k: (v or "") for k, v in row.items() if k is not None} for row in reader]
