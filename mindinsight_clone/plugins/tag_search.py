"""Search and page one run's tags of one plugin on the server, grouped by prefix (issue 32).

A large-model run writes thousands of scalar tags (`local_norm/layer_3/attn`, `expert_load/layer_12/expert_7`):
the page lists them virtualised and asks for one page of the matches at a time, with the prefix groups below a
prefix and their counts (`local_norm/` 4,000, `expert_load/` 4,096; under `expert_load/`: `layer_12/` 64, ...).

Matching is case-insensitive, as the page's tag filter (frontend/src/lib/tagFilter.ts, TensorBoard's):
`q` is a substring; `regex` is a regular expression, run with the `regex` module's time limit because the
pattern comes from a URL anyone can send: a pattern that does not compile is matched as plain text (`invalid`),
one that runs past the limit over all tags is matched as plain text instead (`slow`). Groups are taken from the
tag without its MindInsight plugin suffix (`loss/scalar` -> `loss`), so `loss/scalar` is a tag, not a group.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MATCH_BUDGET_S = 0.5  # all tags of one request together (the page's worker allows 1 s)
MAX_PATTERN_CHARS = 256


@dataclass(frozen=True)
class TagQuery:
    substring: str | None = None
    pattern: str | None = None  # regular expression
    prefix: str = ""  # only tags under this prefix (e.g. "expert_load/"), groups one level below it
    offset: int = 0
    limit: int = 100
    groups: bool = False


def _bare(tag: str, plugin: str) -> str:
    suffix = f"/{plugin}"
    return tag[: -len(suffix)] if tag.endswith(suffix) and len(tag) > len(suffix) else tag


def _plain(tags: list[str], text: str) -> list[str]:
    low = text.lower()
    return [t for t in tags if low in t.lower()]


def search_within_budget(compiled: Any, texts: Sequence[str]) -> list[Any]:
    """`compiled.search(text)` of each text, MATCH_BUDGET_S for all of them together; TimeoutError past it."""
    deadline = time.monotonic() + MATCH_BUDGET_S
    out = []
    for text in texts:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        out.append(compiled.search(text, timeout=left))
    return out


def _regex_matches(tags: list[str], pattern: str) -> tuple[list[str], bool, bool]:
    """(matches, invalid, slow): a pattern that does not compile or runs past MATCH_BUDGET_S is plain text."""
    import regex  # here: the `regex` module's import (~8 ms) is paid by the first pattern, not by every start

    try:
        compiled = regex.compile(pattern, regex.IGNORECASE | regex.V0)
    except (regex.error, ValueError, OverflowError, RecursionError):
        return _plain(tags, pattern), True, False
    try:
        found = search_within_budget(compiled, tags)
    except TimeoutError:
        return _plain(tags, pattern), False, True
    return [tag for tag, match in zip(tags, found, strict=True) if match is not None], False, False


def prefix_groups(bare_tags: list[str], prefix: str) -> list[dict[str, Any]]:
    """The groups one level below `prefix` among `bare_tags` (all start with it): [{prefix, count}], sorted."""
    counts: dict[str, int] = {}
    start = len(prefix)
    for tag in bare_tags:
        cut = tag.find("/", start)
        if cut >= 0:
            head = tag[: cut + 1]
            counts[head] = counts.get(head, 0) + 1
    return [{"prefix": head, "count": counts[head]} for head in sorted(counts)]


def search_tags(tags: list[str], plugin: str, query: TagQuery) -> dict[str, Any]:
    """One page of the tags matching `query` (in the order given), their count, and the prefix groups."""
    invalid = slow = False
    matched = tags
    if query.prefix:
        matched = [t for t in matched if _bare(t, plugin).startswith(query.prefix)]
    if query.substring:
        matched = _plain(matched, query.substring)
    if query.pattern:
        matched, invalid, slow = _regex_matches(matched, query.pattern)
    out: dict[str, Any] = {
        "plugin": plugin,
        "total": len(tags),
        "matched": len(matched),
        "offset": query.offset,
        "limit": query.limit,
        "tags": matched[query.offset: query.offset + query.limit],
    }
    if query.pattern:
        out["invalid"], out["slow"] = invalid, slow
    if query.groups:
        out["prefix"] = query.prefix
        out["groups"] = prefix_groups([_bare(t, plugin) for t in matched], query.prefix)
    return out
