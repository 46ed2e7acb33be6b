"""The vectorised scalar path reads exactly what the general path (RecordReader + protobuf) reads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.ingest import event_parser, scalar_batch
from mindinsight_clone.ingest.record_reader import frame_record
from mindinsight_clone.store.loader import RunLoader
from mindinsight_clone.store.point_store import PointRoot
from tests.conftest import FIXTURES, require_shared
from tests.unit.store.summary_files import histogram_event, scalar_event, summary_name, version_event, write_records


def _load(run: Path, fast: bool, tmp: Path) -> RunLoader:
    settings = settings_for_tests(summary_base_dir=str(run.parent), workspace=str(tmp / ("f" if fast else "s")))
    loader = RunLoader("./" + run.name, run, settings, event_parser.parse_summary_event,
                       parse_records=event_parser.parse_summary_columns, points_root=PointRoot(settings.workspace),
                       read_scalars=scalar_batch.read_scalar_records if fast else None)
    files = sorted(p.name for p in run.iterdir())
    loader.load_pass(files)
    return loader


def _rows(samples: list) -> list[tuple]:
    return [(s.step, s.wall_time, repr(s.value), s.source) for s in samples]  # NaN compares by repr


def _same(run: Path, tmp: Path) -> RunLoader:
    slow, fast = _load(run, False, tmp), _load(run, True, tmp)
    assert fast.cache.all_tags() == slow.cache.all_tags()
    for tag in slow.cache.tags("scalar"):
        assert _rows(fast.cache.samples("scalar", tag)) == _rows(slow.cache.samples("scalar", tag)), tag
        a, b = fast.cache.scalar_window(tag, None, None, 10**6), slow.cache.scalar_window(tag, None, None, 10**6)
        assert a is not None and b is not None
        assert a.steps.tolist() == b.steps.tolist() and a.wall_times.tolist() == b.wall_times.tolist()
        assert np.array_equal(a.values, b.values, equal_nan=True)
        fs, ss = fast.cache.scalar_stats(tag), slow.cache.scalar_stats(tag)
        assert fs is not None and ss is not None
        # the envelope's bucket grid depends on how reads were chunked; what it accounts for does not
        fe, se = fs.pop("envelope"), ss.pop("envelope")
        assert fs == ss and sum(b["count"] for b in fe) == sum(b["count"] for b in se)
    assert [(p.offset, p.kind) for p in fast.problems] == [(p.offset, p.kind) for p in slow.problems]
    return fast


def _events(steps: range, tags: tuple[str, ...] = ("loss", "lr", "acc"), scale: float = 1.0) -> list[bytes]:
    return [scalar_event(s, {t: float(np.float32(np.sin(s * (i + 1)) * scale)) for i, t in enumerate(tags)},
                         wall_time=1.7e9 + s * 0.25) for s in steps]


def test_plain_run_goes_fast_and_matches(tmp_path: Path) -> None:
    run = tmp_path / "base" / "run"
    write_records(run / summary_name(1), [version_event(), *_events(range(0, 40_000))])
    _, arrays = scalar_batch.read_scalar_records(run / summary_name(1), 0, 10**9, 10**9)
    assert arrays.records == 0  # the version event first: the general path takes it
    start = len(frame_record(version_event()))
    end, arrays = scalar_batch.read_scalar_records(run / summary_name(1), start, 10**9, 10**9)
    assert arrays.records == 40_000 and end == (run / summary_name(1)).stat().st_size  # all taken vectorised
    assert arrays.arrays["loss/scalar"][0].tolist() == list(range(40_000))
    _same(run, tmp_path)


def test_mixed_layouts_damage_and_tail_match(tmp_path: Path) -> None:
    run = tmp_path / "base" / "run"
    rng = np.random.default_rng(1)
    payloads = [version_event(), *_events(range(1, 3000))]
    payloads += _events(range(3000, 5000), tags=("loss", "lr", "acc", "grad_norm"))  # a tag appears
    payloads += [histogram_event(5000, "w", rng.standard_normal(50))]  # another kind in between
    payloads += _events(range(5001, 9000), tags=("loss", "loss"))  # the same tag twice in one event
    payloads += _events(range(-5, 100), scale=1e30)  # a restart, negative steps, huge values
    nan = [scalar_event(s, {"loss": float("nan"), "lr": float("inf")}) for s in range(9000, 9200)]
    payloads += nan
    path = write_records(run / summary_name(1), payloads)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one damaged payload in the middle of a long run of equal records
    data += frame_record(_events(range(9200, 9201))[0])[:-7]  # and a record still being written
    path.write_bytes(bytes(data))
    fast = _same(run, tmp_path)
    assert any(p.kind == "payload_crc" for p in fast.problems)


def test_stats_asked_between_reads_count_every_value_once(tmp_path: Path) -> None:
    """The vectorised path leaves its rows out of a tag's stats until they are asked for; asked between two reads
    of a growing file, then after a restart (the careful path truncates the stored rows), they count every value
    once, as the general path does."""
    run = tmp_path / "base" / "run"
    path = write_records(run / summary_name(1), [version_event(), *_events(range(0, 3000))])
    fast = _load(run, True, tmp_path / "grow")
    first = fast.cache.scalar_stats("loss/scalar")
    assert first is not None and first["count"] == 3000 and first["last_step"] == 2999
    write_records(path, [*_events(range(3000, 5000)), *_events(range(1000, 1500), scale=7.0)], mode="ab")
    fast.load_pass([path.name])
    slow = _load(run, False, tmp_path / "whole")
    for tag in ("loss/scalar", "lr/scalar", "acc/scalar"):
        got, want = fast.cache.scalar_stats(tag), slow.cache.scalar_stats(tag)
        assert got is not None and want is not None
        assert got.pop("envelope") and want.pop("envelope")
        assert got == want and got["count"] == 5500 and got["last_step"] == 1499


def test_stats_over_stored_rows_cut_under_the_server_are_logged_not_raised(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    run = tmp_path / "base" / "run"
    write_records(run / summary_name(1), [version_event(), *_events(range(0, 20_000))])  # past SPILL_ROWS: on disk
    fast = _load(run, True, tmp_path / "cut")
    series = fast.cache.points.get("loss/scalar")
    assert series is not None and series.count == 20_000 and series.on_disk
    Path(series._path).write_bytes(b"")  # the workspace file cut behind the server's back
    with caplog.at_level("WARNING"):
        stats = fast.cache.scalar_stats("loss/scalar")
    assert stats is not None and stats["count"] == 0
    assert any("unreadable, not counted in its stats" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("layout_break", ["step_varint_grows", "tag_renamed"])
def test_rows_that_differ_in_structure_are_not_misread(tmp_path: Path, layout_break: str) -> None:
    run = tmp_path / "base" / "run"
    if layout_break == "step_varint_grows":  # same total length, step one byte longer, tag one shorter
        payloads = _events(range(100, 128), tags=("abcd",)) + _events(range(128, 400), tags=("abc",))
    else:
        payloads = _events(range(1, 200), tags=("abcd",)) + _events(range(200, 400), tags=("abce",))
    write_records(run / summary_name(1), [version_event(), *payloads])
    _same(run, tmp_path)


def test_mindspore_written_runs_read_the_same_both_ways(tmp_path: Path) -> None:
    """Every MindSpore-written run of ../shared: the loader with the vectorised path equals the general one."""
    fixtures = require_shared(FIXTURES)
    runs = [p for p in sorted(fixtures.iterdir()) if p.is_dir() and any(p.glob("*summary.*_MS"))]
    assert runs
    for run in runs:
        _same(run, tmp_path / run.name)


def test_our_writer_reads_back_like_mindspore(tmp_path: Path) -> None:
    """The benchmark corpora come from our writer: its scalar events decode (vectorised) to what MindSpore's
    summary_ops run wrote, value for value, when it writes the same steps, tags and values."""
    fixtures = require_shared(FIXTURES)
    real = _load(fixtures / "summary_ops", False, tmp_path / "real")
    tags = real.cache.tags("scalar")
    assert tags
    from mindinsight_clone.summary import SummaryWriter

    run = tmp_path / "base" / "ours"
    points = {t: real.cache.scalar_window(t, None, None, 10**6) for t in tags}
    by_step: dict[int, list[tuple[str, float]]] = {}
    for t, w in points.items():
        assert w is not None
        for s, v in zip(w.steps.tolist(), w.values.tolist(), strict=True):
            by_step.setdefault(s, []).append((t.removesuffix("/scalar"), v))
    with SummaryWriter(run, timestamp=1_795_000_000) as writer:
        for s in sorted(by_step):
            for tag, v in by_step[s]:
                writer.add_scalar(tag, v, s)
    ours = _same(run, tmp_path / "ours")
    assert ours.cache.tags("scalar") == tags
    for t, w in points.items():
        mine = ours.cache.scalar_window(t, None, None, 10**6)
        assert w is not None and mine is not None
        assert mine.steps.tolist() == w.steps.tolist()
        assert np.array_equal(mine.values, w.values, equal_nan=True)


def test_layouts_remembered_across_files_never_mix_tags(tmp_path: Path) -> None:
    """A layout is reused for another file's records only when they equal its template at every fixed byte:
    same-length tags (`loss`/`lost`), another step width or another tag order get layouts of their own."""
    cases = {"a": ("loss", "acc"), "b": ("lost", "acc"), "c": ("acc", "loss"), "d": ("loss", "acc")}
    for name, tags in cases.items():
        write_records(tmp_path / name / summary_name(1), [version_event(), *_events(range(100, 300), tags)])
    for name, tags in cases.items():
        _, arrays = scalar_batch.read_scalar_records(tmp_path / name / summary_name(1), 0, 10**9, 10**9)
        assert arrays.records == 0  # the version event first
        offset = len(frame_record(version_event()))
        end, arrays = scalar_batch.read_scalar_records(tmp_path / name / summary_name(1), offset, 10**9, 10**9)
        assert end == (tmp_path / name / summary_name(1)).stat().st_size
        assert sorted(arrays.arrays) == sorted(f"{t}/scalar" for t in tags), name
        for i, tag in enumerate(tags):  # each value under its own tag, as _events wrote it
            steps, _, values = arrays.arrays[f"{tag}/scalar"]
            assert steps.tolist() == list(range(100, 300))
            assert values.tolist() == [float(np.float32(np.sin(s * (i + 1)))) for s in range(100, 300)], name
        _same(tmp_path / name, tmp_path / f"ws-{name}")


def test_a_thousand_tags_per_step_go_fast_through_the_loader(tmp_path: Path) -> None:
    """MindSpore writes a step's 1,000 tags as one 20 KB record (issue 32): the loader's first probe holds too few of
    them, the reader says how many bytes it wants, and every record is then taken vectorised, as the general path
    reads them."""
    run = tmp_path / "base" / "run"
    tags = tuple(f"local_norm/layer_{i}/weight" for i in range(1000))
    write_records(run / summary_name(1), [version_event(), *_events(range(300), tags)])
    taken = 0

    def counting(*args: object, **kwargs: object) -> tuple[int, scalar_batch.ScalarArrays]:
        nonlocal taken
        end, arrays = scalar_batch.read_scalar_records(*args, **kwargs)  # type: ignore[arg-type]
        taken += arrays.records
        return end, arrays

    loaders = []
    for fast in (False, True):
        settings = settings_for_tests(summary_base_dir=str(run.parent), workspace=str(tmp_path / f"w{fast}"),
                                      max_tags_per_run=2000)
        loader = RunLoader("./run", run, settings, event_parser.parse_summary_event,
                           parse_records=event_parser.parse_summary_columns, points_root=PointRoot(settings.workspace),
                           read_scalars=counting if fast else None)
        loader.load_pass([summary_name(1)])
        loaders.append(loader)
    assert taken == 300  # every step after the version event
    slow, quick = loaders
    assert len(quick.cache.tags("scalar")) == 1000
    for tag in (f"{tags[0]}/scalar", f"{tags[-1]}/scalar"):
        assert _rows(quick.cache.samples("scalar", tag)) == _rows(slow.cache.samples("scalar", tag))
