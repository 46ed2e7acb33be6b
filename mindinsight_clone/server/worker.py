"""Gunicorn's entry point in the worker: start reading the summary base dir first, then build the web app.

Importing Flask and the routes takes a few hundred milliseconds; the reload thread's first load (discovery,
then every run's files) runs meanwhile instead of after it, so a run is ready sooner after a (re)start.
A remote base dir starts with the app as before: the app registers hooks that its reload cycles run (the
lineage files are read there), and its first cycle must not finish before they are in place.

The cyclic garbage collector is off from the worker's start until its first load is read (at most
`START_GC_PAUSE_S`): the imports and the first load make a million objects that live on, and the collector's
passes over them were ~90 ms of the worker's GIL before the first answers (S as TensorBoard files: gen2 38 ms,
gen1 15 ms, gen0 37 ms). What exists then is frozen (`gc.freeze`) before the collector is back: the modules and
the loaded runs are never walked by it (W: a 56-77 ms pass at the switch otherwise, amid the first requests).
Loaded runs hold no reference cycles (a run dropped from the cache is freed by reference counting, frozen or not:
`gc.collect()` finds nothing after loading S or W, nor after dropping every run).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mindinsight_clone.server.deferred import import_all

if TYPE_CHECKING:
    from mindinsight_clone.store.data_manager import DataManager

START_GC_PAUSE_S = 30.0  # the collector is back after the first load, or after this long whatever the load


def _freeze_and_enable() -> None:
    gc.freeze()
    gc.enable()


def create_app_from_env() -> Any:
    """Settings from the MINDINSIGHT_* environment; the data manager starts before the app is imported."""
    gc.disable()
    from mindinsight_clone.config import load_settings
    from mindinsight_clone.server.logs import setup_app_logging
    from mindinsight_clone.store.data_manager import DataManager

    settings = load_settings()
    setup_app_logging(settings)  # before the reload thread logs anything
    manager = DataManager(settings)
    resume_gc_after_first_load(manager.after_reload, START_GC_PAUSE_S)
    app_built = threading.Event()
    warm_profiler_after_first_load(manager, app_built)  # before the load starts: a small one ends before the app
    if not manager.bases.remote:
        manager.start()
    from mindinsight_clone.server.app import create_app

    app = create_app(settings, manager, log_to_workspace=True)
    app_built.set()  # the routes have named their deferred modules
    return app


PROFILER_MODULES = "mindinsight_clone.analyzers.profiler."
WARM_WAIT_S = 60.0  # how long the warm-up thread waits for the app (its routes name the deferred modules)


def warm_profiler_after_first_load(manager: DataManager, app_built: threading.Event) -> Callable[[], None]:
    """Once the first load is read, and only when a run has a profiler dir: a daemon thread imports the profiler's
    deferred modules as soon as `app_built` is set, so the first profiler answer does not pay for them (a server
    without profiles never does). Returns the one-shot `after_reload` hook (it removes itself)."""

    def warm() -> None:
        if app_built.wait(WARM_WAIT_S):
            import_all(PROFILER_MODULES)
            import pyarrow

            pyarrow.array([0])  # pyarrow's first array imports pandas (0.2 s): the table store's first read paid it

    def first_load_read() -> None:
        if any(run.profiler_dirs for run in manager.runs()):
            threading.Thread(target=warm, name="mi-warm-imports", daemon=True).start()
        manager.after_reload.remove(first_load_read)  # last: once it is gone, the thread (if any) is running

    manager.after_reload.append(first_load_read)
    return first_load_read


def resume_gc_after_first_load(after_reload: list[Callable[[], None]], limit_s: float) -> threading.Timer:
    """Freeze what exists and enable the collector, after the first reload cycle (a one-shot `after_reload` hook)
    or after `limit_s`, whichever comes first. Returns the timer (tests cancel it)."""
    timer = threading.Timer(limit_s, _freeze_and_enable)
    timer.daemon = True

    def first_load_read() -> None:
        after_reload.remove(first_load_read)
        timer.cancel()
        _freeze_and_enable()

    after_reload.append(first_load_read)
    timer.start()
    return timer
