"""The writer sub-folders of a TensorBoard run: `add_scalars` children and `add_hparams` sessions.

* tensorboardX `add_scalars(main, {key: value})` writes each key with its own writer into
  `<run>/<main>/<key>/` (torch.utils.tensorboard: `<run>/<main with "/" as "_">_<key>/`); each such folder
  holds the one scalar tag `main` (tensorboardX cleans it: characters outside `[-/\\w.]` become `_`). Such a
  folder belongs to its run (a discovery rule, not a run of its own): the run reads its files and shows the
  key's series as `<main>/<key>`.
* `add_hparams(hparams, metrics)` writes each session into `<run>/<name or str(time.time())>/`, starting with
  the metadata-only `_hparams_/experiment` and `_hparams_/session_start_info`. Such a folder is a run of its own
  (one per session), found below its parent whatever `--max-depth` says.

A folder is told by its path and by the tags of the first summary event of its oldest event file: a peek of
at most PEEK_BYTES through `ingest.storage`, cached per file (the first records of an event file never change,
so an unchanged folder costs no read on the next scan).
"""

from __future__ import annotations

import re
import struct
import threading
from dataclasses import dataclass

from google.protobuf.message import DecodeError

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.record_reader import FOOTER_BYTES, HEADER_BYTES, masked_crc32c
from mindinsight_clone.ingest.storage import Location
from mindinsight_clone.proto import tb_event_pb2

PEEK_BYTES = 64 * 1024  # the first summary event of a writer's file lies well within this
MAX_DEPTH = 4  # folder levels below a run searched for sub-folders (a main tag with up to 2 "/" and its key)
MAX_LISTINGS = 64  # directories listed per run while searching
HPARAMS_PREFIX = "_hparams_/"
_HEADER = struct.Struct("<QI")
_TBX_INVALID = re.compile(r"[^-/\w.]")  # tensorboardX's _clean_tag
_PEEK_CACHE_MAX = 100_000


@dataclass(frozen=True, slots=True)
class Member:
    rel: str  # the folder, relative to its run, "/"-separated
    kind: str  # "scalars" (an add_scalars key) | "hparams" (an add_hparams session)
    main_tag: str = ""  # scalars: the tag the folder holds
    key: str = ""  # scalars: the key (the series name)


def clean_tag(tag: str) -> str:
    """tensorboardX's `_clean_tag`: characters outside `[-/\\w.]` -> `_`, leading `/` dropped."""
    return _TBX_INVALID.sub("_", tag).lstrip("/")


def scalars_key(rel: str, tag: str) -> str | None:
    """The add_scalars key of folder `rel` holding the one tag `tag`, or None if the path does not fit it."""
    parts = rel.split("/")
    for cut in range(len(parts) - 1, 0, -1):  # tensorboardX: <main>/<key>; the longest main first
        main = "/".join(parts[:cut])
        if tag in (main, clean_tag(main)):
            return "/".join(parts[cut:])
    flat = tag.replace("/", "_") + "_"  # torch.utils.tensorboard: <main with / as _>_<key>
    if len(parts) == 1 and rel.startswith(flat) and len(rel) > len(flat):
        return rel[len(flat):]
    return None


def classify(rel: str, first_file: Location) -> Member | None:
    """What the folder `rel` (below a run) holding `first_file` (its oldest event file) is, or None (a folder of
    another writer: a run of its own when `--max-depth` reaches it; or nothing written yet)."""
    tags = first_tags(first_file)
    if not tags:
        return None
    if any(t.startswith(HPARAMS_PREFIX) for t in tags):
        return Member(rel, "hparams")
    if len(set(tags)) == 1:
        key = scalars_key(rel, tags[0])
        if key is not None:
            return Member(rel, "scalars", tags[0], key)
    return None


_peeked: dict[str, tuple[str, ...]] = {}
_peek_lock = threading.Lock()


def first_tags(location: Location) -> tuple[str, ...]:
    """The value tags of the first summary event of an event file (() if none yet, or it cannot be read)."""
    key = storage.describe(location)
    with _peek_lock:
        known = _peeked.get(key)
    if known is not None:
        return known
    try:
        with storage.open_binary(location, block_bytes=PEEK_BYTES) as handle:  # one range request when remote
            data = handle.read(PEEK_BYTES)
    except OSError:
        return ()
    tags = _tags_in(data)
    if tags:  # "nothing yet" is not cached: the writer may flush its first step later
        with _peek_lock:
            if len(_peeked) >= _PEEK_CACHE_MAX:
                _peeked.clear()
            _peeked[key] = tags
    return tags


def _tags_in(data: bytes) -> tuple[str, ...]:
    pos = 0
    event = tb_event_pb2.Event()
    while len(data) - pos >= HEADER_BYTES:
        length, length_crc = _HEADER.unpack_from(data, pos)
        end = pos + HEADER_BYTES + length
        if masked_crc32c(data[pos:pos + 8]) != length_crc or end + FOOTER_BYTES > len(data):
            return ()
        payload = data[pos + HEADER_BYTES:end]
        if masked_crc32c(payload) != struct.unpack_from("<I", data, end)[0]:
            return ()
        try:
            event.ParseFromString(payload)
        except DecodeError:
            return ()
        if event.summary.value:
            return tuple(v.tag for v in event.summary.value)
        pos = end + FOOTER_BYTES
    return ()
