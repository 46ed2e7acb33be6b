"""The profiler's adapter seam (rank_tables.py, profile_views.py): each rank's format is decided in one place, every
table loads to the same shape from every adapter that has it, a table an adapter lacks is a clear absence, and no
other module of the package looks at the export or the layout. Fixtures are written by the project's writers."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.adapters.ascend_text import kernel_table
from mindinsight_clone.analyzers.profiler.compat import profile_views
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.column_query import Table
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles, ProfilerDir, scan_profiler_dir
from mindinsight_clone.errors import ProfilerFileNotFoundError
from mindinsight_clone.summary.ascend_db_profile import write_ascend_db_job
from mindinsight_clone.summary.ascend_profile import write_ascend_job
from mindinsight_clone.summary.legacy_profile import write_legacy_job

PACKAGE = Path(rank_tables.__file__).resolve().parents[2]  # mindinsight_clone/
# the modules that may decide a format: the scan itself, and the two adapter registries
DECIDERS = {"analyzers/profiler/layout.py", "analyzers/profiler/rank_tables.py", "analyzers/profiler/compat/profile_views.py"}


@pytest.fixture(scope="module")
def jobs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ProfilerDir]:
    root = tmp_path_factory.mktemp("formats")
    write_ascend_job(root / "text", ranks=2, steps=3, kernels_per_step=40)
    write_ascend_db_job(root / "db", ranks=2, steps=3, kernels_per_step=40)
    write_legacy_job(root / "legacy", ranks=2, steps=3)
    write_ascend_job(root / "both", ranks=1, steps=2, kernels_per_step=20)  # one rank with both exports
    db_out = next((root / "db" / "profiler").glob("*/ASCEND_PROFILER_OUTPUT"))
    text_out = next((root / "both" / "profiler").glob("rank_0/*/ASCEND_PROFILER_OUTPUT"))
    shutil.copyfile(db_out / "ascend_pytorch_profiler_0.db", text_out / "ascend_pytorch_profiler_0.db")
    return {name: scan_profiler_dir(root / name / "profiler", f"./{name}/profiler") for name in
            ("text", "db", "legacy", "both")}


def rank(jobs: dict[str, ProfilerDir], name: str) -> DeviceFiles:
    device = jobs[name].device("0")
    assert device is not None
    return device


def test_the_format_of_each_rank(jobs: dict[str, ProfilerDir]) -> None:
    assert [rank_tables.format_of(rank(jobs, n)) for n in ("text", "db", "legacy", "both")] == \
        ["text", "db", "legacy", "db"]
    assert isinstance(profile_views.views_for(jobs["legacy"]), profile_views.OldLayout)
    assert type(profile_views.views_for(jobs["text"])) is profile_views.CurrentLayout


def test_a_host_rank_is_read_by_the_host_adapter(tmp_path: Path) -> None:
    """A current-layout rank without NPU output (a CPU/GPU session writes trace_view.json alone): its format has
    the trace and no Ascend table, its pages read the host files, and a missing table is named as the text export
    names it."""
    write_ascend_job(tmp_path / "host", ranks=1, steps=2, kernels_per_step=20)
    out = next((tmp_path / "host" / "profiler").glob("rank_0/*/ASCEND_PROFILER_OUTPUT"))
    for path in out.iterdir():
        if path.name != rank_tables.TRACE_VIEW:
            path.unlink()
    pdir = scan_profiler_dir(tmp_path / "host" / "profiler", "./host/profiler")
    device = pdir.device("0")
    assert device is not None and rank_tables.format_of(device) == "host"
    assert rank_tables.reads("trace", device) and rank_tables.has("trace", device)
    assert not rank_tables.reads("kernels", device) and not rank_tables.has("kernels", device)
    with pytest.raises(ProfilerFileNotFoundError) as err:
        rank_tables.load("memory_record", device)
    assert f"<memory_record.csv of rank 0> ({rank_tables.MEMORY_WHY})" in err.value.message
    assert all(_views(pdir).values())
    assert rank_tables.needs(("steps",), [device]) == "step_trace_time.csv"


def test_a_rank_with_only_memory_tables_is_read_as_the_text_export(tmp_path: Path) -> None:
    """torch_npu's Level_none with profile_memory writes the memory tables and the trace, no kernel table: the
    memory tables are read (the rank is not taken for a host rank)."""
    write_ascend_job(tmp_path / "mem", ranks=1, steps=2, kernels_per_step=20)
    out = next((tmp_path / "mem" / "profiler").glob("rank_0/*/ASCEND_PROFILER_OUTPUT"))
    kept = {rank_tables.TRACE_VIEW, "memory_record.csv", "operator_memory.csv"}
    assert kept <= {p.name for p in out.iterdir()}
    for path in out.iterdir():
        if path.name not in kept:
            path.unlink()
    device = scan_profiler_dir(tmp_path / "mem" / "profiler", "./mem/profiler").device("0")
    assert device is not None and not device.is_ascend and rank_tables.format_of(device) == "text"
    series, _problems = rank_tables.load("memory_record", device)
    assert series and all(len(v) for v in series.values())
    assert rank_tables.has("operator_memory", device) and not rank_tables.has("kernels", device)


def _shape(value: Any) -> Any:
    """The structure of a loaded table, without its values: what every adapter must agree on."""
    if isinstance(value, tuple):
        return tuple(_shape(v) for v in value)
    if isinstance(value, list):
        return ("list", _shape(value[0]) if value and isinstance(value[0], dict) else None)
    if isinstance(value, dict):
        if value and all(isinstance(v, np.ndarray) for v in value.values()):
            return ("series", {v.shape[1] for v in value.values()})
        return ("dict", tuple(sorted(value)))
    if isinstance(value, Table):
        return ("table", value.col_names)
    if isinstance(value, kernel_table.KernelTable):  # the database's also has `end` and `serial`
        return ("kernels", tuple(sorted(set(value.table.numbers) - {"end", "serial"})), tuple(sorted(value.table.ids)))
    return type(value).__name__


@pytest.mark.parametrize("table", sorted(set(rank_tables.DB)))
def test_every_table_loads_to_the_same_shape_from_text_and_database(jobs: dict[str, ProfilerDir], table: str) -> None:
    text, db = rank(jobs, "text"), rank(jobs, "db")
    assert rank_tables.has(table, text) and rank_tables.has(table, db)
    assert _shape(rank_tables.load(table, text, ParsedFileCache())) == \
        _shape(rank_tables.load(table, db, ParsedFileCache()))
    assert rank_tables.source(table, text) == rank_tables.TEXT_FILES[table]
    assert rank_tables.source(table, db).endswith(".db"), rank_tables.source(table, db)


def test_old_layout_steps_have_the_steps_schema(jobs: dict[str, ProfilerDir]) -> None:
    steps, _ = rank_tables.load("steps", rank(jobs, "legacy"))
    text_steps, _ = rank_tables.load("steps", rank(jobs, "text"))
    assert len(steps) == 3 and set(text_steps[0]) <= set(steps[0])  # plus the old layout's own phases
    assert rank_tables.source("steps", rank(jobs, "legacy")) == "step_trace_raw_0_detail_time.csv"


@pytest.mark.parametrize("table", ["kernels", "comm_ops", "memory_record", "trace"])
def test_a_table_the_format_lacks_is_absent_and_named(jobs: dict[str, ProfilerDir], table: str) -> None:
    device = rank(jobs, "legacy")
    assert not rank_tables.has(table, device)
    with pytest.raises(ProfilerFileNotFoundError) as err:
        rank_tables.load(table, device)
    assert rank_tables.TEXT_FILES[table] in err.value.message


def test_op_statistic_is_the_text_exports_alone(jobs: dict[str, ProfilerDir]) -> None:
    assert rank_tables.has("op_statistic", rank(jobs, "text"))
    assert not rank_tables.has("op_statistic", rank(jobs, "db"))
    assert not rank_tables.has("op_statistic", rank(jobs, "both"))  # the database is read where both exist


def _decisions(path: Path) -> list[str]:
    """`x.export` or `x.is_ascend` anywhere, comparisons with `x.layout`, `x.output is (not) None` (whether a rank
    has an Ascend output folder) and `format_of(...)` calls: a module deciding a format itself."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in ("export", "is_ascend") and isinstance(node.ctx, ast.Load):
            found.append(f"line {node.lineno}: .{node.attr}")
        if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "format_of":
            found.append(f"line {node.lineno}: format_of()")
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                if isinstance(side, ast.Attribute) and side.attr == "layout":
                    found.append(f"line {node.lineno}: compares .layout")
            sides = (node.left, *node.comparators)
            if any(isinstance(s, ast.Attribute) and s.attr == "output" for s in sides) and \
                    any(isinstance(s, ast.Constant) and s.value is None for s in sides):
                found.append(f"line {node.lineno}: .output against None")
    return found


