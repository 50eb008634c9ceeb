"""Aliases (kept through a correction, added and removed as undoable events), the
confirmation clock (`confirm`), and one rule for evidence times: never later than now."""

from __future__ import annotations

from datetime import timedelta

import pytest

from cairn import InvalidInput, Refused
from testkit.batches import day
from testkit.db import db_fingerprint

FACT = "The staging database listens on port 5432"


# -- aliases ---------------------------------------------------------------------------------


def test_a_correction_keeps_aliases_unless_dropped(cairn, clock):
    kept = cairn.remember(FACT, kind="fact", aliases=["pg staging"]).id
    dropped = cairn.remember("The billing database listens on port 5433", kind="fact", aliases=["pg billing"]).id
    clock.at = day(1)
    cairn.correct(kept, "The staging database listens on port 6432")
    cairn.correct(dropped, "The billing database listens on port 6433", drop_aliases=True)
    assert cairn.get(kept).aliases == ("pg staging",)
    assert cairn.get(dropped).aliases == ()


def test_alias_add_and_remove_are_undoable_events(cairn):
    memory = cairn.remember(FACT, kind="fact").memory
    added = cairn.alias(memory.id, "add", "pg staging")
    assert cairn.get(memory.id).aliases == ("pg staging",)
    assert cairn.recall("pg staging", trace=False).ids == [memory.id]  # an alias is a search term
    removed = cairn.alias(memory.id, "remove", "PG Staging")  # any case names it
    assert cairn.get(memory.id).aliases == ()
    cairn.undo(removed.id)
    assert cairn.get(memory.id).aliases == ("pg staging",)
    assert cairn.get(memory.id).updated_at == memory.updated_at  # not evidence: no clock moved
    assert added.reason == "alias add" and removed.reason == "alias remove"


@pytest.mark.parametrize(
    ("action", "word", "error", "match"),
    [
        ("add", "pg", Refused, "already has"),
        ("remove", "mysql", Refused, "has no alias"),
        ("add", "x", InvalidInput, "2-64"),
        ("rename", "pg2", InvalidInput, "add, remove"),
    ],
)
def test_bad_alias_changes_are_refused_and_write_nothing(cairn, db_path, action, word, error, match):
    memory = cairn.remember(FACT, kind="fact", aliases=["pg"]).memory
    before = db_fingerprint(db_path)
    with pytest.raises(error, match=match):
        cairn.alias(memory.id, action, word)
    assert db_fingerprint(db_path) == before


def test_alias_cli(cli):
    memory_id = cli("--json", "remember", FACT, "--kind", "fact").json()["id"]
    assert cli("alias", memory_id[:8], "add", "pg staging").code == 0
    assert "pg staging" in cli("show", memory_id).out
    refused = cli("alias", memory_id, "add", "pg staging")
    assert refused.code == 1 and "already has" in refused.err
    assert cli("correct", memory_id, "The staging database listens on port 6432", "--drop-aliases").code == 0
    assert "aliases: -" in cli("show", memory_id).out


# -- evidence cannot be later than now -----------------------------------------------------------


def test_remember_refuses_future_evidence_and_writes_nothing(cairn, clock, db_path):
    cairn.remember("Anything to create the file", kind="fact")
    before = db_fingerprint(db_path)
    with pytest.raises(InvalidInput, match="evidence cannot be later than now"):
        cairn.remember(FACT, kind="fact", at=clock.at + timedelta(seconds=1))
    assert db_fingerprint(db_path) == before
    assert cairn.remember(FACT, kind="fact", at=clock.at).memory.evidence.at == clock.at  # now itself is fine


def test_a_remembered_record_can_always_be_corrected(cairn, clock):
    """The trap the rule closes: future evidence used to make a later correct refuse."""
    memory = cairn.remember(FACT, kind="fact", at=clock.at).memory
    assert cairn.correct(memory.id, "The staging database listens on port 6432").memory.content.endswith("6432")


