"""The benchmarks' one definition of median and p95 (nearest rank, no interpolation)."""

from __future__ import annotations

import pytest

from cairn.bench.stats import median_p95, percentile


def test_p95_is_the_nearest_rank_at_95_percent_of_the_sorted_values():
    values = [float(v) for v in range(100, 0, -1)]  # 1..100, unsorted
    assert percentile(values, 0.95) == 95.0  # index round(0.95 * 99) = 94
    assert percentile(values, 0.0) == 1.0 and percentile(values, 1.0) == 100.0


def test_p95_of_a_few_values_is_one_of_them_not_an_interpolation():
    assert percentile([1.0, 2.0, 10.0], 0.95) == 10.0
    assert percentile([3.0], 0.95) == 3.0


def test_the_median_interpolates_an_even_count_and_the_summary_rounds():
    assert median_p95([1.0, 2.0, 3.0, 4.0], 2) == {"median": 2.5, "p95": 4.0}
    assert median_p95([0.12345, 0.2], 3) == {"median": pytest.approx(0.162), "p95": 0.2}


def test_no_values_summarise_as_zeros():
    assert percentile([], 0.95) == 0.0
    assert median_p95([], 2) == {"median": 0.0, "p95": 0.0}
