"""Maintenance and retention plans: reviewable files, applied as one undoable event; retired
records leave recall and come back under search; pinned records are outside every policy."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from cairn.errors import InvalidInput, Refused
from cairn.model import Status

POLICY = """
[[policy]]
name = "old project state"
kind = "project_state"
older_than_days = 30
no_use_report = true
"""


def _old_state(cairn, clock):
    old = cairn.remember("The migration project is in phase one", kind="project_state", origin="a").memory
    pinned = cairn.remember("The migration project owner is Dana", kind="project_state", origin="a", pin=True).memory
    clock.at += timedelta(days=40)
    fresh = cairn.remember("The migration project is in phase two", kind="project_state", origin="a").memory
    return old, pinned, fresh


def test_retention_plans_then_retires_in_one_undoable_event(cairn, clock):
    old, pinned, fresh = _old_state(cairn, clock)
    plan = cairn.retention_plan(POLICY)
    assert [m["id"] for m in plan["matches"]] == [old.id]  # not the pinned one, not the fresh one
    assert "40 days old" in plan["matches"][0]["reason"]
    assert cairn.get(old.id).status is not Status.RETIRED  # planning writes nothing
    applied = cairn.apply_retention(plan)
    assert applied.applied == 1 and cairn.get(old.id).status is Status.RETIRED
    query = "migration project phase one"
    assert old.id not in cairn.recall(query, limit=5, include_dormant=True).ids
    assert old.id in cairn.recall(query, limit=5, include_dormant=True, include_retired=True).ids
    assert old.id in cairn.search(query).ids
    assert cairn.get(old.id).content  # retired, not deleted
    cairn.undo(applied.event.id)
    assert cairn.get(old.id).status is Status.PROVISIONAL
    assert old.id in cairn.recall(query, limit=5, include_dormant=True).ids


def test_a_record_reported_used_is_kept_by_a_no_use_report_policy(cairn, clock):
    old, pinned, fresh = _old_state(cairn, clock)
    recalled = cairn.search("migration project phase one")
    assert old.id in recalled.ids
    cairn.report_use(recalled.trace, "used", [old.id])
    assert cairn.retention_plan(POLICY)["matches"] == []
    without = POLICY.replace("no_use_report = true", "no_use_report = false")
    assert [m["id"] for m in cairn.retention_plan(without)["matches"]] == [old.id]  # control


def test_a_record_changed_since_the_plan_is_skipped(cairn, clock):
    old, pinned, fresh = _old_state(cairn, clock)
    plan = cairn.retention_plan(POLICY)
    cairn.pin(old.id)
    applied = cairn.apply_retention(plan)
    assert (applied.applied, applied.skipped, applied.event) == (0, 1, None)
    assert cairn.get(old.id).status is not Status.RETIRED


@pytest.mark.parametrize("text", ["", "[[policy]]\nname='x'\n", "[[policy]]\nolder_than_days=3\nkind='thing'\n",
                                  "[[policy]]\nolder_than_days=3\ncolour='red'\n", "not toml ["])
def test_a_bad_policy_file_is_refused(cairn, text):
    with pytest.raises(InvalidInput):
        cairn.retention_plan(text)


def test_a_plan_for_another_space_or_kind_is_refused_and_nothing_written(cairn, clock):
    _old_state(cairn, clock)
    plan = cairn.retention_plan(POLICY)
    events = cairn.store.count_events("default")
    with pytest.raises(Refused):
        cairn.apply_retention({**plan, "space": "other"})
    with pytest.raises(InvalidInput):
        cairn.apply_maintenance(plan)
    with pytest.raises(InvalidInput):
        cairn.apply_retention("{not json")
    assert cairn.store.count_events("default") == events


def test_maintenance_auto_applies_only_low_risk_ops_and_undo_reverts(cairn, clock):
    up = cairn.remember("Releases are cut on Mondays", kind="fact").memory
    down = cairn.remember("The cache TTL is ten minutes", kind="fact").memory
    for _ in range(2):
        cairn.reinforce(up.id, "explicit_reinforcement")
        cairn.reinforce(down.id, "explicit_correction")
    plan = cairn.maintenance_plan()
    by = {(o["id"], o["op"]) for o in plan["ops"]}
    assert (up.id, "increase_stability") in by
    assert {(down.id, "decrease_stability"), (down.id, "mark_contested_suggestion")} <= by
    applied = cairn.apply_maintenance(plan, auto=True)
    assert applied.applied == 1 and applied.skipped == 3
    after = {(o["id"], o["op"]) for o in cairn.maintenance_plan()["ops"]}
    assert (up.id, "increase_stability") not in after  # it is stable now: nothing higher to suggest
    assert (down.id, "decrease_stability") in after  # the review ops are still waiting for a person
    assert cairn.get(down.id).status is not Status.CONFLICTED  # auto never marks contested
    cairn.apply_maintenance(plan)  # manual: everything, including the contested mark
    assert cairn.get(down.id).status is Status.CONFLICTED
    last = cairn.history(limit=1)[0]
    cairn.undo(last.id)
    assert cairn.get(down.id).status is not Status.CONFLICTED


def test_overdue_records_decay_confidence_once_per_cycle(cairn, clock):
    rec = cairn.remember("Backups run nightly at two", kind="fact").memory
    start = cairn.confidence(rec.id).score
    assert cairn.maintenance_plan()["ops"] == []  # negative control: not yet due
    clock.at += timedelta(days=91)
    plan = cairn.maintenance_plan()
    assert [o["op"] for o in plan["ops"]] == ["review_due", "confidence_decay"]
    cairn.apply_maintenance(plan, auto=True)
    assert cairn.confidence(rec.id).score == pytest.approx(start - 0.15)
    assert cairn.maintenance_plan()["ops"] == []  # reviewed by the decay: the cadence restarts


def test_maintain_cli_writes_a_plan_file_and_report_writes_nothing(cli, cairn, tmp_path):
    rec = cairn.remember("Standup is at 9:30", kind="fact").memory
    cairn.reinforce(rec.id, "explicit_correction")
    out = tmp_path / "plan.json"
    report = cli("--json", "maintain", "--report", "--out", str(out))
    assert report.code == 0 and not out.exists() and report.json()["ops"]
    assert cli("maintain", "--out", str(out)).code == 0 and json.loads(out.read_text())["ops"]
    assert cli("maintain", "--auto").code == 1


def test_a_long_plan_prints_its_head_and_the_file_holds_every_op(cli, cairn, clock, tmp_path, monkeypatch):
    import cairn.cli.trust as trust_cli

    monkeypatch.setattr(trust_cli, "SHOWN", 2)
    for i in range(3):
        cairn.remember(f"Fact number {i} about the build", kind="fact")
    clock.at += timedelta(days=91)
    out = tmp_path / "plan.json"
    text = cli("--now", clock.at.isoformat(), "maintain", "--out", str(out))
    assert text.code == 0 and "... and 4 more" in text.out
    assert sum(1 for line in text.out.splitlines() if "review_due" in line or "confidence_decay" in line) == 2
    doc = json.loads(out.read_text())  # one op per line, still one JSON document
    assert len(doc["ops"]) == 6 and doc == cli("--now", clock.at.isoformat(), "--json", "maintain", "--report").json()
