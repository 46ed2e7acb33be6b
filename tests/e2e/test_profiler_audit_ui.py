"""Browser tests of issue 21's profiler-page defects: units from the API's column definitions, translated headers,
kernel start times relative to the profile's start, the framework badge, one calm state for a missing file without
console noise, a run deleted while its page is open, the timeline's stacking and counter, axis labels, Chinese text.

Data: ../shared/fixtures/ascend (torch_npu, the session's `ascend_ui_server`), ../shared/fixtures/mindspore (the
session's `ui_server`), and a server of this module on the demo data (scripts/make_demo_data) plus small Ascend jobs
written here (tests delete files of those). Expected values come from the raw files or the i18n dictionaries.
"""

from __future__ import annotations

import csv
import heapq
import json
import math
import re
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from mindinsight_clone.summary.ascend_profile import write_ascend_job
from tests.conftest import FIXTURES, REPO, free_port, require_shared, run_cli
from tests.e2e.conftest import ASCEND_FIXTURES

LEVEL0, LEVEL1 = "./torch_npu_level0", "./torch_npu_level1"
DEMO_PROFILE = "./resnet_lr0.05_bs128_momentum"  # the demo data's Ascend job (MindSpore flavour, 2 ranks)
I18N = REPO / "frontend" / "src" / "i18n"
RAW_KEY = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")  # op_type, total_time_us, execution_frequency ...
CJK = re.compile(r"[\u4e00-\u9fff]")
NPU_PROCESSES = ("Ascend Hardware", "HCCL", "Overlap Analysis")
EPS = 1e-6  # µs: intervals touching within this are not nested (the UI's rule too)


def _strings(lang: str) -> dict[str, str]:
    text = (I18N / f"{lang}.ts").read_text(encoding="utf-8")
    return {k: v.replace("\\u2019", "’") for k, v in re.findall(r"^\s+'([^']+)':\s*'((?:[^'\\]|\\.)*)',$", text, re.M)}


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return [{k.strip(): (v or "").strip() for k, v in row.items()} for row in csv.DictReader(fh)]


def _output(job: str, rank: int, base: Path = ASCEND_FIXTURES) -> Path:
    info = next((base / job.removeprefix("./") / "profiler").glob(f"**/profiler_info_{rank}.json"))
    return info.parent / "ASCEND_PROFILER_OUTPUT"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A server of this module on the demo data plus two small Ascend jobs (one to delete, one missing a file)."""
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    base = tmp_path_factory.mktemp("audit-prof") / "base"
    # 600 steps (not the default 3,000) as test_audit_pages.py: the runs' length is not under test here
    subprocess.run([sys.executable, str(REPO / "scripts" / "make_demo_data"), str(base), "--steps", "600"], check=True,
                   timeout=180, capture_output=True)
    write_ascend_job(base / "prof_gone", ranks=1, steps=1, kernels_per_step=16)
    write_ascend_job(base / "prof_partial", ranks=2, steps=1, kernels_per_step=16)
    (_output("prof_partial", 1, base) / "kernel_details.csv").unlink()  # rank 1 lost its kernel table
    session = write_ascend_job(base / "prof_torch_notrace", ranks=1, steps=1, kernels_per_step=16)[0]
    (session / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").unlink()  # a torch_npu rank without a timeline
    info = session / "profiler_info_0.json"
    info.write_text(json.dumps({"rank_id": 0, **json.loads(info.read_text())["config"]}))  # torch_npu's shape
    session.rename(session.with_name(session.name.replace("_ascend_ms", "_ascend_pt")))
    port, ws = free_port(), tmp_path_factory.mktemp("audit-prof-ws")
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws),
                      "--reload-interval", "1")
    assert started.returncode == 0, started.stdout + started.stderr
    yield f"http://127.0.0.1:{port}", base
    run_cli("stop", "--port", str(port), "--workspace", str(ws))


def _open(page: Any, base: str, query: str, lang: str = "en-us", refresh: int = 60) -> None:
    page.add_init_script(f"localStorage.setItem('milang', '{lang}')")
    page.goto(f"{base}/?refresh={refresh}#/profiler?{query}")
    page.wait_for_selector('[data-testid="profiler-page"][data-status="ready"]')


def _headers(page: Any) -> dict[str, dict[str, str]]:
    """The op table's headers: raw column key -> {text, title} (the sort mark left out)."""
    return {h["key"]: h for h in page.eval_on_selector_all(
        '[data-testid="op-table"] thead th[data-testid^="op-sort-"]',
        "ths => ths.map(th => ({ key: th.dataset.testid.slice(8), title: th.title,"
        " text: [...th.childNodes].filter(n => !(n.classList && n.classList.contains('sort-mark')))"
        ".map(n => n.textContent).join('').trim() }))")}


