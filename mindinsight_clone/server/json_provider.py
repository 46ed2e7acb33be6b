"""Fast JSON for Flask: orjson with sorted keys (as MindInsight on Flask >= 2.3), NaN/Inf -> null."""

from __future__ import annotations

from typing import Any

import orjson
from flask.json.provider import JSONProvider

OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS


def dumps_bytes(obj: Any) -> bytes:
    return orjson.dumps(obj, option=OPTIONS, default=_default)


def _default(obj: Any) -> Any:
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    if hasattr(obj, "item"):  # numpy scalars not covered by OPT_SERIALIZE_NUMPY
        return obj.item()
    raise TypeError(f"not JSON serializable: {type(obj).__name__}")


class OrjsonProvider(JSONProvider):
    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return dumps_bytes(obj).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)

    def response(self, *args: Any, **kwargs: Any) -> Any:
        obj = self._prepare_response_obj(args, kwargs)
        response: Any = self._app.response_class(dumps_bytes(obj), mimetype="application/json")  # type: ignore[arg-type]
        return response
