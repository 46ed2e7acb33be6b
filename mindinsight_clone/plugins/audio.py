"""Audio plugin (TensorBoard `add_audio`): `audio/metadata` and `audio/single-audio` (the clip's bytes as written:
WAV, checked on ingest to start with a RIFF/WAVE header; a clip that does not is a `bad_payload` problem of
the run and is not served)."""

from __future__ import annotations

from typing import Any

from mindinsight_clone.errors import KindDataNotExistError
from mindinsight_clone.plugins.common import tag_samples
from mindinsight_clone.store.run_cache import RunCache

NAME = "audio"


def audio_metadata(cache: RunCache, tag: str) -> dict[str, Any]:
    samples = tag_samples(cache, NAME, tag, KindDataNotExistError)
    out = []
    for s in samples:
        clip = s.value
        item: dict[str, Any] = {"step": s.step, "wall_time": s.wall_time, "sample_rate": clip.sample_rate,
                                "length_frames": clip.length_frames, "content_type": clip.content_type,
                                "num_channels": clip.num_channels, "bytes": len(clip.encoded)}
        if clip.label:
            item["label"] = clip.label
        out.append(item)
    return {"metadatas": out}


def single_audio(cache: RunCache, tag: str, step: int) -> tuple[bytes, str]:
    """(bytes, content type) of the clip at `step`; `-1` means the last kept step."""
    samples = tag_samples(cache, NAME, tag, KindDataNotExistError)
    chosen = samples[-1] if step == -1 else next((s for s in samples if s.step == step), None)
    if chosen is None:
        raise KindDataNotExistError("Detail: Can not find the step with given train job id and tag.")
    return chosen.value.encoded, chosen.value.content_type
