"""Profiler timeline in the browser on a large trace: how long until it is drawn, and how long a zoom takes.

Writes a synthetic MindSpore 2.x trace (benchmarks/profiler.py's generator) as
`<tmp>/big/profiler/vm_1_20260101000000000_ascend_ms/ASCEND_PROFILER_OUTPUT/trace_view.json`, starts our server on
it, opens `#/profiler?train_id=./big&tab=timeline` in Debian's Chromium (Playwright) and measures:

* first draw (cold: the server parses the trace), and again warm (parsed trace cached in the server);
* each zoom step: from the click on "zoom in" until the re-fetched window is drawn;
* the JS heap after load, and the bytes of the timeline responses.

Usage: python benchmarks/ui_profiler.py [--events N] [--max-events N] [--smoke]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.profiler import generate  # noqa: E402
from tests.conftest import free_port, run_cli  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
SEL = '[data-testid="timeline-chart"]'


def _wait_drawn(page, fetches_before: int, timeout_ms: int = 120_000) -> None:
    page.wait_for_function(
        "([s, n]) => { const e = document.querySelector(s); return e && e.dataset.rendered === 'true'"
        " && Number(e.dataset.fetches) > n && !document.querySelector('[data-testid=timeline-fetching]') }",
        arg=[SEL, fetches_before],
        timeout=timeout_ms,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--max-events", type=int, default=5000, choices=[2000, 5000, 20000, 100000])
    parser.add_argument("--smoke", action="store_true", help="20,000 events")
    args = parser.parse_args()
    events = 20_000 if args.smoke else args.events
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        session = Path(tmp) / "big" / "profiler" / "vm_1_20260101000000000_ascend_ms" / "ASCEND_PROFILER_OUTPUT"
        session.mkdir(parents=True)
        started = time.perf_counter()
        generate(session / "trace_view.json", events)
        size_mb = (session / "trace_view.json").stat().st_size / 2**20
        print(f"generated {events:,} events, {size_mb:.1f} MB in {time.perf_counter() - started:.1f} s")
        port, ws = free_port(), Path(tmp) / "ws"
        res = run_cli("start", "--port", str(port), "--summary-base-dir", tmp, "--workspace", str(ws))
        assert res.returncode == 0, res.stdout + res.stderr
        base = f"http://127.0.0.1:{port}"
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=["--no-sandbox", "--disable-gpu", "--enable-precise-memory-info"])
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                sizes: list[int] = []
                page.on("response", lambda r: sizes.append(len(r.body())) if "/profile/timeline?" in r.url else None)
                url = f"{base}/#/profiler?train_id=./big&tab=timeline"
                for label in ("cold", "warm"):
                    sizes.clear()
                    page.goto("about:blank")
                    t0 = time.perf_counter()
                    page.goto(url)
                    if args.max_events != 5000:
                        page.wait_for_selector('[data-testid="timeline-max-events"]', timeout=180_000)
                        page.select_option('[data-testid="timeline-max-events"]', str(args.max_events))
                    _wait_drawn(page, 0, 180_000)
                    if args.max_events != 5000:
                        _wait_drawn(page, 1)
                    took = time.perf_counter() - t0
                    count = page.get_attribute(SEL, "data-event-count")
                    print(f"first draw ({label}): {took:.2f} s, {count} events drawn, "
                          f"responses {sum(sizes) / 1e6:.2f} MB")
                heap = page.evaluate("() => performance.memory ? performance.memory.usedJSHeapSize : 0")
                print(f"JS heap after load: {heap / 2**20:.1f} MB")
                for step in range(1, 6):
                    sizes.clear()
                    n = int(page.get_attribute(SEL, "data-fetches"))
                    t0 = time.perf_counter()
                    page.click('[data-testid="timeline-zoom-in"]')
                    _wait_drawn(page, n)
                    took = time.perf_counter() - t0
                    w0, w1 = int(page.get_attribute(SEL, "data-window-start")), int(page.get_attribute(SEL, "data-window-end"))
                    print(f"zoom {step}: window {(w1 - w0) / 1e3:.1f} ms, {page.get_attribute(SEL, 'data-event-count')} "
                          f"events, {took:.2f} s (incl. 0.22 s debounce), response {sum(sizes) / 1e6:.2f} MB")
                browser.close()
        finally:
            run_cli("stop", "--port", str(port), "--workspace", str(ws))


if __name__ == "__main__":
    main()
