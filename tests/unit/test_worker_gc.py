"""The worker starts with the cyclic GC off and turns it back on, with what exists frozen, after its first load
(or a time limit)."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.worker import resume_gc_after_first_load
from mindinsight_clone.store.data_manager import DataManager
from mindinsight_clone.summary import SummaryWriter


@pytest.fixture
def gc_off() -> Iterator[None]:
    gc.disable()
    try:
        yield
    finally:
        gc.unfreeze()  # the hook froze this test process's objects: give them back to the collector
        gc.enable()


def test_the_first_reload_turns_the_collector_back_on_once(tmp_path: Path, gc_off: None) -> None:
    with SummaryWriter(tmp_path / "base" / "run", timestamp=1_795_000_000, host="gc") as w:
        w.add_scalar("loss", 0.5, 1)
    dm = DataManager(settings_for_tests(summary_base_dir=str(tmp_path / "base"), workspace=str(tmp_path / "ws")))
    timer = resume_gc_after_first_load(dm.after_reload, 60.0)
    try:
        assert not gc.isenabled()
        dm.reload()
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0  # what the start made is out of the collector's sight
        assert dm.after_reload == []  # one-shot: a later cycle does not touch the collector
        assert timer.finished.is_set()  # the time limit was called off
        gc.disable()
        dm.reload()
        assert not gc.isenabled()
    finally:
        timer.cancel()
        dm.stop()


def test_a_first_load_that_takes_too_long_gets_the_collector_back_after_the_limit(gc_off: None) -> None:
    hooks: list[Callable[[], None]] = []
    timer = resume_gc_after_first_load(hooks, 0.05)
    try:
        deadline = time.monotonic() + 5
        while not gc.isenabled() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert gc.isenabled()
        assert len(hooks) == 1  # still armed for the first load: enabling twice is harmless
    finally:
        timer.cancel()


def test_the_master_reads_its_config_with_the_collector_off_until_it_listens(tmp_path: Path) -> None:
    """gunicorn_conf.py turns the collector off for the master's imports; `when_ready` (before the worker is forked)
    freezes what exists and turns it back on."""
    import json
    import os
    import subprocess
    import sys

    code = ("import gc, json\n"
            "import mindinsight_clone.server.gunicorn_conf as conf\n"
            "off = not gc.isenabled()\n"
            "conf.when_ready(None)\n"
            "print(json.dumps([off, gc.isenabled(), gc.get_freeze_count() > 0]))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MINDINSIGHT_")}
    env["MINDINSIGHT_WORKSPACE"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True,
                         env=env, cwd=tmp_path)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [True, True, True]
