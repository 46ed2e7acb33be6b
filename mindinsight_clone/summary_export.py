"""`parse-summary`: MindInsight's offline dump of a summary dir, file for file.

MindInsight 2.3.1 (`mindinsight/scripts/parse_summary.py` and `datavisual/data_transform/summary_parser/`)
takes the newest summary file of a dir (the largest number after `summary.`; `*_lineage` files are not
summary files) and writes, under `<output>/output_<YYYYmmdd_HHMMSS_ffffff>/`:

* `scalar.csv`: header `tag,step,wall_time (unit: seconds),value`, then one row per scalar value in file
  order (the tag as written on disk, Python's `str` of each number, CRLF line ends as `csv.writer` gives);
* `image/<tag>_<step>.png`: the encoded image as stored, the tag percent-encoded (`quote(tag, safe="")`, so
  `a/b` -> `a%2Fb`); a later image of the same tag and step is written over the earlier one in place.

Messages are MindInsight's (logged to `LOGGER`; the CLI prints them, and the record reader's warnings, as
`[LEVEL]message`). Records come from
the project's record reader and event parser, through the storage seam, so a remote dir works too.
Known differences: records with a bad CRC are skipped with a warning (MindInsight does not check CRCs); a
cut-off last record is reported at once (MindInsight waits half a second before each of its three retries); a
file that is not a summary file is an error without a traceback.
"""

from __future__ import annotations

import csv
import datetime
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn
from urllib.parse import quote

from mindinsight_clone.config import BY_NAME, is_url
from mindinsight_clone.ingest import event_parser, storage, summary_watcher
from mindinsight_clone.ingest.record_reader import FRAME_BYTES, RecordReader
from mindinsight_clone.proto import summary_pb2

LOGGER = logging.getLogger("mindinsight_clone.parse_summary")

OUTPUT_NAME = "output_%Y%m%d_%H%M%S_%f"  # MindInsight's strftime pattern for the folder of one dump
SCALAR_FILE = "scalar.csv"
IMAGE_DIR = "image"
SCALAR_HEADER = ("tag", "step", "wall_time (unit: seconds)", "value")
SUMMARY_NAME = re.compile(r"summary\.(\d+)")
INFO_INTERVAL = 10  # progress is logged about every tenth of the file
RETRY_TIMES = 3


class ExportError(Exception):
    """The dump could not start or did not finish; the message is MindInsight's (already logged)."""


@dataclass(frozen=True, slots=True)
class ExportResult:
    output: Path  # the output_<timestamp> folder
    summary_files: list[str]  # the files that were read, in order
    scalars: int
    images: int


def summary_location(text: str) -> storage.Location:
    """A dir given on the command line: URLs as they are, local paths made absolute and real."""
    if is_url(text):
        return storage.base_location(text)
    return Path(os.path.realpath(os.path.expanduser(text)))


def summary_file_names(names: list[str]) -> list[str]:
    """MindInsight's summary files among `names`, in its reading order: by the number after `summary.`, then
    by name descending (`*_lineage` files hold lineage, not summaries)."""
    found = [name for name in names if SUMMARY_NAME.search(name) and not name.endswith("_lineage")]
    return sorted(found, key=lambda name: (-int(SUMMARY_NAME.search(name)[1]), name),  # type: ignore[index]
                  reverse=True)


def parse_summary(summary_dir: storage.Location, output_dir: str | os.PathLike[str],
                  now: datetime.datetime | None = None, all_files: bool = False) -> ExportResult:
    """Dump the newest summary file of `summary_dir` (every one, oldest first, with `all_files`) under
    `output_dir/output_<now>/`; raise ExportError."""
    output = Path(output_dir) / (now or datetime.datetime.now()).strftime(OUTPUT_NAME)
    files = _summary_files(summary_dir, all_files)
    for folder in (output, output / IMAGE_DIR):
        _create_dir(folder)
    return _export(files, output)


def parse_summary_runs(base_dir: storage.Location, output_dir: str | os.PathLike[str],
                       now: datetime.datetime | None = None, all_files: bool = False) -> tuple[list[ExportResult], int]:
    """`parse_summary` for every run below `base_dir` (as deep as `--max-depth` may reach), each into
    `output_<now>/<run path>/`; returns the dumps made and how many runs failed (each failure is logged)."""
    output = Path(output_dir) / (now or datetime.datetime.now()).strftime(OUTPUT_NAME)
    if not storage.is_dir(base_dir, follow_symlinks=True):
        _fail("Summary directory %s not exists.", storage.describe(base_dir))
    _create_dir(output)
    scan = summary_watcher.scan_runs(base_dir, max_depth=int(BY_NAME["max_depth"].maximum or 1))
    runs = sorted(scan.runs, key=lambda run: run.train_id)
    done: list[ExportResult] = []
    failed = 0
    for run in runs:
        if not summary_file_names([f.name for f in run.summary_files]):
            continue  # lineage, profiler or TensorBoard only
        folder = output / run.train_id[2:] if run.train_id != "./" else output
        try:
            files = _summary_files(run.path, all_files)
            for path in (folder, folder / IMAGE_DIR):
                if path != output:
                    _create_dir(path)
            done.append(_export(files, folder))
        except ExportError:
            failed += 1
    return done, failed


