"""Fuzz the decoding path past the record reader: event parser -> run cache -> every plugin's answers.

Hypothesis builds adversarial but well-framed Events (any tags, NaN/Inf scalars, images whose declared size
disagrees with their bytes, histograms with NaN edges, negative or huge counts, tensors whose dims disagree
with their data, landscapes with ragged grids), optionally flips or cuts bytes of the payload, and feeds
them through the same functions the server uses. The only exceptions allowed out are the domain errors
the API turns into 4xx; anything else is a bug.

CI runs a smoke size. A longer run (report `inputs tried` and failures in the closing note):
    MINDINSIGHT_FUZZ_EXAMPLES=5000 pytest tests/unit/test_fuzz_decoding.py -s
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.errors import MindInsightError
from mindinsight_clone.ingest.event_parser import parse_summary_records
from mindinsight_clone.plugins import histograms, images, landscape, scalars, tensors
from mindinsight_clone.proto import anf_ir_pb2, summary_pb2
from mindinsight_clone.store.run_cache import RunCache

EXAMPLES = int(os.environ.get("MINDINSIGHT_FUZZ_EXAMPLES", "120"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
TRIED = {"events": 0, "values": 0, "problems": 0}

floats = st.floats(allow_nan=True, allow_infinity=True, width=32)
doubles = st.floats(allow_nan=True, allow_infinity=True)
tags = st.text(min_size=0, max_size=12)
small_ints = st.integers(min_value=-3, max_value=40)


def _tensor(draw: Any) -> anf_ir_pb2.TensorProto:
    """Mostly consistent tensors (data fills dims), sometimes not; any declared data type."""
    t = anf_ir_pb2.TensorProto()
    dims = draw(st.lists(st.integers(0, 4), max_size=4)) if draw(st.integers(0, 4)) else draw(
        st.lists(small_ints, max_size=4))
    t.dims.extend(dims)
    t.data_type = draw(st.sampled_from([v.number for v in anf_ir_pb2.DataType.DESCRIPTOR.values]))
    size = math.prod(dims) if dims and min(dims) >= 0 else 1
    n = st.just(size) if draw(st.integers(0, 4)) else st.integers(0, 64)
    kind = draw(st.sampled_from(["float", "float", "double", "int32", "int64", "raw", "none"]))
    if kind == "float":
        count = min(draw(n), 256)
        t.float_data.extend(draw(st.lists(floats, min_size=count, max_size=count)))
    elif kind == "double":
        t.double_data.extend(draw(st.lists(doubles, max_size=64)))
    elif kind == "int32":
        t.int32_data.extend(draw(st.lists(st.integers(-(2**31), 2**31 - 1), max_size=64)))
    elif kind == "int64":
        t.int64_data.extend(draw(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=64)))
    elif kind == "raw":
        t.raw_data = draw(st.binary(max_size=256))
    return t


@st.composite
def events(draw: Any) -> summary_pb2.Event:
    event = summary_pb2.Event(wall_time=draw(doubles), step=draw(st.integers(-(2**63), 2**63 - 1)))
    for _ in range(draw(st.integers(1, 5))):
        value = event.summary.value.add(tag=draw(tags))
        kind = draw(st.sampled_from(["scalar", "image", "histogram", "tensor", "landscape"]))
        if kind == "scalar":
            value.scalar_value = draw(floats)
        elif kind == "image":
            value.image.height = draw(st.integers(-5, 5000))
            value.image.width = draw(st.integers(-5, 5000))
            value.image.colorspace = draw(st.integers(0, 7))
            value.image.encoded_image = draw(st.binary(max_size=64))
        elif kind == "histogram":
            h = value.histogram
            sane = draw(st.integers(0, 4)) > 0  # mostly well-formed buckets, sometimes anything
            edges = st.floats(-1e6, 1e6) if sane else doubles
            widths = st.floats(0, 1e3) if sane else doubles
            for _ in range(draw(st.integers(0, 100))):
                h.buckets.add(left=draw(edges), width=draw(widths),
                              count=draw(st.integers(0 if sane else -5, 2**40)))
            h.nan_count, h.pos_inf_count, h.neg_inf_count = (draw(st.integers(-2, 10)) for _ in range(3))
            h.max, h.min, h.sum = draw(doubles), draw(doubles), draw(doubles)
            h.count = draw(st.integers(-2, 2**40))
        elif kind == "tensor":
            value.tensor.CopyFrom(_tensor(draw))
        else:
            ls = value.loss_landscape
            for points in (ls.landscape, ls.convergence_point, ls.loss_path.points):
                for axis in ("x", "y", "z"):
                    if draw(st.booleans()):
                        getattr(points, axis).CopyFrom(_tensor(draw))
            ls.loss_path.intervals.extend(draw(st.lists(st.integers(-3, 50), max_size=4)))
            ls.metadata.decomposition = draw(st.sampled_from(["PCA", "Random", ""]))
    return event


def mutate(payload: bytes, data: st.DataObject) -> bytes:
    how = data.draw(st.sampled_from(["none", "none", "none", "flip", "cut"]))
    if how == "flip" and payload:
        i = data.draw(st.integers(0, len(payload) - 1))
        return payload[:i] + bytes([payload[i] ^ (1 << data.draw(st.integers(0, 7)))]) + payload[i + 1:]
    if how == "cut" and payload:
        return payload[: data.draw(st.integers(0, len(payload) - 1))]
    return payload


def answer_everything(cache: RunCache) -> None:
    """Ask every plugin for every tag it holds, the way the routes do; domain errors are fine."""
    calls: list[Any] = []
    for tag in cache.tags("scalar"):
        calls += [lambda t=tag: scalars.scalar_metadata(cache, t), lambda t=tag: scalars.points(cache, t)]
    for tag in cache.tags("image"):
        calls += [lambda t=tag: images.image_metadata(cache, t), lambda t=tag: images.single_image(cache, t, -1)]
    for tag in cache.tags("histogram"):
        calls.append(lambda t=tag: histograms.histograms(cache, "./f", t))
    for tag in cache.tags("tensor"):
        for detail in (None, "stats", "histogram"):
            calls.append(lambda t=tag, d=detail: tensors.tensor_rows(cache, "./f", [t], d, None, None))
        calls.append(lambda t=tag: tensors.tensor_rows(cache, "./f", [t], "data", "-1", "[0]"))
    calls += [lambda: landscape.intervals(cache), lambda: landscape.landscape_for(cache, "./f", "final", None, None)]
    for call in calls:
        with contextlib.suppress(MindInsightError):
            call()


@FUZZ
@given(batch=st.lists(events(), min_size=1, max_size=4), data=st.data())
def test_decoding_never_raises_beyond_domain_errors(batch: list[summary_pb2.Event], data: st.DataObject) -> None:
    records = [mutate(event.SerializeToString(), data) for event in batch]
    parsed = parse_summary_records(records, "events.out.events.summary.1.0.fuzz_MS")
    TRIED["events"] += len(records)
    TRIED["values"] += len(parsed.values)
    TRIED["problems"] += len(parsed.problems)
    cache = RunCache("./f", settings_for_tests(tensor_samples=3, histogram_samples=3, image_samples=3))
    cache.add_values(parsed.values)
    answer_everything(cache)
    for value in parsed.values:
        if value.plugin == "scalar":
            assert isinstance(value.value, float) or math.isnan(value.value)


@pytest.fixture(scope="module", autouse=True)
def _fuzz_summary() -> Iterator[None]:
    """What the fuzz test tried, printed when the module is done (`pytest -s`); not a test of its own."""
    yield
    if TRIED["events"]:
        print(f"\nfuzzed decoding: {TRIED['events']} events tried, {TRIED['values']} values decoded, "
              f"{TRIED['problems']} records refused as bad payloads, 0 unexpected exceptions")
