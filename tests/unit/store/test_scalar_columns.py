"""The columnar scalar path (parse_summary_columns + RunCache.add_parsed) gives exactly what the
per-value path (parse_summary_records + RunCache.add_values) gives: samples, tags, stats, problems."""

from __future__ import annotations

import random

import pytest

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.ingest import event_parser as ep
from mindinsight_clone.proto import anf_ir_pb2, summary_pb2
from mindinsight_clone.store.run_cache import RunCache

FILES = ("events.out.events.summary.1700000000.0.a_MS", "events.out.events.summary.1700000001.0.a_MS")


def _records(rng: random.Random, n: int) -> list[bytes]:
    out: list[bytes] = []
    step = 0
    for _ in range(n):
        roll = rng.random()
        if roll < 0.03:
            out.append(b"\x0a\xff\xff")  # does not decode
            continue
        step = rng.choice((step + 1, step + 1, step + 1, step, max(step - rng.randint(1, 5), 0)))
        event = summary_pb2.Event(step=step, wall_time=1000.0 + step + rng.random())
        if roll < 0.06:
            event.graph_def.name = f"g{step}"
        elif roll < 0.08:
            event.version = "MindSpore.Event:1"
        else:
            for _ in range(rng.randint(0, 6)):
                kind = rng.random()
                tag = f"t{rng.randint(0, 7)}"
                if kind < 0.8:
                    event.summary.value.add(tag=tag, scalar_value=rng.choice((rng.random(), float("nan"))))
                elif kind < 0.9:
                    tensor = event.summary.value.add(tag=tag).tensor
                    tensor.data_type = anf_ir_pb2.DT_FLOAT32
                    tensor.dims.append(2)
                    tensor.float_data.extend([1.0] * rng.choice((2, 2, 3)))  # 3: does not convert
                else:
                    event.summary.value.add(tag=tag)  # no value at all
        out.append(event.SerializeToString())
    return out


def _state(cache: RunCache) -> object:
    tags = cache.all_tags()
    samples = {(p, t): [(s.step, s.wall_time, repr(s.value) if p == "scalar" else type(s.value).__name__, s.source)
                        for s in cache.samples(p, t)] for p, ts in tags.items() for t in ts}
    stats = {t: repr(cache.scalar_stats(t)) for t in tags["scalar"]}
    return tags, samples, stats


@pytest.mark.parametrize("seed", range(40))
def test_columnar_path_matches_per_value_path(seed: int) -> None:
    rng = random.Random(seed)
    settings = settings_for_tests(max_tags_per_run=rng.randint(2, 8), max_tensor_tags=rng.randint(1, 3),
                                  scalar_samples=rng.choice((3, 5, 1000)))
    old, new = RunCache("./x", settings), RunCache("./x", settings)
    for _ in range(rng.randint(1, 4)):
        name = rng.choice(FILES)
        records = _records(rng, rng.randint(0, 60))
        offsets = list(range(len(records)))
        parsed = ep.parse_summary_records(records, name, offsets)
        old.add_values(parsed.values)
        columns = ep.parse_summary_columns(records, name, offsets)
        new.add_parsed(columns)
        assert [(p.offset, p.kind) for p in columns.problems] == [(p.offset, p.kind) for p in parsed.problems]
    assert _state(new) == _state(old)
