"""A large-model run's thousands of scalar tags, kept whole with the default settings (issue 32): every tag
listed by `plugins`, searched by substring, regex and prefix group through `datavisual/tags`, served by
`scalar/metadata`; a run over a lowered limit reports what it dropped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from benchmarks.many_tags import llm_tags, write_run
from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.plugins import tag_search
from mindinsight_clone.server.app import create_app

TAGS = 5_000
STEPS = 3
API = "/v1/mindinsight/datavisual"


def _client(base: Path, ws: Path, **settings: Any) -> FlaskClient:
    app = create_app(settings_for_tests(summary_base_dir=str(base), workspace=str(ws), reload_interval=0, **settings),
                     start_background=False)
    dm = app.extensions["mindinsight_clone"].data_manager
    dm.reload()
    dm.cache_runs(["./run"])
    dm.reload()
    return app.test_client()


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    base = tmp_path_factory.mktemp("many-tags-base")
    write_run(base / "run", TAGS, STEPS)  # the project's SummaryWriter: one event per step holding every tag
    return _client(base, tmp_path_factory.mktemp("many-tags-ws"))


def _tags(client: FlaskClient, **query: Any) -> dict[str, Any]:
    answer = client.get(f"{API}/tags", query_string={"train_id": "./run", **query})
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()  # type: ignore[no-any-return]


def test_every_tag_is_listed_with_the_defaults(client: FlaskClient) -> None:
    plugins = client.get(f"{API}/plugins", query_string={"train_id": "./run"}).get_json()["plugins"]
    assert plugins["scalar"] == sorted(f"{t}/scalar" for t in llm_tags(TAGS))
    (job,) = client.get(f"{API}/train-jobs").get_json()["train_jobs"]
    assert "dropped_tags" not in job


def test_tag_limit_cuts_the_lists_and_counts_them(client: FlaskClient) -> None:
    """`tag_limit=N` (train-jobs and plugins): each plugin's list cut to its first N tags, `tag_counts` the full
    counts, so the page opening a run reads a few KB, not every tag; without it the answer is MindInsight's."""
    every = sorted(f"{t}/scalar" for t in llm_tags(TAGS))
    whole = client.get(f"{API}/train-jobs", query_string={"train_id": "./run"}).get_json()["train_jobs"][0]
    assert "tag_counts" not in whole and len(whole["plugins"]["scalar"]) == TAGS
    answer = client.get(f"{API}/train-jobs", query_string={"train_id": "./run", "tag_limit": 500})
    (job,) = answer.get_json()["train_jobs"]
    assert job["plugins"]["scalar"] == every[:500] and job["plugins"]["image"] == []
    assert job["tag_counts"] == {name: (TAGS if name == "scalar" else 0) for name in whole["plugins"]}
    assert set(job) - set(whole) == {"tag_counts"} and len(answer.get_data()) < 40_000
    plugins = client.get(f"{API}/plugins", query_string={"train_id": "./run", "tag_limit": 0}).get_json()
    assert plugins["plugins"]["scalar"] == [] and plugins["tag_counts"]["scalar"] == TAGS
    assert "tag_counts" not in client.get(f"{API}/plugins", query_string={"train_id": "./run"}).get_json()
    for bad in ("-1", "x", "1000001"):
        for path in ("train-jobs", "plugins"):
            refused = client.get(f"{API}/{path}", query_string={"train_id": "./run", "tag_limit": bad})
            assert refused.status_code == 400, (path, bad)


def test_the_tag_list_pages_on_the_server(client: FlaskClient) -> None:
    every = sorted(f"{t}/scalar" for t in llm_tags(TAGS))
    first, last = _tags(client, limit=1000), _tags(client, offset=4900, limit=1000)
    assert first["total"] == first["matched"] == TAGS and first["tags"] == every[:1000]
    assert last["tags"] == every[4900:] and "dropped_tags" not in last


def test_substring_regex_and_prefix_groups(client: FlaskClient) -> None:
    layer12 = _tags(client, q="EXPERT_LOAD/layer_12/", limit=100)  # case-insensitive, as the page's filter
    assert layer12["matched"] == 64 and all(t.startswith("expert_load/layer_12/") for t in layer12["tags"])
    attn = _tags(client, regex=r"^local_norm/layer_\d+/attn/scalar$", limit=10_000)
    assert attn["matched"] == len([t for t in llm_tags(TAGS) if t.startswith("local_norm/") and t.endswith("/attn")])
    assert attn["invalid"] is False and attn["slow"] is False
    top = _tags(client, group="prefix", limit=1)
    assert {g["prefix"]: g["count"] for g in top["groups"]} == {
        "expert_load/": sum(t.startswith("expert_load/") for t in llm_tags(TAGS)),
        "grad_norm/": sum(t.startswith("grad_norm/") for t in llm_tags(TAGS)),
        "local_norm/": sum(t.startswith("local_norm/") for t in llm_tags(TAGS)),
    }
    experts = _tags(client, group="prefix", prefix="expert_load/", limit=1)
    assert {"prefix": "expert_load/layer_12/", "count": 64} in experts["groups"]
    searched = _tags(client, group="prefix", regex="expert_(7|63)/scalar$", limit=1)  # groups of the matches only
    layers = len({t.split("/")[1] for t in llm_tags(TAGS) if t.startswith("expert_load/")})
    assert searched["matched"] == 2 * layers - 1  # (the last layer is cut short of expert_63)
    assert searched["groups"] == [{"prefix": "expert_load/", "count": searched["matched"]}]


def test_a_bad_or_slow_regex_is_matched_as_plain_text(client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = _tags(client, regex="layer_1(")
    assert bad["invalid"] is True and bad["matched"] == 0
    monkeypatch.setattr(tag_search, "MATCH_BUDGET_S", 0.0)  # any regex now runs past its time limit
    slow = _tags(client, regex="(a|aa)+c")
    assert slow["slow"] is True and slow["matched"] == 0


def test_the_last_tag_is_served(client: FlaskClient) -> None:
    last = sorted(llm_tags(TAGS))[-1] + "/scalar"
    answer = client.get(f"{API}/scalar/metadata", query_string={"train_id": "./run", "tag": last}).get_json()
    assert [m["step"] for m in answer["metadatas"]] == list(range(1, STEPS + 1))


def test_a_lowered_limit_reports_dropped_tags(tmp_path: Path) -> None:
    write_run(tmp_path / "base" / "run", 400, 2)
    client = _client(tmp_path / "base", tmp_path / "ws", max_tags_per_run=300)
    (job,) = client.get(f"{API}/train-jobs").get_json()["train_jobs"]
    assert job["dropped_tags"] == 100
    listed = _tags(client)
    assert listed["total"] == 300 and listed["dropped_tags"] == 100


def test_unknown_run_and_bad_parameters_are_refused(client: FlaskClient) -> None:
    assert client.get(f"{API}/tags", query_string={"train_id": "./nope"}).status_code == 400
    assert client.get(f"{API}/tags", query_string={"train_id": "./run", "group": "suffix"}).status_code == 400
    assert client.get(f"{API}/tags", query_string={"train_id": "./run", "q": "x" * 300}).status_code == 400
    assert client.get(f"{API}/tags", query_string={"train_id": "./run", "plugin": "nope"}).status_code == 400
