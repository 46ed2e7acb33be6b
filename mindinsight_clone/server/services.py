"""The services one app instance works with, injected by create_app (never module globals)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from flask import current_app

from mindinsight_clone.config import Settings
from mindinsight_clone.store.data_manager import DataManager

EXTENSION_KEY = "mindinsight_clone"
T = TypeVar("T")


@dataclass
class Services:
    settings: Settings
    data_manager: DataManager
    # Per-area services (lineage, graphs, profiler...) created on first use by their routes.
    extras: dict[str, Any] = field(default_factory=dict)
    _making: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def service(self, key: str, make: Callable[[Services], T]) -> T:
        """`extras[key]`, made by `make(self)` on first use: one per app, whichever request comes first."""
        found: T | None = self.extras.get(key)
        if found is None:
            with self._making:
                found = self.extras.get(key)
                if found is None:
                    found = self.extras[key] = make(self)
        return found


def services() -> Services:
    svc: Services = current_app.extensions[EXTENSION_KEY]
    return svc
