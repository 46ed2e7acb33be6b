"""URL rules whose URL builders are compiled on first use, not as each rule is added.

Werkzeug compiles two Python functions per rule when the rule joins the app's URL map (`Rule.compile` ->
`_compile_builder`: an AST built, walked and `compile()`d), to build URLs back from an endpoint (`url_for`,
redirects to a rule's defaults). With our ~120 rules that was ~25 ms of the worker's CPU before its first answer,
most of `create_app`; we never build a URL at all. Here the rule gets a stand-in that compiles werkzeug's builder
the first time it is called, keeps it on the rule and answers with it: matching is untouched and a built URL is
werkzeug's own. Two threads building the same rule's first URL at once both compile it; either result is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from werkzeug.routing import Rule


class LazyBuilderRule(Rule):
    """werkzeug's Rule, with its URL builders compiled by their first call."""

    def _compile_builder(self, append_unknown: bool = True) -> Callable[..., tuple[str, str]]:
        slot = "_build_unknown" if append_unknown else "_build"

        def build_on_first_use(rule: Rule, **values: Any) -> tuple[str, str]:
            # werkzeug binds what this method returns to the rule (`__get__`): `rule` is self
            real = Rule._compile_builder(rule, append_unknown).__get__(rule, None)
            setattr(rule, slot, real)
            return real(**values)  # type: ignore[no-any-return]

        return build_on_first_use
