"""Embedding plugin (TensorBoard projector): `embeddings?train_id=`, `embedding?train_id=&tag=` and
`embedding/sprite?train_id=&tag=`.

An embedding is an entry of the run folder's `projector_config.pbtxt` (`ingest.projector`, which confined every
path in it to the run folder when it read the config). `embedding` sends the first `embedding_max_points`
points (and at most MAX_VALUES numbers) with their metadata rows; `shape` is the whole tensor's, and
`truncated` says when fewer points were sent. A path refused on ingest, a missing file or a TSV that is not one
gives the listing item an `error` and `embedding` a 400 50545021 with the reason; the other embeddings (and the
rest of the run) are served. NaN and infinite values are sent as null.

A VisualDL `add_embeddings` value carries its vectors and labels inline (`Embedding.vectors`, `.labels`): served
the same way, with no files to read.
"""

from __future__ import annotations

from typing import Any

import orjson

from mindinsight_clone.errors import KindDataNotExistError, KindDataUnreadableError
from mindinsight_clone.ingest import projector
from mindinsight_clone.ingest.values import Embedding
from mindinsight_clone.plugins.common import tag_samples
from mindinsight_clone.plugins.images import sniff_mime
from mindinsight_clone.store.reservoir import Sample
from mindinsight_clone.store.run_cache import RunCache

NAME = "embedding"
MAX_VALUES = 8_000_000  # numbers sent in one answer (about 80 MB of JSON before gzip)
MAX_SPRITE_BYTES = 64 * 1024 * 1024


def _info(samples: list[Sample]) -> dict[str, Any]:
    """What the listing says about one embedding (reads its TSVs' shape and header once per config change)."""
    s = samples[-1]
    emb = s.value
    item: dict[str, Any] = {"tensor_name": emb.tensor_name, "step": s.step, "shape": list(emb.shape) or None,
                            "metadata_columns": [], "sprite": None}
    if emb.sprite is not None and emb.sprite_dim is not None:
        item["sprite"] = {"single_image_dim": list(emb.sprite_dim)}
    errors = [emb.problem] if emb.problem else []
    if emb.vectors is not None:
        item["metadata_columns"] = list(emb.labels[0]) if emb.labels else []
        return item
    try:
        if emb.tensor is not None:
            item["shape"] = list(projector.tensor_shape(emb.tensor))
        if emb.metadata is not None:
            item["metadata_columns"] = projector.read_metadata(emb.metadata, 0)[0]
    except projector.ProjectorFileError as exc:
        errors.append(str(exc))
    if errors:
        item["error"] = "; ".join(errors)
    return item


def embeddings(cache: RunCache) -> dict[str, Any]:
    out = []
    for tag in cache.tags(NAME):
        if cache.has_samples(NAME, tag):
            out.append({"tag": tag, **cache.memo(NAME, tag, "info", _info)})
    return {"embeddings": out}


def embedding(cache: RunCache, tag: str, max_points: int) -> dict[str, Any]:
    samples = tag_samples(cache, NAME, tag, KindDataNotExistError)
    emb = samples[-1].value
    info = cache.memo(NAME, tag, "info", _info)
    if emb.vectors is not None:
        return _inline(tag, emb, max_points)
    if emb.tensor is None:
        raise KindDataUnreadableError(f"Detail: embedding {tag!r}: {emb.problem or 'no tensor file'}")
    shape = info.get("shape") or [0, 0]
    rows = max(1, min(max_points, MAX_VALUES // max(int(shape[1]), 1)))
    try:
        values = projector.read_tensors(emb.tensor, rows)
        columns, meta_rows = projector.read_metadata(emb.metadata, rows) if emb.metadata is not None else ([], [])
    except projector.ProjectorFileError as exc:
        raise KindDataUnreadableError(f"Detail: embedding {tag!r}: {exc}") from None
    total = int(shape[0]) if shape[0] else values.shape[0]
    body: dict[str, Any] = {"tag": tag, "shape": [total, int(values.shape[1]) if values.size else 0],
                            # float32 as written, each number in its shortest form; NaN/Inf -> null
                            "values": orjson.Fragment(orjson.dumps(values, option=orjson.OPT_SERIALIZE_NUMPY)),
                            "metadata": {"columns": columns, "rows": meta_rows},
                            "sprite": info["sprite"]}
    if values.shape[0] < total:
        body["truncated"] = {"sent_points": int(values.shape[0]), "setting": "embedding_max_points"}
    if emb.problem:
        body["warning"] = emb.problem
    return body


def _inline(tag: str, emb: Embedding, max_points: int) -> dict[str, Any]:
    """An embedding written inline (VisualDL): its first points and label rows, as `embedding` sends files'."""
    assert emb.vectors is not None
    total, dims = emb.vectors.shape
    rows = max(1, min(max_points, MAX_VALUES // max(dims, 1)))
    values = emb.vectors[:rows]
    columns, label_rows = emb.labels if emb.labels else ([], [])
    body: dict[str, Any] = {"tag": tag, "shape": [total, dims],
                            "values": orjson.Fragment(orjson.dumps(values, option=orjson.OPT_SERIALIZE_NUMPY)),
                            "metadata": {"columns": list(columns), "rows": label_rows[:rows]}, "sprite": None}
    if values.shape[0] < total:
        body["truncated"] = {"sent_points": int(values.shape[0]), "setting": "embedding_max_points"}
    return body


def sprite(cache: RunCache, tag: str) -> tuple[bytes, str]:
    emb = tag_samples(cache, NAME, tag, KindDataNotExistError)[-1].value
    if emb.sprite is None:
        raise KindDataNotExistError(f"Detail: embedding {tag!r} has no sprite image"
                                    + (f" ({emb.problem})" if emb.problem else ""))
    try:
        data = projector.read_sprite(emb.sprite, MAX_SPRITE_BYTES)
    except projector.ProjectorFileError as exc:
        raise KindDataUnreadableError(f"Detail: embedding {tag!r}: {exc}") from None
    return data, sniff_mime(data)
