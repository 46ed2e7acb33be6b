"""TensorBoard event-file runs in Chromium: the training dashboard and the comparison page show them like
MindSpore runs, with no console error (the `page` fixture fails on any).

Our real server (CLI, gunicorn) serves a temporary base dir of tensorboardX runs, a TF2-style run and a
mixed run (MindSpore summary + tfevents).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from mindinsight_clone.summary import SummaryWriter
from tests.conftest import REPO, free_port, run_cli
from tests.e2e.test_core_pages import chart, get_json, goto, q, wait_chart
from tests.unit.ingest.tfevents_files import Written, tensorboardx_run, tf2_run


@pytest.fixture(scope="module")
def tf_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, Written]]]:
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    tmp = tmp_path_factory.mktemp("tfevents-ui")
    base, ws, port = tmp / "logs", tmp / "ws", free_port()
    written = {
        "tbx_a": tensorboardx_run(base / "tbx_a", range(0, 60)),
        "tbx_b": tensorboardx_run(base / "tbx_b", range(0, 40), scalar_tags=("loss",)),
        "tf2": tf2_run(base / "tf2", range(1, 21)),
    }
    with SummaryWriter(base / "mixed", timestamp=1_600_000_000) as writer:
        for step in range(1, 31):
            writer.add_scalar("loss", 1.0 / step, step=step)
    written["mixed"] = tensorboardx_run(base / "mixed", range(0, 10), scalar_tags=("tb_acc",), text=False)
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws),
                      "--reload-interval", "1")
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        yield f"http://127.0.0.1:{port}", written
    finally:
        run_cli("stop", "--port", str(port), "--workspace", str(ws))


def test_tfevents_runs_on_the_dashboard(page: Any, tf_server: tuple[str, dict[str, Written]],
                                        screenshot: Any) -> None:
    base, written = tf_server
    for train_id in ("./tbx_a", "./tf2"):
        goto(page, base, q("/train-dashboard", train_id=train_id))
        page.get_by_test_id("dashboard-cards").wait_for()
        wait_chart(page, "dashboard:scalar")
        wait_chart(page, "dashboard:histogram")
        page.get_by_test_id("dashboard-image").wait_for()
        img = page.get_by_test_id("dashboard-image")
        page.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=img.element_handle())
        assert page.get_by_test_id("run-damaged").count() == 0
    screenshot(page, "tfevents_dashboard")
    # every step of a tensorboardX scalar reaches the scalars page
    goto(page, base, q("/scalars", train_id="./tbx_a"))
    cid = "scalar:loss/scalar"
    page.wait_for_function("id => window.__charts && window.__charts[id]?.series[0]?.lastX === 59", arg=cid)
    card = page.locator(f"[data-chart-id='{cid}']")
    assert int(card.get_attribute("data-point-count")) == len(written["tbx_a"].scalars["loss"])


def test_tfevents_runs_on_the_comparison_page(page: Any, tf_server: tuple[str, dict[str, Written]],
                                              screenshot: Any) -> None:
    base, _ = tf_server
    jobs = get_json(base, "train-jobs", offset=0, limit=999)["train_jobs"]
    with_loss = sorted(j["train_id"] for j in jobs if "loss/scalar" in j["plugins"]["scalar"])
    assert with_loss == ["./mixed", "./tbx_a", "./tbx_b"]  # tensorboardX runs and the mixed run share "loss"
    cid = "compare:loss/scalar"
    goto(page, base, q("/compare-plate", run="./tbx_a", tag="loss/scalar"))
    assert len(wait_chart(page, cid)["series"]) == 1
    for n, run in enumerate(("./tbx_b", "./mixed"), start=2):
        page.locator(f"[data-testid=run-option][data-train-id='{run}'] input").check()
        page.wait_for_function("([id, n]) => window.__charts[id] && window.__charts[id].series.length === n",
                               arg=[cid, n])
    names = sorted(s["name"] for s in chart(page, cid)["series"])
    assert names == ["./mixed", "./tbx_a", "./tbx_b"]
    screenshot(page, "tfevents_compare")
