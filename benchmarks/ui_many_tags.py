"""First chart of a run with 10,000 scalar tags in Chromium (issue 32: "within 0.5 s of opening it").

Writes one run with our SummaryWriter (benchmarks/many_tags.py's LLM-style names: `local_norm/layer_3/attn`,
`expert_load/layer_12/expert_7`, ...; one event per step holding every tag), starts our server on it, and measures
with benchmarks/ui_load.py's probe (ms from navigation start, in the page) on `#/scalars?train_id=./llm`:
the tag count shown (the first `datavisual/tags` answer: the list is searched and paged on the server above 500
tags), the first chart painted and the first row of 3 (charts further down are drawn when scrolled near); then, in
the same tab, the summary page and the run opened from it by a route change ("opened in the app": from the change to
the first chart, the app's boot left out). A run of 3 tags is measured the same way, interleaved, as the baseline of
what opening any run costs. The first repetition is cold (the page's `train-job-caches` loads the run); each
repetition is a fresh browser context. Medians of the warm ones.

Usage: python benchmarks/ui_many_tags.py [--tags N] [--steps N] [--reps N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.common import load_average  # noqa: E402
from benchmarks.many_tags import llm_tags  # noqa: E402
from benchmarks.ui_load import ARGS, CHROMIUM, PAINTED, STAMP, TIMEOUT_MS, wait_listed  # noqa: E402
from mindinsight_clone.summary import SummaryWriter  # noqa: E402
from tests.conftest import free_port, run_cli  # noqa: E402

SERVER_SEARCH_ABOVE = 500  # tags: the page pages and searches the tag list on the server above this
BASELINE_TAGS = 3  # the same page on a run of 3 tags: what opening any run costs (the app's boot included)
LISTED = """n => { const e = document.querySelector('[data-testid=server-tag-count]');
  return e && e.dataset.total === String(n) ? performance.now() : null }"""


def write_run(base: Path, tags: int, steps: int, name: str = "llm") -> None:
    names = llm_tags(tags)
    with SummaryWriter(base / name, timestamp=STAMP) as w:
        for step in range(1, steps + 1):
            for k, tag in enumerate(names):
                w.add_scalar(tag, (k % 97) * 0.01 + 1.0 / step, step)


def measure(browser, url: str, tags: int) -> dict[str, float]:
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    out: dict[str, float] = {}
    if tags > SERVER_SEARCH_ABOVE:  # the count is shown where the server searches the list
        out["tag list (total shown)"] = float(
            page.wait_for_function(LISTED, arg=tags, timeout=TIMEOUT_MS, polling="raf").json_value()
        )
    for label, n in (("first chart", 1), ("first row of charts", 3)):
        handle = page.wait_for_function(
            PAINTED, arg=["[data-testid=scalar-chart]", n, 1], timeout=TIMEOUT_MS, polling="raf"
        )
        out[label] = float(handle.json_value())
    # the same run opened inside the running app (from the summary list): what a user waits for when clicking a run
    page.goto(url.split("#")[0] + "#/")
    page.wait_for_selector("[data-testid=summary-row]", timeout=TIMEOUT_MS)
    started = float(page.evaluate("h => { const t = performance.now(); location.hash = h; return t }",
                                  "#" + url.split("#", 1)[1]))
    handle = page.wait_for_function(PAINTED, arg=["[data-testid=scalar-chart]", 1, 1], timeout=TIMEOUT_MS,
                                    polling="raf")
    out["first chart, opened in the app"] = float(handle.json_value()) - started
    ctx.close()
    if errors:
        raise RuntimeError(f"page errors: {errors}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tags", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--reps", type=int, default=5, help="repetitions (the first is cold)")
    args = parser.parse_args()
    reps = max(2, args.reps)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "logs"
        t0 = time.perf_counter()
        write_run(data, args.tags, args.steps)
        write_run(data, BASELINE_TAGS, args.steps, name="small")
        size = sum(f.stat().st_size for f in data.rglob("*") if f.is_file()) / 2**20
        print(
            f"data: 1 run x {args.tags:,} tags x {args.steps} steps ({size:.1f} MB) written in {time.perf_counter() - t0:.1f} s"
        )
        port, ws = free_port(), Path(tmp) / "ws"
        res = run_cli("start", "--port", str(port), "--summary-base-dir", str(data), "--workspace", str(ws))
        assert res.returncode == 0, res.stdout + res.stderr
        base = f"http://127.0.0.1:{port}"
        try:
            wait_listed(base, 2)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
                results, small = [], []
                for _ in range(reps):  # interleaved, so both see the same machine
                    results.append(measure(browser, f"{base}/#/scalars?train_id=./llm", args.tags))
                    small.append(measure(browser, f"{base}/#/scalars?train_id=./small", BASELINE_TAGS))
                browser.close()
        finally:
            run_cli("stop", "--port", str(port), "--workspace", str(ws))
    print(f"\n| {args.tags:,} tags | 1st (ms) | warm median (ms) | warm min-max (ms) |")
    print("|---|---|---|---|")
    for label in results[0]:
        warm = [r[label] for r in results[1:]]
        print(
            f"| {label} | {results[0][label]:,.0f} | {statistics.median(warm):,.0f} | {min(warm):,.0f}-{max(warm):,.0f} |"
        )
    for label in small[0]:
        warm = [r[label] for r in small[1:]]
        print(f"| {label}, run of {BASELINE_TAGS} tags (baseline) | {small[0][label]:,.0f} | "
              f"{statistics.median(warm):,.0f} | {min(warm):,.0f}-{max(warm):,.0f} |")
    print(f"\n{reps} repetitions (1 cold + {reps - 1} warm); from navigation start; load average {load_average()}")


if __name__ == "__main__":
    main()