def _cells(page: Any) -> list[dict[str, str]]:
    keys = page.eval_on_selector_all('[data-testid="op-table"] thead th', "ths => ths.map(th => th.dataset.testid"
                                     " ? th.dataset.testid.slice(8) : '')")
    rows = page.eval_on_selector_all('[data-testid="op-row"]', "rows => rows.map(r => [...r.children].map(c =>"
                                     " c.textContent.trim()))")
    return [dict(zip(keys, r, strict=True)) for r in rows]


def _unit_of(text: str) -> str | None:
    found = re.findall(r"\(([^()]*)\)\s*$", text)
    return found[0] if found else None


# --- units, headers, start times (ops tab) ------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en-us", "zh-cn"])
def test_type_table_headers_are_translated_with_units_from_the_api(ascend_ui_server: str, page: Any,
                                                                  lang: str) -> None:
    """ForeachAddList: 1959.079 µs in op_statistic.csv; no column labelled µs may show the ms figure 1.959."""
    stat = _rows(_output(LEVEL1, 0) / "op_statistic.csv")
    top = max(stat, key=lambda r: float(r["Total Time(us)"]))
    micro = {round(float(top[c]), 3) for c in ("Total Time(us)", "Min Time(us)", "Avg Time(us)", "Max Time(us)")}
    _open(page, ascend_ui_server, f"train_id={LEVEL1}&tab=ops", lang)
    page.wait_for_selector('[data-testid="op-row"]')
    headers = _headers(page)
    row = next(r for r in _cells(page) if r["op_type"] == top["OP Type"])
    for key, head in headers.items():
        assert not RAW_KEY.search(head["text"]), head  # a label, not the field name
        assert key in head["title"]  # the raw key stays reachable in the tooltip
        assert head["text"].count("(") <= 1, head  # each unit once
        if lang == "zh-cn":
            assert CJK.search(head["text"]), head
        if _unit_of(head["text"]) == "µs":
            assert round(float(row[key]), 3) in micro, (key, row[key])
    assert any(_unit_of(h["text"]) == "µs" for h in headers.values())
    assert _unit_of(headers["percent"]["text"]) == "%"
    assert float(row["percent"]) == pytest.approx(float(top["Ratio(%)"]), abs=1e-3)
    # the chart's values are µs too: the top type's total
    page.wait_for_selector('[data-testid="op-chart"][data-rendered="true"]')
    first = page.evaluate("() => window.__charts['profiler:op-types'].instance().getOption().series[0].data[0]")
    assert first["name"] == top["OP Type"] and first["value"] == pytest.approx(float(top["Total Time(us)"]), rel=1e-4)


