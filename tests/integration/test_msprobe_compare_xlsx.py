"""msprobe compare results written with --xlsx (issue 35) answer the same table as the csv msprobe wrote for the same
dumps: ../shared/fixtures/msprobe/compare/{statistics,tensor}_{csv,xlsx}; numbers equal to Excel's 15 digits. A
workbook written here covers the same without ../shared, and hostile workbooks are refused with a clear 400."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from mindinsight_clone.ingest import msprobe_compare_result
from mindinsight_clone.ingest.storage import as_location
from tests.conftest import SHARED, require_shared
from tests.integration.test_debugger_api import make_client
from tests.integration.test_msprobe_dumps_api import get

MSPROBE = SHARED / "fixtures" / "msprobe"
COLUMNS = ["NPU Name", "Bench Name", "NPU Dtype", "Max diff", "Result", "Err_message"]


def same_cell(xlsx: str, csv: str) -> bool:
    if xlsx == csv:
        return True
    try:
        return float(xlsx) == pytest.approx(float(csv), rel=1e-14, abs=0)
    except ValueError:
        return False


@pytest.mark.parametrize("mode", ["statistics", "tensor"])
def test_real_xlsx_is_the_csv_table(tmp_path: Path, mode: str) -> None:
    require_shared(MSPROBE)
    client = make_client(MSPROBE, tmp_path)
    listed = [f["file_id"] for f in get(client, "/files")["files"]]
    xlsx = get(client, "/compare_result", file_id=next(f for f in listed if f"/{mode}_xlsx/" in f))
    csv = get(client, "/compare_result", file_id=next(f for f in listed if f"/{mode}_csv/" in f))
    assert xlsx["columns"] == csv["columns"] and len(xlsx["rows"]) == len(csv["rows"]) == 167
    assert xlsx["counts"] == csv["counts"] and sum(xlsx["counts"].values()) == 167
    for ours, theirs in zip(xlsx["rows"], csv["rows"], strict=True):
        bad = [c for c in csv["columns"] if not same_cell(ours[c], theirs[c])]
        assert not bad, (theirs["NPU Name"], [(c, ours[c], theirs[c]) for c in bad])


def write_book(path: Path, rows: list[list[Any]]) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    for row in rows:
        sheet.append(row)
    book.save(path)


def test_written_xlsx_and_hostile_files(tmp_path: Path) -> None:
    base = tmp_path / "logs"
    (base / "job").mkdir(parents=True)
    write_book(base / "job" / "compare_result_1.xlsx",
               [COLUMNS, ["Functional.relu.0.forward.output.0", "N/A", "Float32", None, "pass"],
                ["Cell.fc.forward.0.output.0", "Cell.fc.forward.0.output.0", "Float16", 0.25, "error", "dtype"]])
    (base / "job" / "compare_result_2.xlsx").write_bytes(b"PK\x03\x04 not really a zip")
    write_book(base / "job" / "compare_result_3.xlsx", [["a", "b"], [1, 2]])
    client = make_client(base, tmp_path / "ws")
    good = get(client, "/compare_result", file_id="./job/compare_result_1.xlsx")
    assert good["columns"] == COLUMNS
    assert good["rows"][0] == {"NPU Name": "Functional.relu.0.forward.output.0", "Bench Name": "N/A",
                               "NPU Dtype": "Float32", "Max diff": "", "Result": "pass", "Err_message": ""}
    assert good["rows"][1]["Max diff"] == "0.25" and good["counts"] == {"pass": 1, "warning": 0, "error": 1}
    assert "not an xlsx" in get(client, "/compare_result", status=400, file_id="./job/compare_result_2.xlsx")["error_msg"]
    assert "NPU Name" in get(client, "/compare_result", status=400, file_id="./job/compare_result_3.xlsx")["error_msg"]
    assert get(client, "/compare_result", file_id="./job/compare_result_1.xlsx")["rows"]  # still serving


def test_zip_bomb_is_refused_before_unpacking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(msprobe_compare_result, "MAX_UNZIPPED_BYTES", 1 << 20)
    path = tmp_path / "compare_result_bomb.xlsx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/worksheets/sheet1.xml", b"<a/>" * (1 << 20))  # 4 MiB that packs to a few KiB
    assert path.stat().st_size < 64 << 10
    with pytest.raises(ValueError, match="unpacks to"):
        msprobe_compare_result.read_compare_result(as_location(path))
