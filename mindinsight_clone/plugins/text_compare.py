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

Cost bounds (issue 29: 290 tags of 100k-character literals cost ~55 s of CPU per request, every request):
* each literal is parsed once: `PARSED` keeps the flattened result keyed by (key, text), so a new sample (a new
  text) is a new entry and the same config in several runs is parsed once; it is bounded by characters (LRU);
* a literal longer than `MAX_LITERAL_CHARS` is not parsed: compared as text, and its `errors` entry says so;
* one request parses at most `PARSE_BUDGET_CHARS` characters of literals not parsed yet; the others are compared
  as text this time (`errors` says so, the answer has `"incomplete": true`) and parsed by the next requests;
  parsing is one literal at a time across requests, so requests that arrive together share the work;
* one answer holds at most `MAX_ANSWER_KEYS` keys; a text beyond that is compared whole.
"""

from __future__ import annotations

import ast
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mindinsight_clone.plugins.text import latest_texts
from mindinsight_clone.store.run_cache import RunCache

MAX_RUNS = 10  # runs compared in one request
MAX_LEAVES = 10_000  # keys one text may flatten into; beyond, it is compared whole
MAX_LITERAL_CHARS = 32_768  # longest literal parsed (~30 ms); a longer one is compared as text
PARSE_BUDGET_CHARS = 2_000_000  # literal characters one request may parse (~2 s of CPU)
MAX_ANSWER_KEYS = 50_000  # keys in one answer (a real config has hundreds to a few thousand)
CACHE_MAX_CHARS = 32_000_000  # texts and leaves kept by PARSED, in characters
_PARSE_ERRORS = (ValueError, SyntaxError, TypeError, MemoryError, RecursionError)
Flat = tuple[dict[str, str], str | None]  # (dotted key -> leaf text, error or None)


def _is_literal(text: str) -> bool:
    return text.lstrip().startswith(("{", "["))


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


class ParsedCache:
    """(key, text) -> `flatten(key, text)`, least recently used first out, at most `max_chars` characters of texts
    and leaves. `parsed` counts the literals parsed, `hits` the answers given from the cache."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.parsed = 0
        self.hits = 0
        self._entries: OrderedDict[tuple[str, str], tuple[Flat, int]] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()  # the entries and counters
        self._parse_lock = threading.Lock()  # one literal parsed at a time, whatever the request

    def get(self, key: str, text: str) -> Flat | None:
        with self._lock:
            entry = self._entries.get((key, text))
            if entry is None:
                return None
            self._entries.move_to_end((key, text))
            self.hits += 1
            return entry[0]

    def parse(self, key: str, text: str) -> Flat:
        """Parse under the parse lock (another request may have parsed it meanwhile) and keep the result."""
        with self._parse_lock:
            cached = self.get(key, text)
            if cached is not None:
                return cached
            flat = flatten(key, text)
            self._put(key, text, flat)
            return flat

    def _put(self, key: str, text: str, flat: Flat) -> None:
        weight = len(key) + len(text) + sum(len(k) + len(v) for k, v in flat[0].items())
        if weight > self.max_chars:
            return
        with self._lock:
            self.parsed += 1
            self._entries[(key, text)] = (flat, weight)
            self._chars += weight
            while self._chars > self.max_chars:
                _, (_, dropped) = self._entries.popitem(last=False)
                self._chars -= dropped

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._chars = self.parsed = self.hits = 0


PARSED = ParsedCache(CACHE_MAX_CHARS)


@dataclass
class _Budget:
    """What one request may still do: literal characters to parse, keys to answer."""

    parse_chars: int
    keys: int
    incomplete: bool = False


def _flat(key: str, text: str, budget: _Budget) -> Flat | None:
    """`flatten(key, text)`: cached, parsed within the request's budget (None: the budget is spent), or the text
    whole with the reason when it is too long to parse."""
    if not _is_literal(text):
        return {key: text}, None
    if len(text) > MAX_LITERAL_CHARS:
        return {key: text}, f"longer than {MAX_LITERAL_CHARS} characters: not parsed, compared as text"
    flat = PARSED.get(key, text)
    if flat is None and len(text) <= budget.parse_chars:
        budget.parse_chars -= len(text)
        flat = PARSED.parse(key, text)
    return flat


def _key_leaves(key: str, texts: dict[str, str], budget: _Budget) -> dict[str, Flat]:
    """train_id -> its leaves of one config key. When the budget leaves any run's text unparsed, or the key's
    leaves would pass the answer's key budget, every run's text of the key is compared whole (never flattened in
    one run and whole in another, which would show differences that are not there)."""
    too_many = f"the comparison would have more than {MAX_ANSWER_KEYS} keys: compared as text"
    flats = {train_id: _flat(key, text, budget) for train_id, text in texts.items()} if budget.keys > 0 else {}
    if not flats:
        reason: str | None = too_many
    elif any(flat is None for flat in flats.values()):
        budget.incomplete = True
        reason = "not parsed yet (this request's parsing budget is spent): compared as text; ask again"
    else:
        count = len(set().union(*(flat[0] for flat in flats.values() if flat is not None)))
        reason = too_many if count > budget.keys else None
        budget.keys = 0 if reason else budget.keys - count  # past the budget, the rest is compared whole
    if reason is None:
        return {train_id: flat for train_id, flat in flats.items() if flat is not None}
    return {train_id: ({key: text}, reason if _is_literal(text) else None) for train_id, text in texts.items()}


def _short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "..."


def compare(runs: Iterable[tuple[str, RunCache]]) -> dict[str, Any]:
    """`{"keys": [{"key", "values": {train_id: text | None}, "differs"[, "errors"][, "truncated"]}], ...}`: every
    key of any run, sorted; `differs` when the runs do not all hold the same text (a missing key differs);
    `"incomplete": true` when some literals were left unparsed by this request's budget."""
    budget = _Budget(PARSE_BUDGET_CHARS, MAX_ANSWER_KEYS)
    ids: list[str] = []
    texts: dict[str, dict[str, str]] = {}  # key -> train_id -> its newest text
    cut: dict[str, list[str]] = {}
    truncated: dict[str, list[str]] = {}  # key -> train_ids whose text was cut
    for train_id, cache in runs:
        ids.append(train_id)
        for key, (text, was_cut) in latest_texts(cache).items():
            texts.setdefault(key, {})[train_id] = text
            if was_cut:
                truncated.setdefault(key, []).append(train_id)
    flat: dict[str, dict[str, str]] = {}
    errors: dict[str, dict[str, str]] = {}
    for key in sorted(texts):
        for train_id, (leaves, error) in _key_leaves(key, texts[key], budget).items():
            for leaf, leaf_text in leaves.items():
                flat.setdefault(leaf, {})[train_id] = leaf_text
                if train_id in truncated.get(key, ()):
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
    body: dict[str, Any] = {"train_ids": ids, "keys": keys, "differing": differing}
    if budget.incomplete:
        body["incomplete"] = True
    return body
