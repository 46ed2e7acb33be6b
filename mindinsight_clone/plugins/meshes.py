"""Mesh plugin (TensorBoard `add_mesh`): `meshes?train_id=&tag=`.

A mesh is written as up to three tags, one per component (tensorboardX: `<name>_1` vertices, `<name>_2` faces,
`<name>_3` colors; TensorBoard's own writer: `<name>_VERTEX`, ...), tied together by the mesh name in their
plugin data. Any of its tags answers the whole mesh: per kept step, `vertices` ([x, y, z] numbers), `faces`
([i, j, k] vertex indices) and `colors` ([r, g, b] 0-255), each null when not written at that step, plus
the three.js camera/material `config` the writer gave (parsed JSON; `config_error` if it does not parse).
"""

from __future__ import annotations

import json
from typing import Any

from mindinsight_clone.errors import KindDataNotExistError
from mindinsight_clone.plugins.common import tag_samples
from mindinsight_clone.store.run_cache import RunCache

NAME = "mesh"
COMPONENTS = ("vertices", "faces", "colors")


def meshes(cache: RunCache, tag: str) -> dict[str, Any]:
    newest = tag_samples(cache, NAME, tag, KindDataNotExistError)[-1].value
    parts: dict[str, tuple[str, list[Any]]] = {}  # component -> (tag, samples), for the tags of this mesh
    for other in cache.tags(NAME):
        samples = cache.samples(NAME, other)
        if samples and samples[-1].value.name == newest.name:
            parts.setdefault(samples[-1].value.component, (other, samples))
    steps: dict[int, dict[str, Any]] = {}
    for component, (_, samples) in parts.items():
        for s in samples:
            entry = steps.setdefault(s.step, {"step": s.step, "wall_time": s.wall_time,
                                              **dict.fromkeys(COMPONENTS)})
            array = s.value.array
            entry[component] = array.astype(int).tolist() if component == "faces" else array.tolist()
    body: dict[str, Any] = {"name": newest.name, "components": {c: parts[c][0] for c in COMPONENTS if c in parts},
                            "config": None, "meshes": [steps[k] for k in sorted(steps)]}
    if newest.json_config:
        try:
            body["config"] = json.loads(newest.json_config)
        except ValueError as exc:
            body["config_error"] = f"json_config does not parse: {exc}"
    return body
