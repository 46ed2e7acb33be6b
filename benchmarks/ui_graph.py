"""Graph page timings in Chromium (Playwright) on a large generated graph.

    python benchmarks/ui_graph.py                 # 20,000 operators (biggest scope: 2,500 children, paged)
    python benchmarks/ui_graph.py --ops 100000    # another size
    python benchmarks/ui_graph.py --smoke         # 2,000 operators, 1 repeat (CI)

Writes one run with `SummaryWriter.add_graph` (the LeNet-like generator of benchmarks/graph.py: backbone
blocks, their Gradients, one ApplyMomentum per weight in Default/optimizer-Momentum, which becomes one
aggregation scope with N/8 children), starts our server on it, and measures in a fresh page per repeat:

* first render: navigation to `#/graph?train_id=./big` -> the root scopes drawn (includes loading the
  run, the root listing, loading the Graphviz worker + wasm, the layout and the SVG);
* expand biggest scope: the aggregation scope with the most children, shown collapsed through `?node=`,
  double-clicked -> its children drawn (a scope over 1,500 children opens one 1,000-node page);
* the Graphviz layout time of each step, as the page reports it (`data-layout-ms`).

Needs Debian's chromium and the built UI (scripts/build_frontend).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import free_port, get_json, http_request, load_average, wait_for
from benchmarks.graph import make_graph
from mindinsight_clone.summary import SummaryWriter
from tests.conftest import run_cli

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def write_run(base: Path, n_ops: int) -> None:
    with SummaryWriter(base / "big", timestamp=1_700_000_000) as w:
        w.add_graph(make_graph(n_ops))


def biggest_scope(url: str) -> tuple[str, int]:
    api = "/v1/mindinsight/datavisual/graphs/nodes?train_id=./big&name="
    best = ("", 0)
    for scope in ("Default/optimizer-Momentum", "Default"):
        for node in get_json(url, api + scope, timeout=120)["nodes"]:
            if node["type"] in ("aggregation_scope", "name_scope") and node["subnode_count"] > best[1]:
                best = (node["name"], node["subnode_count"])
    return best


def ready(page: Any, seq_before: int, timeout_ms: float) -> None:
    page.wait_for_function(
        "s => { const b = document.querySelector('[data-testid=graph-body]');"
        " const c = document.querySelector('[data-testid=graph-canvas]');"
        " return b && c && c.dataset.state === 'ready' && Number(b.dataset.seq) > s }",
        arg=seq_before, timeout=timeout_ms,
    )


def measure(browser: Any, url: str, scope: str, timeout_ms: float) -> dict[str, float]:
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    t0 = time.perf_counter()
    page.goto(f"{url}/#/graph?train_id=./big")
    ready(page, 0, timeout_ms)
    first = time.perf_counter() - t0
    body = page.get_by_test_id("graph-body")
    first_layout = float(body.get_attribute("data-layout-ms") or 0)
    engine = float(body.get_attribute("data-engine-load-ms") or 0)
    nodes0 = int(page.get_by_test_id("graph-canvas").get_attribute("data-nodes") or 0)

    # Show the biggest scope collapsed (its parent expanded), then time its expansion.
    page.goto(f"{url}/#/graph?train_id=./big&node={scope}")
    page.reload()
    ready(page, 0, timeout_ms)
    seq = int(body.get_attribute("data-seq") or 0)
    t1 = time.perf_counter()
    page.locator(f'[data-testid=graph-node][data-name="{scope}"]').dblclick()
    ready(page, seq, timeout_ms)
    expand = time.perf_counter() - t1
    expand_layout = float(body.get_attribute("data-layout-ms") or 0)
    nodes1 = int(page.get_by_test_id("graph-canvas").get_attribute("data-nodes") or 0)
    ctx.close()
    if errors:
        raise RuntimeError(f"page errors: {errors}")
    return {"first_s": first, "first_layout_ms": first_layout, "engine_ms": engine, "root_nodes": nodes0,
            "expand_s": expand, "expand_layout_ms": expand_layout, "expanded_nodes": nodes1}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=20_000, help="operator nodes of the generated graph")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="2,000 operators, 1 repeat")
    args = parser.parse_args()
    n_ops, repeats = (2_000, 1) if args.smoke else (args.ops, args.repeats)
    if not Path(CHROMIUM).exists():
        sys.exit(f"chromium not found at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="ui-graph-bench-"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    ws = tmp / "ws"
    started = False
    try:
        t = time.perf_counter()
        write_run(tmp / "data", n_ops)
        print(f"graph: {n_ops:,} operators written in {time.perf_counter() - t:.1f} s; load average {load_average()}")
        res = run_cli("start", "--port", str(port), "--summary-base-dir", str(tmp / "data"), "--workspace", str(ws),
                      "--reload-interval", "0")
        if res.returncode != 0:
            sys.exit(res.stdout + res.stderr)
        started = True
        wait_for(lambda: bool((get_json(url, "/v1/mindinsight/datavisual/train-jobs") or {}).get("train_jobs")), 60)
        t = time.perf_counter()
        http_request(url, "/v1/mindinsight/datavisual/train-job-caches", "POST", {"train_ids": ["./big"]})
        root = "/v1/mindinsight/datavisual/graphs/nodes?train_id=./big"
        if not wait_for(lambda: get_json(url, root, timeout=120) is not None, 300, interval=0.5):
            sys.exit("the graph was not served in 300 s")
        print(f"server: run cached and root listing served in {time.perf_counter() - t:.1f} s")
        scope, children = biggest_scope(url)
        print(f"biggest scope: {scope} ({children:,} children{', paged' if children > 1500 else ''})")
        timeout_ms = 300_000
        rows = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            for _ in range(repeats):
                rows.append(measure(browser, url, scope, timeout_ms))
            browser.close()
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        print(f"first render:        {med['first_s'] * 1000:7.0f} ms  ({int(med['root_nodes'])} nodes; "
              f"Graphviz worker+wasm load {med['engine_ms']:.0f} ms, layout {med['first_layout_ms']:.0f} ms)")
        print(f"expand biggest scope:{med['expand_s'] * 1000:7.0f} ms  ({int(med['expanded_nodes'])} nodes drawn; "
              f"layout {med['expand_layout_ms']:.0f} ms)")
        print(f"(median of {repeats}; wall times measured from Playwright)")
    finally:
        if started:
            run_cli("stop", "--port", str(port), "--workspace", str(ws))
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
