"""One reader per on-disk format, chosen by file name; every one yields the same typed values.

* MindSpore summary files (`*summary.<ts>*`): `event_parser` (`mindspore.irpb.Event`).
* TensorBoard event files (`events.out.tfevents.<ts>*`): `tfevents_parser` (`tensorboard Event`),
  with per-file state (each tag's plugin, sent only with its first value) kept here between reads.
* VisualDL logs (`vdlrecords.<ts>.log`, own framing: `vdl_record_reader`): `vdl_parser` (`visualdl.Record`).

Each format also has a vectorised reader of its scalar-only records (`scalar_batch`, `tfevents_batch`, `vdl_batch`);
`RecordsParser.read_scalars` picks it by file name, for `RunLoader.read_scalars`.

File names may be relative paths below the run folder: the event files of its `add_scalars` sub-folders
(`expert_load/layer_3/ep_0/events.out.tfevents...`, see `tfevents_members`) are read as part of the run, and
their scalar tags get the sub-folder's key (`expert_load/layer_3` -> `expert_load/layer_3/ep_0`), as
`set_members` says.

The store holds one `RecordsParser` per run and never looks at which format a value came from.
"""

from __future__ import annotations

import logging
import os
import posixpath
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mindinsight_clone.ingest import (
    event_parser,
    scalar_batch,
    storage,
    tfevents_batch,
    tfevents_parser,
    vdl_batch,
    vdl_parser,
)
from mindinsight_clone.ingest.decode_helper import DecodeHelper, HelperUnavailable
from mindinsight_clone.ingest.scalar_batch import SCALAR_SUFFIX
from mindinsight_clone.ingest.tfevents_parser import DEFAULT_TEXT_MAX_CHARS, TfeventsState, is_tfevents_file
from mindinsight_clone.ingest.values import SummaryValue
from mindinsight_clone.ingest.vdl_parser import VdlState, is_vdlrecords_file

logger = logging.getLogger(__name__)

__all__ = ["RecordsParser", "is_tfevents_file", "parse_event"]

# The decode helper gets what holds the interpreter lock while it decodes: small blocks (per-call overhead, e.g. a
# thousand runs of 40 KB) and TensorBoard blocks (one event per value: each row checks every record in Python). A
# large MindSpore block (every tag of a step in one event) decodes in numpy, which lets go of the lock, and copying
# its columns back costs more than it saves: corpus L (8 files of 25 MB) ready in 1.84-2.02 s decoded in the
# worker, 2.11-2.74 s through the helper.
HELPER_MS_BLOCK_BYTES = 128 * 1024
# A MindSpore file's reads start small and double (store.loader: 64 KB, 128 KB, then past the bound above): only
# about its first 192 KB (or a small append) reaches the helper.
HELPER_MS_FILE_BYTES = 3 * HELPER_MS_BLOCK_BYTES // 2


def helper_bytes(name: str, unread: int) -> int:
    """How many of a summary file's `unread` bytes the decode helper would decode: all of a TensorBoard or
    VisualDL file, a MindSpore file's first small blocks only."""
    base = posixpath.basename(name)
    if is_tfevents_file(base) or is_vdlrecords_file(base):
        return unread
    return min(unread, HELPER_MS_FILE_BYTES)


# payloads of one file + its name + their offsets -> parsed batch (what `RunLoader.parse_records` takes)
SummaryRecordsParser = Callable[[Sequence[bytes], str, Sequence[int]], Any]


