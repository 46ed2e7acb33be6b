"""Modules imported on their first use, so that a worker starts serving before it has imported them.

The profiler's analyzers cost ~0.2 s of imports (on the GIL the first load of the summary base dir needs) and
most servers never show a profile; the routes name them as usual and the first profiler request imports them
(`importlib.import_module` takes the import system's module locks: concurrent first requests are safe).
When the base dir holds a profile, the worker imports the profiler's modules once its first load is read
(`import_all`, server/worker.py), so the first profiler answer does not wait ~0.15 s for them.
"""

from __future__ import annotations

import importlib
from typing import Any

_NAMES: list[str] = []  # every deferred module, in the order the routes name them


class DeferredModule:
    """Stands for module `name`: the first attribute read imports it; every read is then the module's own."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name
        _NAMES.append(name)

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<deferred module {self._name}>"


def deferred(package: str, *names: str) -> tuple[DeferredModule, ...]:
    """One DeferredModule per submodule `names` of `package`."""
    return tuple(DeferredModule(f"{package}.{name}") for name in names)


def import_all(prefix: str) -> list[str]:
    """Import every deferred module whose name starts with `prefix`; the names imported."""
    names = [name for name in _NAMES if name.startswith(prefix)]
    for name in names:
        importlib.import_module(name)
    return names
