"""`msprobe compare` result files (issue 35): `compare_result_*.csv` as msprobe writes them (28 columns in statistics
mode, 27 in tensor mode: README "msprobe compare"), and the same table as `.xlsx` (`--xlsx`: one sheet, `Sheet1`, the
csv's columns, no colour fills in 26.2), read as a table of strings keyed by msprobe's column names.

xlsx is read with openpyxl (read-only, values only). A workbook is a zip of XML: its entries' unpacked sizes are
checked against a limit before anything is parsed, so a zip bomb is refused, not unpacked. Numbers come back as
Excel keeps them (15 significant digits, whole numbers without ".0"), written as Python writes them.
"""

from __future__ import annotations

import csv
import io
import zipfile
from typing import Any

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

MAX_BYTES = 256 << 20
MAX_UNZIPPED_BYTES = 1 << 30  # an xlsx whose entries unpack to more is refused
REQUIRED = ("NPU Name", "Bench Name", "Result")


def read_compare_result(location: Location) -> tuple[list[str], list[dict[str, str]]]:
    """(columns, rows) of a `.csv` or `.xlsx` result. ValueError when the file is not an msprobe compare result;
    OSError when unreadable."""
    data = storage.read_bytes(location, max_size=MAX_BYTES)
    if location.name.lower().endswith(".xlsx"):
        table = _xlsx_rows(data, location.name)
    else:
        table = list(csv.reader(io.StringIO(data.decode("utf-8-sig", errors="replace"))))
    if not table:
        raise ValueError(f"{location.name} is empty")
    columns = table[0]
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise ValueError(f"{location.name} is not an msprobe compare result (no column {', '.join(missing)})")
    return columns, [dict(zip(columns, _padded(row, len(columns)), strict=True)) for row in table[1:] if any(row)]


def _padded(row: list[str], width: int) -> list[str]:
    return (row + [""] * width)[:width]


def _xlsx_rows(data: bytes, name: str) -> list[list[str]]:
    import openpyxl
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except zipfile.BadZipFile as exc:
        raise ValueError(f"{name} is not an xlsx workbook: {exc}") from exc
    if unpacked > MAX_UNZIPPED_BYTES:
        raise ValueError(f"{name} unpacks to {unpacked} bytes, above the {MAX_UNZIPPED_BYTES}-byte limit; "
                         "read msprobe's csv result instead")
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (InvalidFileException, KeyError, OSError, ValueError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{name} is not an xlsx workbook: {exc}") from exc
    try:
        if not book.worksheets:
            raise ValueError(f"{name} has no sheet")
        return [[_cell(v) for v in row] for row in book.worksheets[0].iter_rows(values_only=True)]
    finally:
        book.close()


def _cell(value: Any) -> str:
    return "" if value is None else str(value)
