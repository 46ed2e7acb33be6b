"""`GET /v1/mindinsight/datavisual/tags`: one run's tags of one plugin searched, paged and grouped by prefix on
the server, for the virtualised tag list of a run with thousands of tags (issue 32). An addition: MindInsight
lists every tag in `plugins` (which still does). Thin: parse the request, call plugins/tag_search.py.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from mindinsight_clone.errors import ParamValueError, TrainJobNotExistError
from mindinsight_clone.ingest.train_id import InvalidTrainId, check_train_id_syntax, normalize_train_id
from mindinsight_clone.plugins.registry import check_plugin_name, order_tags
from mindinsight_clone.plugins.tag_search import MAX_PATTERN_CHARS, TagQuery, search_tags
from mindinsight_clone.server import params
from mindinsight_clone.server.routes_datavisual import revalidate_and_compress
from mindinsight_clone.server.services import services

bp = Blueprint("tags", __name__, url_prefix="/v1/mindinsight")
bp.after_request(revalidate_and_compress)  # ETag/304 and gzip, as the datavisual answers

MAX_PAGE = 10_000


def _text(name: str) -> str | None:
    value = params.arg(name)
    if value is not None and len(value) > MAX_PATTERN_CHARS:
        raise ParamValueError(f"'{name}' should be at most {MAX_PATTERN_CHARS} characters.")
    return value or None


@bp.get("/datavisual/tags")
def tags_route() -> Any:
    raw_id = params.required("train_id")
    plugin = check_plugin_name(params.arg("plugin") or "scalar")
    try:
        tid = normalize_train_id(check_train_id_syntax(raw_id))
    except InvalidTrainId:
        raise TrainJobNotExistError("Can not find the train job in data manager.") from None
    dm = services().data_manager
    if dm.run(tid) is None:
        raise TrainJobNotExistError("Can not find the train job in data manager.")
    group = params.arg("group")
    if group not in (None, "", "prefix"):
        raise ParamValueError("'group' should be prefix.")
    offset = params.int_arg("offset", default=0, minimum=0)
    limit = params.int_arg("limit", default=100, minimum=1, maximum=MAX_PAGE)
    assert offset is not None and limit is not None
    query = TagQuery(substring=_text("q"), pattern=_text("regex"), prefix=_text("prefix") or "", offset=offset,
                     limit=limit, groups=group == "prefix")
    status = dm.run_status(tid)
    tags = order_tags(plugin, (status.plugins or {}).get(plugin, []))
    out = {"train_id": tid, "cache_status": status.cache_status, **search_tags(tags, plugin, query)}
    if status.dropped_tags:
        out["dropped_tags"] = status.dropped_tags
    return out