class RecordsParser:
    """`(payloads, file name, offsets) -> parsed batch` for every file of one run, whatever its format.

    MindSpore files go to `summary` (default `event_parser.parse_summary_columns`); TensorBoard event
    files to `tfevents_parser`, which always returns `ParsedColumns`.
    """

    def __init__(self, summary: SummaryRecordsParser = event_parser.parse_summary_columns,
                 text_max_chars: int = DEFAULT_TEXT_MAX_CHARS) -> None:
        self._summary = summary
        self._text_max_chars = text_max_chars
        self._tfevents: dict[str, TfeventsState] = {}
        self._vdl: dict[str, VdlState] = {}
        self._members: dict[str, str] = {}  # member file (relative name) -> the key its scalar tags get
        # decodes the scalar blocks of local files in another process while it runs (see decode_helper)
        self.helper: DecodeHelper | None = None

    def set_members(self, members: Mapping[str, str]) -> None:
        """The event files of the run's `add_scalars` sub-folders (names relative to the run) -> their keys."""
        self._members = dict(members)

    def _state(self, name: str) -> TfeventsState:
        state = self._tfevents.get(name)
        if state is None:
            state = self._tfevents[name] = TfeventsState(text_max_chars=self._text_max_chars)
        return state

    def __call__(self, records: Sequence[bytes], file_name: str, offsets: Sequence[int]) -> Any:
        if is_tfevents_file(posixpath.basename(file_name)):
            parsed = tfevents_parser.parse_tfevents_columns(records, file_name, offsets, self._state(file_name))
            key = self._members.get(file_name)
            return parsed if key is None else _as_member(parsed, key, file_name)
        if is_vdlrecords_file(posixpath.basename(file_name)):
            state = self._vdl.get(file_name)
            if state is None:
                state = self._vdl[file_name] = VdlState(text_max_chars=self._text_max_chars)
            return vdl_parser.parse_vdl_columns(records, file_name, offsets, state)
        return self._summary(records, file_name, offsets)

    def read_scalars(self, path: str | os.PathLike[str] | storage.Location, offset: int, size: int,
                     max_record_bytes: int, max_bytes: int = scalar_batch.BLOCK_BYTES, name: str | None = None,
                     ) -> tuple[int, scalar_batch.ScalarArrays]:
        """The vectorised scalar-only reader of `path`'s format (see `RunLoader.read_scalars`); a tfevents
        file's reader is told each tag's plugin as this parser has learnt it so far from that file. `name`: the
        file's name as the loader calls it (relative to the run; default: the last component of `path`)."""
        if name is None:
            name = storage.as_location(path).name
        if is_tfevents_file(posixpath.basename(name)):
            plugins = self._state(name).plugins
            end, arrays = self._block(tfevents_batch.read_scalar_records, path, offset, size, max_record_bytes,
                                      max_bytes, plugins)
            key = self._members.get(name)
            return end, arrays if key is None else _as_member(arrays, key, name)
        if is_vdlrecords_file(posixpath.basename(name)):
            return self._block(vdl_batch.read_scalar_records, path, offset, size,  # type: ignore[no-any-return]
                               max_record_bytes, max_bytes)
        small = min(size - offset, max_bytes) <= HELPER_MS_BLOCK_BYTES
        return self._block(scalar_batch.read_scalar_records, path, offset, size, max_record_bytes,  # type: ignore[no-any-return]
                           max_bytes, offload=small)

    def _block(self, reader: Callable[..., Any], path: str | os.PathLike[str] | storage.Location,
               *args: Any, offload: bool = True) -> Any:
        """`reader(path, *args)` in the decode helper when one runs, the file is local and `offload`, else here."""
        helper = self.helper
        if offload and helper is not None and helper.running:
            location = storage.as_location(path)
            if not storage.is_remote(location):
                try:
                    return helper.call(reader, location, *args)
                except HelperUnavailable:
                    pass
        return reader(path, *args)


def _as_member(parsed: Any, key: str, file_name: str) -> Any:
    """An `add_scalars` member file's batch with each scalar tag `<t>/scalar` renamed `<t>/<key>/scalar`; any
    other value (a member folder holds scalars only) is dropped with a log line."""
    def rename(tag: str) -> str:
        return tag[:-len(SCALAR_SUFFIX)] + "/" + key + SCALAR_SUFFIX

    items = []
    for item in parsed.items:
        if type(item) is tuple:
            items.append((rename(item[0]), item[1]))
        else:
            logger.info("%s: %s value %r of an add_scalars sub-folder is not shown", file_name, item.plugin, item.tag)
    parsed.items = items
    parsed.scalars = {rename(tag): col for tag, col in parsed.scalars.items()}
    if getattr(parsed, "arrays", None):
        parsed.arrays = {rename(tag): cols for tag, cols in parsed.arrays.items()}
    return parsed


def parse_event(payload: bytes, file_name: str) -> list[SummaryValue]:
    """One payload of `file_name` -> its values (stateless: a tfevents tensor is classified by its shape
    unless its own metadata names the plugin)."""
    if is_tfevents_file(file_name):
        return tfevents_parser.parse_tfevents_event(payload, file_name)
    if is_vdlrecords_file(file_name):
        return vdl_parser.parse_vdl_event(payload, file_name)
    return event_parser.parse_summary_event(payload, file_name)
