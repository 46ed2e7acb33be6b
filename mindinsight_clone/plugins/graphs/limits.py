"""Bounds on what one graph file can make the graph builder hold (issue 29: hostile files).

The scope tree holds one name-scope node per `/` level of a node name, each named by its full path, so a name of
depth d costs ~d²/2 characters: a 62 KB name `s0/s1/.../s9999/Op-op0` cost 1.45 GB. Names are therefore bounded
where they are parsed, with the same pure function everywhere a name is referred to (nodes, ids, input references):

* deeper than MAX_SCOPE_DEPTH scope levels: the levels below are folded into the last component, joined by `|`
  (`s0/.../s63/s64|s65|...|Op-op0`): nothing is dropped, the tree stops at that depth;
* longer than MAX_NAME_CHARS: cut, ending in `…` and a digest of the whole name (so cut names stay distinct).

Real MindSpore graphs are far below both (the fixtures' deepest names have 7 levels and 181 characters; large LLM
networks reach ~15 levels and a few hundred characters). `NameBounds` counts what was changed, for the answer's
`notes` and the log.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

MAX_SCOPE_DEPTH = 64
MAX_NAME_CHARS = 1024
FOLD_SEPARATOR = "|"
CUT_MARK = "…"
_DIGEST_CHARS = 16


def _fold(name: str) -> str:
    if name.count("/") <= MAX_SCOPE_DEPTH:
        return name
    parts = name.split("/")
    return "/".join(parts[:MAX_SCOPE_DEPTH]) + "/" + FOLD_SEPARATOR.join(parts[MAX_SCOPE_DEPTH:])


def _cut(name: str) -> str:
    if len(name) <= MAX_NAME_CHARS:
        return name
    digest = hashlib.blake2b(name.encode("utf-8", "surrogatepass"), digest_size=_DIGEST_CHARS // 2).hexdigest()
    return name[:MAX_NAME_CHARS - _DIGEST_CHARS - len(CUT_MARK)] + CUT_MARK + digest


def bound_name(name: str) -> str:
    """`name` with at most MAX_SCOPE_DEPTH `/` levels and MAX_NAME_CHARS characters (unchanged when within)."""
    return _cut(_fold(name))


@dataclass
class NameBounds:
    """How many node names `bound_name` changed while one graph was parsed, and the first one (bounded)."""

    folded: int = 0
    cut: int = 0
    example: str = ""

    def bound(self, name: str) -> str:
        folded = _fold(name)
        bounded = _cut(folded)
        if bounded is not name:
            self.folded += folded is not name
            self.cut += bounded is not folded
            self.example = self.example or bounded
        return bounded

    def notes(self) -> list[str]:
        """What was changed, in words (empty when nothing was)."""
        out = []
        if self.folded:
            out.append(f"{self.folded} node name(s) deeper than {MAX_SCOPE_DEPTH} scope levels: the levels below "
                       f"are shown joined by '{FOLD_SEPARATOR}' in one name")
        if self.cut:
            out.append(f"{self.cut} node name(s) longer than {MAX_NAME_CHARS} characters were cut: they end in "
                       f"'{CUT_MARK}' and a digest of the whole name")
        if out:
            out.append(f"first changed name ends: ...{self.example[-120:]}")
        return out
