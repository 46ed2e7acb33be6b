"""RunIndex: the train-jobs filters (search, group, collapse_groups) over a listing built once."""

from __future__ import annotations

from pathlib import Path

from mindinsight_clone.ingest.summary_watcher import RunInfo
from mindinsight_clone.store.run_index import RunIndex


def _runs(*ids: str) -> list[RunInfo]:
    return [RunInfo(train_id=tid, path=Path("/x") / tid[2:]) for tid in ids]


# listing order = update time descending; rank_2 of job is its newest member
INDEX = RunIndex.build(_runs("./job/rank_2", "./Alpha", "./job/rank_0", "./exp/rank_1", "./beta",
                             "./job/rank_1", "./exp/rank_0", "./lone/rank_0"))


def ids(runs: list[RunInfo]) -> list[str]:
    return [r.train_id for r in runs]


def test_no_filter_is_the_listing() -> None:
    assert ids(INDEX.select()) == [r.train_id for r in INDEX.runs]


def test_search_is_a_case_insensitive_substring() -> None:
    assert ids(INDEX.select("ALPHA")) == ["./Alpha"]
    assert ids(INDEX.select("rank_0")) == ["./job/rank_0", "./exp/rank_0", "./lone/rank_0"]
    assert INDEX.select("nothing") == []


def test_group_gives_its_ranks_in_rank_order() -> None:
    assert ids(INDEX.select(group="./job")) == ["./job/rank_0", "./job/rank_1", "./job/rank_2"]
    assert ids(INDEX.select("rank_1", group="./job")) == ["./job/rank_1"]
    assert INDEX.select(group="./lone") == []  # one rank is not a group
    assert INDEX.select(group="./nope") == []


def test_collapse_keeps_one_entry_per_group_at_its_newest_member() -> None:
    assert ids(INDEX.select(collapse_groups=True)) == [
        "./job/rank_2", "./Alpha", "./exp/rank_1", "./beta", "./lone/rank_0"]
    # with a search, the newest MATCHING member stands for its group
    assert ids(INDEX.select("rank_0", collapse_groups=True)) == ["./job/rank_0", "./exp/rank_0", "./lone/rank_0"]
