"""TensorBoard projector files of a run: `projector_config.pbtxt` and the TSV/PNG files it names.

tensorboardX `add_embedding` (and TensorFlow's projector) write no event data for an embedding: the run
folder holds `projector_config.pbtxt` (protobuf text format, `proto/tb_projector.proto`) listing each embedding
with the paths of its `tensors.tsv` (one point per row, tab-separated numbers), `metadata.tsv` (one label row
per point; with more than one column the first row is the header, TensorBoard's rule) and a sprite image.

Every path in the config is attacker input (TensorBoard CVE-class bug #7115: a crafted config read any file
the server could): each one goes through `storage.confine(run folder, path)`, the one path check of every
backend, and a path that leaves the run folder (`..`, absolute elsewhere, a symlink out, a URL) is refused
and reported, never opened. An absolute local path inside the run folder (TensorFlow writes those) is
taken relative to it first. Reads go through `ingest.storage` (local and s3:// alike), which refuses symlinks,
FIFOs and devices and checks at each open that the file is still inside the base dir (a file that appears or is
swapped after the config was read is checked when it is read). Reads are bounded: a TSV above MAX_TSV_BYTES or a
sprite above the caller's bound is refused, saying so. Errors name the file, never quote its contents.
"""

from __future__ import annotations

import csv
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import numpy as np
from google.protobuf import text_format

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.record_reader import ReadProblem
from mindinsight_clone.ingest.storage import Location
from mindinsight_clone.ingest.values import Embedding, SummaryValue
from mindinsight_clone.proto import tb_projector_pb2

log = logging.getLogger(__name__)

CONFIG_NAME = "projector_config.pbtxt"
MAX_CONFIG_BYTES = 1024 * 1024  # a projector config is a few hundred bytes per embedding
MAX_TSV_BYTES = 1024 * 1024 * 1024  # tensors/metadata TSV: 1M points x 128 dims as text is about 1.3 GB
_NOT_A_NUMBER = re.compile(r"at row (\d+), column (\d+)")  # where numpy's loadtxt found a non-number
_STEP_SUFFIX = re.compile(r"^(.*):(\d+)$")  # tensorboardX names tensors `<tag>:<global step, 5 digits>`


@dataclass
class ProjectorRead:
    """What one read of a run's projector config gave: an `embedding` value per entry, and what was wrong."""

    values: list[SummaryValue] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)


def read_projector(run_dir: Location, max_bytes: int = MAX_CONFIG_BYTES) -> ProjectorRead:
    """Parse `<run_dir>/projector_config.pbtxt` into `embedding` values (raises OSError if it cannot be read).

    A config that does not parse is one `bad_payload` problem; an entry whose path leaves the run folder is
    kept (listed, with its `problem`) and reported, so the other embeddings are still served."""
    location = run_dir / CONFIG_NAME
    entry = storage.stat(location)
    out = ProjectorRead()
    if entry.size > max_bytes:
        out.problems.append(ReadProblem(CONFIG_NAME, 0, "too_large", f"projector config of {entry.size} bytes exceeds "
                                                                     f"{max_bytes} bytes; not read"))
        return out
    text = storage.read_bytes(location, max_bytes).decode("utf-8", "replace")
    config = tb_projector_pb2.ProjectorConfig()
    try:
        text_format.Parse(text, config, allow_unknown_field=True)
    except text_format.ParseError as exc:
        out.problems.append(ReadProblem(CONFIG_NAME, 0, "bad_payload", f"projector config does not parse: {exc}"))
        return out
    names = [_split_name(e.tensor_name or f"embedding_{i}") for i, e in enumerate(config.embeddings)]
    counts: dict[str, int] = {}
    for base, _ in names:
        counts[base] = counts.get(base, 0) + 1
    for i, info in enumerate(config.embeddings):
        base, step = names[i]
        tag = base if counts[base] == 1 else (info.tensor_name or f"embedding_{i}")
        embedding = _embedding(run_dir, info, tag)
        if embedding.problem:
            out.problems.append(ReadProblem(CONFIG_NAME, 0, "bad_payload", f"embedding {tag!r}: {embedding.problem}"))
            log.warning("%s: embedding %r: %s", storage.describe(location), tag, embedding.problem)
        out.values.append(SummaryValue("embedding", tag, step, entry.mtime, embedding, CONFIG_NAME))
    return out


def _split_name(tensor_name: str) -> tuple[str, int]:
    match = _STEP_SUFFIX.match(tensor_name)
    return (match.group(1), int(match.group(2))) if match else (tensor_name, 0)


