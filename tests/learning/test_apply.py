"""Consolidation batches through the engine: one transaction, one event, authority applied."""

from __future__ import annotations

import pytest

from cairn import InvalidInput, Refused
from cairn.model import Basis, Method, Status, Verdict
from testkit.batches import batch, claim, day, source
from testkit.db import db_fingerprint

PORT = "The staging database listens on port 5432"
PORT_NEW = "The staging database listens on port 5433"
TEXT = "Notes: the staging database listens on port 5433 since the migration."


def remember(cairn, text=PORT, kind="fact", basis="user_statement", at=None, origin="acme", **kw):
    return cairn.remember(text, kind=kind, basis=basis, origin=origin, at=at, **kw).memory


def test_evidence_comes_from_the_source_not_the_claim(cairn, at):
    at(3)
    result = cairn.apply(batch(source("We deploy with Docker Compose.", kind="conversation", at=day(2), id="conv-7"),
                               claim("We deploy with Docker Compose")))
    memory = cairn.get(result.outcomes[0].id)
    assert (memory.evidence.basis, memory.evidence.method) == (Basis.USER_STATEMENT, Method.MODEL)
    assert memory.evidence.source_id == "conv-7" and memory.evidence.at == day(2)
    assert memory.updated_at == day(2) and memory.created_at == day(3)


@pytest.mark.parametrize("forged", [{"evidence": {"basis": "manual_correction"}}, {"status": "confirmed"}, {"feedback": {}}])
def test_a_claim_cannot_carry_evidence_or_status(cairn, db_path, forged):
    before = db_fingerprint(db_path)
    with pytest.raises(InvalidInput, match="may only propose"):
        cairn.apply(batch(source("We deploy with Docker."), {**claim("We deploy with Docker"), **forged}))
    assert db_fingerprint(db_path) == before


def test_a_summary_source_cannot_claim_user_testimony(cairn):
    with pytest.raises(InvalidInput, match="source.basis"):
        cairn.apply(batch(source("x y z", kind="summary", basis="user_statement"), claim("Some fact here")))
    with pytest.raises(InvalidInput, match="source.basis"):
        cairn.apply(batch(source("x y z", kind="conversation", basis="tool_observation"), claim("Some fact here")))


def test_weaker_replacement_is_withheld_and_the_variant_quarantined(cairn, at):
    old = remember(cairn, basis="manual_correction", at=day(0))
    at(2)
    result = cairn.apply(batch(source(TEXT, at=day(1)), claim(PORT_NEW, replaces=old.id)))
    assert result.counts["withheld"] == 1 and result.counts["conflicted"] == 1 and result.counts["replaced"] == 0
    assert cairn.get(old.id).content == PORT and cairn.get(old.id).revision == 1
    variant = cairn.get(result.outcomes[0].id)
    assert variant.status is Status.CONFLICTED and variant.content == PORT_NEW
    assert result.event.data["withheld"] == 1 and result.event.data["withheld_reasons"] == {"weaker": 1}
    assert "withheld=1" in result.event.reason


def test_equal_or_stronger_replacement_replaces_in_place(cairn, at):
    old = remember(cairn, basis="summary", at=day(0))
    at(0.5)
    cairn.feedback(old.id, "useful")
    at(2)
    renamed = claim(PORT_NEW, replaces=old.id, aliases=["staging db"])
    result = cairn.apply(batch(source(TEXT, kind="conversation", at=day(1)), renamed))
    assert result.counts == {**result.counts, "replaced": 1, "withheld": 0, "conflicted": 0}
    now = cairn.get(old.id)
    assert now.content == PORT_NEW and now.evidence.basis is Basis.USER_STATEMENT and now.updated_at == day(1)
    assert now.feedback.utility is None  # new content does not inherit old feedback
    assert now.aliases == ("staging db",)
    assert now.revision == 3  # remember 1, feedback 2, replacement 3


def test_whole_batch_is_one_event(cairn, at):
    a = remember(cairn, "Deploys happen every Friday afternoon", at=day(0))
    b = remember(cairn, PORT, basis="summary", at=day(0))
    events_before = len(cairn.history(limit=100))
    at(2)
    text = "Deploys happen every Friday afternoon. The staging database listens on port 5433."
    result = cairn.apply(batch(source(text, kind="conversation", at=day(1)), claim(PORT_NEW, replaces=b.id),
                               claim("CI runs on GitHub Actions runners")))
    assert len(cairn.history(limit=100)) == events_before + 1
    assert set(result.event.changed_ids) == {b.id, result.outcomes[1].id}
    assert a.id in result.confirmed


