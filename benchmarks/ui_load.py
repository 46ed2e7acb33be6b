"""First chart paint in the browser: a run with 300 scalar tags, and the comparison of 5 runs.

Writes two data sets with our SummaryWriter into a temporary base dir, starts our server on it
(`mindinsight-clone start`), opens the pages in Debian's Chromium (Playwright) and measures, from
the start of the navigation (`performance.now()` in the page, so Python's polling adds nothing):

* **300 tags** (`#/scalars?train_id=./tags300`, 300 tags x STEPS steps): first chart painted, every
  chart on the first screen, and the whole first page of 12 (the default); with `size=48`, first
  chart and first screen (charts more than a screen below are drawn when scrolled near);
* **compare 5 x 1,000** (`#/compare-plate?run=./cmp_0..4`, 5 runs x 1,000 steps x 4 tags): the first
  chart with all 5 lines, and every chart.

"Painted" = the chart's container says `data-rendered="true"` with every series holding points (the
option has been set on the ECharts instance: the canvas is drawn in that same frame). The first
repetition ("1st") of the first page of a run is cold (the server loads the run on the page's
`POST train-job-caches`); every repetition uses a fresh browser context, so the assets (ECharts
included) are fetched and compiled each time. Medians of the later ("warm") repetitions are printed.

Usage: python benchmarks/ui_load.py [--reps N] [--steps N] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mindinsight_clone.summary import SummaryWriter  # noqa: E402
from tests.conftest import free_port, run_cli  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]
STAMP = 1_795_000_000
TIMEOUT_MS = 120_000

# In-page probe: ms since navigation start when `n` charts matching the selector are painted, else
# null; n = 0: every matching chart whose top is on the first screen (charts further down are
# drawn when scrolled near, by design).
PAINTED = """([sel, n, minSeries]) => {
  const all = [...document.querySelectorAll(sel)];
  const painted = e => e.dataset.rendered === 'true' && Number(e.dataset.seriesCount) >= minSeries
      && Number(e.dataset.pointCount) > 0;
  if (n > 0) return all.filter(painted).length >= n ? performance.now() : null;
  const onScreen = all.filter(e => e.getBoundingClientRect().top < innerHeight);
  return onScreen.length > 0 && onScreen.every(painted) ? performance.now() : null
}"""


def write_data(base: Path, tags: int, steps: int, cmp_steps: int) -> None:
    with SummaryWriter(base / "tags300", timestamp=STAMP) as w:
        for step in range(1, steps + 1):
            for k in range(tags):
                w.add_scalar(f"group{k // 20:02d}/metric_{k:03d}", math.sin(step / (5 + k % 17)) + k * 0.01, step)
    for r in range(5):
        with SummaryWriter(base / f"cmp_{r}", timestamp=STAMP + r) as w:
            for step in range(1, cmp_steps + 1):
                loss = 2.3 * math.exp(-step / (150 + 40 * r)) + 0.05 * math.sin(step * (r + 1))
                w.add_scalar("loss", loss, step)
                w.add_scalar("accuracy", 1 - loss / 2.5, step)
                w.add_scalar("lr", 0.1 * 0.5 * (1 + math.cos(math.pi * step / cmp_steps)), step)
                w.add_scalar("grad_norm", 1 / (1 + step / 100) + 0.1 * math.cos(step), step)


def wait_listed(base: str, n: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"{base}/v1/mindinsight/datavisual/train-jobs?limit=999", timeout=10) as r:
            if len(json.loads(r.read())["train_jobs"]) >= n:
                return
        time.sleep(0.2)
    raise TimeoutError("the server did not list the runs")


def measure(browser, url: str, targets: list[tuple[str, str, int, int]]) -> dict[str, float]:
    """Opens `url` in a fresh context; for each (label, selector, count, min series) the ms until painted."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    out = {}
    for label, sel, n, min_series in targets:
        handle = page.wait_for_function(PAINTED, arg=[sel, n, min_series], timeout=TIMEOUT_MS, polling="raf")
        out[label] = float(handle.json_value())
    ctx.close()
    if errors:
        raise RuntimeError(f"page errors: {errors}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=5, help="repetitions (the first is cold)")
    parser.add_argument("--steps", type=int, default=200, help="steps of the 300-tag run")
    parser.add_argument("--smoke", action="store_true", help="tiny data, 2 repetitions (CI)")
    args = parser.parse_args()
    tags, steps, cmp_steps, reps = (300, 5, 50, 2) if args.smoke else (300, args.steps, 1000, max(2, args.reps))
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "logs"
        t0 = time.perf_counter()
        write_data(data, tags, steps, cmp_steps)
        print(f"data: 1 run x {tags} tags x {steps} steps, 5 runs x 4 tags x {cmp_steps} steps "
              f"({sum(f.stat().st_size for f in data.rglob('*') if f.is_file()) / 2**20:.1f} MB) "
              f"written in {time.perf_counter() - t0:.1f} s")
        port, ws = free_port(), Path(tmp) / "ws"
        res = run_cli("start", "--port", str(port), "--summary-base-dir", str(data), "--workspace", str(ws))
        assert res.returncode == 0, res.stdout + res.stderr
        base = f"http://127.0.0.1:{port}"
        try:
            wait_listed(base, 6)
            runs = "&".join("run=" + urllib.parse.quote(f"./cmp_{r}") for r in range(5))
            scenarios = [
                ("300 tags, page of 12", f"{base}/#/scalars?train_id=./tags300",
                 [("first chart", "[data-testid=scalar-chart]", 1, 1),
                  ("first screen", "[data-testid=scalar-chart]", 0, 1),
                  ("12 charts", "[data-testid=scalar-chart]", 12, 1)]),
                ("300 tags, page of 48", f"{base}/#/scalars?train_id=./tags300&size=48",
                 [("first chart", "[data-testid=scalar-chart]", 1, 1),
                  ("first screen", "[data-testid=scalar-chart]", 0, 1)]),
                (f"compare 5 x {cmp_steps:,}", f"{base}/#/compare-plate?{runs}",
                 [("first chart (5 lines)", "[data-testid=scalar-chart]", 1, 5),
                  ("4 charts", "[data-testid=scalar-chart]", 4, 5)]),
            ]
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
                print("\n| page | milestone | 1st (ms) | warm median (ms) | warm min-max (ms) |")
                print("|---|---|---|---|---|")
                for name, url, targets in scenarios:
                    results = [measure(browser, url, targets) for _ in range(reps)]
                    for label, *_ in targets:
                        warm = [r[label] for r in results[1:]]
                        print(f"| {name} | {label} | {results[0][label]:,.0f} | {statistics.median(warm):,.0f} | "
                              f"{min(warm):,.0f}-{max(warm):,.0f} |")
                browser.close()
        finally:
            run_cli("stop", "--port", str(port), "--workspace", str(ws))
    print(f"\n{reps} repetitions each (1 cold + {reps - 1} warm); times from navigation start to the paint.")


if __name__ == "__main__":
    main()
