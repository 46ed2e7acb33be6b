"""Browser smoke test of the profiler page on the Ascend *database* export (../shared/fixtures/ascend_db, read in
place by our real server): every Ascend tab draws, with no console error, numbers read from the .db files here
(kernels, framework operators, CANN APIs, memory components and CANN modules)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, free_port, run_cli
from tests.e2e.conftest import ASCEND_FIXTURES

ASCEND_DB = ASCEND_FIXTURES.parent / "ascend_db"
JOB = "./torch_npu_db_level1"


def _db(rank: int) -> Path:
    return (ASCEND_DB / JOB.removeprefix("./") / "profiler" / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
            / f"ascend_pytorch_profiler_{rank}.db")


def _query(path: Path, sql: str) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.fixture(scope="module")
def db_ui_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not ASCEND_DB.exists():
        pytest.skip(f"{ASCEND_DB} is absent: the real Ascend database export lives in ../shared (present in CI)")
    if not (REPO / "mindinsight_clone" / "ui" / "dist" / "index.html").exists():
        pytest.skip("the web UI is not built (scripts/build_frontend)")
    port, ws = free_port(), tmp_path_factory.mktemp("ascend-db-ui-ws")
    started = run_cli("start", "--port", str(port), "--summary-base-dir", str(ASCEND_DB), "--workspace", str(ws),
                      "--reload-interval", "1")
    assert started.returncode == 0, started.stdout + started.stderr
    yield f"http://127.0.0.1:{port}"
    run_cli("stop", "--port", str(port), "--workspace", str(ws))


def _rendered(page: Any, testid: str) -> None:
    page.wait_for_selector(f'[data-testid="{testid}"][data-rendered="true"]')


def test_db_profile_draws_every_tab(db_ui_server: str, page: Any, screenshot: Callable[..., Path]) -> None:
    page.goto(f"{db_ui_server}/#/profiler?train_id={JOB}&tab=cluster")
    page.wait_for_selector('[data-testid="profiler-page"][data-status="ready"]')
    _rendered(page, "ascend-cluster-chart")
    assert page.get_attribute('[data-testid="ascend-cluster-chart"]', "data-names").split("|") == ["0", "1"]
    # MindInsight's per-parallel-mode cluster cards belong to profiles that answer them (the old layout): none here
    page.wait_for_load_state("networkidle")
    assert page.locator('[data-testid="legacy-cluster"]').count() == 0
    screenshot(page, "ascend-db-cluster")

    page.click('[data-testid="prof-tab-overview"]')
    _rendered(page, "ascend-steps-chart")
    _rendered(page, "ov-op-pie")

    kernels = _query(_db(0), "SELECT (SELECT COUNT(*) FROM COMPUTE_TASK_INFO) + (SELECT COUNT(*) FROM "
                             "COMMUNICATION_OP)")[0][0]
    page.click('[data-testid="prof-tab-ops"]')
    _rendered(page, "op-chart")
    page.goto(f"{db_ui_server}/#/profiler?train_id={JOB}&tab=ops&view=all")
    page.wait_for_selector(f'[data-testid="op-table"][data-view="all"][data-size="{kernels}"]')
    screenshot(page, "ascend-db-kernels")
    # framework operators (PYTORCH_API, ProfilerStep# left out) and CANN APIs (distinct level x name of CANN_API)
    operators = _query(_db(0), "SELECT COUNT(*) FROM PYTORCH_API p JOIN STRING_IDS s ON s.id = p.name "
                               "WHERE p.type = 50001 AND s.value NOT LIKE 'ProfilerStep#%'")[0][0]
    page.wait_for_selector(f'[data-testid="ascend-table"][data-kind="operator-details"][data-size="{operators}"]')
    assert page.inner_text('[data-testid="ascend-table-source"]') == "PYTORCH_API in ascend_pytorch_profiler_0.db"
    apis = _query(_db(0), "SELECT COUNT(*) FROM (SELECT DISTINCT type, name FROM CANN_API)")[0][0]
    page.click('[data-testid="ascend-table-kind-api-statistic"]')
    page.wait_for_selector(f'[data-testid="ascend-table"][data-kind="api-statistic"][data-size="{apis}"]')

    page.click('[data-testid="prof-tab-communication"]')
    _rendered(page, "ascend-bandwidth-chart")
    _rendered(page, "ascend-matrix-chart")
    assert page.locator('[data-testid="comm-row"]').count() == 4  # CommAnalyzerTime holds 4 all-reduces

    components = {r[0] for r in _query(_db(0), "SELECT DISTINCT s.value FROM MEMORY_RECORD m JOIN STRING_IDS s "
                                               "ON s.id = m.component")} | {"APP"}
    page.click('[data-testid="prof-tab-memory"]')
    _rendered(page, "ascend-memory-chart")
    names = page.get_attribute('[data-testid="ascend-memory-chart"]', "data-names").split("|")
    assert {n.split(":")[0] for n in names} == components
    modules = {r[0] for r in _query(_db(0), "SELECT e.name FROM NPU_MODULE_MEM m JOIN ENUM_MODULE e "
                                            "ON e.id = m.moduleId GROUP BY e.name HAVING MAX(m.totalReserved) > 0")}
    _rendered(page, "npu-modules-chart")
    rows = page.locator('[data-testid="npu-module-row"]')
    assert {rows.nth(i).get_attribute("data-component") for i in range(rows.count())} == modules
    screenshot(page, "ascend-db-memory")

    page.click('[data-testid="prof-tab-timeline"]')
    _rendered(page, "timeline-chart")
    lanes = page.evaluate("() => window.__charts['profiler:timeline'].extra.lanes")
    assert {"Ascend Hardware", "HCCL", "Overlap Analysis"} == {lane.split(" · ")[0] for lane in lanes}
    screenshot(page, "ascend-db-timeline")
