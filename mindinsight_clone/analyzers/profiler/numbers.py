"""Number formatting as MindInsight's profiler analysers print it (checked against goldens 147-151)."""

from __future__ import annotations

MS_TO_US = 1000.0


def fmt(value: float) -> float:
    """Three decimals from 1 up, six below 1: 99.1683 -> 99.168, 0.00591433 -> 0.005914, 4481.31 -> 4481.31."""
    return round(value, 3) if abs(value) >= 1 else round(value, 6)


def to_float(raw: str) -> float:
    try:
        return float(raw)
    except ValueError:
        return 0.0


def to_int(raw: str) -> int:
    try:
        return int(raw)
    except ValueError:
        try:
            return int(float(raw))
        except ValueError:
            return 0
