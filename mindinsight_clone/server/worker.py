"""Gunicorn's entry point in the worker: start reading the summary base dir first, then build the web app.

Importing Flask and the routes takes a few hundred milliseconds; the reload thread's first load (discovery,
then every run's files) runs meanwhile instead of after it, so a run is ready sooner after a (re)start.
A remote base dir starts with the app as before: the app registers hooks that its reload cycles run (the
lineage files are read there), and its first cycle must not finish before they are in place.
"""

from __future__ import annotations

from typing import Any


def create_app_from_env() -> Any:
    """Settings from the MINDINSIGHT_* environment; the data manager starts before the app is imported."""
    from mindinsight_clone.config import load_settings
    from mindinsight_clone.ingest import storage
    from mindinsight_clone.server.logs import setup_app_logging
    from mindinsight_clone.store.data_manager import DataManager

    settings = load_settings()
    setup_app_logging(settings)  # before the reload thread logs anything
    manager = DataManager(settings)
    if not storage.is_remote(manager.base_dir):
        manager.start()
    from mindinsight_clone.server.app import create_app

    return create_app(settings, manager, log_to_workspace=True)
