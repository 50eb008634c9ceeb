"""rankScore (docs/recall.md, stage 6) and its tie-breaks; relevance first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from cairn.model import Basis, Evidence, Feedback, Kind, Layer, Memory, Verdict, VerdictSlot
from cairn.recall.rank import RANK, order_key, rank_factors

NOW = datetime(2026, 11, 1, tzinfo=UTC)


def m(i="a", *, kind=Kind.FACT, basis=Basis.UNKNOWN, age_days=0.0, utility=None, accuracy=None, pinned=False) -> Memory:
    at = NOW - timedelta(days=age_days)
    slot = lambda v: None if v is None else VerdictSlot(v, "src", at)  # noqa: E731
    return Memory(id=i, space="default", origin="", kind=kind, content="x y z", created_at=at, updated_at=at,
                  evidence=Evidence(basis=basis), feedback=Feedback(slot(utility), slot(accuracy)),
                  layer=Layer.PINNED if pinned else Layer.DURABLE)


def test_rank_score_is_the_product_of_its_factors():
    f = rank_factors(m(kind=Kind.PREFERENCE, basis=Basis.USER_STATEMENT, age_days=240, utility=Verdict.USEFUL,
                       accuracy=Verdict.ACCURATE), 2.0, NOW)
    freshness = 0.70 + 0.30 * 0.5  # preference: floor 0.70, half-life 240 d
    assert f.freshness == pytest.approx(freshness)
    assert f.priority == 3 and f.evidence_weight == pytest.approx(1.12)
    assert f.rank_score == pytest.approx(2.0 * freshness * 1.12 * 1.05 * 1.05)


@pytest.mark.parametrize(
    ("utility", "accuracy", "factor"),
    [
        (None, None, 1.0),
        (Verdict.USEFUL, None, RANK.useful),
        (Verdict.UNHELPFUL, None, RANK.unhelpful),
        (None, Verdict.ACCURATE, RANK.accurate),
        (None, Verdict.INCORRECT, RANK.incorrect),
    ],
)
def test_feedback_factors(utility, accuracy, factor):
    assert rank_factors(m(utility=utility, accuracy=accuracy), 1.0, NOW).rank_score == pytest.approx(factor)


def test_unknown_evidence_gets_the_neutral_factor():
    assert rank_factors(m(basis=Basis.UNKNOWN), 1.0, NOW).evidence_weight == 1.0


def test_confirmed_status_does_not_raise_the_evidence_weight():
    from dataclasses import replace

    from cairn.model import Status

    plain = m(basis=Basis.SUMMARY)
    assert rank_factors(replace(plain, status=Status.CONFIRMED), 1.0, NOW).priority == 1


def test_pinned_is_always_fresh():
    assert rank_factors(m(age_days=400, pinned=True), 1.0, NOW).freshness == 1.0


def test_ties_break_by_pin_then_newer_then_id():
    a = rank_factors(m("a", pinned=True), 1.0, NOW)
    b = rank_factors(m("b"), 1.0, NOW)
    assert sorted(["b", "a"], key=lambda i: order_key(i, {"a": a, "b": b}[i])) == ["a", "b"]
    # two pinned records have freshness 1 whatever their age: the newer anchor goes first
    newer = rank_factors(m("z", age_days=1, pinned=True), 1.0, NOW)
    older = rank_factors(m("y", age_days=30, pinned=True), 1.0, NOW)
    keys = {"z": newer, "y": older}
    assert newer.rank_score == older.rank_score
    assert sorted(keys, key=lambda i: order_key(i, keys[i])) == ["z", "y"]
    same_a = rank_factors(m("a2"), 1.0, NOW)
    same_b = rank_factors(m("b2"), 1.0, NOW)
    assert sorted(["b2", "a2"], key=lambda i: order_key(i, {"a2": same_a, "b2": same_b}[i])) == ["a2", "b2"]


def test_quality_reorders_relevant_matches(cairn, mem):
    old = mem("The deploy script lives in the ops repository", basis="summary", days_ago=100)
    fresh = mem("The deploy script lives in the ops repository folder", basis="manual_correction")
    ids = cairn.recall("deploy script ops repository").ids
    assert ids == [fresh, old]
