"""A worker starts serving before it imports what only some pages need: the profiler's analyzers (its file cache and
table store too), the debugger's and the model files' services, the graph service, the msprobe comparison, graph and
trend readers (and sqlite3), the export bundle, the `regex` module, YAML and the analytic engines (pyarrow, DuckDB,
ADBC, fsspec) are imported by the first request that uses them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mindinsight_clone.server.deferred import DeferredModule, deferred

LATER = ["pyarrow", "duckdb", "adbc_driver_sqlite", "fsspec", "upath",
         "mindinsight_clone.analyzers.profiler.views.advice", "mindinsight_clone.analyzers.profiler.views.timeline",
         "mindinsight_clone.analyzers.debugger.service", "mindinsight_clone.analyzers.models.service", "yaml",
         "mindinsight_clone.analyzers.profiler.engine.cache", "mindinsight_clone.analyzers.profiler.layout",
         "mindinsight_clone.analyzers.profiler.engine.table_store", "mindinsight_clone.analyzers.profiler.engine.db_spool",
         "mindinsight_clone.analyzers.debugger.msprobe_compare", "mindinsight_clone.analyzers.debugger.msprobe_graph_build",
         "mindinsight_clone.ingest.msprobe_vis", "mindinsight_clone.ingest.msprobe_trend",
         "mindinsight_clone.ingest.msprobe_compare_result", "mindinsight_clone.plugins.graphs.service",
         "mindinsight_clone.export_bundle", "regex", "sqlite3"]


def test_building_the_app_imports_no_engine_and_no_profiler_analyzer(tmp_path: Path) -> None:
    code = ("import json, sys\n"
            "from mindinsight_clone.config import settings_for_tests\n"
            "from mindinsight_clone.server.app import create_app\n"
            f"create_app(settings_for_tests(summary_base_dir={str(tmp_path)!r}, workspace={str(tmp_path)!r}))\n"
            f"print(json.dumps([m for m in {LATER!r} if m in sys.modules]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_a_deferred_module_is_the_module_on_first_use() -> None:
    (json_mod,) = deferred("json", "decoder")
    assert isinstance(json_mod, DeferredModule)
    from json import decoder

    assert json_mod.JSONDecoder is decoder.JSONDecoder
    with pytest.raises(AttributeError):
        _ = json_mod.no_such_name


_WARM = """
import json, sys, threading, time
from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.worker import warm_profiler_after_first_load
from mindinsight_clone.store.data_manager import DataManager
settings = settings_for_tests(summary_base_dir=sys.argv[1], workspace=sys.argv[2])
manager = DataManager(settings)
built = threading.Event()
hook = warm_profiler_after_first_load(manager, built)  # as the worker does: hook, load, then the app
manager.start()
manager.wait_until_loaded(60)
from mindinsight_clone.server.app import create_app
create_app(settings, manager)
built.set()
deadline = time.monotonic() + 60
while hook in manager.after_reload and time.monotonic() < deadline:  # the one-shot hook removes itself
    time.sleep(0.01)
warmers = [t for t in threading.enumerate() if t.name == "mi-warm-imports"]
for thread in warmers:
    thread.join(60)
manager.stop()
print(json.dumps({"hook_ran": hook not in manager.after_reload, "warmers": len(warmers),
                  "imported": "mindinsight_clone.analyzers.profiler.views.advice" in sys.modules,
                  "pyarrow": "pyarrow" in sys.modules}))
"""


@pytest.mark.parametrize("with_profile", [True, False])
def test_the_profiler_modules_are_imported_after_the_first_load_only_when_a_profile_is_there(
        tmp_path: Path, with_profile: bool) -> None:
    base = tmp_path / "base"
    job = base / "job"
    (job / "profiler" if with_profile else job).mkdir(parents=True)
    (job / ("profiler/step_trace_raw_0_detail_time.csv" if with_profile else "notes.txt")).write_text("step_num\n")
    out = subprocess.run([sys.executable, "-c", _WARM, str(base), str(tmp_path / "ws")], capture_output=True,
                         text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-4000:]
    answer = json.loads(out.stdout.strip().splitlines()[-1])
    # pyarrow too: its first array imports pandas (0.2 s), which the first table-store read after a restart paid
    assert answer == {"hook_ran": True, "warmers": int(with_profile), "imported": with_profile, "pyarrow": with_profile}