def test_kernel_start_times_are_relative_to_the_profiles_start(ascend_ui_server: str, page: Any) -> None:
    kernels = _rows(_output(LEVEL1, 0) / "kernel_details.csv")
    origin = min(float(k["Start Time(us)"]) for k in kernels)
    shown = sorted(float(k["Start Time(us)"]) - origin for k in kernels if k["Accelerator Core"] != "AI_CPU")
    _open(page, ascend_ui_server, f"train_id={LEVEL1}&tab=ops&view=all")
    page.wait_for_selector('[data-testid="op-table"][data-view="all"] [data-testid="op-row"]')
    page.click('[data-testid="op-sort-start_time_us"]')  # descending
    page.click('[data-testid="op-sort-start_time_us"]')  # ascending
    page.wait_for_selector('[data-testid="op-table"][data-sort="start_time_us:ascending"]')
    page.wait_for_function("() => { const r = document.querySelector('[data-testid=op-row]'); return r &&"
                           " /^0(\\.0+)?$/.test(r.children[[...document.querySelectorAll('[data-testid=op-table]"
                           " thead th')].findIndex(t => t.dataset.testid === 'op-sort-start_time_us')].textContent"
                           ".trim()) }")
    got = [float(r["start_time_us"]) for r in _cells(page)]
    assert got == pytest.approx(shown[: len(got)], abs=0.01)
    head = _headers(page)["start_time_us"]
    assert _unit_of(head["text"]) == "µs" and "start_time_us" in head["title"]


def test_communication_transit_time_has_its_unit(ascend_ui_server: str, page: Any) -> None:
    _open(page, ascend_ui_server, f"train_id={LEVEL1}&tab=communication")
    page.wait_for_selector('[data-testid="comm-row"]')
    heads = page.eval_on_selector_all('[data-testid="ascend-comm-table"] thead th', "ths => ths.map(t =>"
                                      " t.textContent.replace(/[▲▼⇅]/g, '').trim())")
    transit = [h for h in heads if "Transit" in h]
    assert transit == ["Transit time (ms)"], heads


# --- what the profile is -------------------------------------------------------------------------------------------


def test_layout_badge_says_what_wrote_the_profile(ascend_ui_server: str, demo: tuple[str, Path], page: Any) -> None:
    en = _strings("en")
    _open(page, ascend_ui_server, f"train_id={LEVEL1}")
    badge = page.inner_text('[data-testid="prof-layout"]')
    assert badge == en["profiler.layoutPytorch"] and "MindSpore" not in badge
    _open(page, demo[0], f"train_id={DEMO_PROFILE}")
    assert page.inner_text('[data-testid="prof-layout"]') == "MindSpore ≥ 2.4"


# --- a missing file: one calm state, no console noise -------------------------------------------------------------


def test_a_missing_file_is_one_calm_state_without_console_errors(ascend_ui_server: str, demo: tuple[str, Path],
                                                                 page: Any) -> None:
    """rank 1 of prof_partial lost kernel_details.csv; Level0 has no communication.json. Every view says so the same
    calm way, and the browser logs nothing (the `page` fixture fails on any console error)."""
    base, data = demo
    assert not (_output("prof_partial", 1, data) / "kernel_details.csv").exists()
    _open(page, base, "train_id=./prof_partial&device=1&tab=ops&view=all")
    missing = page.wait_for_selector('[data-testid="ascend-missing"]')
    assert "kernel_details.csv" in missing.inner_text()
    assert page.locator('[data-testid="state-error"]').count() == 0
    _open(page, ascend_ui_server, f"train_id={LEVEL0}&tab=communication")
    assert "communication.json" in page.wait_for_selector('[data-testid="ascend-missing"]').inner_text()
    assert page.locator('[data-testid="state-error"]').count() == 0


@pytest.mark.parametrize(("lang", "job", "key"), [("en-us", "./prof_torch_notrace", "profiler.timelineNoneTorch"),
                                                  ("zh-cn", "./prof_torch_notrace", "profiler.timelineNoneTorch"),
                                                  ("en-us", "./prof_gone", "profiler.timelineNone")])
