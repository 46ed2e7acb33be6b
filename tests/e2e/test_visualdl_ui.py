"""A VisualDL log dir (../shared/fixtures/visualdl, written by VisualDL 2.5.3's LogWriter) in Chromium (issue 33):
its scalars, PR and ROC curves, embedding (projector) and hparams (model lineage) pages draw what EXPECTED.json
says, and a run named by its writer (`display_name`) shows the name in the summary list. One server, one page,
no console error.
"""

from __future__ import annotations

import json
import shutil
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mindinsight_clone.proto import vdl_record_pb2
from tests.conftest import REPO, SHARED, free_port, run_cli
from tests.e2e.test_core_pages import chart, goto, option, q, wait_chart

VDL = SHARED / "fixtures" / "visualdl"
Record = vdl_record_pb2.Record
DISPLAY_NAME = "baseline (lr 0.1)"


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    if not VDL.exists():
        pytest.skip(f"{VDL} is absent: the VisualDL fixtures live in ../shared (present in CI)")
    data: dict[str, Any] = json.loads((VDL / "EXPECTED.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def vdl_server(tmp_path_factory: pytest.TempPathFactory, expected: dict[str, Any]) -> Iterator[str]:
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    port, ws = free_port(), tmp_path_factory.mktemp("vdl-ui-ws")
    base = tmp_path_factory.mktemp("vdl-ui-base") / "logs"
    shutil.copytree(VDL, base)  # the fixture (100 KB) and a run whose writer named it
    _named_run(base / "named")
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws),
                      "--reload-interval", "0", "--max-depth", "2")
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        run_cli("stop", "--port", str(port), "--workspace", str(ws))


def _named_run(folder: Path) -> None:
    """`LogWriter(logdir, display_name=DISPLAY_NAME)` then a few `add_scalar` calls."""
    values = [Record.Value(tag="meta_data_tag", timestamp=1_750_000_000_000,
                           meta_data=Record.MetaData(display_name=DISPLAY_NAME))]
    values += [Record.Value(id=s, tag="loss", timestamp=1_750_000_000_000 + s, value=1.0 / (s + 1)) for s in range(20)]
    payloads = [Record(values=[v]).SerializeToString() for v in values]
    folder.mkdir()
    (folder / "vdlrecords.1750000000.log").write_bytes(b"".join(struct.pack("<Q", len(p)) + p for p in payloads))


def _facts(expected: dict[str, Any], run: str, kind: str, tag: str) -> dict[str, Any]:
    (file,) = expected["runs"][run]["files"]
    facts: dict[str, Any] = file["kinds"][kind][tag]
    return facts


def test_visualdl_pages_draw(page: Any, vdl_server: str, expected: dict[str, Any], screenshot: Any) -> None:
    # scalars: every step of add_scalar's tags
    loss = _facts(expected, "scalar", "scalar", "train/loss")
    goto(page, vdl_server, q("/scalars", train_id="./scalar"))
    (series,) = wait_chart(page, "scalar:train/loss/scalar")["series"]
    assert (series["points"], series["lastX"]) == (loss["count"], loss["last_step"])
    assert series["lastY"] == pytest.approx(loss["last_value"], rel=1e-6)

    # PR curve: PR and ROC charts; a VisualDL ROC curve: its ROC only, FPR/TPR axes, drawn from the counts
    goto(page, vdl_server, q("/pr-curves", train_id="./pr_curve"))
    wait_chart(page, "pr:pr/cat")
    wait_chart(page, "roc:pr/cat")
    roc = _facts(expected, "roc_curve", "roc_curve", "roc/cat")
    goto(page, vdl_server, q("/pr-curves", train_id="./roc_curve"))
    wait_chart(page, "roc:roc/cat/roc_curve")
    card = page.locator("[data-testid=pr-card][data-tag='roc/cat/roc_curve']")
    assert card.get_attribute("data-step") == str(roc["last_step"])
    assert card.get_by_test_id("pr-auc").count() == 0  # no PR chart for a ROC curve
    assert option(page, "roc:roc/cat/roc_curve", "[o.xAxis[0].name, o.yAxis[0].name]") == [
        "False positive rate", "True positive rate"]
    card.get_by_test_id("pr-step-slider").fill("0")
    page.wait_for_function("() => window.__charts['roc:roc/cat/roc_curve'].extra.step === 0")
    first = roc["first_step_curve"]
    drawn = option(page, "roc:roc/cat/roc_curve", "o.series[0].data.map(d => [d[0], d[1], d[3], d[6]])")
    want = [[fp / (fp + tn), tp / (tp + fn), tp, fn]
            for tp, fp, tn, fn in zip(first["TP"], first["FP"], first["TN"], first["FN"], strict=True)]
    assert len(drawn) == len(want)
    for got, point in zip(sorted(drawn), sorted(want), strict=True):
        assert got == pytest.approx(point)
    screenshot(page, "vdl_roc")

    # embedding: the projector draws every point, one colour per label
    emb = _facts(expected, "embeddings", "embeddings", "features")
    goto(page, vdl_server, q("/projector", train_id="./embeddings"))
    summary = wait_chart(page, "projector", min_series=3)
    assert summary["extra"]["points"] == emb["rows"]
    assert {s["name"] for s in summary["series"]} == {"class_0", "class_1", "class_2"}
    assert sum(s["points"] for s in summary["series"]) == emb["rows"]
    screenshot(page, "vdl_projector")

    # hparams: the model lineage page lists the three add_hparams sessions (each run is one)
    sessions = expected["logdir_view_without_damaged"]["hparam_list"]
    goto(page, vdl_server, q("/model-lineage", source="hparams"))
    page.get_by_test_id("model-lineage-page").wait_for()
    page.wait_for_function("n => document.querySelectorAll('[data-testid=lineage-hparams-badge]').length === n",
                           arg=len(sessions))
    assert page.get_by_test_id("lineage-source").get_attribute("data-value") == "hparams"
    wait_chart(page, "lineage-importance")
    assert chart(page, "lineage-importance")["series"]
    screenshot(page, "vdl_hparams_lineage")

    # display name: a run whose writer named it shows the name beside its path in the summary list (once read)
    goto(page, vdl_server, q("/scalars", train_id="./named"))
    wait_chart(page, "scalar:loss/scalar")
    goto(page, vdl_server, "/summary-manage")
    row = page.locator("[data-testid=summary-row][data-train-id='./named']")
    assert row.get_by_test_id("summary-display-name").inner_text() == DISPLAY_NAME
