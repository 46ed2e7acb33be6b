"""The run listing as the train-jobs queries need it, built once per rescan (not per request).

With 10,000 runs a request must not walk the registry more than once: the listing order, the
case-folded ids for `search`, each rank group's members (by rank) and the collapsed listing (one
entry per group) are computed here when the run list changes, and requests only read them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mindinsight_clone.ingest.summary_watcher import RunInfo
from mindinsight_clone.store.run_groups import GroupMember, rank_groups


@dataclass(frozen=True)
class RunIndex:
    runs: tuple[RunInfo, ...] = ()  # listing order: update time descending
    folded: tuple[str, ...] = ()  # casefolded train_ids, same order (for `search`)
    groups: dict[str, GroupMember] = field(default_factory=dict)  # train_id -> its rank group
    members: dict[str, tuple[RunInfo, ...]] = field(default_factory=dict)  # group id -> ranks, by rank
    collapsed: tuple[int, ...] = ()  # positions in `runs` of one entry per group (its newest member)

    @classmethod
    def build(cls, runs: Sequence[RunInfo]) -> RunIndex:
        ordered = tuple(runs)
        groups = rank_groups(r.train_id for r in ordered)
        members: dict[str, list[RunInfo]] = {}
        collapsed: list[int] = []
        for i, run in enumerate(ordered):
            group = groups.get(run.train_id)
            if group is None:
                collapsed.append(i)
                continue
            if group.group not in members:
                collapsed.append(i)
                members[group.group] = []
            members[group.group].append(run)
        by_rank = {gid: tuple(sorted(rs, key=lambda r: groups[r.train_id].rank)) for gid, rs in members.items()}
        return cls(ordered, tuple(r.train_id.casefold() for r in ordered), groups, by_rank, tuple(collapsed))

    def select(self, search: str | None = None, group: str | None = None,
               collapse_groups: bool = False) -> list[RunInfo]:
        """The runs matching `search` (case-insensitive substring of the train_id): of `group` only (by
        rank), or with `collapse_groups` one per group (its most recently updated matching member)."""
        needle = search.casefold() if search else ""
        if group is not None:
            ranks = self.members.get(group, ())
            return [r for r in ranks if needle in r.train_id.casefold()] if needle else list(ranks)
        if not needle:
            return [self.runs[i] for i in self.collapsed] if collapse_groups else list(self.runs)
        hits = [self.runs[i] for i, f in enumerate(self.folded) if needle in f]
        if not collapse_groups:
            return hits
        seen: set[str] = set()
        out = []
        for run in hits:
            g = self.groups.get(run.train_id)
            if g is not None:
                if g.group in seen:
                    continue
                seen.add(g.group)
            out.append(run)
        return out


SORT_KEYS = ("train_id", "create_time", "update_time")


def sort_runs(runs: list[RunInfo], key: str, descending: bool = False) -> list[RunInfo]:
    """`runs` ordered by `key` (one of SORT_KEYS); equal values by train_id, in the same direction."""
    if key == "train_id":
        return sorted(runs, key=lambda r: r.train_id, reverse=descending)
    if key == "create_time":
        return sorted(runs, key=lambda r: (r.create_time, r.train_id), reverse=descending)
    return sorted(runs, key=lambda r: (r.update_time, r.train_id), reverse=descending)
