"""Timeline of MindInsight's layout: `<device_type>_timeline_display_<id>.json` (Chrome trace events, one list) and
`<device_type>_timeline_summary_<id>.json` (MindInsight's `TimelineAnalyser`).

* `timeline`: the file's events, less the scope-layer events (`tid` 100001) whose `scope_level` is at least
  `scope_name_num`, as MindInsight answers. Our optional window (`start_us`, `end_us` relative to the first timed
  event, `min_dur_us`, `max_events` longest) applies only when one of its parameters is given.
* `timeline-summary`: the summary file with `max_scope_name_num` defaulted to 0.
* MindSpore 1.0 named the Ascend files `timeline_display_<id>.json` / `timeline_summary_<id>.json`; MindInsight
  2.3.1 no longer looks for them (an empty timeline), we read them when the `ascend_` ones are absent.
"""

from __future__ import annotations

from typing import Any

from mindinsight_clone.analyzers.profiler.adapters.legacy.legacy_files import dir_file, read_json
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.numbers import to_float
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir
from mindinsight_clone.analyzers.profiler.views.timeline import Window
from mindinsight_clone.errors import ProfilerRawFileError
from mindinsight_clone.ingest.storage import Location

SCOPE_TID = 100001


def _file(pdir: ProfilerDir, kind: str, device_id: str, device_type: str) -> Location | None:
    found = dir_file(pdir, f"{device_type}_timeline_{kind}_{device_id}.json")
    if found is None and device_type == "ascend":  # MindSpore 1.0's names
        found = dir_file(pdir, f"timeline_{kind}_{device_id}.json")
    return found


def timeline_summary(pdir: ProfilerDir, device_id: str, device_type: str,
                     cache: ParsedFileCache | None = None) -> dict[str, Any]:
    path = _file(pdir, "summary", device_id, device_type)
    summary = read_json(path, cache) if path is not None else {}
    if not isinstance(summary, dict):
        raise ProfilerRawFileError(f"<{path.name if path else ''}> is not a JSON object.")
    return {**summary, "max_scope_name_num": summary.get("max_scope_name_num", 0)}


def _scope_level(event: dict[str, Any]) -> int:
    try:
        return int(event.get("scope_level", 0))
    except (TypeError, ValueError):
        return 0


def _windowed(events: list[Any], window: Window) -> list[Any]:
    """Metadata events, then the timed events overlapping the window (the `max_events` longest), by start."""
    meta = [e for e in events if e.get("ph") == "M"]
    timed: list[tuple[Any, float, float]] = []
    for event in events:
        ts = to_float(event.get("ts")) if event.get("ph") != "M" else None
        if ts is not None:
            timed.append((event, ts, to_float(event.get("dur")) or 0.0))
    origin = min((ts for _, ts, _ in timed), default=0.0)
    chosen = [(e, ts, dur) for e, ts, dur in timed
              if (window.start_us is None or ts + dur >= origin + window.start_us)
              and (window.end_us is None or ts <= origin + window.end_us)
              and (window.min_dur_us is None or dur >= window.min_dur_us)]
    if window.max_events is not None and len(chosen) > window.max_events:
        chosen = sorted(chosen, key=lambda item: -item[2])[:window.max_events]
    chosen.sort(key=lambda item: item[1])
    return meta + [e for e, _, _ in chosen]


def timeline(pdir: ProfilerDir, device_id: str, device_type: str, scope_name_num: int, window: Window,
             cache: ParsedFileCache | None = None) -> list[Any]:
    path = _file(pdir, "display", device_id, device_type)
    if path is None:
        return []
    data = read_json(path, cache)
    if not isinstance(data, list):
        raise ProfilerRawFileError(f"<{path.name}> is not a list of trace events.")
    events = [e for e in data if isinstance(e, dict) and e and not (
        e.get("tid") == SCOPE_TID and e.get("ph") != "M" and _scope_level(e) >= scope_name_num)]
    return events if window == Window() else _windowed(events, window)