def _embedding(run_dir: Location, info: tb_projector_pb2.EmbeddingInfo, tag: str) -> Embedding:
    problems: list[str] = []
    tensor = _confined(run_dir, info.tensor_path, "tensor_path", problems)
    if tensor is None and not info.tensor_path:
        problems.append("no tensor_path (checkpoint variables are not read)")
    metadata = _confined(run_dir, info.metadata_path, "metadata_path", problems)
    sprite = _confined(run_dir, info.sprite.image_path, "sprite image_path", problems) if info.HasField("sprite") \
        else None
    dims = tuple(int(d) for d in info.sprite.single_image_dim) if info.HasField("sprite") else ()
    return Embedding(tensor_name=info.tensor_name, tensor=tensor, metadata=metadata, sprite=sprite,
                     sprite_dim=dims if len(dims) == 2 else None,
                     shape=tuple(int(d) for d in info.tensor_shape), problem="; ".join(problems))


def _confined(run_dir: Location, path: str, what: str, problems: list[str]) -> Location | None:
    """The location of a config path inside the run folder, or None (a refusal is added to `problems`)."""
    if not path:
        return None
    relative = path
    if isinstance(run_dir, Path) and os.path.isabs(path):  # TensorFlow writes absolute paths
        real_run, real = os.path.realpath(run_dir), os.path.realpath(path)
        if real.startswith(real_run + os.sep):
            relative = Path(os.path.relpath(real, real_run)).as_posix()
    target = storage.confine(run_dir, relative)
    if target is None:
        problems.append(f"{what} {path!r} is outside the run folder; refused")
    return target


# ---------------------------------------------------------------------- reading the files an entry names
class ProjectorFileError(ValueError):
    """A projector file cannot be served (missing, unreadable, not what its name says)."""


def tensor_shape(location: Location) -> tuple[int, int]:
    """(rows, columns) of a tensors TSV: non-empty lines, and tab-separated fields of the first one."""
    rows = cols = 0
    last = b"\n"
    try:
        with storage.open_binary(location) as handle:
            left = _checked_size(location, handle)  # as big as it was when opened, never more
            first = True
            while left > 0 and (chunk := handle.read(min(1024 * 1024, left))):
                left -= len(chunk)
                if first:
                    line = chunk.split(b"\n", 1)[0].strip()
                    cols = len(line.split(b"\t")) if line else 0
                    first = False
                rows += chunk.count(b"\n")
                last = chunk[-1:]
    except OSError as exc:
        raise ProjectorFileError(f"cannot read {location.name}: {exc}") from None
    if last != b"\n":
        rows += 1
    return rows, cols


def _checked_size(location: Location, handle: IO[bytes]) -> int:
    """The size of an open TSV; FileTooLargeError above MAX_TSV_BYTES."""
    size = storage.file_size(handle)
    if size > MAX_TSV_BYTES:
        raise storage.FileTooLargeError(0, f"{location.name} has {size} bytes, above the {MAX_TSV_BYTES} bytes a "
                                           "projector TSV may have; not read")
    return size


def _open_tsv(location: Location, newline: str | None = None) -> IO[str]:
    """A TSV as text, refused beyond MAX_TSV_BYTES. Raises OSError."""
    handle = storage.open_text(location, newline=newline)
    try:
        _checked_size(location, handle.buffer)  # type: ignore[attr-defined]
    except BaseException:
        handle.close()
        raise
    return handle


def read_tensors(location: Location, max_rows: int) -> np.ndarray:
    """The first `max_rows` points of a tensors TSV as float32 [rows, dims]."""
    try:
        with _open_tsv(location) as handle:
            array = np.loadtxt(handle, delimiter="\t", dtype=np.float32, max_rows=max_rows, ndmin=2)
    except OSError as exc:
        raise ProjectorFileError(f"cannot read {location.name}: {exc}") from None
    except ValueError as exc:  # numpy quotes the offending field: say only where it is
        where = _NOT_A_NUMBER.search(str(exc))
        at = f" (a field that is not a number at row {where[1]}, column {where[2]})" if where else ""
        raise ProjectorFileError(f"{location.name} is not a TSV of numbers with the same count per row{at}") from None
    return array


def read_metadata(location: Location, max_rows: int) -> tuple[list[str], list[list[str]]]:
    """(column names, the first `max_rows` rows) of a metadata TSV. One column: no header row, the column is
    `label`; more: the first row names them (TensorBoard's rule)."""
    rows: list[list[str]] = []
    try:
        with _open_tsv(location, newline="") as handle:
            reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            header: list[str] | None = None
            for row in reader:
                if header is None:
                    if len(row) > 1:
                        header = row
                        continue
                    header = ["label"]
                if len(rows) >= max_rows:
                    break
                rows.append(row)
    except OSError as exc:
        raise ProjectorFileError(f"cannot read {location.name}: {exc}") from None
    except (csv.Error, UnicodeError) as exc:  # csv's messages name limits and line numbers, never the text
        raise ProjectorFileError(f"{location.name} is not a TSV file: {exc}") from None
    return header or [], rows


def read_sprite(location: Location, max_bytes: int) -> bytes:
    """The sprite image's bytes (refused beyond `max_bytes`)."""
    try:
        return storage.read_bytes(location, max_size=max_bytes)
    except OSError as exc:
        raise ProjectorFileError(f"cannot read {location.name}: {exc}") from None
