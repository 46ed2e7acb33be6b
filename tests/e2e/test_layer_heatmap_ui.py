"""The layer x step heatmap of the scalars page (issue 32), in Chromium, under a URL path prefix.

A run of 64 per-layer tags (`local_norm/layer_<i>`) written with the project's summary writer helpers: layer 37
explodes (its value grows to 1e6), layer 5 writes one NaN. The scalars page offers the family as a heatmap; it
draws 64 rows, the largest cell is in layer 37's row, the NaN cell is in the non-finite series, and a click on a
cell opens that layer's line chart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import serve
from tests.unit.store.summary_files import scalar_event, summary_name, version_event, write_records

LAYERS = 64
EXPLODING = 37
NAN_LAYER = 5
STEPS = range(1, 201)
PREFIX = "/team/mi"


def _value(layer: int, step: int) -> float:
    if layer == EXPLODING:
        return 1.0 + (step / STEPS[-1]) ** 3 * 1e6
    if layer == NAN_LAYER and step == 120:
        return float("nan")
    return 1.0 + 0.01 * layer + 0.001 * step


@pytest.fixture(scope="module")
def heatmap_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = tmp_path_factory.mktemp("heatmap-base")
    payloads = [version_event()]
    for s in STEPS:
        payloads.append(
            scalar_event(s, {f"local_norm/layer_{i}": _value(i, s) for i in range(LAYERS)} | {"loss": 1 / s})
        )
    write_records(base / "llm" / summary_name(1_700_000_000), payloads)
    for url in serve(base, tmp_path_factory.mktemp("heatmap-ws"), "--url-path-prefix", PREFIX):
        yield url + PREFIX


def test_layer_heatmap_draws_rows_finds_the_exploding_layer_and_opens_its_chart(
    heatmap_server: str, page: Any, screenshot: Callable[[Any, str], Path]
) -> None:
    heatmaps: list[str] = []
    page.on("request", lambda r: heatmaps.append(r.url) if "scalars/heatmap" in r.url else None)
    page.goto(f"{heatmap_server}/#/scalars?train_id=./llm")
    toggle = page.get_by_test_id("layer-heatmap-toggle")
    toggle.wait_for()
    assert not heatmaps  # closed by default: nothing asked, the first charts keep the first screen
    toggle.click()
    chart = page.locator(f'[data-testid="layer-heatmap"][data-rows="{LAYERS}"][data-rendered="true"]')
    chart.wait_for()
    # asked under the prefix, with width = the chart's pixel width
    assert heatmaps and heatmaps[0].startswith(f"{heatmap_server}/v1/mindinsight/datavisual/scalars/heatmap?")
    width = page.evaluate("document.querySelector('[data-testid=layer-heatmap]').clientWidth")
    assert f"width={width}" in heatmaps[0]

    drawn = page.evaluate(
        """() => {
          const c = window.__charts['layer-heatmap'];
          const o = c.instance().getOption();
          const finite = o.series[0].data, bad = o.series[1].data;
          let best = finite[0];
          for (const d of finite) if (Math.abs(d[3]) > Math.abs(best[3])) best = d;
          return {rows: o.yAxis[0].data, best, bad, extra: c.extra, legend: o.legend[0].data.map((l) => l.name)};
        }"""
    )
    assert len(drawn["rows"]) == LAYERS and drawn["rows"][:3] == ["0", "1", "2"]
    assert drawn["rows"][drawn["best"][1]] == str(EXPLODING)
    assert drawn["best"][3] == pytest.approx(_value(EXPLODING, STEPS[-1]))
    assert drawn["extra"]["peak"]["tag"].startswith(f"local_norm/layer_{EXPLODING}")
    assert [drawn["rows"][cell[1]] for cell in drawn["bad"]] == [str(NAN_LAYER)]
    assert drawn["legend"] == ["NaN"]  # the kind the layer wrote, in its own colour (not "NaN / ±Inf")

    # log colour scale: the colour dimension becomes log10 |value|
    page.locator('[data-testid="layer-heatmap-scale-log"]').click()
    top = page.evaluate("window.__charts['layer-heatmap'].extra.max")
    assert top == pytest.approx(6.0, abs=0.01)

    # a click on a cell of the exploding row opens that tag's line chart
    box = chart.bounding_box()
    cell = page.evaluate(
        """(row) => {
          const inst = window.__charts['layer-heatmap'].instance();
          const cols = inst.getOption().xAxis[0].data.length;
          return inst.convertToPixel({seriesIndex: 0}, [cols - 1, row]);
        }""",
        EXPLODING,
    )
    page.mouse.click(box["x"] + cell[0], box["y"] + cell[1])
    line = page.locator(f'[data-testid="layer-heatmap-line"][data-tag^="local_norm/layer_{EXPLODING}"]')
    line.wait_for()
    drawn = line.locator('[data-rendered="true"]:not([data-last-y=""])').first  # not the empty chart shown while loading
    drawn.wait_for()
    assert float(drawn.get_attribute("data-last-y") or "nan") == pytest.approx(
        _value(EXPLODING, STEPS[-1])
    )
    screenshot(page, "layer_heatmap")
