"""Fuzz the TensorBoard decoding path: tfevents parser -> run cache -> every plugin's answers.

Hypothesis builds hostile but well-framed TensorBoard Events (NaN/Inf scalars and histogram limits, limits
and counts of different lengths, tensors of any dtype whose shape disagrees with their data, image tensors
with non-numeric sizes, plugin metadata that names the wrong kind), optionally flips or cuts payload bytes,
and feeds them through the functions the server uses. Only domain errors may come out.

    MINDINSIGHT_FUZZ_EXAMPLES=3000 pytest tests/unit/ingest/test_tfevents_fuzz.py -s
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.ingest.tfevents_parser import TfeventsState, parse_tfevents_columns
from mindinsight_clone.ingest.values import SummaryValue
from mindinsight_clone.proto import tb_event_pb2, tb_types_pb2
from mindinsight_clone.store.run_cache import RunCache
from tests.unit.test_fuzz_decoding import answer_everything, mutate

EXAMPLES = int(os.environ.get("MINDINSIGHT_FUZZ_EXAMPLES", "120"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
TRIED = {"events": 0, "values": 0, "problems": 0}

floats = st.floats(allow_nan=True, allow_infinity=True, width=32)
doubles = st.floats(allow_nan=True, allow_infinity=True)
DTYPES = [v.number for v in tb_types_pb2.DataType.DESCRIPTOR.values]


def _tensor(draw: Any, tensor: Any) -> None:
    dims = draw(st.lists(st.integers(-2, 5), max_size=3))
    for d in dims:
        tensor.tensor_shape.dim.add(size=d)
    tensor.dtype = draw(st.sampled_from([tb_types_pb2.DT_FLOAT, tb_types_pb2.DT_DOUBLE, tb_types_pb2.DT_STRING,
                                         *DTYPES]))
    kind = draw(st.sampled_from(["content", "float", "double", "string", "half", "int64", "none"]))
    if kind == "content":
        tensor.tensor_content = draw(st.binary(max_size=128))
    elif kind == "float":
        tensor.float_val.extend(draw(st.lists(floats, max_size=40)))
    elif kind == "double":
        tensor.double_val.extend(draw(st.lists(doubles, max_size=40)))
    elif kind == "string":
        tensor.string_val.extend(draw(st.lists(st.sampled_from([b"3", b"2", b"x", b"\x89PNG\r\n\x1a\n..", b""]),
                                               max_size=6)))
    elif kind == "half":
        tensor.half_val.extend(draw(st.lists(st.integers(-(2**31), 2**31 - 1), max_size=10)))
    elif kind == "int64":
        tensor.int64_val.extend(draw(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=10)))


@st.composite
def events(draw: Any) -> tb_event_pb2.Event:
    event = tb_event_pb2.Event(wall_time=draw(doubles), step=draw(st.integers(-(2**63), 2**63 - 1)))
    if draw(st.integers(0, 9)) == 0:
        event.file_version = "brain.Event:2"
        return event
    for _ in range(draw(st.integers(1, 5))):
        value = event.summary.value.add(tag=draw(st.sampled_from(["a", "b", "a/b", "", "c"])))
        if draw(st.booleans()):
            value.metadata.plugin_data.plugin_name = draw(
                st.sampled_from(["scalars", "images", "histograms", "text", "pr_curves", ""]))
        kind = draw(st.sampled_from(["simple", "image", "histo", "tensor", "tensor", "audio"]))
        if kind == "simple":
            value.simple_value = draw(floats)
        elif kind == "image":
            value.image.height, value.image.width = draw(st.integers(-5, 5000)), draw(st.integers(-5, 5000))
            value.image.encoded_image_string = draw(st.binary(max_size=32))
        elif kind == "histo":
            h = value.histo
            n = draw(st.integers(0, 200))
            sane = draw(st.integers(0, 3)) > 0
            limits = sorted(draw(st.lists(st.floats(-1e6, 1e6), min_size=n, max_size=n))) if sane else draw(
                st.lists(doubles, max_size=n))
            h.bucket_limit.extend(limits)
            h.bucket.extend(draw(st.lists(st.floats(0, 1e9) if sane else doubles, min_size=len(limits),
                                          max_size=len(limits) + (0 if sane else 2))))
            h.min, h.max, h.sum = draw(doubles), draw(doubles), draw(doubles)
        elif kind == "tensor":
            _tensor(draw, value.tensor)
        else:
            value.audio.sample_rate = 8000.0
    return event


@FUZZ
@given(batch=st.lists(events(), min_size=1, max_size=4), data=st.data())
def test_tfevents_decoding_never_raises_beyond_domain_errors(batch: list[tb_event_pb2.Event],
                                                            data: st.DataObject) -> None:
    records = [mutate(event.SerializeToString(), data) for event in batch]
    parsed = parse_tfevents_columns(records, "events.out.tfevents.1.fuzz", list(range(len(records))), TfeventsState())
    TRIED["events"] += len(records)
    TRIED["values"] += sum(len(c) // 3 for c in parsed.scalars.values()) + sum(
        isinstance(i, SummaryValue) for i in parsed.items)
    TRIED["problems"] += len(parsed.problems)
    cache = RunCache("./f", settings_for_tests(histogram_samples=3, image_samples=3))
    cache.add_parsed(parsed)
    answer_everything(cache)
    for col in parsed.scalars.values():
        assert all(isinstance(v, float) or math.isnan(v) for v in col[2::3])


@pytest.fixture(scope="module", autouse=True)
def _fuzz_summary() -> Iterator[None]:
    """What the fuzz test tried, printed when the module is done (`pytest -s`); not a test of its own."""
    yield
    if TRIED["events"]:
        print(f"\nfuzzed tfevents decoding: {TRIED['events']} events tried, {TRIED['values']} values decoded, "
              f"{TRIED['problems']} records refused as bad payloads, 0 unexpected exceptions")
