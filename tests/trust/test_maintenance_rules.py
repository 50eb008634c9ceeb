"""Golden rows of the maintenance table, the auto/manual split and the decay per stability."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from cairn.policy.maintenance import CADENCE_DAYS, DECAY, RecordState, auto_applicable, recommend

NOW = datetime(2026, 11, 10, tzinfo=UTC)
FRESH = NOW - timedelta(days=1)  # reviewed yesterday: never overdue


def ops(outcomes, stability="semi-stable", anchor=FRESH):
    return [(o.op, o.stability_to) for o in recommend(RecordState("r", stability, anchor, tuple(outcomes)), NOW)]


ROWS = [
    # one correction: review + decrease stability (stable -> semi-stable)
    (["explicit_correction"], "stable", [("review_memory", None), ("decrease_stability", "semi-stable")]),
    (["explicit_correction"], "semi-stable", [("review_memory", None), ("decrease_stability", "low")]),
    # two corrections: also the contested suggestion
    (["explicit_correction"] * 2, "semi-stable",
     [("review_memory", None), ("decrease_stability", "low"), ("mark_contested_suggestion", None)]),
    # two explicit reinforcements, no correction: increase, up to stable
    (["explicit_reinforcement"] * 2, "semi-stable", [("increase_stability", "stable")]),
    (["explicit_reinforcement"] * 2, "low", [("increase_stability", "semi-stable")]),
    # ... but a correction cancels the increase
    (["explicit_reinforcement"] * 2 + ["explicit_correction"], "low", [("review_memory", None)]),
    # five implicit successes: flag for review, capped at semi-stable
    (["implicit_success"] * 5, "low", [("flag_for_review", "semi-stable")]),
    (["implicit_success"] * 5, "semi-stable", [("flag_for_review", None)]),
    (["implicit_success"] * 4, "low", []),  # four are not five
    # exposure alone: nothing
    (["neutral_exposure"] * 50, "low", []),
    ([], "low", []),
]


@pytest.mark.parametrize(("outcomes", "stability", "expected"), ROWS)
def test_each_row_of_the_maintenance_table(outcomes, stability, expected):
    assert ops(outcomes, stability) == expected


def test_one_explicit_reinforcement_is_not_enough():
    assert ops(["explicit_reinforcement"], "low") == []


def test_implicit_success_never_promotes_to_stable():
    assert all(to != "stable" for _, to in ops(["implicit_success"] * 100, "semi-stable"))


@pytest.mark.parametrize("stability", ["low", "semi-stable", "stable"])
def test_overdue_records_get_review_due_and_the_decay_of_their_stability(stability):
    cadence = CADENCE_DAYS[stability]
    on_time = NOW - timedelta(days=cadence - 1)
    assert ops([], stability, on_time) == []  # negative control: within its cadence
    one_cycle = [o for o in recommend(RecordState("r", stability, NOW - timedelta(days=cadence + 1), ()), NOW)]
    assert [o.op for o in one_cycle] == ["review_due", "confidence_decay"]
    assert one_cycle[1].decay == DECAY[stability]
    two = recommend(RecordState("r", stability, NOW - timedelta(days=2 * cadence + 1), ()), NOW)
    assert two[1].decay == pytest.approx(2 * DECAY[stability])


def test_the_seed_decay_table():
    assert DECAY == {"semi-stable": 0.15, "stable": 0.05, "low": 0.15}


def test_auto_applies_decay_and_increases_only():
    everything = recommend(RecordState("r", "stable", NOW - timedelta(days=400), ("explicit_correction",) * 2), NOW)
    everything += recommend(RecordState("s", "low", FRESH, ("explicit_reinforcement",) * 2), NOW)
    everything += recommend(RecordState("t", "low", FRESH, ("implicit_success",) * 5), NOW)
    auto = {o.op for o in everything if auto_applicable(o)}
    manual = {o.op for o in everything if not auto_applicable(o)}
    assert auto == {"confidence_decay", "increase_stability"}
    assert manual == {"review_memory", "decrease_stability", "mark_contested_suggestion", "review_due",
                      "flag_for_review"}
