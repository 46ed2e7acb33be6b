"""Comparison page zoom and CSV export at full resolution, timed in Chromium (Playwright).

    python benchmarks/ui_zoom_export.py                      # 2 ranks x 200,000 steps, 3 repeats
    python benchmarks/ui_zoom_export.py --ranks 8            # 8 ranks overlaid (a rank group)
    python benchmarks/ui_zoom_export.py --smoke              # 2 x 20,000 steps, 1 repeat (CI)

Writes `job/rank_N` runs of one scalar tag with our SummaryWriter, starts our server (`--max-depth 2`),
opens `#/compare-plate` with every rank overlaid, and measures per repeat in a fresh page:

* zoom: mouse up of a box zoom over 1 % of the steps -> every line's window drawn (`data-window-points`);
* zoomed CSV: click -> file saved (every real step of the zoomed window, all ranks);
* full CSV: click -> file saved (every real step of every rank, fetched in windows of <= 100,000 points);
* for both CSVs also click -> file built in the page (fetched, smoothed, written to a Blob; the rest is
  Chromium and Playwright saving the download);

with the `scalar/metadata` requests each made and the rows/size of each file. Needs Debian's chromium and
the built UI (scripts/build_frontend).
"""

from __future__ import annotations

import argparse
import math
import shutil
import statistics
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import free_port, get_json, load_average, wait_for
from mindinsight_clone.summary import SummaryWriter
from tests.conftest import run_cli

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
TAG = "loss/scalar"
CHART = f"compare:{TAG}"


def write_runs(base: Path, ranks: int, steps: int) -> list[str]:
    for rank in range(ranks):
        with SummaryWriter(base / "job" / f"rank_{rank}", timestamp=1_795_000_000 + rank) as w:
            for step in range(1, steps + 1):
                w.add_scalar("loss", 1.0 + 0.1 * rank + 0.5 * math.exp(-step / (steps / 7)) + 0.01 * math.sin(step), step)
    return [f"./job/rank_{r}" for r in range(ranks)]


def timed_download(page: Any, testid: str) -> tuple[float, float, int, int, int]:
    """(seconds to the file built in the page, seconds to the file saved, rows, bytes, scalar/metadata
    requests) of one export click."""
    requests: list[str] = []
    listener = lambda r: requests.append(r.url) if "scalar/metadata" in r.url else None  # noqa: E731
    page.on("request", listener)
    t = time.perf_counter()
    built = 0.0
    with page.expect_download(timeout=600_000) as info:
        page.get_by_test_id(testid).first.click()
        page.wait_for_function(f"() => document.querySelector(\"[data-chart-id='{CHART}']\").dataset.exporting === 'false'",
                               timeout=600_000, polling=20)
        built = time.perf_counter() - t
    path = Path(info.value.path())
    seconds = time.perf_counter() - t
    page.remove_listener("request", listener)
    text = path.read_bytes()
    return built, seconds, text.count(b"\n") - 1, len(text), len(requests)


