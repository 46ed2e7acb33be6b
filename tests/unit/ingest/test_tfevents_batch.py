"""The vectorised tfevents scalar path (ingest.tfevents_batch) reads exactly what the per-record path
(RecordReader + tfevents_parser) reads: same tags, steps, wall times, values and problems.

    MINDINSIGHT_FUZZ_EXAMPLES=2000 pytest tests/unit/ingest/test_tfevents_batch.py -s   # a longer property run
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.ingest import formats, tfevents_batch
from mindinsight_clone.ingest.record_reader import RecordReader, frame_record
from mindinsight_clone.ingest.tfevents_parser import TfeventsState, is_tfevents_file, parse_tfevents_columns
from mindinsight_clone.proto import tb_event_pb2, tb_types_pb2
from mindinsight_clone.store.loader import RunLoader
from mindinsight_clone.store.point_store import PointRoot
from tests.unit.ingest.tfevents_files import WALL0, tensorboardx_run, tf2_scalar, write_payloads
from tests.unit.store.summary_files import scalar_event, summary_name, write_records

TFX = "tensorboardX"
FILE = "events.out.tfevents.1700000000.host.1.0"


class _Counting:
    """`RecordsParser.read_scalars`, counting the records the vectorised path took."""

    def __init__(self, parser: formats.RecordsParser) -> None:
        self.parser, self.records = parser, 0

    def __call__(self, *args: Any) -> Any:
        end, arrays = self.parser.read_scalars(*args)
        self.records += arrays.records
        return end, arrays


def _load(run: Path, fast: bool, tmp: Path) -> tuple[RunLoader, int]:
    settings = settings_for_tests(summary_base_dir=str(run.parent), workspace=str(tmp / ("f" if fast else "s")),
                                  max_tags_per_run=10_000)
    parser = formats.RecordsParser()
    counting = _Counting(parser)
    loader = RunLoader("./" + run.name, run, settings, formats.parse_event, parse_records=parser,
                       points_root=PointRoot(settings.workspace), read_scalars=counting if fast else None)
    loader.load_pass(sorted(p.name for p in run.iterdir() if is_tfevents_file(p.name)))
    return loader, counting.records


def _rows(samples: list) -> list[tuple]:
    return [(s.step, repr(s.wall_time), repr(s.value), s.source) for s in samples]  # NaN compares by repr


def _same(run: Path, tmp: Path) -> tuple[RunLoader, int]:
    """Load `run` both ways; everything served must be equal. Returns the fast loader and what it took."""
    slow, _ = _load(run, False, tmp)
    fast, taken = _load(run, True, tmp)
    assert fast.cache.all_tags() == slow.cache.all_tags()
    for tag in slow.cache.tags("scalar"):
        assert _rows(fast.cache.samples("scalar", tag)) == _rows(slow.cache.samples("scalar", tag)), tag
        a, b = fast.cache.scalar_window(tag, None, None, 10**7), slow.cache.scalar_window(tag, None, None, 10**7)
        assert a is not None and b is not None
        assert a.steps.tolist() == b.steps.tolist()
        assert np.array_equal(a.wall_times, b.wall_times, equal_nan=True)
        assert np.array_equal(a.values, b.values, equal_nan=True)
    for plugin in ("image", "histogram"):
        for tag in slow.cache.tags(plugin):
            assert ([(s.step, repr(s.wall_time)) for s in fast.cache.samples(plugin, tag)]
                    == [(s.step, repr(s.wall_time)) for s in slow.cache.samples(plugin, tag)])
    assert [(p.offset, p.kind) for p in fast.problems] == [(p.offset, p.kind) for p in slow.problems]
    return fast, taken


def _served(loader: RunLoader, disk_tag: str) -> list[tuple[int, float]]:
    window = loader.cache.scalar_window(disk_tag + "/scalar", None, None, 10**7)
    assert window is not None
    return list(zip(window.steps.tolist(), window.values.tolist(), strict=True))


# ---------------------------------------------------------------------- tensorboardX-written files
def test_tensorboardx_scalars_go_fast_and_match(tmp_path: Path) -> None:
    pytest.importorskip(TFX, reason="tensorboardX (dev extra) writes the tfevents fixtures")
    run = tmp_path / "base" / "run"
    tags = ("loss", "train/accuracy", "lr", "grad_norm/layer_0")
    written = tensorboardx_run(run, range(1, 3001), tags, image_every=10**6, hist_every=10**6, text=False)
    fast, taken = _same(run, tmp_path)
    assert taken >= 0.99 * 3000 * len(tags)  # all but a few records at the start and the end went vectorised
    for tag in tags:
        assert _served(fast, tag) == written.scalars[tag]  # every step exact (float32 values)
    (path,) = written.files
    size = path.stat().st_size
    offsets = RecordReader(path).read().offsets
    assert tfevents_batch.read_scalar_records(path, 0, size, 10**9)[1].records == 0  # the version record first
    end, arrays = tfevents_batch.read_scalar_records(path, offsets[1], size, 10**9, 10**9)
    assert arrays.records == 3000 * len(tags) and end == size
    assert [item[0] for item in arrays.items] == [t + "/scalar" for t in tags]
    assert arrays.arrays["loss/scalar"][0].tolist() == list(range(1, 3001))
    assert arrays.arrays["lr/scalar"][1].tolist() == [WALL0 + s for s in range(1, 3001)]


def test_tensorboardx_mixed_records_match(tmp_path: Path) -> None:
    """Histograms, images and text between the scalars: the fast path takes what it can, the rest is the
    general path's, and the result is the same."""
    pytest.importorskip(TFX, reason="tensorboardX (dev extra) writes the tfevents fixtures")
    run = tmp_path / "base" / "run"
    written = tensorboardx_run(run, range(1, 400), ("loss", "acc", "lr"), image_every=50, hist_every=37)
    fast, taken = _same(run, tmp_path)
    assert taken > 0
    for tag, expected in written.scalars.items():
        assert _served(fast, tag) == expected
    assert [s.step for s in fast.cache.samples("histogram", "weights/histogram")]