def test_duplicate_addition_cannot_sneak_past_a_withheld_replacement(cairn, at):
    old = remember(cairn, basis="manual_correction", at=day(0))
    at(2)
    # The plain addition comes first: it must still be quarantined, not become active.
    result = cairn.apply(batch(source(TEXT, at=day(1)), claim(PORT_NEW), claim(PORT_NEW, replaces=old.id)))
    statuses = {m.content: m.status for m in cairn.list(per_page=100).memories}
    assert statuses == {PORT: Status.PROVISIONAL, PORT_NEW: Status.CONFLICTED}
    assert result.counts["added"] == 0 and result.counts["withheld"] >= 1


def test_addition_of_an_already_quarantined_text_stays_quarantined(cairn, at):
    old = remember(cairn, basis="manual_correction", at=day(0))
    at(2)
    cairn.apply(batch(source(TEXT, at=day(1)), claim(PORT_NEW, replaces=old.id)))
    later = cairn.apply(batch(source("Port 5433 is used for staging.", at=day(2)), claim(PORT_NEW)))
    assert later.counts["added"] == 0 and later.outcomes[0].outcome == "duplicate"
    assert [m.status for m in cairn.list(per_page=100).memories if m.content == PORT_NEW] == [Status.CONFLICTED]


def test_unrelated_existing_variant_is_not_quarantined(cairn, at):
    old = remember(cairn, basis="manual_correction", at=day(0))
    other = remember(cairn, PORT_NEW, basis="user_statement", at=day(0), origin="acme")
    at(2)
    cairn.apply(batch(source(TEXT, at=day(1)), claim(PORT_NEW, replaces=old.id)))
    assert cairn.get(other.id).status is Status.PROVISIONAL


def test_identical_addition_in_the_same_origin_is_deduplicated_but_not_across_origins(cairn, at):
    remember(cairn, PORT_NEW, origin="acme", at=day(0))
    at(1)
    same = cairn.apply(batch(source(TEXT), claim(PORT_NEW, aliases=["db port"])))
    other = cairn.apply(batch(source(TEXT, origin="globex"), claim(PORT_NEW)))
    assert same.counts["unchanged"] == 1 and same.counts["added"] == 0
    assert other.counts["added"] == 1


def test_alias_on_a_duplicate_does_not_refresh_the_evidence_date(cairn, at):
    kept = remember(cairn, PORT_NEW, at=day(0))
    at(3)
    cairn.apply(batch(source(TEXT, kind="conversation", at=day(2)), claim(PORT_NEW, aliases=["db port"])))
    now = cairn.get(kept.id)
    assert now.aliases == ("db port",) and now.updated_at == day(0) and now.evidence.at == day(0)


def test_explicit_reaffirmation_refreshes_evidence_but_a_summary_does_not(cairn, at):
    kept = remember(cairn, PORT_NEW, basis="summary", at=day(0))
    at(5)
    cairn.apply(batch(source(TEXT, kind="summary", at=day(3)), claim(PORT_NEW, replaces=kept.id)))
    assert cairn.get(kept.id).updated_at == day(0)  # a repeated summary is no new evidence
    assert cairn.get(kept.id).reinforced_at == day(3)  # but it confirms
    cairn.apply(batch(source(TEXT, kind="conversation", at=day(4)), claim(PORT_NEW, replaces=kept.id)))
    now = cairn.get(kept.id)
    assert now.updated_at == day(4) and now.evidence.basis is Basis.USER_STATEMENT and now.evidence.at == day(4)


def test_user_correction_exception_end_to_end(cairn, at):
    pref = remember(cairn, "Prefer tabs for indentation in Go code", kind="preference", at=day(0))
    at(0.5)
    cairn.feedback(pref.id, "accurate")  # protected at 4 now
    at(2)
    summary = cairn.apply(batch(source("Prefer spaces for indentation in Go code", at=day(1)),
                                claim("Prefer spaces for indentation in Go code", kind="preference", replaces=pref.id)))
    assert summary.counts["withheld"] == 1
    user = cairn.apply(batch(source("Actually: prefer spaces for indentation in Go code", kind="conversation", at=day(1.5)),
                             claim("Prefer spaces for indentation in Go code", kind="preference", replaces=pref.id)))
    assert user.counts["replaced"] == 1 and user.outcomes[0].reason == "user-correction"
    assert cairn.get(pref.id).content == "Prefer spaces for indentation in Go code"


