"""train-jobs at scale through create_app over real files: search, paging, rank groups, nested runs
(--max-depth) and runs left out by --max-run-count. Without the new parameters the body is MindInsight's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from tests.conftest import FIXTURES, require_shared
from tests.unit.store.summary_files import scalar_run

API = "/v1/mindinsight/datavisual"
MINDINSIGHT_KEYS = {"name", "total", "train_jobs", "load_status"}


def _client(base: Path, ws: Path, **kw: object) -> FlaskClient:
    settings = settings_for_tests(summary_base_dir=str(base), workspace=str(ws), reload_interval=0, **kw)
    app = create_app(settings, start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app.test_client()


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 plain runs, a job with 4 ranks three levels down, and 3 ranks directly under exp/."""
    root = tmp_path_factory.mktemp("scale")
    t = 1_700_000_000
    for i in range(40):
        scalar_run(root / f"alpha_{i:02d}" if i % 2 else root / f"beta_{i:02d}", range(1, 4), ["loss"], ts=t + i)
    for r in range(4):
        scalar_run(root / "job" / "output" / "summary" / f"rank_{r}", range(1, 4), ["loss"], ts=t + 100 + r)
    for r in range(3):
        scalar_run(root / "exp" / f"rank_{r}", range(1, 4), ["loss"], ts=t + 200 + r)
    for n, path in enumerate(sorted(root.rglob("events.*"))):
        os.utime(path, (t + n, t + n))
    return root


