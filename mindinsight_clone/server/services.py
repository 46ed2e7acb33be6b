"""The services one app instance works with, injected by create_app (never module globals)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flask import current_app

from mindinsight_clone.config import Settings
from mindinsight_clone.store.data_manager import DataManager

EXTENSION_KEY = "mindinsight_clone"


@dataclass
class Services:
    settings: Settings
    data_manager: DataManager
    # Per-area services (lineage, graphs, profiler...) created on first use by their routes.
    extras: dict[str, Any] = field(default_factory=dict)


def services() -> Services:
    svc: Services = current_app.extensions[EXTENSION_KEY]
    return svc