def test_fresh_progress_updates_a_manually_corrected_state(cairn, at):
    state = remember(cairn, "Release 2.1 migration is pending", kind="project_state", at=day(0))
    at(0.1)
    cairn.correct(state.id, "Release 2.1 migration is pending review")
    at(1)
    text = "CI: release 2.1 migration pending review finished; migration is done"
    result = cairn.apply(batch(source(text, kind="progress", at=day(0.9)),
                               claim("Release 2.1 migration is done", kind="project_state", replaces=state.id)))
    assert result.outcomes[0].outcome == "replaced" and result.outcomes[0].reason == "fresh-progress"
    # Negative control: the same update from a summary (not a fresh tool observation) is withheld.
    again = remember(cairn, "Release 2.2 migration is pending", kind="project_state", at=day(1))
    cairn.correct(again.id, "Release 2.2 migration is pending review")
    withheld = cairn.apply(batch(source("Release 2.2 migration pending review is done", kind="summary", at=day(1)),
                                 claim("Release 2.2 migration is done", kind="project_state", replaces=again.id)))
    assert withheld.counts["withheld"] == 1


def test_pinned_record_is_protected_from_batches(cairn, at):
    pinned = remember(cairn, basis="summary", at=day(0), pin=True)
    at(2)
    result = cairn.apply(batch(source(TEXT, kind="manual", at=day(1)), claim(PORT_NEW, replaces=pinned.id)))
    assert result.outcomes[0].reason == "pinned" and cairn.get(pinned.id).content == PORT


def test_older_source_is_withheld(cairn, at):
    at(5)  # evidence cannot be later than now
    newer = remember(cairn, basis="summary", at=day(5))
    at(6)
    result = cairn.apply(batch(source(TEXT, kind="manual", at=day(4)), claim(PORT_NEW, replaces=newer.id)))
    assert result.outcomes[0].reason == "older-source" and cairn.get(newer.id).content == PORT


# -- refusals: nothing written ----------------------------------------------------------


def _refused(cairn, db_path, doc, error, match):
    before = db_fingerprint(db_path)
    with pytest.raises(error, match=match):
        cairn.apply(doc)
    assert db_fingerprint(db_path) == before


def test_replaces_outside_the_candidate_set_is_refused(cairn, db_path, at):
    unrelated = remember(cairn, "Lunch is served at noon on Fridays", at=day(0))
    at(1)
    doc = batch(source(TEXT), claim(PORT_NEW), claim(PORT_NEW + " now", replaces=unrelated.id))
    _refused(cairn, db_path, doc, InvalidInput, "not among the records this source mentions")


def test_replaces_from_another_origin_is_refused(cairn, db_path, at):
    elsewhere = remember(cairn, origin="globex", at=day(0))
    at(1)
    doc = batch(source(TEXT), claim(PORT_NEW, replaces=elsewhere.id))
    _refused(cairn, db_path, doc, InvalidInput, "belongs to origin 'globex'")


def test_replaces_of_an_unknown_id_is_refused(cairn, db_path):
    _refused(cairn, db_path, batch(source(TEXT), claim(PORT_NEW, replaces="f" * 24)), InvalidInput, "no memory")


def test_kind_change_refuses_the_batch(cairn, db_path, at):
    old = remember(cairn, at=day(0))
    at(1)
    doc = batch(source(TEXT, kind="manual"), claim(PORT_NEW, kind="decision", replaces=old.id))
    _refused(cairn, db_path, doc, InvalidInput, "change kind")


def test_one_record_named_twice_is_refused(cairn, db_path, at):
    old = remember(cairn, basis="summary", at=day(0))
    at(1)
    doc = batch(source(TEXT), claim(PORT_NEW, replaces=old.id), claim(PORT_NEW + " again", replaces=old.id))
    _refused(cairn, db_path, doc, InvalidInput, "already named")


@pytest.mark.parametrize("content", ["abc", "x" * 801])
def test_claim_outside_the_length_limits_is_refused(cairn, db_path, content):
    _refused(cairn, db_path, batch(source(TEXT), claim(PORT_NEW), claim(content)), InvalidInput, r"claims\[1\].content")


@pytest.mark.parametrize(
    "doc",
    [
        [],
        {"source": {"id": "s", "text": "t", "kind": "summary"}},
        {"source": {"id": "s", "text": "t", "kind": "gossip"}, "claims": []},
        {"source": {"id": "s", "text": "", "kind": "summary"}, "claims": []},
        {"source": {"id": "s", "text": "t", "kind": "summary", "at": "yesterday"}, "claims": []},
        {"source": {"id": "s", "text": "t", "kind": "summary"}, "claims": [{"kind": "episode", "content": "turn text"}]},
        {"source": {"id": "s", "text": "t", "kind": "summary"}, "claims": [{"kind": "fact", "content": "abcd", "aliases": "x"}]},
        {"source": {"id": "s", "text": "t", "kind": "summary"}, "claims": [], "extra": 1},
        '{"source": ',
    ],
)
def test_malformed_batch_is_refused(cairn, db_path, doc):
    _refused(cairn, db_path, doc, InvalidInput, "invalid")