@pytest.fixture(scope="module")
def client(base: Path, tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    return _client(base, tmp_path_factory.mktemp("ws"), max_depth=4)


def _jobs(client: FlaskClient, query: str) -> dict:  # type: ignore[type-arg]
    resp = client.get(f"{API}/train-jobs?{query}")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()  # type: ignore[no-any-return]


def test_nested_runs_are_listed_with_path_ids(client: FlaskClient) -> None:
    body = _jobs(client, "limit=999")
    ids = {j["train_id"] for j in body["train_jobs"]}
    assert body["total"] == 47 and len(ids) == 47
    assert {"./job/output/summary/rank_0", "./exp/rank_2", "./alpha_01", "./beta_00"} <= ids
    job = next(j for j in body["train_jobs"] if j["train_id"] == "./job/output/summary/rank_3")
    assert job["relative_path"] == "./job/output/summary/rank_3"
    assert job["group"] == {"id": "./job/output/summary", "rank": 3, "size": 4}
    assert "group" not in next(j for j in body["train_jobs"] if j["train_id"] == "./alpha_01")


def test_a_nested_run_serves_its_data(client: FlaskClient) -> None:
    tid = "./job/output/summary/rank_2"
    client.post(f"{API}/train-job-caches", json={"train_ids": [tid]})
    client.application.extensions["mindinsight_clone"].data_manager.reload()
    resp = client.get(f"{API}/scalar/metadata", query_string={"train_id": tid, "tag": "loss/scalar"})
    assert resp.status_code == 200
    assert [p["step"] for p in resp.get_json()["metadatas"]] == [1, 2, 3]


def test_search_filters_before_paging_and_total_counts_matches(client: FlaskClient) -> None:
    all_alpha = _jobs(client, "search=ALPHA&limit=999")
    assert all_alpha["total"] == 20
    assert all("alpha" in j["train_id"] for j in all_alpha["train_jobs"])
    pages = [_jobs(client, f"search=alpha&offset={p}&limit=7") for p in range(3)]
    assert [len(p["train_jobs"]) for p in pages] == [7, 7, 6]
    assert all(p["total"] == 20 for p in pages)
    paged = [j["train_id"] for p in pages for j in p["train_jobs"]]
    assert paged == [j["train_id"] for j in all_alpha["train_jobs"]]  # same order, no gaps, no repeats
    assert _jobs(client, "search=no-such-run")["total"] == 0
    assert _jobs(client, "search=output/summary")["total"] == 4


def test_group_lists_its_ranks_in_rank_order(client: FlaskClient) -> None:
    body = _jobs(client, "group=./job/output/summary&limit=999")
    assert [j["train_id"] for j in body["train_jobs"]] == [f"./job/output/summary/rank_{r}" for r in range(4)]
    assert _jobs(client, "group=./exp")["total"] == 3
    assert _jobs(client, "group=./nothing")["total"] == 0
    assert _jobs(client, "group=../x")["total"] == 0


def test_collapse_groups_shows_one_entry_per_group(client: FlaskClient) -> None:
    body = _jobs(client, "collapse_groups=true&limit=999")
    assert body["total"] == 40 + 2
    groups = [j["group"]["id"] for j in body["train_jobs"] if "group" in j]
    assert sorted(groups) == ["./exp", "./job/output/summary"]
    # the representative is the group's most recently updated member
    assert next(j for j in body["train_jobs"] if j.get("group", {}).get("id") == "./exp")["train_id"] == "./exp/rank_2"
    assert _jobs(client, "collapse_groups=true&search=rank")["total"] == 2


def test_sort_orders_the_whole_listing_before_paging(client: FlaskClient) -> None:
    """Issue 21: the summary list sorts by column over every run (server side: it pages 10,000 runs)."""
    every = _jobs(client, "limit=999")["train_jobs"]
    ids = [j["train_id"] for j in every]
    assert _jobs(client, "sort=train_id&limit=999")["train_jobs"] == sorted(every, key=lambda j: j["train_id"])
    pages = [_jobs(client, f"sort=train_id&order=desc&offset={p}&limit=20")["train_jobs"] for p in range(3)]
    assert [j["train_id"] for page in pages for j in page] == sorted(ids, reverse=True)
    by_create = _jobs(client, "sort=create_time&limit=999")["train_jobs"]
    assert [j["train_id"] for j in by_create] == [j["train_id"] for j in sorted(every, key=lambda j: (
        j["create_time"], j["train_id"]))]
    by_update = _jobs(client, "sort=update_time&order=desc&limit=999")["train_jobs"]
    assert [j["train_id"] for j in by_update] == ids  # MindInsight's own order
    alpha = _jobs(client, "search=alpha&sort=train_id&order=desc&limit=3")
    assert alpha["total"] == 20 and [j["train_id"] for j in alpha["train_jobs"]] == ["./alpha_39", "./alpha_37",
                                                                                      "./alpha_35"]
    collapsed = _jobs(client, "collapse_groups=true&sort=train_id&limit=999")["train_jobs"]
    assert [j["train_id"] for j in collapsed] == sorted(j["train_id"] for j in collapsed)


def test_data_version_changes_with_the_data_and_only_when_asked(tmp_path: Path) -> None:
    """`data_version=true` adds an opaque token per cached run that changes when its data does (the UI reloads a
    page only then, so a run deleted between two refreshes is not asked for again); without it, MindInsight's body."""
    base = tmp_path / "base"
    scalar_run(base / "run", range(1, 4), ["loss"], ts=1_700_000_000)
    client = _client(base, tmp_path / "ws")
    client.post(f"{API}/train-job-caches", json={"train_ids": ["./run"]})
    manager = client.application.extensions["mindinsight_clone"].data_manager
    manager.reload()
    assert "data_version" not in _jobs(client, "train_id=./run")["train_jobs"][0]
    first = _jobs(client, "train_id=./run&data_version=true")["train_jobs"][0]["data_version"]
    manager.reload()  # nothing new on disk
    assert _jobs(client, "train_id=./run&data_version=true")["train_jobs"][0]["data_version"] == first
    scalar_run(base / "run", range(4, 8), ["loss"], ts=1_700_000_100)  # a second file: more steps
    manager.reload()
    second = _jobs(client, "train_id=./run&data_version=true")["train_jobs"][0]["data_version"]
    assert second != first
    resp = client.get(f"{API}/scalar/metadata", query_string={"train_id": "./run", "tag": "loss/scalar"})
    assert [p["step"] for p in resp.get_json()["metadatas"]] == list(range(1, 8))


@pytest.mark.parametrize(("query", "code"), [
    ("search=" + "x" * 257, "50540002"),
    ("collapse_groups=maybe", "50540002"),
    ("limit=1000&search=a", "50540002"),
    ("sort=size", "50540002"),
    ("sort=train_id&order=up", "50540002"),
])
def test_bad_parameters_are_refused(client: FlaskClient, query: str, code: str) -> None:
    resp = client.get(f"{API}/train-jobs?{query}")
    assert resp.status_code == 400 and resp.get_json()["error_code"] == code


def test_default_depth_and_no_new_parameters_give_mindinsights_body(base: Path, tmp_path: Path) -> None:
    body = _jobs(_client(base, tmp_path), "limit=999")
    assert set(body) == MINDINSIGHT_KEYS
    assert body["total"] == 40  # nested runs are not found at depth 1
    assert all("group" not in j for j in body["train_jobs"])


def test_runs_left_out_by_max_run_count_are_reported(base: Path, tmp_path: Path) -> None:
    body = _jobs(_client(base, tmp_path, max_depth=4, max_run_count=10), "limit=999")
    assert body["total"] == 10
    assert body["omitted_runs"] == {"count": 37, "found": 47, "listed": 10, "setting": "max_run_count"}


def test_default_lists_more_runs_than_mindinsight(tmp_path: Path) -> None:
    """1,001 runs: MindInsight's 999 would leave two out; the default lists (and pages through) all of them."""
    root = tmp_path / "many"
    for i in range(1001):
        scalar_run(root / f"run_{i:04d}", range(1, 3), ["loss"], ts=1_700_000_000 + i)
    client = _client(root, tmp_path / "ws")
    first = _jobs(client, "limit=999")
    assert first["total"] == 1001 and "omitted_runs" not in first
    rest = _jobs(client, "limit=999&offset=1")
    ids = {j["train_id"] for j in first["train_jobs"] + rest["train_jobs"]}
    assert ids == {f"./run_{i:04d}" for i in range(1001)}
    assert _jobs(client, "search=run_1000")["total"] == 1
    cut = _jobs(_client(root, tmp_path / "ws2", max_run_count=999), "limit=999")
    assert cut["total"] == 999 and cut["omitted_runs"]["count"] == 2


def test_real_fixture_nested_run_is_found_when_asked(tmp_path: Path) -> None:
    require_shared(FIXTURES)
    shallow = _jobs(_client(FIXTURES, tmp_path / "a"), "limit=999")
    deep = _jobs(_client(FIXTURES, tmp_path / "b", max_depth=2), "limit=999")
    assert "./nested/deep_run" not in {j["train_id"] for j in shallow["train_jobs"]}
    assert "./nested/deep_run" in {j["train_id"] for j in deep["train_jobs"]}
    assert deep["total"] == shallow["total"] + 1


def test_health_reports_the_cache_against_its_budget(base: Path, tmp_path: Path) -> None:
    roomy = _client(base, tmp_path / "a", max_depth=4).get("/v1/mindinsight/health").get_json()["cache"]
    assert roomy["cached_runs"] == roomy["cacheable_runs"] == roomy["listed_runs"] == roomy["found_runs"] == 47
    assert roomy["budget_mb"] == 1024 and roomy["max_cached_runs"] == 0 and 0 < roomy["used_mb"] < 5
    tight = _client(base, tmp_path / "b", max_depth=4, cache_memory_mb=1).get("/v1/mindinsight/health").get_json()
    cache = tight["cache"]
    assert 0 < cache["cached_runs"] < cache["cacheable_runs"] == 47
    assert cache["used_mb"] <= 1.0
    listing = _client(base, tmp_path / "c", max_depth=4, cache_memory_mb=1).get(f"{API}/train-jobs?limit=999")
    statuses = [j["cache_status"] for j in listing.get_json()["train_jobs"]]
    assert statuses.count("NOT_IN_CACHE") == 47 - cache["cached_runs"]


def test_lineage_ids_keep_mindinsights_one_slash_rule_at_depth_one(base: Path, tmp_path: Path) -> None:
    url = "/v1/mindinsight/datasets/dataset_graph?train_id=./exp/rank_0"
    shallow = _client(base, tmp_path / "a").get(url)
    assert shallow.status_code == 400 and shallow.get_json()["error_code"] == "50540002"
    deep = _client(base, tmp_path / "b", max_depth=4).get(url)
    assert deep.status_code == 200
