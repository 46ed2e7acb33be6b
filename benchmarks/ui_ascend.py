"""Ascend profiler views in the browser on a synthetic many-rank job: how long until each view is drawn.

Makes the job with benchmarks/ascend.py's generator (ranks from ../shared/fixtures/ascend, one slow rank; rank 0's
kernel_details.csv scaled to `--kernel-rows` and its trace_view.json to `--trace-mb`) in a temp dir, starts our
server (gunicorn, `mindinsight-clone start`) on it, opens the views in Debian's Chromium (Playwright) and prints,
cold (first ask: the server reads the files) and warm (cached):

* cluster page: navigation until the stacked bars of every rank are drawn, and how many ranks are marked slow;
* click-through from rank 0's bar until its overview (step split and top types) is drawn;
* operators tab on rank 0: the kernel table's first page over all kernels, a name search, a sort by duration;
* communication and memory tabs: until their charts are drawn; timeline: until the NPU lanes are drawn;
* the JS heap at the end.

Usage: python benchmarks/ui_ascend.py [--ranks 64] [--kernel-rows 1000000] [--trace-mb 100] [--smoke]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks import common  # noqa: E402
from benchmarks.ascend import generate  # noqa: E402
from tests.conftest import free_port, run_cli  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
TIMEOUT = 900_000


def _timed(label: str, action: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    action()
    took = time.perf_counter() - t0
    print(f"  {label}: {took:.2f} s")
    return took


def _rendered(page: Any, testid: str) -> None:
    page.wait_for_selector(f'[data-testid="{testid}"][data-rendered="true"]', timeout=TIMEOUT)


def run(page: Any, base: str, ranks: int, kernel_rows: int) -> None:
    job = f"{base}/#/profiler?train_id=./job"
    for label in ("cold", "warm"):
        print(f"{label}:")
        page.goto("about:blank")

        def cluster() -> None:
            page.goto(f"{job}&tab=cluster")
            page.wait_for_function(
                "(n) => { const e = document.querySelector('[data-testid=ascend-cluster-chart]');"
                " return e && e.dataset.rendered === 'true' && e.dataset.names.split('|').length === n }",
                arg=ranks, timeout=TIMEOUT)

        _timed(f"cluster page, {ranks} bars drawn", cluster)
        slow = page.eval_on_selector_all('[data-testid=ascend-rank-row][data-slow=true]', "r => r.map(x => x.dataset.rank)")
        print(f"  slow ranks marked: {', '.join(slow) or 'none'}")

        def open_rank0() -> None:
            page.locator('[data-testid="ascend-open-rank"]').first.click()
            _rendered(page, "ascend-steps-chart")
            _rendered(page, "ascend-top-ops-chart")

        _timed("click-through to rank 0's overview", open_rank0)

        def kernels() -> None:
            page.goto(f"{job}&device=0&tab=ops&view=all")
            page.wait_for_selector(f'[data-testid="op-table"][data-size="{kernel_rows}"]', timeout=TIMEOUT)

        _timed(f"kernel table, first page of {kernel_rows:,} kernels", kernels)

        def search() -> None:
            page.fill('[data-testid="op-search"]', "conv2d")
            page.wait_for_function(
                "(n) => { const t = document.querySelector('[data-testid=op-table]'); return t && Number(t.dataset.size) < n }",
                arg=kernel_rows, timeout=TIMEOUT)

        _timed("kernel search 'conv2d' (incl. 0.25 s debounce)", search)

        def sort() -> None:
            with page.expect_response(lambda r: "/profile/ops/search" in r.url, timeout=TIMEOUT):
                page.click('[data-testid="op-sort-duration_us"]')
            page.wait_for_selector('[data-testid="op-table"][data-sort="duration_us:descending"]', timeout=TIMEOUT)
            page.wait_for_timeout(0)  # let Vue render the answer

        _timed("kernel sort by duration", sort)

        for tab, testid in (("communication", "ascend-matrix-chart"), ("memory", "ascend-memory-chart"),
                            ("timeline", "timeline-chart")):
            def view(tab: str = tab, testid: str = testid) -> None:
                page.goto(f"{job}&device=0&tab={tab}")
                _rendered(page, testid)

            _timed(f"{tab} of rank 0 drawn", view)
    heap = page.evaluate("() => performance.memory ? performance.memory.usedJSHeapSize : 0")
    print(f"JS heap at the end: {heap / 2**20:.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--kernel-rows", type=int, default=1_000_000)
    parser.add_argument("--trace-mb", type=float, default=100.0)
    parser.add_argument("--smoke", action="store_true", help="4 ranks, 20,000 kernel rows, a 5 MB trace")
    args = parser.parse_args()
    if args.smoke:
        args.ranks, args.kernel_rows, args.trace_mb = 4, 20_000, 5.0
    from playwright.sync_api import sync_playwright

    print(f"machine: {common.machine_info()}, load {common.load_average()}")
    with tempfile.TemporaryDirectory() as tmp:
        facts = generate(Path(tmp) / "job", args.ranks, args.kernel_rows, args.trace_mb)
        print(f"job: {facts}")
        port, ws = free_port(), Path(tmp) / "ws"
        res = run_cli("start", "--port", str(port), "--summary-base-dir", tmp, "--workspace", str(ws))
        assert res.returncode == 0, res.stdout + res.stderr
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=["--no-sandbox", "--disable-gpu", "--enable-precise-memory-info"])
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                run(page, f"http://127.0.0.1:{port}", args.ranks, args.kernel_rows)
                browser.close()
        finally:
            run_cli("stop", "--port", str(port), "--workspace", str(ws))
    print(f"load after: {common.load_average()}")


if __name__ == "__main__":
    main()
