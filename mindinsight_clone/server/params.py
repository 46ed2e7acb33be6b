"""Query-string and body parsing with MindInsight's error codes. Routes call these; nothing else does."""

from __future__ import annotations

from typing import Any

import orjson
from flask import request

from mindinsight_clone.errors import ParamMissError, ParamTypeError, ParamValueError


def arg(name: str) -> str | None:
    """The first value of a query parameter (MindInsight reads only the first)."""
    return request.args.get(name)


def required(name: str) -> str:
    value = request.args.get(name)
    if value is None or value == "":
        raise ParamMissError(name)
    return value


def arg_list(name: str) -> list[str]:
    return request.args.getlist(name)


def to_int(name: str, raw: str | None, default: int | None = None) -> int | None:
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ParamTypeError(name, "Integer") from None


def int_arg(name: str, default: int | None = None, minimum: int | None = None,
            maximum: int | None = None) -> int | None:
    """An integer query parameter, range-checked with MindInsight's messages."""
    value = to_int(name, request.args.get(name), default)
    if value is None:
        return None
    if minimum is not None and maximum is not None and not minimum <= value <= maximum:
        raise ParamValueError(f"'{name}' should in [{minimum}, {maximum}].")
    if minimum is not None and value < minimum:
        raise ParamValueError(f"'{name}' should be greater than or equal to {minimum}.")
    return value


def bool_arg(name: str, default: bool = False) -> bool:
    raw = request.args.get(name)
    if raw is None:
        return default
    if raw.lower() not in ("true", "false"):
        raise ParamValueError(f"The value of {name} must be 'false' or 'true'.")
    return raw.lower() == "true"


def json_body(default: Any = None) -> Any:
    """The raw body parsed as JSON whatever the Content-Type (as MindInsight); empty -> default."""
    data = request.get_data(cache=True)
    if not data.strip():
        return default
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        raise ParamValueError("Json data parse failed.") from None
