"""The embedding projector in the browser: a large embedding drawn, hovered and zoomed, and the time of each
projection (issue 20: ">= 10,000 points stay interactive").

Writes one embedding of N points x D dimensions in 8 labelled clusters with our TfeventsWriter (tensorboardX's
projector layout), starts our server on it (`mindinsight-clone start`), opens `#/projector` in Debian's Chromium
(Playwright) and measures:

* `embedding` answer: the server's JSON of every point (N x D numbers and the metadata), over HTTP;
* first paint: from the start of the navigation to the PCA of every point drawn, coloured by label (the chart
  says `extra.done` with N points), as `performance.now()` in the page;
* hover: from the mouse move to the tooltip naming a point (10 moves to points across the chart; median, max);
* zoom: from a wheel step to the chart's new data window;
* PCA / t-SNE / UMAP: the worker's own time for each projection (t-SNE and UMAP run on their sample, see
  frontend/README.md), from `extra.ms`.

No peer is measured: TensorBoard's projector is a WebGL app of its own; this shows our page stays usable.
Usage: python benchmarks/projector_ui.py [--points N] [--dims D] [--reps N] [--smoke]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.ui_load import ARGS, CHROMIUM, wait_listed  # noqa: E402
from mindinsight_clone.summary.tfevents_writer import TfeventsWriter  # noqa: E402
from tests.conftest import free_port, run_cli  # noqa: E402

LABELS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta")
TIMEOUT_MS = 600_000
DONE = "([m, n]) => { const e = window.__charts?.projector?.extra; return !!e && e.method === m && e.done && e.points === n }"


def write_embedding(base: Path, n: int, d: int) -> None:
    rng = np.random.default_rng(0)
    labels = rng.integers(0, len(LABELS), n)
    points = rng.normal(0, 4, (len(LABELS), d))[labels] + rng.normal(0, 1, (n, d))
    with TfeventsWriter(base / "big", timestamp=1_795_000_000, host="bench") as w:
        w.add_embedding(points, "tokens", metadata=[(LABELS[c], str(i)) for i, c in enumerate(labels)],
                        metadata_header=("label", "index"))


def interact(page, n: int) -> dict[str, float]:
    """Hover latency (median, max of 10) and zoom latency, ms."""
    box = page.get_by_test_id("projector-chart").bounding_box()
    targets = page.evaluate("""k => { const c = window.__charts.projector.instance(); const out = [];
        for (const s of c.getOption().series) for (const d of (s.data || []).slice(0, k)) out.push(c.convertToPixel('grid', [d[0], d[1]]));
        return out.slice(0, k) }""", 10)
    hovers = []
    for x, y in targets:
        page.mouse.move(box["x"] + 5, box["y"] + 5)
        page.wait_for_timeout(50)
        t0 = time.perf_counter()
        page.mouse.move(box["x"] + x, box["y"] + y)
        page.locator(".chart-tooltip").filter(has_text="#").wait_for(state="visible", timeout=30_000)
        hovers.append((time.perf_counter() - t0) * 1000)
    before = page.evaluate("() => window.__charts.projector.instance().getOption().dataZoom[0].end")
    t0 = time.perf_counter()
    page.mouse.wheel(0, -400)
    page.wait_for_function("b => window.__charts.projector.instance().getOption().dataZoom[0].end !== b", arg=before)
    zoom = (time.perf_counter() - t0) * 1000
    return {"hover median": statistics.median(hovers), "hover max": max(hovers), "zoom": zoom}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=20_000, help="points of the embedding (the server sends <= 20,000)")
    parser.add_argument("--dims", type=int, default=64)
    parser.add_argument("--reps", type=int, default=3, help="page loads (the first is cold)")
    parser.add_argument("--smoke", action="store_true", help="300 x 8, one load, no UMAP (CI)")
    args = parser.parse_args()
    n, d, reps = (300, 8, 1) if args.smoke else (args.points, args.dims, max(1, args.reps))
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "logs"
        write_embedding(data, n, d)
        size = sum(f.stat().st_size for f in data.rglob("*") if f.is_file()) / 2**20
        print(f"data: 1 embedding, {n:,} points x {d} dims, 8 labels ({size:.1f} MB of TSV)")
        port, ws = free_port(), Path(tmp) / "ws"
        res = run_cli("start", "--port", str(port), "--summary-base-dir", str(data), "--workspace", str(ws))
        assert res.returncode == 0, res.stdout + res.stderr
        base = f"http://127.0.0.1:{port}"
        rows: list[tuple[str, str]] = []
        try:
            wait_listed(base, 1)
            urllib.request.urlopen(urllib.request.Request(f"{base}/v1/mindinsight/datavisual/train-job-caches",
                                   data=b'{"train_ids": ["./big"]}', headers={"Content-Type": "application/json"}))
            t0 = time.perf_counter()
            with urllib.request.urlopen(f"{base}/v1/mindinsight/datavisual/embedding?train_id=./big&tag=tokens",
                                        timeout=120) as r:
                body = r.read()
            rows.append(("`embedding` answer", f"{(time.perf_counter() - t0) * 1000:,.0f} ms ({len(body) / 2**20:.1f} MB)"))
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
                paints, inter, pca = [], [], []
                for rep in range(reps):
                    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
                    page = ctx.new_page()
                    errors: list[str] = []
                    page.on("pageerror", lambda e, out=errors: out.append(str(e)))
                    page.goto(f"{base}/#/projector?train_id=./big")
                    page.wait_for_function(DONE, arg=["pca", n], timeout=TIMEOUT_MS, polling="raf")
                    paints.append(page.evaluate("() => performance.now()"))
                    pca.append(page.evaluate("() => window.__charts.projector.extra.ms"))
                    inter.append(interact(page, n))
                    if rep == reps - 1:
                        for method in ("tsne",) if args.smoke else ("tsne", "umap"):
                            page.get_by_test_id(f"projector-method-{method}").click()
                            sample = min(n, 2000 if method == "tsne" else 5000)
                            page.wait_for_function(DONE, arg=[method, sample], timeout=TIMEOUT_MS)
                            ms = page.evaluate("() => window.__charts.projector.extra.ms")
                            rows.append((f"{method} in the worker ({sample:,} points)", f"{ms / 1000:,.1f} s"))
                    ctx.close()
                    if errors:
                        raise RuntimeError(f"page errors: {errors}")
                browser.close()
        finally:
            run_cli("stop", "--port", str(port), "--workspace", str(ws))
    rows[1:1] = [
        ("first paint (PCA of every point, coloured)", f"1st {paints[0]:,.0f} ms, median {statistics.median(paints):,.0f} ms"),
        ("PCA in the worker", f"median {statistics.median(pca):,.0f} ms"),
        ("hover -> tooltip", f"median {statistics.median(i['hover median'] for i in inter):,.0f} ms, "
                             f"max {max(i['hover max'] for i in inter):,.0f} ms"),
        ("wheel zoom -> new window", f"median {statistics.median(i['zoom'] for i in inter):,.0f} ms"),
    ]
    print(f"\n| projector, {n:,} points x {d} dims | ours |\n|---|---|")
    for label, value in rows:
        print(f"| {label} | {value} |")
    print(f"\n{reps} page load(s), each in a fresh browser context (assets fetched and compiled each time).")


if __name__ == "__main__":
    main()