def test_tensorboardx_odd_values_big_steps_and_damage(tmp_path: Path) -> None:
    tbx = pytest.importorskip(TFX, reason="tensorboardX (dev extra) writes the tfevents fixtures")
    run = tmp_path / "base" / "run"
    specials = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 3.4e38, 1e-45]
    with tbx.SummaryWriter(logdir=str(run)) as writer:
        for i, step in enumerate([*range(0, 300), *range(2**40, 2**40 + 300), *range(-50, 50), 2**62]):
            writer.add_scalar("ünïcode/标签.x-y", specials[i % len(specials)], step, walltime=WALL0 + i)
            writer.add_scalar("x" * 200, float(i), step, walltime=WALL0 + i)  # a 2-byte tag length varint
    (path,) = run.glob("events.out.tfevents.*")
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0x10  # a damaged record in the middle of a long run of equal layouts
    data[2 * len(data) // 3 + 1] ^= 0x01
    data += data[-60:-7]  # and a record still being written (not a whole record)
    path.write_bytes(bytes(data))
    fast, taken = _same(run, tmp_path)
    assert taken > 1000
    assert fast.problems  # the damage is reported, by the general path
    served = dict(_served(fast, "ünïcode/标签.x-y"))
    specials *= 101  # (index i of the writing loop -> specials[i % 7])
    expected = {s: specials[650 + s] for s in range(-50, 50)} | {2**62: specials[700]}
    assert {s: repr(float(np.float32(v))) for s, v in expected.items()} == {
        s: repr(served[s]) for s in expected}  # (steps 2**40.. came before the restart at -50: not served)


def test_tags_written_at_different_cadences_go_fast(tmp_path: Path) -> None:
    """`loss` every step, `lr` every 10th, `val/acc` every 50th: the period of the layouts is the cycle."""
    tbx = pytest.importorskip(TFX, reason="tensorboardX (dev extra) writes the tfevents fixtures")
    run = tmp_path / "base" / "run"
    written: dict[str, list[tuple[int, float]]] = {}
    with tbx.SummaryWriter(logdir=str(run)) as writer:
        for step in range(1, 5001):
            for tag, every in (("loss", 1), ("lr", 10), ("val/acc", 50)):
                if step % every == 0:
                    value = float(np.float32(math.cos(step * every)))
                    writer.add_scalar(tag, value, step, walltime=WALL0 + step)
                    written.setdefault(tag, []).append((step, value))
    fast, taken = _same(run, tmp_path)
    assert taken >= 0.9 * sum(len(v) for v in written.values())
    for tag, expected in written.items():
        assert _served(fast, tag) == expected


# ---------------------------------------------------------------------- TF2-style tensor scalars
def _tf2_payloads(steps: range, tags: tuple[str, ...], plugin_of: dict[str, str], describe: bool = True
                  ) -> list[bytes]:
    """TF2-style scalar tensors, one per event; `describe`: metadata on each tag's first value."""
    out = [tb_event_pb2.Event(wall_time=WALL0, file_version="brain.Event:2").SerializeToString()]
    for n, step in enumerate(steps):
        for i, tag in enumerate(tags):
            ev = tb_event_pb2.Event(wall_time=WALL0 + step * 0.5, step=step)
            first = describe and n == 0
            tf2_scalar(ev, tag, float(np.float32(math.sin(step + i))), first=first)
            if first and plugin_of.get(tag):
                ev.summary.value[0].metadata.plugin_data.plugin_name = plugin_of[tag]
            out.append(ev.SerializeToString())
    return out


def test_tf2_tensor_scalars_go_fast_only_when_their_plugin_says_scalars(tmp_path: Path) -> None:
    run = tmp_path / "base" / "run"
    tags = ("epoch_loss", "custom_metric", "epoch_accuracy")
    payloads = _tf2_payloads(range(1, 100), tags, {"custom_metric": "my_plugin"})
    payloads += _tf2_payloads(range(100, 3000), ("epoch_loss", "epoch_accuracy"), {}, describe=False)[1:]
    # rank-0 float tensors of a tag whose metadata named another plugin: the per-record path does not show them
    payloads += _tf2_payloads(range(3000, 3400), ("custom_metric",), {}, describe=False)[1:]
    write_payloads(run / FILE, payloads)
    fast, taken = _same(run, tmp_path)
    # the general path takes the described first step and, after the mixed part, a chunk of what follows
    assert 2 * 2000 <= taken <= 2 * 2900
    assert sorted(fast.cache.tags("scalar")) == ["epoch_accuracy/scalar", "epoch_loss/scalar"]
    assert _served(fast, "epoch_loss") == [(s, float(np.float32(math.sin(s)))) for s in range(1, 3000)]


def _tensor_scalar_file(path: Path, how: dict[str, str], steps: range) -> Path:
    payloads = []
    for step in steps:
        for tag, kind in how.items():  # one value per event, as TF2 writes
            ev = tb_event_pb2.Event(wall_time=WALL0 + step, step=step)
            v = ev.summary.value.add(tag=tag)
            if kind == "shape":  # TensorFlow's C++ writer sets an empty tensor_shape
                v.tensor.dtype = tb_types_pb2.DT_FLOAT
                v.tensor.tensor_shape.SetInParent()
                v.tensor.tensor_content = np.float32(step / 7).tobytes()
            elif kind == "float_val":
                v.tensor.dtype = tb_types_pb2.DT_FLOAT
                v.tensor.float_val.append(step / 3)
            else:
                v.tensor.dtype = tb_types_pb2.DT_DOUBLE
                v.tensor.double_val.append(step / 3)
            payloads.append(ev.SerializeToString())
    return write_payloads(path, payloads)


def test_tf2_tensor_layouts_with_shape_and_float_val(tmp_path: Path) -> None:
    run = tmp_path / "base" / "run"
    _tensor_scalar_file(run / FILE, {"shaped": "shape", "listed": "float_val"}, range(1, 300))
    fast, taken = _same(run, tmp_path)
    assert taken >= 0.9 * 2 * 299  # all but the first KB, which the general path reads first
    assert [s for s, _ in _served(fast, "shaped")] == list(range(1, 300))
    assert _served(fast, "listed")[:2] == [(1, float(np.float32(1 / 3))), (2, float(np.float32(2 / 3)))]


def test_other_tensor_dtypes_are_left_to_the_general_path(tmp_path: Path) -> None:
    run = tmp_path / "base" / "run"
    _tensor_scalar_file(run / FILE, {"shaped": "shape", "double": "double"}, range(1, 300))
    fast, taken = _same(run, tmp_path)
    assert taken == 0  # every step's cycle holds a DT_DOUBLE tensor: not a layout the fast path knows
    assert _served(fast, "double")[0] == (1, 1 / 3)
    assert len(_served(fast, "shaped")) == 299


def test_without_plugin_memory_tensors_are_left_to_the_general_path(tmp_path: Path) -> None:
    path = write_payloads(tmp_path / FILE, _tf2_payloads(range(1, 200), ("a",), {})[2:])  # no metadata at all
    assert tfevents_batch.read_scalar_records(path, 0, 10**9, 10**9)[1].records == 0
    end, arrays = tfevents_batch.read_scalar_records(path, 0, 10**9, 10**9, plugins={})
    assert arrays.records == 198 and end == path.stat().st_size


# ---------------------------------------------------------------------- property: any mix, any damage
TRIED = {"files": 0, "fast_files": 0, "fast_records": 0, "damaged_files": 0, "decoded": 0}
_floats = st.floats(width=32, allow_nan=True, allow_infinity=True)
_tags = st.sampled_from(["loss", "", "a/b", "ü标", "t" * 130, "lr"])


@st.composite
def _event_runs(draw: Any) -> list[bytes]:
    """Runs of repeating steps (what fast paths see) mixed with odd records, as payloads."""
    payloads = [tb_event_pb2.Event(wall_time=WALL0, file_version="brain.Event:2").SerializeToString()]
    for _ in range(draw(st.integers(1, 4))):
        tags = draw(st.lists(_tags, min_size=1, max_size=4))
        per_event = draw(st.sampled_from([1, 1, 1, 2]))
        cadence = draw(st.lists(st.sampled_from([1, 1, 2, 5]), min_size=len(tags), max_size=len(tags)))
        tensor = draw(st.booleans())
        step0 = draw(st.sampled_from([0, 1, 120, 2**20, 2**62, -(2**40)]))
        wall0 = draw(st.sampled_from([0.0, WALL0, float("nan")]))
        for step in range(step0, step0 + draw(st.integers(1, 100) if draw(st.booleans()) else st.integers(20, 100))):
            now = [t for t, every in zip(tags, cadence, strict=True) if step % every == 0]
            for i in range(0, len(now), per_event):
                ev = tb_event_pb2.Event(wall_time=wall0 + step, step=step)
                for tag in now[i:i + per_event]:
                    v = ev.summary.value.add(tag=tag)
                    if tensor:
                        v.tensor.dtype = tb_types_pb2.DT_FLOAT
                        v.tensor.tensor_content = np.float32(draw(_floats)).tobytes()
                    else:
                        v.simple_value = draw(_floats)
                payloads.append(ev.SerializeToString())
        odd = draw(st.sampled_from(["none", "none", "metadata", "histogram", "empty"]))
        if odd == "metadata":  # names a plugin for a tag: its later tensors are not scalars
            ev = tb_event_pb2.Event(wall_time=WALL0, step=1)
            v = ev.summary.value.add(tag=tags[0])
            v.metadata.plugin_data.plugin_name = draw(st.sampled_from(["scalars", "other"]))
            v.tensor.dtype = tb_types_pb2.DT_FLOAT
            v.tensor.tensor_content = np.float32(1).tobytes()
            payloads.append(ev.SerializeToString())
        elif odd == "histogram":
            ev = tb_event_pb2.Event(wall_time=WALL0, step=3)
            h = ev.summary.value.add(tag="h").histo
            h.min, h.max, h.bucket_limit[:], h.bucket[:] = 0.0, 1.0, [0.5, 1.0], [1.0, 2.0]
            payloads.append(ev.SerializeToString())
        elif odd == "empty":
            payloads.append(tb_event_pb2.Event(wall_time=WALL0, step=5).SerializeToString())
    return payloads


@settings(max_examples=int(os.environ.get("MINDINSIGHT_FUZZ_EXAMPLES", "100")), deadline=None, suppress_health_check=list(HealthCheck))
@given(payloads=_event_runs(), data=st.data())
def test_any_mix_of_records_and_damage_reads_the_same_both_ways(tmp_path_factory: pytest.TempPathFactory,
                                                                payloads: list[bytes], data: st.DataObject) -> None:
    tmp = tmp_path_factory.mktemp("prop")
    run = tmp / "base" / "run"
    path = write_payloads(run / FILE, payloads)
    raw = bytearray(path.read_bytes())
    for _ in range(data.draw(st.integers(0, 2))):  # flip bits anywhere: headers, payloads, CRCs
        raw[data.draw(st.integers(0, len(raw) - 1))] ^= 1 << data.draw(st.integers(0, 7))
    raw = raw[:data.draw(st.sampled_from([len(raw), len(raw), max(len(raw) - 5, 0)]))]  # a partial last record
    path.write_bytes(bytes(raw))
    fast, taken = _same(run, tmp)
    TRIED["decoded"] += _decoder_matches_parser(path)
    TRIED["files"] += 1
    TRIED["fast_files"] += taken > 0
    TRIED["fast_records"] += taken
    TRIED["damaged_files"] += bool(fast.problems)


def _decoder_matches_parser(path: Path) -> int:
    """Walk the file as the loader does (the decoder where it takes records, else one record the general way):
    what the decoder takes equals what the parser makes of the same records. Returns the records it took."""
    reader, records, offsets, problems = RecordReader(path), [], [], []
    while True:
        result = reader.read()
        records += result.records
        offsets += result.offsets
        problems += result.problems
        if not result.more or result.stopped:
            break
    state, size, took, i = TfeventsState(), path.stat().st_size, 0, 0
    while i < len(offsets):
        start = offsets[i]
        end, arrays = tfevents_batch.read_scalar_records(path, start, size, 10**9, 8192, state.plugins)
        if end == start:
            assert arrays.records == 0 and not arrays.arrays
            parse_tfevents_columns(records[i:i + 1], path.name, offsets[i:i + 1], state)
            i += 1
            continue
        taken = [k for k, o in enumerate(offsets) if start <= o < end]
        assert taken == list(range(i, i + len(taken))) and arrays.records == len(taken)
        assert not [p for p in problems if start <= p.offset < end]
        last = taken[-1]
        assert end == offsets[last] + len(frame_record(records[last]))  # it stops right after a record it took
        parsed = parse_tfevents_columns(records[i:last + 1], path.name, offsets[i:last + 1], state)
        assert not parsed.problems and sorted(arrays.arrays) == sorted(parsed.scalars)
        for tag, (steps, walls, values) in arrays.arrays.items():
            col = parsed.scalars[tag]
            assert steps.tolist() == col[0::3]
            assert np.array_equal(walls, np.array(col[1::3], dtype=np.float64), equal_nan=True)
            assert np.array_equal(values, np.array(col[2::3], dtype=np.float64), equal_nan=True)
        took += len(taken)
        i = last + 1
    return took


@pytest.fixture(scope="module", autouse=True)
def _property_summary() -> Iterator[None]:
    """What the property test tried, printed when the module is done (`pytest -s`); not a test of its own."""
    yield
    if TRIED["files"]:
        print(f"\ntfevents fast path vs general path: {TRIED['files']} generated files equal both ways; the loader's "
              f"fast path took {TRIED['fast_records']} records in {TRIED['fast_files']} of them; the decoder alone took "
              f"{TRIED['decoded']} records; {TRIED['damaged_files']} files had problems reported")


def test_records_parser_picks_the_reader_of_each_format(tmp_path: Path) -> None:
    """One run may hold both formats: MindSpore files go to scalar_batch, TensorBoard files to tfevents_batch,
    which never takes the other format's records."""
    ms = write_records(tmp_path / summary_name(1), [scalar_event(s, {"loss": s / 2}) for s in range(1, 200)])
    tb = write_payloads(tmp_path / FILE, _tf2_payloads(range(1, 200), ("loss",), {}, describe=False)[1:])
    parser = formats.RecordsParser()
    for path in (ms, tb):
        end, arrays = parser.read_scalars(path, 0, path.stat().st_size, 10**9)
        assert end == path.stat().st_size and arrays.records == 199
        assert arrays.arrays["loss/scalar"][0].tolist() == list(range(1, 200))
    assert tfevents_batch.read_scalar_records(ms, 0, ms.stat().st_size, 10**9, plugins={})[1].records == 0


def _simple_payloads(steps: range, tags: tuple[str, ...]) -> list[bytes]:
    out = []
    for step in steps:
        for i, tag in enumerate(tags):
            ev = tb_event_pb2.Event(wall_time=WALL0 + step, step=step)
            ev.summary.value.add(tag=tag, simple_value=float(np.float32(step * 0.5 + i)))
            out.append(ev.SerializeToString())
    return out


def test_a_growing_file_is_read_the_same_both_ways(tmp_path: Path) -> None:
    """Appends between passes, one of them cut in the middle of a record (a writer mid-flush)."""
    run = tmp_path / "base" / "run"
    path = write_payloads(run / FILE, [tb_event_pb2.Event(wall_time=WALL0, file_version="brain.Event:2")
                                       .SerializeToString(), *_simple_payloads(range(1, 1000), ("a", "b"))])
    loaders = [_load(run, fast, tmp_path)[0] for fast in (False, True)]
    counting = loaders[1].read_scalars
    assert isinstance(counting, _Counting)
    first_pass = counting.records
    more = b"".join(frame_record(p) for p in _simple_payloads(range(1000, 3000), ("a", "b")))
    cut = len(more) // 2 + 7
    for chunk in (more[:cut], more[cut:]):
        with path.open("ab") as f:
            f.write(chunk)
        for loader in loaders:
            loader.load_pass([FILE])
        slow, fast = loaders
        for tag in ("a/scalar", "b/scalar"):
            a, b = fast.cache.scalar_window(tag, None, None, 10**7), slow.cache.scalar_window(tag, None, None, 10**7)
            assert a is not None and b is not None
            assert a.steps.tolist() == b.steps.tolist() and a.values.tolist() == b.values.tolist()
        assert [(p.offset, p.kind) for p in fast.problems] == [(p.offset, p.kind) for p in slow.problems]
    assert _served(loaders[1], "b") == [(s, float(np.float32(s * 0.5 + 1))) for s in range(1, 3000)]
    assert not loaders[1].problems  # the cut record was completed by the second append
    assert counting.records - first_pass >= 2 * 2000 // 2  # most appended steps went vectorised


@pytest.mark.parametrize("record", [0, 1, 2])
def test_a_bad_payload_crc_in_any_record_of_a_row_stops_the_fast_path_at_that_row(tmp_path: Path, record: int) -> None:
    """Rows of three records each (three tags per step): the payload CRCs of all of them are checked at once; a
    bad one in the row's first, middle or last record ends the vectorised part at that row, never past it, and
    both paths then report the same damage."""
    tags = ("loss", "acc", "learning_rate")
    payloads = [tb_event_pb2.Event(wall_time=WALL0, file_version="brain.Event:2").SerializeToString()]
    for step in range(1, 201):
        for i, tag in enumerate(tags):
            ev = tb_event_pb2.Event(wall_time=WALL0 + step, step=step)
            ev.summary.value.add(tag=tag, simple_value=step + i / 10)
            payloads.append(ev.SerializeToString())
    run = tmp_path / "base" / "run"
    path = write_payloads(run / FILE, payloads)
    offsets = RecordReader(path).read().offsets
    bad_row = 150
    damaged = offsets[1 + bad_row * len(tags) + record]  # the record's header: length, length CRC, payload
    nxt = offsets[2 + bad_row * len(tags) + record]
    raw = bytearray(path.read_bytes())
    raw[nxt - 1] ^= 0x40  # its stored payload CRC (the last 4 bytes of the record)
    path.write_bytes(bytes(raw))
    end, arrays = tfevents_batch.read_scalar_records(path, offsets[1], len(raw), 10**9, 10**9)
    assert offsets[1] < end <= damaged  # stopped at (or before) the damaged record's row
    assert end == offsets[1 + bad_row * len(tags)]  # ... exactly at the start of that row
    assert arrays.records == bad_row * len(tags)
    fast, _ = _same(run, tmp_path)
    assert fast.problems  # the damage is reported, the same both ways (_same)


def test_a_thousand_tags_per_step_go_fast_across_blocks(tmp_path: Path) -> None:
    """An LLM monitor's step is 1,000 records (issue 32): the cycle is found however many records it has (bounded
    in bytes, not records), later blocks reuse it, and the result is what the general path reads."""
    run = tmp_path / "base" / "run"
    tags = tuple(f"local_norm/layer_{i}/weight" for i in range(1000))
    version = tb_event_pb2.Event(wall_time=WALL0, file_version="brain.Event:2").SerializeToString()
    write_payloads(run / FILE, [version, *_simple_payloads(range(1, 121), tags)])
    fast, taken = _same(run, tmp_path)
    assert taken >= 0.95 * 120 * len(tags)  # several 4 MB blocks of ~60 steps, each taken vectorised
    assert _served(fast, tags[-1]) == [(s, float(np.float32(s * 0.5 + 999))) for s in range(1, 121)]