def test_a_missing_timeline_gives_the_hint_of_the_framework_that_wrote_it(demo: tuple[str, Path], page: Any,
                                                                          lang: str, job: str, key: str) -> None:
    base, data = demo
    if job == "./prof_gone":
        if not (data / "prof_gone").exists():
            pytest.skip("prof_gone was deleted by the deletion test")
        (_output("prof_gone", 0, data) / "trace_view.json").unlink(missing_ok=True)
    strings = _strings(lang.split("-")[0])
    _open(page, base, f"train_id={job}&tab=timeline", lang=lang)
    hint = page.wait_for_selector('[data-testid="timeline-not-recorded"]').inner_text()
    assert strings[key] in hint
    assert ("torch_npu" in hint) == (key == "profiler.timelineNoneTorch")


# --- a run deleted while its page is open --------------------------------------------------------------------------


def test_profiler_page_follows_the_runs_deletion(demo: tuple[str, Path], page: Any) -> None:
    base, data = demo
    _open(page, base, "train_id=./prof_gone&tab=overview", refresh=2)
    page.wait_for_selector('[data-testid="ascend-steps-chart"][data-rendered="true"]')
    started = time.monotonic()
    shutil.rmtree(data / "prof_gone")
    page.wait_for_selector('[data-testid="state-notFound"]', timeout=15_000)
    assert time.monotonic() - started < 10
    assert page.get_attribute('[data-testid="profiler-page"]', "data-status") == "notFound"
    assert page.locator('[data-testid="prof-tab"]').count() == 0  # no tab left to ask the server about it
    page.click('[data-testid="refresh-button"]')
    page.wait_for_timeout(1500)
    assert page.get_attribute('[data-testid="profiler-page"]', "data-status") == "notFound"


# --- timeline ---------------------------------------------------------------------------------------------------------


def _lanes_depth(trace: list[dict[str, Any]]) -> dict[tuple[str, str], int]:
    """Per (pid, tid): the most events open at once (= rows needed so that no two overlap), by a sweep."""
    by_lane: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    timed = [e for e in trace if e.get("ph") != "M" and "ts" in e]
    t0 = min(round(float(e["ts"]), 3) for e in timed)  # times relative to the first event, as the page keeps them
    for e in timed:  # (absolute µs in float64 are only 0.25 µs apart)
        start, dur = round(float(e["ts"]), 3) - t0, round(float(e.get("dur", 0) or 0), 3)
        by_lane[(str(e["pid"]), str(e.get("tid", "")))].append((start, start + dur))
    depth = {}
    for lane, spans in by_lane.items():
        spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
        ends: list[float] = []
        most = 0
        for start, end in spans:
            while ends and ends[0] <= start + EPS:
                heapq.heappop(ends)
            heapq.heappush(ends, end)
            most = max(most, len(ends))
        depth[lane] = most
    return depth


def test_timeline_stacks_nested_events_by_depth(ascend_ui_server: str, page: Any) -> None:
    trace = json.loads((_output(LEVEL1, 0) / "trace_view.json").read_text())
    timed = sum(1 for e in trace if e.get("ph") != "M" and "ts" in e)
    depth = _lanes_depth(trace)
    assert max(depth.values()) > 1  # the Python lanes nest calls
    _open(page, ascend_ui_server, f"train_id={LEVEL1}&tab=timeline")
    page.wait_for_selector('[data-testid="timeline-chart"][data-rendered="true"]')
    page.select_option('[data-testid="timeline-lane-scope"]', "all")
    page.select_option('[data-testid="timeline-max-events"]', "20000")
    page.wait_for_function("n => window.__charts['profiler:timeline'].extra.bars.length === n", arg=timed)
    extra = page.evaluate("() => { const x = window.__charts['profiler:timeline'].extra;"
                          " return { bars: x.bars, keys: x.laneKeys, rows: x.rowsPerLane } }")
    rows = {tuple(k.split("\u0000")): n for k, n in zip(extra["keys"], extra["rows"], strict=True)}
    assert rows == depth
    # no two events of one row overlap, so no two labels are printed over each other
    by_row: dict[tuple[int, int], list[tuple[float, float]]] = defaultdict(list)
    for start, end, lane, row in extra["bars"]:
        by_row[(lane, row)].append((start, end))
    for spans in by_row.values():
        spans.sort()
        assert all(a[1] <= b[0] + EPS for a, b in pairwise(spans))


