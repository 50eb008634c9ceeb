"""The hand-written correction set (tests/relations/corrections/*.jsonl), run through the
benchmark harness: both required rates are 0 and every expected answer comes back."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from cairn.bench import corrections as bench

CASES = bench.load_cases(Path(__file__).parent / "corrections")


def test_the_set_is_large_and_covers_every_category():
    assert len(CASES) >= 40
    assert len({c["id"] for c in CASES}) == len(CASES)
    counts = Counter(c["category"] for c in CASES)
    for category in ("correction", "chain", "contradiction", "decision", "ended-validity", "as-of", "known-at"):
        assert counts[category] >= 5, category
    for case in CASES:  # every case names the stale answer or asks for none at all
        assert case["stale"] or case["stale_kind"] in ("not-yet-known", "past-state"), case["id"]
        assert case["stale_kind"] in bench.STALE_KINDS


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case, tmp_path):
    result = bench.run_case(case, tmp_path)
    assert result.stale_returned == [], result.got
    assert result.answered, result.got


@pytest.mark.slow  # the whole set once more, end to end through the report (~6 s)
def test_rates_are_zero_and_the_report_says_so():
    results = bench.run(CASES)
    summary = bench.summarise(results)
    assert summary["pre-correction"][0] == 0 and summary["past-state"][0] == 0
    assert summary["pre-correction"][1] >= 20 and summary["past-state"][1] >= 10
    text = bench.report(results, summary)
    assert f"| pre-correction content returned as current | 0/{summary['pre-correction'][1]} = 0.0% | 0 |" in text


def test_the_metric_catches_a_stale_answer(tmp_path, monkeypatch):
    """Negative control: with resolution disabled, the harness reports pre-correction content."""
    import cairn.recall.pipeline as pipeline
    from cairn.recall.resolve import Resolved

    monkeypatch.setattr(pipeline, "resolve", lambda view, space, ranked, **kw: [Resolved(i) for i in ranked])
    case = next(c for c in CASES if c["id"] == "corr-03")
    assert bench.run_case(case, tmp_path).stale_returned == ["a"]