def test_source_from_the_future_is_refused(cairn, db_path, at):
    at(0)
    _refused(cairn, db_path, batch(source(TEXT, at=day(1)), claim(PORT_NEW)), InvalidInput, "future")


def test_a_source_is_applied_once(cairn, db_path, at):
    at(1)
    cairn.apply(batch(source(TEXT, id="once"), claim(PORT_NEW)))
    _refused(cairn, db_path, batch(source(TEXT, id="once"), claim(PORT_NEW + " again")), Refused, "already applied")


def test_secrets_in_claims_are_redacted(cairn, at):
    at(1)
    secret = "password=hunter2-very-secret"
    result = cairn.apply(batch(source(f"deploy token {secret}"), claim(f"The deploy {secret}")))
    assert "hunter2" not in cairn.get(result.outcomes[0].id).content


# -- candidates ---------------------------------------------------------------------------


def test_candidates_are_measured_same_origin_active_and_include_dormant(cairn, at):
    mentioned = remember(cairn, PORT, at=day(0))
    old = remember(cairn, "The staging database runs PostgreSQL 16", at=day(-400))  # dormant fact
    barely = remember(cairn, "The billing service runs on Kubernetes clusters in Frankfurt", at=day(0))
    other_origin = remember(cairn, PORT, origin="globex", at=day(0))
    forgotten = remember(cairn, "The staging database listens on port 6543", at=day(0))
    cairn.forget(forgotten.id)
    at(1)
    assert cairn.show(old.id).quality.dormant is True
    found = {m.id for m in cairn.mentioned_by(source("The staging database listens on port 5433 and runs PostgreSQL 16"))}
    assert mentioned.id in found and old.id in found
    assert not {barely.id, other_origin.id, forgotten.id} & found


def test_candidates_are_capped_at_the_32_most_recent(cairn, at):
    at(0.5)  # evidence cannot be later than now
    ids = [remember(cairn, f"Service number {n} listens on staging port {n}", at=day(n / 100)).id for n in range(40)]
    at(1)
    text = " ".join(f"service number {n} listens on staging port {n}" for n in range(40))
    found = [m.id for m in cairn.mentioned_by(source(text))]
    assert len(found) == 32 and found == list(reversed(ids))[:32]


def test_progress_sources_are_offered_project_states_only(cairn, at):
    state = remember(cairn, "The staging database migration is running", kind="project_state", at=day(0))
    fact = remember(cairn, "The staging database migration uses Flyway", at=day(0))
    at(0.5)
    found = {m.id for m in cairn.mentioned_by(source("staging database migration running, uses Flyway", kind="progress"))}
    assert state.id in found and fact.id not in found


def test_show_reports_feedback_factors_and_the_anchor(cairn, at):
    old = remember(cairn, at=day(0))
    at(0.5)
    cairn.feedback(old.id, Verdict.USEFUL.value)
    q = cairn.show(old.id).quality
    assert q.utility == 1.05 and q.accuracy == 1.0 and q.confirmed_at == day(0)


def test_unknown_legacy_evidence_is_replaced_by_any_known_source(cairn, at):
    legacy = remember(cairn, basis="unknown", method="unknown", at=day(0))
    assert cairn.show(legacy.id).quality.priority == 0
    at(2)
    result = cairn.apply(batch(source(TEXT, kind="summary", at=day(1)), claim(PORT_NEW, replaces=legacy.id)))
    assert result.outcomes[0].outcome == "replaced" and cairn.get(legacy.id).evidence.basis is Basis.SUMMARY


def test_additions_see_replacements_made_earlier_in_the_same_batch(cairn, at):
    old = remember(cairn, basis="summary", at=day(0))
    at(2)
    result = cairn.apply(batch(source(TEXT, kind="conversation", at=day(1)),
                               claim(PORT, kind="fact"),  # the old text, re-proposed as a new claim
                               claim(PORT_NEW, replaces=old.id),
                               claim(PORT_NEW)))  # the new text again: a duplicate of the replaced record
    outcomes = [(o.outcome, o.id == old.id) for o in result.outcomes]
    assert outcomes == [("added", False), ("replaced", True), ("duplicate", True)]
    texts = sorted(m.content for m in cairn.list(per_page=100).memories if m.active)
    assert texts == [PORT, PORT_NEW]