def test_timeline_counter_counts_what_is_shown(ascend_ui_server: str, page: Any) -> None:
    trace = json.loads((_output(LEVEL0, 0) / "trace_view.json").read_text())
    names = {str(e["pid"]): e["args"]["name"] for e in trace if e.get("ph") == "M" and e.get("name") == "process_name"}
    per_pid: dict[str, int] = defaultdict(int)
    for e in trace:
        if e.get("ph") != "M" and "ts" in e:
            per_pid[str(e["pid"])] += 1
    hidden = sum(n for pid, n in per_pid.items() if names.get(pid) not in NPU_PROCESSES)
    hidden_processes = sum(1 for pid in per_pid if names.get(pid) not in NPU_PROCESSES)
    in_lanes = sum(per_pid.values()) - hidden
    _open(page, ascend_ui_server, f"train_id={LEVEL0}&tab=timeline")
    page.wait_for_selector('[data-testid="timeline-chart"][data-rendered="true"]')
    info = page.locator('[data-testid="timeline-info"]')
    bars = page.evaluate("() => window.__charts['profiler:timeline'].extra.bars.length")
    assert info.get_attribute("data-shown") == str(bars)
    assert info.get_attribute("data-in-lanes") == str(in_lanes)
    assert info.get_attribute("data-hidden") == str(hidden) and hidden > 0
    text = info.inner_text()
    assert f"{bars:,}" in text and f"{in_lanes:,}" in text and f"{hidden:,}" in text
    assert f"{sum(per_pid.values()):,}" not in text  # the total over every process is not what is shown
    assert str(hidden_processes) in text


# --- axes ----------------------------------------------------------------------------------------------------------

_LABELS_JS = """([id, axis]) => {
  const c = window.__charts[id].instance()
  const g = c.getModel().getComponent('grid').coordinateSystem.getRect()
  const out = []
  for (const el of c.getZr().storage.getDisplayList()) {
    const text = el.style && el.style.text
    if (typeof text !== 'string' || !text || el.ignore || el.invisible) continue
    const r = el.getBoundingRect().clone()
    if (el.transform) r.applyTransform(el.transform)
    const below = r.y >= g.y + g.height - 1, left = r.x + r.width <= g.x + 1
    if ((axis === 'x' && below && r.y < g.y + g.height + 30) || (axis === 'y' && left && r.y >= g.y - 10))
      out.push({ text, x: r.x, w: r.width, y: r.y })
  }
  return out.sort((a, b) => axis === 'x' ? a.x - b.x : b.y - a.y)
}"""
_US = {"µs": 1.0, "ms": 1e3, "s": 1e6}
_BYTES = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}


def _axis(page: Any, chart: str, axis: str) -> list[dict[str, Any]]:
    page.wait_for_selector(f'[data-chart-id="{chart}"][data-rendered="true"]')
    page.wait_for_timeout(300)
    labels: list[dict[str, Any]] = page.evaluate(_LABELS_JS, [chart, axis])
    return labels


def _value(text: str, units: dict[str, float]) -> float:
    number, _, unit = text.partition(" ")
    return float(number.replace(",", "")) * (units[unit] if unit else 1.0)


