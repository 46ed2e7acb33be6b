"""Image plugin: `image/metadata` and `image/single-image` (API.md §3). Images stay encoded in memory."""

from __future__ import annotations

from typing import Any

from mindinsight_clone.errors import ImageNotExistError
from mindinsight_clone.plugins.common import tag_samples
from mindinsight_clone.store.run_cache import RunCache

NAME = "image"

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"BM", "image/bmp"),
)


def sniff_mime(data: bytes) -> str:
    """The MIME type from the magic bytes (what `imghdr` decided for MindInsight), else octet-stream."""
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    return "application/octet-stream"


def image_metadata(cache: RunCache, tag: str) -> dict[str, Any]:
    samples = tag_samples(cache, NAME, tag, ImageNotExistError)
    return {"metadatas": [
        {"height": s.value.height, "step": s.step, "wall_time": s.wall_time, "width": s.value.width}
        for s in samples
    ]}


def single_image(cache: RunCache, tag: str, step: int) -> tuple[bytes, str]:
    """(encoded bytes, MIME type) of the image at `step`; `-1` means the last kept step."""
    samples = tag_samples(cache, NAME, tag, ImageNotExistError)
    chosen = samples[-1] if step == -1 else next((s for s in samples if s.step == step), None)
    if chosen is None:
        raise ImageNotExistError("Detail: Can not find the step with given train job id and tag.")
    data: bytes = chosen.value.encoded
    return data, sniff_mime(data)
