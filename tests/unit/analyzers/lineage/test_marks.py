from __future__ import annotations

from mindinsight_clone.analyzers.lineage.files import parse_events
from mindinsight_clone.analyzers.lineage.marks import assign_marks
from mindinsight_clone.analyzers.lineage.record import RunLineage, merge
from tests.unit.analyzers.lineage.builders import graph_event, train_event


def _run(name: str, ts: int, batch: int) -> RunLineage:
    run = merge(name, 0.0, [parse_events(f"e.summary.{ts}.0.h_lineage", [graph_event(batch), train_event()])])
    assert run is not None
    return run


def test_identical_graphs_share_a_mark_starting_at_2() -> None:
    runs = [_run("./new", 30, 8), _run("./mid", 20, 4), _run("./old", 10, 8)]
    assert assign_marks(runs) == {"./old": "2", "./mid": "3", "./new": "2"}


def test_marks_do_not_break_after_nine() -> None:
    runs = [_run(f"./r{i:02d}", i, batch=i + 1) for i in range(15)]
    marks = assign_marks(runs)
    assert sorted(marks.values(), key=int) == [str(i) for i in range(2, 17)]
    assert len(set(marks.values())) == 15


def test_a_newer_run_does_not_renumber_older_ones() -> None:
    runs = [_run(f"./r{i}", i, batch=i + 1) for i in range(12)]
    before = assign_marks(runs)
    after = assign_marks([*runs, _run("./latest", 99, batch=500)])
    assert all(after[k] == v for k, v in before.items())
    assert after["./latest"] == "14"
    assert assign_marks(list(reversed(runs))) == before  # input order does not matter
