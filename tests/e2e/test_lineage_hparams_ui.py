"""The model lineage table with TensorBoard hparams sessions (issue 34): remarks and tags are MindSpore-only, so a
table of sessions alone has no Remark/Tag columns; beside MindSpore runs the last data column stays fully visible
left of the pinned ones when scrolled to the right end (1024 and 1440 px). Also the Dataset column's meaning
(dataset_mark: the same number, the same dataset graph) in its header tooltip and a note, in both languages.

Data written here: two MindSpore runs with lineage (two different dataset graphs) and one TensorBoard run with
hparams sessions of many hyper-parameters (a table wider than the window).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mindinsight_clone.summary.tfevents_writer import TfeventsWriter
from mindinsight_clone.summary.writer import SummaryWriter
from tests.conftest import REPO, free_port, run_cli

SESSIONS = 3
HPARAMS = {f"hparam_with_a_long_name_{i}": 0.001 * (i + 1) for i in range(8)}


def _dataset_graph(path: str) -> dict[str, Any]:
    return {"op_type": "BatchDataset", "op_module": "minddata.dataengine.datasets", "params": {"batch_size": 32},
            "children": [{"op_type": "MnistDataset", "op_module": "minddata.dataengine.datasets",
                          "params": {"dataset_dir": path, "num_parallel_workers": 1}}]}


def _write_mindspore(base: Path) -> None:
    for i, (name, data) in enumerate((("ms_a", "/data/mnist/train"), ("ms_b", "/data/cifar10/train"))):
        with SummaryWriter(base / name, timestamp=1_700_000_000 + i, host="h") as w:
            w.add_scalar("loss", 1.0 - 0.1 * i, 1)
            w.add_dataset_graph(_dataset_graph(data))
            w.add_train_lineage(optimizer="Momentum", learning_rate=0.01 * (i + 1), loss_function="SoftmaxCrossEntropy",
                                epoch=2, parallel_mode="stand_alone", device_num=1, batch_size=32 * (i + 1),
                                train_dataset_path=data, train_dataset_size=60_000, network="LeNet5", loss=0.3 + i,
                                model_path='{"ckpt": "/ckpt/a.ckpt"}', model_size=1_000)
            w.add_eval_lineage({"accuracy": 0.9 - 0.1 * i}, valid_dataset_path=data, valid_dataset_size=10_000)


def _write_sessions(base: Path) -> None:
    with TfeventsWriter(base / "tb_sweep", timestamp=1_700_000_100, host="h") as w:
        w.add_scalar("loss", 0.5, 1)
        for s in range(SESSIONS):
            w.add_hparams({k: v * (s + 1) for k, v in HPARAMS.items()}, {"hparam/accuracy": 0.5 + 0.1 * s},
                          name=f"session_{s}", wall_time=1_700_000_200 + s)


def _serve(base: Path, ws: Path) -> Iterator[str]:
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    port = free_port()
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws),
                      "--reload-interval", "1", "--max-depth", "3")
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        run_cli("stop", "--port", str(port), "--workspace", str(ws))


@pytest.fixture(scope="module")
def mixed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = tmp_path_factory.mktemp("lineage-mixed")
    _write_mindspore(base)
    _write_sessions(base)
    yield from _serve(base, tmp_path_factory.mktemp("lineage-mixed-ws"))


@pytest.fixture(scope="module")
def sessions_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = tmp_path_factory.mktemp("lineage-sessions")
    _write_sessions(base)
    yield from _serve(base, tmp_path_factory.mktemp("lineage-sessions-ws"))


def _open(page: Any, base: str, query: str, rows: int) -> None:
    page.goto(f"{base}/#/model-lineage{query}")
    page.wait_for_function("n => document.querySelectorAll('[data-testid=lineage-row]').length === n", arg=rows,
                           timeout=30_000)


def _columns(page: Any) -> list[str]:
    return page.eval_on_selector_all("[data-testid=lineage-th]", "ths => ths.map(th => th.dataset.col)")


@pytest.mark.parametrize("width", [1024, 1440])
def test_sessions_alone_have_no_remark_or_tag_column(page: Any, mixed_server: str, sessions_server: str,
                                                     width: int, screenshot: Any) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    # only the sessions shown (source=hparams) beside MindSpore runs
    _open(page, mixed_server, "?source=hparams", SESSIONS)
    cols = _columns(page)
    assert "remark" not in cols and "tag" not in cols, cols
    assert page.locator("[data-testid=lineage-table] .sticky-right, [data-testid=lineage-table] .sticky-right-2"
                        ).count() == 0
    assert any(c.startswith("user_defined/hparam_with_a_long_name") for c in cols), cols
    # a base dir of sessions only: no MindSpore run at all
    _open(page, sessions_server, "", SESSIONS)
    cols = _columns(page)
    assert "remark" not in cols and "tag" not in cols, cols
    # and the MindSpore runs keep theirs
    _open(page, mixed_server, "?source=mindspore", 2)
    assert _columns(page)[-2:] == ["remark", "tag"]
    screenshot(page, f"lineage-mindspore-{width}")


@pytest.mark.parametrize("width", [1024, 1440])
def test_mixed_table_scrolled_right_shows_the_last_data_column(page: Any, mixed_server: str, width: int,
                                                               screenshot: Any) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    _open(page, mixed_server, "", 2 + SESSIONS)
    cols = _columns(page)
    assert cols[-2:] == ["remark", "tag"], cols
    scroller = page.locator("[data-testid=lineage-table]").locator("xpath=..")
    assert scroller.evaluate("el => el.scrollWidth > el.clientWidth"), "the table should be wider than the window"
    scroller.evaluate("el => { el.scrollLeft = el.scrollWidth }")
    page.wait_for_function("el => el.scrollLeft + el.clientWidth >= el.scrollWidth - 1", arg=scroller.element_handle())
    last = page.locator(f"[data-testid=lineage-th][data-col='{cols[-3]}']").bounding_box()
    remark = page.locator("[data-testid=lineage-th][data-col=remark]").bounding_box()
    tag = page.locator("[data-testid=lineage-th][data-col=tag]").bounding_box()
    box = scroller.bounding_box()
    assert last and remark and tag and box
    assert last["x"] + last["width"] <= remark["x"] + 0.5, (cols[-3], last, remark)
    assert remark["x"] + remark["width"] <= tag["x"] + 0.5, (remark, tag)
    assert tag["x"] + tag["width"] <= box["x"] + box["width"] + 0.5, (tag, box)
    # the same in the body: the last data cell of every row ends left of its row's remark cell
    overlaps = page.eval_on_selector_all(
        "[data-testid=lineage-row]",
        """rows => rows.flatMap(r => {
             const cells = [...r.children]; const rem = cells[cells.length - 2], data = cells[cells.length - 3]
             const a = data.getBoundingClientRect(), b = rem.getBoundingClientRect()
             return a.right <= b.left + 0.5 ? [] : [[r.dataset.trainId, a.right, b.left]] })""")
    assert overlaps == []
    screenshot(page, f"lineage-mixed-scrolled-{width}")


@pytest.mark.parametrize("lang", ["en-us", "zh-cn"])
def test_dataset_column_is_explained(page: Any, mixed_server: str, lang: str) -> None:
    page.add_init_script(f"localStorage.setItem('milang', '{lang}')")
    _open(page, mixed_server, "?source=mindspore", 2)
    th = page.locator("[data-testid=lineage-th][data-col=dataset_mark]")
    th.wait_for()
    title = th.get_attribute("title") or ""
    marks = page.eval_on_selector_all("[data-testid=lineage-row] td[data-col=dataset_mark]",
                                      "tds => tds.map(td => td.innerText.trim())")
    assert sorted(marks) == ["2", "3"]  # two different dataset graphs
    note = page.get_by_test_id("lineage-dataset-mark-note")
    note.wait_for()
    if lang == "zh-cn":
        assert "数据" in title and "相同" in title, title
        assert "相同" in note.inner_text()
    else:
        assert "same number" in title and "dataset" in title, title
        assert "same number" in note.inner_text()
