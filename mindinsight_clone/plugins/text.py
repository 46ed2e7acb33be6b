"""Text plugin (TensorBoard `add_text`): `text?train_id=&tag=` and, for what changed between runs, `POST text/compare`
(`plugins/text_compare.py`). Tags are as on disk (`<tag>/text_summary` from tensorboardX and torch, bare from TF2).

Values are markdown as written; one longer than the `text_max_chars` setting was cut on ingest, and its item
says so: `"truncated": true, "length": <characters as written>` (absent otherwise).
"""

from __future__ import annotations

from typing import Any

from mindinsight_clone.errors import KindDataNotExistError
from mindinsight_clone.plugins.common import tag_samples
from mindinsight_clone.store.run_cache import RunCache

NAME = "text"
SUFFIX = "/text_summary"  # what tensorboardX and torch add to the tag given to add_text
LATEST_PREVIEW_CHARS = 20_000  # per value in `text/latest` (the Text page's one request); `text` has it whole


def texts(cache: RunCache, tag: str) -> dict[str, Any]:
    samples = tag_samples(cache, NAME, tag, KindDataNotExistError)
    out = []
    for s in samples:
        item: dict[str, Any] = {"step": s.step, "wall_time": s.wall_time, "value": s.value.text}
        if s.value.truncated:
            item["truncated"] = True
            item["length"] = s.value.length
        out.append(item)
    return {"texts": out}


def latest(cache: RunCache) -> dict[str, Any]:
    """`text/latest`: the newest text of every text tag of a run, in tag order, for a page that shows them all at
    once (Megatron writes one tag per argument: ~150-400 requests otherwise). A value longer than
    LATEST_PREVIEW_CHARS is cut in this answer only (`preview: true`, `length`); `text?tag=` serves it whole."""
    out = []
    for tag in sorted(cache.tags(NAME)):
        samples = cache.samples(NAME, tag)
        if not samples:
            continue
        newest = samples[-1]
        value = newest.value.text
        item: dict[str, Any] = {"tag": tag, "step": newest.step, "wall_time": newest.wall_time, "value": value,
                                "steps": len(samples)}
        if newest.value.truncated:
            item["truncated"] = True
        if len(value) > LATEST_PREVIEW_CHARS:
            item["value"] = value[:LATEST_PREVIEW_CHARS]
            item["preview"] = True
        if newest.value.truncated or item.get("preview"):
            item["length"] = newest.value.length  # characters as written
        out.append(item)
    return {"texts": out}


def key_of(tag: str) -> str:
    """The config key a text tag stands for: the tag without `/text_summary`."""
    return tag[:-len(SUFFIX)] if tag.endswith(SUFFIX) and len(tag) > len(SUFFIX) else tag


def latest_texts(cache: RunCache) -> dict[str, tuple[str, bool]]:
    """key -> (the newest text of its tag, whether it was cut), for every text tag of a run."""
    out: dict[str, tuple[str, bool]] = {}
    for tag in cache.tags(NAME):
        samples = cache.samples(NAME, tag)
        if samples:
            newest = samples[-1].value
            out[key_of(tag)] = (newest.text, newest.truncated)
    return out