def measure(browser: Any, url: str, runs: list[str], steps: int) -> dict[str, float]:
    ctx = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    query = "&".join(f"run={urllib.parse.quote(r)}" for r in runs)
    page.goto(f"{url}/#/compare-plate?{query}&tag={urllib.parse.quote(TAG)}")
    page.wait_for_function(
        f"n => {{ const c = window.__charts && window.__charts['{CHART}']; "
        f"return !!c && c.series.length === n && c.series.every(s => s.lastX === {steps}) }}",
        arg=len(runs), timeout=300_000)
    canvas = page.locator(f"[data-chart-id='{CHART}']")
    box = canvas.bounding_box()
    lo_px, _ = page.evaluate(f"() => window.__charts['{CHART}'].instance().convertToPixel({{gridIndex: 0}}, "
                             f"[{steps // 2}, 1])")
    hi_px, _ = page.evaluate(f"() => window.__charts['{CHART}'].instance().convertToPixel({{gridIndex: 0}}, "
                             f"[{steps // 2 + steps // 100}, 1])")
    page.get_by_test_id("chart-zoom").first.click()
    y0, y1 = box["y"] + 60, box["y"] + box["height"] - 30
    page.mouse.move(box["x"] + lo_px, y0)
    page.mouse.down()
    page.mouse.move(box["x"] + hi_px, y1, steps=4)
    t = time.perf_counter()
    page.mouse.up()
    page.wait_for_function(f"() => document.querySelector(\"[data-chart-id='{CHART}']\").dataset.windowPoints > 0",
                           timeout=120_000)
    zoom_s = time.perf_counter() - t
    shown = int(canvas.get_attribute("data-window-points") or 0)
    total = int(canvas.get_attribute("data-window-total") or 0)
    zb, zs, zrows, zbytes, zreq = timed_download(page, "chart-download-csv")
    page.get_by_test_id("chart-zoom-reset").first.click()
    page.wait_for_function(f"() => document.querySelector(\"[data-chart-id='{CHART}']\").dataset.windowPoints === ''")
    fb, fs, frows, fbytes, freq = timed_download(page, "chart-download-csv")
    ctx.close()
    if errors:
        raise RuntimeError(f"page errors: {errors}")
    return {"zoom_s": zoom_s, "shown": shown, "total": total, "zcsv_s": zs, "zbuilt_s": zb, "zrows": zrows, "zbytes": zbytes,
            "zreq": zreq, "fcsv_s": fs, "fbuilt_s": fb, "frows": frows, "fbytes": fbytes, "freq": freq}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="2 x 20,000 steps, 1 repeat")
    args = parser.parse_args()
    ranks, steps, repeats = (2, 20_000, 1) if args.smoke else (args.ranks, args.steps, args.repeats)
    if not Path(CHROMIUM).exists():
        sys.exit(f"chromium not found at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="ui-zoom-export-"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    ws = tmp / "ws"
    started = False
    try:
        t = time.perf_counter()
        runs = write_runs(tmp / "data", ranks, steps)
        print(f"data: {ranks} ranks x {steps:,} steps written in {time.perf_counter() - t:.1f} s; "
              f"load average {load_average()}")
        res = run_cli("start", "--port", str(port), "--summary-base-dir", str(tmp / "data"), "--workspace", str(ws),
                      "--reload-interval", "0", "--max-depth", "2")
        if res.returncode != 0:
            sys.exit(res.stdout + res.stderr)
        started = True
        wait_for(lambda: len((get_json(url, "/v1/mindinsight/datavisual/train-jobs") or {}).get("train_jobs", []))
                 == ranks, 60)
        rows = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            for _ in range(repeats):
                rows.append(measure(browser, url, runs, steps))
            browser.close()
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        print(f"zoom (1 % of the steps): {med['zoom_s'] * 1000:7.0f} ms  ({int(med['shown']):,} of "
              f"{int(med['total']):,} real points drawn, {ranks} lines)")
        print(f"CSV of the zoomed window:{med['zcsv_s'] * 1000:7.0f} ms  ({int(med['zrows']):,} rows, "
              f"{med['zbytes'] / 1e6:.1f} MB, {int(med['zreq'])} requests; built in the page in "
              f"{med['zbuilt_s'] * 1000:.0f} ms)")
        print(f"CSV of every step:       {med['fcsv_s'] * 1000:7.0f} ms  ({int(med['frows']):,} rows, "
              f"{med['fbytes'] / 1e6:.1f} MB, {int(med['freq'])} requests; built in the page in "
              f"{med['fbuilt_s'] * 1000:.0f} ms)")
        print(f"(median of {repeats}; wall times measured from Playwright; load average {load_average()})")
    finally:
        if started:
            run_cli("stop", "--port", str(port), "--workspace", str(ws))
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