def test_no_module_outside_the_registries_decides_a_format(tmp_path: Path) -> None:
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name not in DECIDERS and (found := _decisions(path)):
            offenders[name] = found
    assert offenders == {}
    probe = tmp_path / "decides.py"  # the check sees what it looks for
    probe.write_text("def f(device, pdir):\n    return device.export == 'db' or pdir.layout == 'legacy' or "
                     "rank_tables.format_of(device) == 'legacy' or device.is_ascend or device.output is None\n")
    assert len(_decisions(probe)) == 5


def _views(pdir: ProfilerDir) -> dict[str, bool]:
    return {v["view"]: v["has_data"] for v in profile_views.views_for(pdir, ParsedFileCache()).views()}


def test_the_pages_of_each_layout_and_what_they_lack(jobs: dict[str, ProfilerDir], tmp_path: Path) -> None:
    for name in ("text", "db"):
        assert _views(jobs[name]) == dict.fromkeys(profile_views.ASCEND_VIEWS, True), name
    assert list(_views(jobs["legacy"])) == list(profile_views.OLD_VIEWS)
    assert all(_views(jobs["legacy"]).values())
    level0 = tmp_path / "level0"  # the text job without communication or memory files, as profiler Level0 writes
    write_ascend_job(level0, ranks=1, steps=2, kernels_per_step=20)
    out = next((level0 / "profiler").glob("rank_0/*/ASCEND_PROFILER_OUTPUT"))
    for name in ("communication.json", "communication_matrix.json", "memory_record.csv", "npu_module_mem.csv"):
        (out / name).unlink()
    views = _views(scan_profiler_dir(level0 / "profiler", "./level0/profiler"))
    assert [v for v, has in views.items() if not has] == ["communication", "memory"]


def test_what_a_view_without_data_needs_is_named_in_each_ranks_format(jobs: dict[str, ProfilerDir]) -> None:
    text, db, legacy = (list(jobs[n].devices.values()) for n in ("text", "db", "legacy"))
    assert rank_tables.needs(("steps",), text) == "step_trace_time.csv"
    assert rank_tables.needs(("steps",), db) == "StepTraceTime"
    # the old layout writes its own step trace (this said "step_trace_time.csv (database: StepTraceTime)")
    assert rank_tables.needs(("steps",), legacy) == "step_trace_raw_<rank>_detail_time.csv"
    assert rank_tables.needs(("steps",), text + db) == "step_trace_time.csv (database: StepTraceTime)"
    assert rank_tables.needs(("op_statistic", "kernels"), text) == "op_statistic.csv or kernel_details.csv"
    assert rank_tables.needs(("op_statistic", "kernels"), db) == "COMPUTE_TASK_INFO and TASK"
    assert rank_tables.needs(("comm_ops",), text + legacy) == "communication.json"  # no format-specific name
