"""parse-summary: MindInsight's offline dump (scalar.csv + image/<tag>_<step>.png) of a dir's newest summary file."""

from __future__ import annotations

import csv
import datetime
import hashlib
import io
import math
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

from mindinsight_clone.cli import main
from mindinsight_clone.summary.writer import SummaryWriter
from mindinsight_clone.summary_export import ExportError, parse_summary, parse_summary_runs, summary_file_names

NOW = datetime.datetime(2024, 1, 2, 3, 4, 5, 6)
HEADER = b"tag,step,wall_time (unit: seconds),value\r\n"

# sha256 of the scalar.csv real MindInsight 2.3.1 wrote for these fixture runs (`mindinsight parse_summary`
# run once from its wheel), and the image names it wrote
MINDINSIGHT_CSV = {
    "lenet_collector": "fd4f3aab3cca83e52def3fb2e1efd5308dc3e0db816c991b586449895708b373",
    "summary_ops": "db39a5386d188cd54f6079f68bf2b0c24c45303c1bf446fec4b62382e8403730",
    "record_api": "b77041843d04af601584d6b982c3be9eb9004f7093f1989dd494db3b836676a2",
    "truncated": "439ceb90e93d5e8ff15de79c814b7aef72b3fe796a931d934fe80a1442191cca",
}
MINDINSIGHT_IMAGES = {
    "lenet_collector": {f"input_data%2Fauto_{step}.png" for step in (1, 2, 4, 6, 8, 10, 12, 14, 16, 18)},
    "summary_ops": {f"input_image_{step}.png" for step in range(1, 13)},
    "record_api": {f"images%2Frgb_uint8_{step}.png" for step in (16, 20, 24, 28, 1000)},
    "truncated": set(),
}


def _rows(output: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO((output / "scalar.csv").read_text(encoding="utf-8"))))


def _is_png(path: Path) -> tuple[int, int]:
    with Image.open(path) as image:
        assert image.format == "PNG"
        image.load()
        return image.size


@pytest.fixture
def run_dir(tmp_path: Path) -> tuple[Path, float, float]:
    """An older file (tag "old") and a newer one with scalars (NaN, a comma in a tag) and images."""
    run = tmp_path / "run"
    with SummaryWriter(run, timestamp=100, host="h") as older:
        older.add_scalar("old", 9.0, 1)
    before = time.time()
    with SummaryWriter(run, timestamp=200, host="h") as newer:
        newer.add_scalar("loss", 0.1, 1)
        newer.add_scalar("a,b", 2.5, 1)
        newer.add_image("img/x", np.zeros((1, 3, 4, 6), dtype=np.uint8), 1)
        newer.add_scalar("loss", float("nan"), 2)
        newer.add_image("img/x", np.full((1, 3, 4, 6), 255, dtype=np.uint8), 2)
    return run, before, time.time()


def test_writer_run_newest_file_scalars_and_images(run_dir: tuple[Path, float, float], tmp_path: Path) -> None:
    run, before, after = run_dir
    result = parse_summary(run, tmp_path / "out", now=NOW)

    assert result.output == tmp_path / "out" / "output_20240102_030405_000006"
    assert result.summary_files[-1].endswith("summary.200.0.h_MS")
    raw = (result.output / "scalar.csv").read_bytes()
    assert raw.startswith(HEADER) and raw.count(b"\r\n") == 4
    rows = _rows(result.output)
    assert [row[:2] for row in rows[1:]] == [["loss", "1"], ["a,b", "1"], ["loss", "2"]]  # "old" is not read
    assert [row[3] for row in rows[1:]] == [str(float(np.float32(0.1))), "2.5", "nan"]
    assert all(before <= float(row[2]) <= after for row in rows[1:])
    assert b'"a,b",1,' in raw

    images = sorted(p.name for p in (result.output / "image").iterdir())
    assert images == ["img%2Fx_1.png", "img%2Fx_2.png"]
    assert _is_png(result.output / "image" / "img%2Fx_2.png") == (6, 4)
    assert (result.scalars, result.images) == (3, 2)


def test_newest_file_is_the_largest_number_and_lineage_files_are_not_summaries() -> None:
    names = ["x.summary.9_MS", "x.summary.10_lineage", "x.summary.10_MS", "x.summary.10_A", "notes.txt"]
    assert summary_file_names(names)[-1] == "x.summary.10_A"  # the file MindInsight reads
    assert summary_file_names(["events.out.tfevents.1.host", "README.md"]) == []


