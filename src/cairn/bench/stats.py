"""The summary statistics every benchmark reports, computed one way.

``percentile`` is the nearest-rank value at index ``round(share · (n - 1))`` of the sorted
values (no interpolation); the median is :func:`statistics.median` (the mean of the two
middle values for an even count). The numbers in ``docs/benchmarks.md`` were measured
with exactly these definitions.

Kept apart from :mod:`cairn.bench.report` because the harnesses that need it are imported
by the report module (a shared helper there would make an import cycle).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def percentile(values: Sequence[float], share: float) -> float:
    """The value at ``share`` (0-1) of ``values`` by nearest rank; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def median_p95(values: Sequence[float], digits: int) -> dict[str, float]:
    """``{"median", "p95"}`` of ``values`` rounded to ``digits``; zeros for no values."""
    if not values:
        return {"median": 0.0, "p95": 0.0}
    return {"median": round(statistics.median(values), digits), "p95": round(percentile(values, 0.95), digits)}
