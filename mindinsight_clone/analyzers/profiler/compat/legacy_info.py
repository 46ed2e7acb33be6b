"""Small answers of the old layout: devices, dynamic shape details and the msprof timeline options.

* `devices`: the device ids that have files (MindInsight lists only those with a `profiler_info_<id>.json`, so
  these profiles, which have none, got `[]`); `profiler_mode` is MindInsight's: the first info file's
  `context_mode`, `""` without one.
* `dynamic-shape-detail` (Ascend): `dynamic_shape_info_<id>.json` as written, `{}` without it.
* `msprof_timeline_option`: the ranks of the msprof `PROF_*` folders (`rank_id` of their `info.json.<n>`, -1 is 0)
  and the model ids of their `mindstudio_profiler_output/step_trace_*.csv`.
"""

from __future__ import annotations

import csv
import io
import logging
from typing import Any

from mindinsight_clone.analyzers.profiler.adapters.legacy.legacy_files import (
    dir_file,
    dir_subdirs,
    read_json,
    read_lines,
)
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir
from mindinsight_clone.errors import ProfilerRawFileError
from mindinsight_clone.ingest.storage import Location

log = logging.getLogger(__name__)
MSPROF_WALK_DEPTH = 3  # PROF_*/device_<n>/info.json.<n> is two levels down


def devices(pdir: ProfilerDir) -> dict[str, Any]:
    modes = [str(pdir.devices[i].info.get("context_mode", "")) for i in pdir.device_ids if pdir.devices[i].info]
    return {"device_list": pdir.device_ids, "profiler_mode": modes[0] if modes else ""}


def dynamic_shape(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None = None) -> Any:
    path = dir_file(pdir, f"dynamic_shape_info_{device_id}.json")
    return {} if path is None else read_json(path, cache)


def _info_json(pdir: ProfilerDir, folder: Location, depth: int = 0) -> Location | None:
    """The first `info.json.<n>` (not `.done`) under `folder`, files before sub-folders, both by name."""
    entries = pdir.listings(folder)
    for entry in entries:
        if entry.is_file and "info.json." in entry.name and ".done" not in entry.name:
            return entry.location
    if depth >= MSPROF_WALK_DEPTH:
        return None
    for entry in entries:
        if entry.is_dir:
            found = _info_json(pdir, entry.location, depth + 1)
            if found is not None:
                return found
    return None


def msprof_jobs(pdir: ProfilerDir, cache: ParsedFileCache | None) -> dict[int, Location]:
    """rank -> the newest (by name) `PROF_*` folder of that rank."""
    jobs: dict[int, Location] = {}
    for name in sorted(dir_subdirs(pdir)):
        if not name.startswith("PROF_") or name.count("_") < 2:
            continue
        folder = pdir.path / name
        rank = 0
        info_path = _info_json(pdir, folder)
        if info_path is not None:
            try:
                info = read_json(info_path, cache)
                rank = int(info.get("rank_id", 0)) if isinstance(info, dict) else 0
            except (ProfilerRawFileError, TypeError, ValueError) as err:
                log.warning("msprof: cannot read the rank of %s: %s", name, err)
        rank = 0 if rank == -1 else rank
        if rank not in jobs or folder.name > jobs[rank].name:
            jobs[rank] = folder
    return jobs


def _models(pdir: ProfilerDir, job: Location, cache: ParsedFileCache | None) -> set[float]:
    output = job / "mindstudio_profiler_output"
    names = sorted(e.name for e in pdir.listings(output) if e.is_file and e.name.startswith("step_trace_")
                   and e.name.endswith(".csv"))
    if not names:
        return set()
    newest = max(n.rsplit(".", 1)[0].split("_")[-1] for n in names)
    first = next(n for n in names if n.rsplit(".", 1)[0].split("_")[-1] == newest)
    models: set[float] = set()
    for row in csv.DictReader(io.StringIO("\n".join(read_lines(output / first, cache)))):
        try:
            if row.get("Model ID"):
                models.add(float(row["Model ID"]))
        except ValueError:
            continue
    return models


def msprof_timeline_option(pdir: ProfilerDir, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    jobs = msprof_jobs(pdir, cache)
    models: set[float] = set()
    for job in jobs.values():
        models |= _models(pdir, job, cache)
    return {"rank_list": sorted(jobs), "model_list": sorted(models)}
