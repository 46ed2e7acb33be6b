"""One reader per on-disk format, chosen by file name; every one yields the same typed values.

* MindSpore summary files (`*summary.<ts>*`): `event_parser` (`mindspore.irpb.Event`).
* TensorBoard event files (`events.out.tfevents.<ts>*`): `tfevents_parser` (`tensorboard Event`),
  with per-file state (each tag's plugin, sent only with its first value) kept here between reads.

Each format also has a vectorised reader of its scalar-only records (`scalar_batch`, `tfevents_batch`);
`RecordsParser.read_scalars` picks it by file name, for `RunLoader.read_scalars`.

The store holds one `RecordsParser` per run and never looks at which format a value came from.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Sequence
from typing import Any

from mindinsight_clone.ingest import event_parser, scalar_batch, storage, tfevents_batch, tfevents_parser
from mindinsight_clone.ingest.tfevents_parser import TfeventsState, is_tfevents_file
from mindinsight_clone.ingest.values import SummaryValue

__all__ = ["RecordsParser", "is_tfevents_file", "parse_event"]


# payloads of one file + its name + their offsets -> parsed batch (what `RunLoader.parse_records` takes)
SummaryRecordsParser = Callable[[Sequence[bytes], str, Sequence[int]], Any]


class RecordsParser:
    """`(payloads, file name, offsets) -> parsed batch` for every file of one run, whatever its format.

    MindSpore files go to `summary` (default `event_parser.parse_summary_columns`); TensorBoard event
    files to `tfevents_parser`, which always returns `ParsedColumns`.
    """

    def __init__(self, summary: SummaryRecordsParser = event_parser.parse_summary_columns) -> None:
        self._summary = summary
        self._tfevents: dict[str, TfeventsState] = {}

    def __call__(self, records: Sequence[bytes], file_name: str, offsets: Sequence[int]) -> Any:
        if is_tfevents_file(file_name):
            state = self._tfevents.setdefault(file_name, TfeventsState())
            return tfevents_parser.parse_tfevents_columns(records, file_name, offsets, state)
        return self._summary(records, file_name, offsets)

    def read_scalars(self, path: str | os.PathLike[str] | storage.Location, offset: int, size: int,
                     max_record_bytes: int, max_bytes: int = scalar_batch.BLOCK_BYTES,
                     ) -> tuple[int, scalar_batch.ScalarArrays]:
        """The vectorised scalar-only reader of `path`'s format (see `RunLoader.read_scalars`); a tfevents
        file's reader is told each tag's plugin as this parser has learnt it so far from that file."""
        name = storage.as_location(path).name
        if is_tfevents_file(name):
            plugins = self._tfevents.setdefault(name, TfeventsState()).plugins
            return tfevents_batch.read_scalar_records(path, offset, size, max_record_bytes, max_bytes, plugins)
        return scalar_batch.read_scalar_records(path, offset, size, max_record_bytes, max_bytes)

    def text_tags(self, files: Collection[str] | None = None) -> list[str]:
        """Tags of TensorBoard text summaries read so far (no view shows their values), sorted; only from
        `files` when given (the run's current files: a deleted file's tags go with it)."""
        tags: set[str] = set()
        for name, state in list(self._tfevents.items()):
            if files is None or name in files:
                tags.update(state.text_tags)
        return sorted(tags)


def parse_event(payload: bytes, file_name: str) -> list[SummaryValue]:
    """One payload of `file_name` -> its values (stateless: a tfevents tensor is classified by its shape
    unless its own metadata names the plugin)."""
    if is_tfevents_file(file_name):
        return tfevents_parser.parse_tfevents_event(payload, file_name)
    return event_parser.parse_summary_event(payload, file_name)