def _check_value_axis(labels: list[dict[str, Any]], units: dict[str, float]) -> list[float]:
    texts = [lb["text"] for lb in labels]
    assert len(texts) >= 3, texts
    assert texts[0] == "0", texts  # a zero needs no unit
    assert not any(re.search(r"\.\d*0 ", t) for t in texts), texts  # "6.000 ms", "1.50 ms"
    values = [_value(t, units) for t in texts]
    steps = [b - a for a, b in pairwise(values)]
    assert max(steps) == pytest.approx(min(steps), rel=1e-6), texts  # evenly spaced: no odd edge label
    for a, b in pairwise(labels):
        assert b["x"] - (a["x"] + a["w"]) >= 8, (a, b)  # not crowded, never colliding
    return steps


def test_timeline_and_ascend_memory_axes(demo: tuple[str, Path], page: Any) -> None:
    base, _ = demo
    _open(page, base, f"train_id={DEMO_PROFILE}&tab=timeline")
    _check_value_axis(_axis(page, "profiler:timeline", "x"), _US)
    page.click('[data-testid="prof-tab-memory"]')
    _check_value_axis(_axis(page, "profiler:ascend-memory", "x"), _US)


def test_cpu_memory_ticks_are_nice_binary_steps(ui_server: str, page: Any) -> None:
    require_shared(FIXTURES / "profiler_cpu")
    _open(page, ui_server, "train_id=./profiler_cpu&tab=memory")
    _check_value_axis(_axis(page, "profiler:memory", "x"), _US)
    labels = _axis(page, "profiler:memory", "y")
    texts = [lb["text"] for lb in labels]
    assert texts[0] in ("0", "0 B"), texts
    values = [_value(t, _BYTES) for t in texts]
    steps = {b - a for a, b in pairwise(values)}
    assert len(steps) == 1, texts
    step = steps.pop()
    unit = 1024 ** int(math.log(step, 1024))
    assert math.log2(step / unit).is_integer(), texts  # 64 KiB, 128 KiB, 256 MiB ... never 97.7 KiB


def test_absolute_time_axis_reads_as_a_clock(demo: tuple[str, Path], page: Any) -> None:
    base, _ = demo
    page.add_init_script("localStorage.setItem('milang', 'en-us')")
    page.goto(f"{base}/?refresh=60#/scalars?train_id=./lenet_lr0.1_bs16_sgd&x=absolute&tag=loss/auto/scalar")
    chart = "scalar:loss/auto/scalar"
    texts = [lb["text"] for lb in _axis(page, chart, "x")]
    assert texts
    for text in texts:
        assert not re.search(r"\d\d:\d\d:\d\d \d{3}", text), texts  # not "08:38:40 560"
        assert re.fullmatch(r"(\d\d-\d\d )?\d\d:\d\d(:\d\d(\.\d{1,3})?)?", text), texts


# --- Chinese ---------------------------------------------------------------------------------------------------


def test_chinese_profiler_suggestions_and_badges(ui_server: str, ascend_ui_server: str, page: Any) -> None:
    require_shared(FIXTURES / "profiler_cpu")
    zh = _strings("zh")
    _open(page, ui_server, "train_id=./profiler_cpu&tab=overview", "zh-cn")
    page.wait_for_selector('[data-testid="ov-hints"] li')
    for hint in page.locator('[data-testid="ov-hints"] li').all():
        text = hint.inner_text()
        assert CJK.search(text) and not RAW_KEY.search(text), text
        assert hint.get_attribute("data-code") in (hint.get_attribute("title") or "")  # raw code in the tooltip
    assert page.inner_text('[data-testid="prof-mode"]') == zh["profiler.modeGraph"]
    # the findings' rule table: a rule that could not run says why in Chinese too (the file names stay)
    _open(page, ascend_ui_server, f"train_id={LEVEL0}&tab=advice", "zh-cn")
    page.wait_for_selector('[data-testid="advice-rule"]')
    notes = page.eval_on_selector_all('[data-testid="advice-rule"] td:last-child', "c => c.map(x => x.innerText)")
    assert any(notes), notes
    for note in filter(None, notes):
        assert CJK.search(note) and not re.search(r"\b(needs|of three ranks|and above)\b", note), note