def test_errors_say_what_mindinsight_says(run_dir: tuple[Path, float, float], tmp_path: Path) -> None:
    run, _, _ = run_dir
    with pytest.raises(ExportError, match=r"Summary directory .*missing not exists\."):
        parse_summary(tmp_path / "missing", tmp_path / "out", now=NOW)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ExportError, match=r"Path .*empty has no summary file\."):
        parse_summary(tmp_path / "empty", tmp_path / "out", now=NOW)
    parse_summary(run, tmp_path / "out", now=NOW)
    with pytest.raises(ExportError, match="has already existed, please choose a new output path"):
        parse_summary(run, tmp_path / "out", now=NOW)


def test_cli_both_spellings(run_dir: tuple[Path, float, float], tmp_path: Path) -> None:
    run, _, _ = run_dir
    for i, name in enumerate(("parse-summary", "parse_summary")):
        out = tmp_path / f"cli{i}"
        result = CliRunner().invoke(main, [name, "--summary-dir", str(run), "--output", str(out)])
        assert result.exit_code == 0, result.output
        assert result.output.startswith(f"[INFO]Loading {run}/")
        assert "[INFO]Finished loading" in result.output
        (folder,) = out.iterdir()
        assert folder.name.startswith("output_") and (folder / "scalar.csv").exists()
    failed = CliRunner().invoke(main, ["parse_summary", "--summary-dir", str(tmp_path / "nope")])
    assert failed.exit_code == 1 and "[ERROR]Summary directory" in failed.output


@pytest.mark.parametrize("run", sorted(MINDINSIGHT_CSV))
def test_fixture_runs_give_mindinsights_bytes(fixtures_dir: Path, tmp_path: Path, run: str) -> None:
    result = parse_summary(fixtures_dir / run, tmp_path, now=NOW)
    assert hashlib.sha256((result.output / "scalar.csv").read_bytes()).hexdigest() == MINDINSIGHT_CSV[run]
    images = {p.name for p in (result.output / "image").iterdir()}
    assert images == MINDINSIGHT_IMAGES[run]
    for name in images:
        _is_png(result.output / "image" / name)


def test_lenet_rows_are_the_manifest_values_of_its_ms_file(fixtures_dir: Path, tmp_path: Path) -> None:
    import json

    manifest = json.loads((fixtures_dir / "MANIFEST.json").read_text())["runs"]["lenet_collector"]
    result = parse_summary(fixtures_dir / "lenet_collector", tmp_path, now=NOW)
    assert result.summary_files[-1].endswith("summary.1795313145.0.vm_MS")  # not the newer *_lineage file
    loss = manifest["tags"]["loss/auto"]
    rows = [row for row in _rows(result.output)[1:] if row[0] == "loss/auto"]
    assert [int(row[1]) for row in rows] == loss["steps"]
    assert all(math.isclose(float(row[3]), value, rel_tol=0, abs_tol=0)
               for row, value in zip(rows, loss["values"], strict=True))
    assert _is_png(result.output / "image" / "input_data%2Fauto_18.png") == (256, 128)


def test_a_file_that_is_not_a_summary_leaves_no_scalar_csv(fixtures_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="Parse file fail"):
        parse_summary(fixtures_dir / "not_summary", tmp_path, now=NOW)
    assert not (tmp_path / NOW.strftime("output_%Y%m%d_%H%M%S_%f") / "scalar.csv").exists()


def test_all_files_reads_every_summary_file_oldest_first(run_dir: tuple[Path, float, float], tmp_path: Path) -> None:
    run, _, _ = run_dir
    result = parse_summary(run, tmp_path, now=NOW, all_files=True)
    assert [Path(f).name for f in result.summary_files] == ["events.out.events.summary.100.0.h_MS",
                                                            "events.out.events.summary.200.0.h_MS"]
    assert [row[0] for row in _rows(result.output)[1:]] == ["old", "loss", "a,b", "loss"]


def test_recursive_dumps_each_run_into_its_own_folder(run_dir: tuple[Path, float, float], tmp_path: Path) -> None:
    run, _, _ = run_dir
    with SummaryWriter(run.parent / "deep" / "inner", timestamp=300, host="h") as writer:
        writer.add_scalar("deep", 1.0, 7)
    done, failed = parse_summary_runs(run.parent, tmp_path / "out", now=NOW)
    root = tmp_path / "out" / NOW.strftime("output_%Y%m%d_%H%M%S_%f")
    assert failed == 0 and sorted(r.output for r in done) == [root / "deep" / "inner", root / "run"]
    assert _rows(root / "deep" / "inner")[1][:2] == ["deep", "7"]
    assert [row[0] for row in _rows(root / "run")[1:]] == ["loss", "a,b", "loss"]  # newest file only
    assert (root / "run" / "image" / "img%2Fx_1.png").is_file()
