"""Number formatting as MindInsight's profiler analysers print it (checked against goldens 147-151), the cell
readings the Ascend readers of both exports share, and the `problems` key the views add to their answers."""

from __future__ import annotations

from typing import Any

MS_TO_US = 1000.0


def fmt(value: float) -> float:
    """Three decimals from 1 up, six below 1: 99.1683 -> 99.168, 0.00591433 -> 0.005914, 4481.31 -> 4481.31."""
    return round(value, 3) if abs(value) >= 1 else round(value, 6)


def with_problems(answer: dict[str, Any], problems: Any) -> dict[str, Any]:
    """`answer` with `problems` (a list of problem dicts) as its last key, when there are any."""
    if problems:
        answer["problems"] = list(problems)
    return answer


def to_float(value: Any) -> float | None:
    """`float(value)`, or None where that fails."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def num(value: Any) -> float | None:
    """A number from a JSON value or a database cell (numbers as they are, numeric text parsed), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            return float(str(value).strip()) if value is not None else None
        except ValueError:
            return None
    return value


def step_of(key: str) -> int | str:
    """`step50` -> 50 (the step keys of communication.json and the analysis database); other text as it is."""
    text = key[4:] if key.lower().startswith("step") else key
    try:
        return int(text)
    except ValueError:
        return key


def step_number(cell: str) -> int | str | None:
    """A step cell (`50`, `50.0`) as an int; None when empty; other text as it is."""
    text = cell.strip()
    if not text:
        return None
    try:
        return int(float(text))
    except ValueError:
        return text
