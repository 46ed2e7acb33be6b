"""The scalars page of a run with 5,000 tags (issue 32): the tag list comes from the server (`datavisual/tags`),
searched there, grouped by prefix in a tree with counts, virtualised; charts only for the tags on the page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from mindinsight_clone.summary import SummaryWriter
from tests.e2e.conftest import serve

TAG_COUNT = 5000
STAMP = 1_795_000_000


def llm_tags(count: int) -> list[str]:
    """`count` names grouped by prefix as large-model training writes them (benchmarks/many_tags.py's)."""
    names: list[str] = []
    layer = 0
    while len(names) < count:
        names += [f"local_norm/layer_{layer}/{part}" for part in ("attn", "mlp", "input", "post_attn")]
        names += [f"expert_load/layer_{layer}/expert_{e}" for e in range(64)]
        names += [f"grad_norm/layer_{layer}/{part}" for part in ("qkv", "proj", "fc1", "fc2")]
        layer += 1
    return names[:count]


TAGS = llm_tags(TAG_COUNT)


@pytest.fixture(scope="module")
def many_tags_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = tmp_path_factory.mktemp("many-tags-base")
    with SummaryWriter(base / "llm", timestamp=STAMP) as w:
        for step in (1, 2, 3):
            for k, tag in enumerate(TAGS):
                w.add_scalar(tag, k + step * 0.5, step)
    yield from serve(base, tmp_path_factory.mktemp("many-tags-ws"))


def _chart(page: Any, tag: str) -> Any:
    return page.locator(f'[data-testid="scalar-chart"][data-tag^="{tag}"]')


def test_server_tag_list_groups_search_and_last_chart(many_tags_server: str, page: Any) -> None:
    tag_requests: list[str] = []
    page.on("request", lambda r: tag_requests.append(r.url) if "/datavisual/tags?" in r.url else None)
    page.goto(f"{many_tags_server}/#/scalars?train_id=./llm")
    count = page.locator('[data-testid="server-tag-count"]')
    count.wait_for()
    page.wait_for_function(
        "n => document.querySelector('[data-testid=server-tag-count]')?.dataset.total === String(n)", arg=TAG_COUNT
    )
    assert count.get_attribute("data-matched") == str(TAG_COUNT)
    # virtualised: a screenful of rows in the DOM, not 5,000
    assert 0 < page.locator('[data-testid="server-tag-option"]').count() < 60

    # a prefix group with its count; choosing it narrows the list, opening it shows the groups below
    experts = sum(t.startswith("expert_load/") for t in TAGS)
    group = page.locator('[data-testid="server-tag-group"][data-prefix="expert_load/"]')
    assert group.get_attribute("data-count") == str(experts)
    group.locator(".tree-name").click()
    page.wait_for_function(
        "n => document.querySelector('[data-testid=server-tag-count]')?.dataset.matched === String(n)", arg=experts
    )
    layer_0 = page.locator('[data-testid="server-tag-group"][data-prefix="expert_load/layer_0/"]')
    layer_0.wait_for()
    assert layer_0.get_attribute("data-count") == "64"
    assert any("prefix=expert_load%2F" in u for u in tag_requests)

    # back to all tags, then a search for the last tag narrows it on the server
    page.locator('[data-testid="server-tag-group-all"]').click()
    last = TAGS[-1]
    pattern = "^" + re.escape(last) + "(/|$)"
    tag_requests.clear()
    page.locator('[data-testid="server-tag-filter"]').fill(pattern)
    page.wait_for_function("() => document.querySelector('[data-testid=server-tag-count]')?.dataset.matched === '1'")
    assert any("regex=" in u for u in tag_requests), tag_requests
    assert page.locator('[data-testid="server-tag-option"]').count() == 1

    # the last tag's chart draws
    chart = _chart(page, last)
    chart.wait_for()
    page.wait_for_function(
        "t => [...document.querySelectorAll('[data-testid=scalar-chart]')].some(e => e.dataset.tag.startsWith(t)"
        " && e.dataset.rendered === 'true' && Number(e.dataset.pointCount) > 0)",
        arg=last,
    )
    assert page.locator('[data-testid="scalar-chart"]').count() == 1
    assert page.console_errors == []


def test_first_charts_do_not_wait_for_the_whole_tag_list(many_tags_server: str, page: Any) -> None:
    """The run opens with its first TAG_LIMIT tags and their count (`train-jobs?tag_limit=`, the listing item's
    tags: no `plugins` request): the first page's charts are asked for at once, the whole list (for the tag
    families of the heatmap and the synthesis lists) only once they are in."""
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/v1/mindinsight/" in r.url else None)
    page.goto(f"{many_tags_server}/#/scalars?train_id=./llm")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=scalar-chart]')].some(e => e.dataset.rendered === 'true'"
        " && Number(e.dataset.pointCount) > 0)"
    )
    jobs = [u for u in asked if "/datavisual/train-jobs?" in u]
    assert jobs and all("tag_limit=500" in u for u in jobs), jobs
    first_chart = next(i for i, u in enumerate(asked) if "/scalar/metadata?" in u)
    assert not any("/datavisual/plugins?" in u for u in asked[:first_chart]), asked[:first_chart]
    # the whole list is read afterwards: the heatmap's toggle then names the run's tag families
    toggle = page.get_by_test_id("layer-heatmap-toggle")
    page.wait_for_function("() => !document.querySelector('[data-testid=layer-heatmap-toggle]')?.disabled")
    assert re.search(r"\d+ tag families", toggle.inner_text()), toggle.inner_text()
    assert any("/datavisual/plugins?" in u and "tag_limit" not in u for u in asked)
    assert page.locator('[data-testid="server-tag-count"]').get_attribute("data-total") == str(TAG_COUNT)
    assert page.console_errors == []