def test_ingest_refuses_a_turn_timed_later_than_now_and_writes_nothing(cairn, clock, db_path):
    cairn.remember("Anything to create the file", kind="fact")
    before = db_fingerprint(db_path)
    turns = [{"id": "t1", "role": "user", "text": "Backups moved to Sunday.", "time": "2026-10-01T00:00:00Z"},
             {"id": "t2", "role": "user", "text": "And to the NAS.", "time": (clock.at + timedelta(minutes=1)).isoformat()}]
    with pytest.raises(InvalidInput, match="turn t2.*later than now"):
        cairn.ingest(turns)
    assert db_fingerprint(db_path) == before
    assert cairn.ingest(turns[:1]).episodes == 1  # negative control: a past turn is fine


def test_the_cli_refuses_future_evidence(cli):
    r = cli("--now", "2026-11-01T00:00:00Z", "remember", FACT, "--kind", "fact", "--at", "2026-11-02")
    assert r.code == 1 and "later than now" in r.err and len(r.err.splitlines()) == 1


# -- confirm ---------------------------------------------------------------------------------


def test_confirm_brings_a_dormant_record_back_without_an_event(cairn, clock):
    memory = cairn.remember(FACT, kind="fact").memory
    clock.at = day(200)  # facts are dormant after 180 days
    assert cairn.show(memory.id).quality.dormant
    assert cairn.recall("staging database port", trace=False, inject=True).ids == []
    assert cairn.recall("staging database port", trace=False).results[0].dormant  # asked: shown, labelled
    events = cairn.store.count_events(cairn.space)
    result = cairn.confirm(memory.id, source="review")
    assert result.moved and result.reason == "confirmed"
    after = cairn.get(memory.id)
    assert after.reinforced_at == day(200) and after.updated_at == memory.updated_at  # evidence date unmoved
    assert after.revision == memory.revision and cairn.store.count_events(cairn.space) == events
    assert not cairn.show(memory.id).quality.dormant
    assert cairn.recall("staging database port", trace=False, inject=True).ids == [memory.id]


def test_one_source_confirms_once_and_never_backwards(cairn, clock):
    memory = cairn.remember(FACT, kind="fact").memory
    clock.at = day(10)
    assert cairn.confirm(memory.id, source="review").moved
    clock.at = day(20)
    repeat = cairn.confirm(memory.id, source="review")
    assert not repeat.moved and "already confirmed by review" in repeat.reason
    assert cairn.get(memory.id).reinforced_at == day(10)
    assert cairn.confirm(memory.id, source="another").moved  # negative control: another source counts
    clock.at = day(15)
    assert not cairn.confirm(memory.id).moved and cairn.get(memory.id).reinforced_at == day(20)


@pytest.mark.parametrize(
    ("kind", "setup", "match"),
    [("project_state", None, "project state"), ("fact", "forget", "forgotten"), ("episode", None, "episode")],
)
def test_confirm_refusals_write_nothing(cairn, db_path, clock, kind, setup, match):
    memory = cairn.remember("The staging migration is running now", kind=kind).memory
    if setup == "forget":
        cairn.forget(memory.id)
    clock.at = day(3)
    before = db_fingerprint(db_path)
    with pytest.raises(Refused, match=match):
        cairn.confirm(memory.id)
    assert db_fingerprint(db_path) == before


def test_feedback_accurate_does_not_move_the_confirmation_clock(cairn, clock):
    """Decided and documented: a verdict judges the text; `confirm` says it still holds."""
    memory = cairn.remember(FACT, kind="fact").memory
    clock.at = day(200)
    assert cairn.feedback(memory.id, "accurate").applied
    assert cairn.get(memory.id).reinforced_at is None and cairn.show(memory.id).quality.dormant


def test_confirm_cli(cli):
    memory_id = cli("--json", "--now", "2026-01-01T00:00:00Z", "remember", FACT, "--kind", "fact").json()["id"]
    doc = cli("--json", "--now", "2026-09-01T00:00:00Z", "confirm", memory_id, "--source", "me").json()
    assert doc == {"id": memory_id, "moved": True, "reason": "confirmed", "confirmed_at": "2026-09-01T00:00:00Z"}
    again = cli("--now", "2026-09-02T00:00:00Z", "confirm", memory_id, "--source", "me")
    assert again.code == 0 and "unchanged: already confirmed by me" in again.out
