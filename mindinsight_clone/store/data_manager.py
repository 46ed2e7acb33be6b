"""Run registry, LRU of cached runs, reload thread, load status and progress.

Placeholder until the store layer lands: lists nothing, loads nothing.
"""

from __future__ import annotations

from mindinsight_clone.config import Settings


class DataManager:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.load_status = "loaded"

    def start(self) -> None:
        """Start the background reload thread (called by create_app, never at import)."""

    def stop(self) -> None:
        """Stop background work."""
