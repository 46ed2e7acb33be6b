"""`POST text/compare`: what changed between runs, from their text summaries (run configurations).

Each run contributes the newest text of each of its text tags, under the tag's key (the tag without
`/text_summary`). Megatron / MindSpeed-LLM write one tag per argument (`lr` -> `"0.0003"`); MindFormers writes
each top-level config key as a Python `str(dict)` (single quotes, `True`, `None`): a value that starts like a
dict or list is parsed with `ast.literal_eval` (never `eval`: literals only, no names, calls or attributes) and
flattened into dotted keys (`model.model_config.hidden_size`; dicts and lists inside lists as
`callbacks[1].type`). Every leaf is compared as text, `str(value)`, which is how Megatron writes its arguments
(`None`, `True`, `4096`, `[0.9, 0.95]`).

A value that starts like a dict or list but does not parse (cut, malformed) is kept whole under its key, and the
key's entry says why in `errors` (train_id -> message); the other keys are compared as usual. A value cut by
`text_max_chars` is marked in `truncated` (its train_ids): the comparison only saw its start.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Any

from mindinsight_clone.plugins.text import latest_texts
from mindinsight_clone.store.run_cache import RunCache

MAX_RUNS = 10  # runs compared in one request
MAX_LEAVES = 10_000  # keys one text may flatten into; beyond, it is compared whole
_PARSE_ERRORS = (ValueError, SyntaxError, TypeError, MemoryError, RecursionError)


def flatten(key: str, text: str) -> tuple[dict[str, str], str | None]:
    """(dotted key -> leaf text, error or None) of one text value."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return {key: text}, None
    try:
        value = ast.literal_eval(stripped)
    except _PARSE_ERRORS as exc:
        return {key: text}, f"not a Python literal ({type(exc).__name__}: {_short(exc)}); compared as text"
    if not isinstance(value, dict | list | tuple):
        return {key: text}, None
    out: dict[str, str] = {}
    try:
        _leaves(key, value, out)
    except _TooMany:
        return {key: text}, f"more than {MAX_LEAVES} keys; compared as text"
    except RecursionError:
        return {key: text}, "nested too deeply; compared as text"
    return out, None


class _TooMany(Exception):
    pass


def _leaves(prefix: str, value: Any, out: dict[str, str]) -> None:
    if isinstance(value, dict) and value:
        for k, v in value.items():
            _leaves(f"{prefix}.{k}", v, out)
        return
    if isinstance(value, list | tuple) and any(isinstance(v, dict | list | tuple) for v in value):
        for i, v in enumerate(value):
            _leaves(f"{prefix}[{i}]", v, out)
        return
    if len(out) >= MAX_LEAVES:
        raise _TooMany
    out[prefix] = str(value)


def _short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "..."


def compare(runs: Iterable[tuple[str, RunCache]]) -> dict[str, Any]:
    """`{"keys": [{"key", "values": {train_id: text | None}, "differs"[, "errors"][, "truncated"]}], ...}`: every
    key of any run, sorted; `differs` when the runs do not all hold the same text (a missing key differs)."""
    ids: list[str] = []
    flat: dict[str, dict[str, str]] = {}
    errors: dict[str, dict[str, str]] = {}
    cut: dict[str, list[str]] = {}
    for train_id, cache in runs:
        ids.append(train_id)
        for key, (text, truncated) in latest_texts(cache).items():
            leaves, error = flatten(key, text)
            for leaf, leaf_text in leaves.items():
                flat.setdefault(leaf, {})[train_id] = leaf_text
                if truncated:
                    cut.setdefault(leaf, []).append(train_id)
            if error is not None:
                errors.setdefault(key, {})[train_id] = error
    keys = []
    differing = 0
    for key in sorted(flat):
        values = {tid: flat[key].get(tid) for tid in ids}
        differs = len(set(values.values())) > 1
        differing += differs
        item: dict[str, Any] = {"key": key, "values": values, "differs": differs}
        if key in errors:
            item["errors"] = errors[key]
        if key in cut:
            item["truncated"] = cut[key]
        keys.append(item)
    return {"train_ids": ids, "keys": keys, "differing": differing}
