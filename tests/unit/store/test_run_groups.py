"""Rank groups: runs named rank_<n> under one parent belong together."""

from __future__ import annotations

from mindinsight_clone.store.run_groups import rank_groups, split_rank


def test_split_rank() -> None:
    assert split_rank("./job/rank_3") == ("./job", 3)
    assert split_rank("./rank_12") == ("./", 12)
    assert split_rank("./a/b/rank_0/") == ("./a/b", 0)
    assert split_rank("./rank_x") is None
    assert split_rank("./job/rank_1_old") is None
    assert split_rank("./") is None


def test_groups_need_two_ranks_under_the_same_parent() -> None:
    ids = ["./job/rank_0", "./job/rank_1", "./job/rank_2", "./other/rank_0", "./x/rank_5", "./plain",
           "./rank_0", "./rank_1"]
    groups = rank_groups(ids)
    assert {tid: (g.group, g.rank, g.size) for tid, g in groups.items()} == {
        "./job/rank_0": ("./job", 0, 3), "./job/rank_1": ("./job", 1, 3), "./job/rank_2": ("./job", 2, 3),
        "./rank_0": ("./", 0, 2), "./rank_1": ("./", 1, 2),
    }
    assert groups["./job/rank_2"].as_dict() == {"id": "./job", "rank": 2, "size": 3}


def test_same_rank_names_under_different_parents_are_different_groups() -> None:
    groups = rank_groups(["./a/rank_0", "./a/rank_1", "./b/rank_0", "./b/rank_1"])
    assert {g.group for g in groups.values()} == {"./a", "./b"}