def _summary_files(summary_dir: storage.Location, all_files: bool) -> list[storage.Location]:
    where = storage.describe(summary_dir)
    if not storage.exists(summary_dir):
        _fail("Summary directory %s not exists.", where)
    if not storage.is_dir(summary_dir, follow_symlinks=True):
        _fail("Summary directory %s is not a valid directory.", where)
    try:
        entries, _ = storage.list_dir(summary_dir, details=False)
    except PermissionError:
        _fail("Path %s is not accessible, please check the file-authority.", where)
    names = summary_file_names([entry.name for entry in entries])
    if not names:
        _fail("Path %s has no summary file.", where)
    files = [summary_dir / name for name in (names if all_files else names[-1:])]
    for summary_file in files:
        if not storage.is_file(summary_file):
            _fail("Summary file %s is not a valid file.", storage.describe(summary_file))
    return files


def _fail(message: str, *args: object) -> NoReturn:
    LOGGER.error(message, *args)
    raise ExportError(message % args)


def _create_dir(path: Path) -> None:
    if path.exists():
        _fail("Path %s has already existed, please choose a new output path.", path)
    os.makedirs(path, mode=0o700)


def _export(files: list[storage.Location], output: Path) -> ExportResult:
    """One scalar.csv and image folder for `files`, read in order; the last one's messages end the dump."""
    scalar_path = output / SCALAR_FILE
    scalars = images = 0
    with open(_private_fd(scalar_path), "w", encoding="utf-8", newline="") as fp:
        rows = csv.writer(fp, dialect="excel")
        rows.writerow(SCALAR_HEADER)
        for summary_file in files:
            where = storage.describe(summary_file)
            LOGGER.info("Loading %s.", where)
            try:
                for event in _events(summary_file, where):
                    for value in event.summary.value:
                        if value.HasField("scalar_value"):
                            rows.writerow((value.tag, event.step, event.wall_time, value.scalar_value))
                            scalars += 1
                        if value.HasField("image"):
                            _write_image(output / IMAGE_DIR, value.tag, event.step, value.image.encoded_image)
                            images += 1
            except (OSError, event_parser.PayloadError) as exc:
                fp.close()
                scalar_path.unlink()  # MindInsight writes no scalar.csv when it cannot finish the file
                _fail("Parse file fail, detail: %r, file path: %s.", str(exc), where)
            if summary_file is not files[-1]:
                LOGGER.info("Finished loading %s.", where)
    _finish(output, where, scalars, images)
    return ExportResult(output, [storage.describe(f) for f in files], scalars, images)


def _finish(output: Path, where: str, scalars: int, images: int) -> None:
    warning = ""
    if images:
        LOGGER.info("Images are written in %s.", output / IMAGE_DIR)
    else:
        warning += " The summary file contains no image."
    if scalars:
        LOGGER.info("Writing scalar data into %s.", output / SCALAR_FILE)
    else:
        warning += " The summary file contains no scalar value."
    if warning:
        LOGGER.warning(warning.lstrip())
    LOGGER.info("Finished loading %s.", where)


def _events(summary_file: storage.Location, where: str) -> Iterator[summary_pb2.Event]:
    """The file's events in order, logging MindInsight's progress lines (the reader logs what it skips)."""
    reader = RecordReader(summary_file)
    size = storage.stat(summary_file).size
    step = size // INFO_INTERVAL
    next_info = step
    count = 0
    while True:
        result = reader.read()
        for problem in result.problems:
            if problem.kind == "unreadable" or (problem.kind == "length_crc" and not count and not result.records):
                raise OSError(problem.message)  # cannot be read, or not a summary file at all
        for offset, payload in zip(result.offsets, result.records, strict=True):
            end = offset + FRAME_BYTES + len(payload)
            if end >= next_info:
                LOGGER.info("Current parsing process: %d/%d, %d%%.", end, size, 100 * end // max(size, 1))
                next_info = min(next_info + step, size)
            count += 1
            yield event_parser.parse_event(payload)
        if not result.more or result.stopped:
            break
    if result.pending_bytes:  # a cut-off last record; MindInsight tries it again three times first
        for attempt in range(1, RETRY_TIMES + 1):
            LOGGER.warning("Check crc failed, retrying %d/%d times.", attempt, RETRY_TIMES)
        LOGGER.error("Check crc length failed, please check the summary file integrity, the file may be in "
                     "transfer, file_path: %s, offset=%s.", where, result.offset)


def _write_image(folder: Path, tag: str, step: int, data: bytes) -> None:
    # O_CREAT without O_TRUNC, as MindInsight: a shorter image of the same tag and step keeps the old tail
    with open(_private_fd(folder / f"{quote(tag, safe='')}_{step}.png", truncate=False), "wb") as fp:
        fp.write(data)


def _private_fd(path: Path, truncate: bool = True) -> int:
    """A new file readable by its owner only (0600), as MindInsight makes them."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if truncate else 0), 0o600)
