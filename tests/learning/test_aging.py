"""Read-time aging and dormancy: the table, the anchor, clamping and pins."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from cairn.model import Kind, Layer, Memory
from cairn.policy.aging import freshness
from testkit.batches import T0, day

TABLE = {  # kind: (half-life days, floor, dormant after days), restated to pin policy.aging.AGING
    Kind.PROJECT_STATE: (3, 0.50, 7),
    Kind.FACT: (60, 0.50, 180),
    Kind.DECISION: (120, 0.60, 365),
    Kind.PREFERENCE: (240, 0.70, 730),
}


def record(kind: Kind, updated_days: float = 0, reinforced_days: float | None = None) -> Memory:
    return Memory(
        id="c" * 24, space="default", origin="", kind=kind, content="some claim", created_at=day(updated_days),
        updated_at=day(updated_days), reinforced_at=None if reinforced_days is None else day(reinforced_days),
    )


@pytest.mark.parametrize("kind", list(TABLE))
def test_half_life_floor_and_dormancy_follow_the_table(kind):
    half, floor, dormant = TABLE[kind]
    m = record(kind)
    assert freshness(m, T0).freshness == pytest.approx(1.0)
    assert freshness(m, day(half)).freshness == pytest.approx(floor + (1 - floor) / 2)
    assert freshness(m, day(100_000)).freshness == pytest.approx(floor, abs=1e-6)
    assert not freshness(m, day(dormant / 2)).aging and freshness(m, day(dormant / 2 + 0.01)).aging
    assert not freshness(m, day(dormant)).dormant and freshness(m, day(dormant + 0.01)).dormant


def test_episodes_never_go_dormant():
    assert not freshness(record(Kind.EPISODE), day(10_000)).dormant


def test_negative_age_clamps_to_zero():
    f = freshness(record(Kind.FACT, updated_days=5), day(1))
    assert f.age_days == 0 and f.freshness == 1.0


def test_the_clock_runs_from_the_later_of_evidence_and_confirmation():
    confirmed = record(Kind.FACT, updated_days=0, reinforced_days=170)
    assert freshness(confirmed, day(200)).anchor == day(170)
    assert not freshness(confirmed, day(200)).dormant
    assert freshness(record(Kind.FACT), day(200)).dormant  # negative control: unconfirmed
    stale_stamp = record(Kind.FACT, updated_days=10, reinforced_days=5)
    assert freshness(stale_stamp, day(20)).anchor == day(10)  # never backwards


def test_pinned_records_have_freshness_one_and_never_age():
    pinned = replace(record(Kind.PROJECT_STATE), layer=Layer.PINNED)
    f = freshness(pinned, T0 + timedelta(days=3650))
    assert (f.freshness, f.aging, f.dormant) == (1.0, False, False)
