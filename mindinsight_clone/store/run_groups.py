"""Ranks of one job belong together: runs named `rank_<n>` under one parent directory form a group.

`./job/rank_0 ... ./job/rank_7` -> group `./job` with ranks 0..7; `./rank_0, ./rank_1` (ranks directly
in the base dir) -> group `./`. A group needs at least two ranks; a lone `rank_0` is a plain run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

RANK_NAME = re.compile(r"^rank_(\d{1,9})$")
MIN_GROUP_SIZE = 2


@dataclass(frozen=True, slots=True)
class GroupMember:
    group: str  # the parent's train_id, e.g. "./job/output/summary"
    rank: int
    size: int  # ranks in the group (among the listed runs)

    def as_dict(self) -> dict[str, object]:
        return {"id": self.group, "rank": self.rank, "size": self.size}


def split_rank(train_id: str) -> tuple[str, int] | None:
    """(parent train_id, rank) of a `.../rank_<n>` train_id, else None."""
    if train_id == "./":
        return None
    parent, _, last = train_id.rstrip("/").rpartition("/")
    match = RANK_NAME.match(last)
    if match is None:
        return None
    return (parent + "/" if parent == "." else parent), int(match.group(1))


def rank_groups(train_ids: Iterable[str]) -> dict[str, GroupMember]:
    """train_id -> its group membership, for every run in a group of at least MIN_GROUP_SIZE ranks."""
    by_parent: dict[str, list[tuple[str, int]]] = {}
    for tid in train_ids:
        split = split_rank(tid)
        if split is not None:
            by_parent.setdefault(split[0], []).append((tid, split[1]))
    out: dict[str, GroupMember] = {}
    for parent, members in by_parent.items():
        if len(members) < MIN_GROUP_SIZE:
            continue
        for tid, rank in members:
            out[tid] = GroupMember(parent, rank, len(members))
    return out
