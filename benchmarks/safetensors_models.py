"""A 2 GB sharded safetensors set (Hugging Face layout: `model-0000N-of-0000M.safetensors` + index) on the models
page: time to list its tensors (the headers only) and to get one tensor's statistics (its byte range only).

    python benchmarks/safetensors_models.py            # 8 shards x 8 tensors x 32 MB = 2 GB of random float32
    python benchmarks/safetensors_models.py --smoke    # 2 shards x 2 tensors x 1 MB

The shards are written here with random weights (numpy), the headers as the format says. Prints seconds for
`read_index` (every shard's header: the parameter list), for the first and a second tensor's statistics through
`models/parameters?limit=1` (one 32 MB range read each; the other 63 tensors are not read), and for a cached answer.
"""

from __future__ import annotations

import argparse
import json
import struct
import tempfile
import time
from pathlib import Path

import numpy as np

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.ingest import safetensors_file
from mindinsight_clone.server.app import create_app

API = "/v1/mindinsight/models"


def write_set(base: Path, shards: int, per_shard: int, numel: int) -> None:
    rng = np.random.default_rng(0)
    weight_map = {}
    for s in range(shards):
        name = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        header: dict[str, object] = {"__metadata__": {"format": "pt"}}
        for t in range(per_shard):
            header[f"layers.{s}.w{t}"] = {"dtype": "F32", "shape": [numel],
                                          "data_offsets": [t * numel * 4, (t + 1) * numel * 4]}
            weight_map[f"layers.{s}.w{t}"] = name
        text = json.dumps(header).encode()
        text += b" " * (-len(text) % 8)
        with open(base / name, "wb") as handle:
            handle.write(struct.pack("<Q", len(text)) + text)
            for _ in range(per_shard):
                handle.write(rng.standard_normal(numel, dtype=np.float32).tobytes())
    (base / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    shards, per_shard, numel = (2, 2, 256 * 1024) if args.smoke else (8, 8, 8 * 1024 * 1024)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        base.mkdir()
        write_set(base, shards, per_shard, numel)
        index = base / "model.safetensors.index.json"
        total = sum(p.stat().st_size for p in base.iterdir())
        print(f"set: {shards} shards, {shards * per_shard} tensors, {total / 1e9:.2f} GB")
        start = time.perf_counter()
        found = safetensors_file.read_index(index, index.stat().st_size)
        print(f"list the tensors (headers only): {time.perf_counter() - start:.4f} s ({len(found.tensors)} tensors)")
        app = create_app(settings_for_tests(summary_base_dir=str(base), workspace=str(Path(tmp) / "ws"),
                                            reload_interval=0), start_background=False)
        app.extensions["mindinsight_clone"].data_manager.reload()
        client = app.test_client()
        other = len(found.tensors) * 5 // 8
        for label, offset in (("first tensor's statistics", 0), ("another tensor's statistics", other),
                              ("the same again (cached)", other)):
            start = time.perf_counter()
            answer = client.get(f"{API}/parameters", query_string={"model_id": "./model.safetensors.index.json",
                                                                   "offset": offset, "limit": 1}).get_json()
            row = answer["parameters"][0]
            assert row["count"] == numel and row["error"] is None, row
            print(f"{label}: {time.perf_counter() - start:.3f} s ({row['name']}, mean {row['mean']:.4f})")


if __name__ == "__main__":
    main()
