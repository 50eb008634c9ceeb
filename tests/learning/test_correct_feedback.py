"""Literal correction and explicit verdicts (docs/evidence.md)."""

from __future__ import annotations

import pytest

from cairn import Cairn, InvalidInput, Refused
from cairn.model import Basis, Method, Status, Verdict, memory_to_dict
from testkit.batches import day
from testkit.db import db_fingerprint

FACT = "The staging database listens on port 5432"


def fact(cairn, text=FACT, origin="acme", at=None, **kw):
    return cairn.remember(text, kind="fact", origin=origin, at=at or day(0), **kw).memory


# -- correct ------------------------------------------------------------------------------


def test_correction_is_manual_evidence_clears_feedback_and_keeps_aliases(cairn, at):
    old = fact(cairn, aliases=["db port"])
    at(0.5)
    cairn.feedback(old.id, "useful")
    at(2)
    result = cairn.correct(old.id, "The staging database listens on port 6432")
    now = cairn.get(old.id)
    assert now.content == "The staging database listens on port 6432"
    assert (now.evidence.basis, now.evidence.method, now.evidence.at) == (Basis.MANUAL_CORRECTION, Method.MANUAL, day(2))
    assert now.evidence.source_id == result.event.data["correction"]
    assert now.aliases == ("db port",) and now.feedback.utility is None and now.updated_at == day(2)


def test_undo_restores_the_exact_prior_record(cairn, at):
    old = fact(cairn, aliases=["db port"], certainty="high")
    at(0.5)
    cairn.feedback(old.id, "accurate")
    before = memory_to_dict(cairn.get(old.id))
    at(2)
    event = cairn.correct(old.id, "The staging database listens on port 6432").event
    cairn.undo(event.id)
    restored = memory_to_dict(cairn.get(old.id))
    assert {**restored, "revision": None} == {**before, "revision": None}
    assert restored["revision"] == before["revision"] + 2


def test_correction_lifts_a_quarantine(cairn, at):
    old = fact(cairn)
    at(1)
    cairn.feedback(old.id, "incorrect")
    assert cairn.get(old.id).status is Status.CONFLICTED
    cairn.correct(old.id, "The staging database listens on port 6432")
    assert cairn.get(old.id).status is Status.PROVISIONAL and cairn.get(old.id).feedback.accuracy is None


@pytest.mark.parametrize(
    ("setup", "text", "match"),
    [
        ("forget", "A corrected claim", "forgotten"),
        (None, "abc", "invalid text"),
        ("future", "A corrected claim", "newer than now"),
    ],
)
def test_correction_refusals_write_nothing(cairn, db_path, at, setup, text, match):
    if setup == "future":
        at(5)  # evidence cannot be later than now: reach "newer" by turning the clock back
    old = fact(cairn, at=day(5) if setup == "future" else day(0))
    at(0)
    if setup == "forget":
        cairn.forget(old.id)
    before = db_fingerprint(db_path)
    with pytest.raises((InvalidInput, Refused), match=match):
        cairn.correct(old.id, text)
    assert db_fingerprint(db_path) == before


# -- feedback -----------------------------------------------------------------------------


def test_two_independent_last_verdict_slots(cairn, at):
    old = fact(cairn)
    at(1)
    cairn.feedback(old.id, "useful", source="a")
    cairn.feedback(old.id, "accurate", source="b")
    at(2)
    cairn.feedback(old.id, "unhelpful", source="c")
    fb = cairn.get(old.id).feedback
    assert (fb.utility.verdict, fb.utility.source_id, fb.utility.at) == (Verdict.UNHELPFUL, "c", day(2))
    assert fb.accuracy.verdict is Verdict.ACCURATE  # unhelpful does not mean false
    assert cairn.get(old.id).status is Status.PROVISIONAL


def test_no_verdict_moves_the_evidence_or_confirmation_clock(cairn, at):
    old = fact(cairn)
    at(3)
    for n, verdict in enumerate(["useful", "accurate", "unhelpful", "incorrect"]):
        cairn.feedback(old.id, verdict, source=f"s{n}")
        now = cairn.get(old.id)
        assert now.updated_at == day(0) and now.evidence == old.evidence and now.reinforced_at is None


def test_replay_from_the_same_source_is_ignored_even_after_restart_and_undo(db_path, clock, at):
    with Cairn(db_path, now=clock) as cairn:
        old = fact(cairn)
        at(1)
        first = cairn.feedback(old.id, "useful", source="turn-9")
        assert first.applied and first.reason == "applied"
    with Cairn(db_path, now=clock) as cairn:  # restart
        assert cairn.feedback(old.id, "useful", source="turn-9").reason == "replayed"
        assert first.event is not None
        cairn.undo(first.event.id)
        before = db_fingerprint(db_path)
        again = cairn.feedback(old.id, "useful", source="turn-9")
        assert (again.applied, again.reason) == (False, "replayed") and db_fingerprint(db_path) == before
        assert cairn.get(old.id).feedback.utility is None
        assert cairn.feedback(old.id, "useful", source="turn-10").applied  # negative control: a new act applies


def test_repeated_verdict_adds_no_weight_and_no_revision_but_blocks_older_ones(cairn, at):
    old = fact(cairn)
    at(1)
    cairn.feedback(old.id, "useful", source="a")
    revision = cairn.get(old.id).revision
    events = cairn.store.count_events(cairn.space)
    at(3)
    repeat = cairn.feedback(old.id, "useful", source="b")
    assert (repeat.applied, repeat.reason) == (False, "repeated")
    assert cairn.get(old.id).revision == revision and cairn.store.count_events(cairn.space) == events
    assert cairn.show(old.id).quality.utility == 1.05
    # A verdict given at day 2 arrives late: the repeat's receipt (day 3) still wins.
    late = cairn.feedback(old.id, "unhelpful", source="c", at=day(2))
    assert late.reason == "superseded" and cairn.get(old.id).feedback.utility.verdict is Verdict.USEFUL
    # Negative control: a newer verdict does win.
    at(4)
    assert cairn.feedback(old.id, "unhelpful", source="d").applied


def test_feedback_older_than_the_current_evidence_is_ignored(cairn, at):
    at(5)  # evidence cannot be later than now
    old = fact(cairn, at=day(5))
    at(6)
    stale = cairn.feedback(old.id, "incorrect", at=day(4))
    assert (stale.applied, stale.reason) == (False, "stale") and cairn.get(old.id).status is Status.PROVISIONAL
    assert cairn.feedback(old.id, "incorrect", at=day(5.5)).applied


def test_incorrect_quarantines_exact_duplicates_in_the_same_origin_only(cairn, at):
    judged = fact(cairn)
    elsewhere = fact(cairn, origin="globex")
    variant = fact(cairn, FACT + " for sure")
    at(1)
    result = cairn.feedback(judged.id, "incorrect", source="s")
    assert result.quarantined == (judged.id,)
    assert cairn.get(judged.id).status is Status.CONFLICTED
    assert cairn.get(judged.id).feedback.accuracy.verdict is Verdict.INCORRECT
    assert cairn.get(elsewhere.id).status is Status.PROVISIONAL
    assert cairn.get(variant.id).status is Status.PROVISIONAL


def test_incorrect_reaches_a_stored_duplicate(cairn, db_path, at):
    judged = fact(cairn)
    # An exact duplicate in the same origin can exist (e.g. created before a dedup rule,
    # or imported); write one directly through the store.
    from dataclasses import replace

    twin = replace(cairn.get(judged.id), id="b" * 24)
    with cairn.store.write() as tx:
        tx.put_memory(twin)
    at(1)
    result = cairn.feedback(judged.id, "incorrect", source="s")
    assert set(result.quarantined) == {judged.id, twin.id}
    assert cairn.get(twin.id).status is Status.CONFLICTED
    assert set(result.event.changed_ids) == {judged.id, twin.id}
    cairn.undo(result.event.id)
    assert cairn.get(twin.id).status is Status.PROVISIONAL and cairn.get(judged.id).status is Status.PROVISIONAL


@pytest.mark.parametrize("verdict", ["useful", "accurate"])
def test_positive_feedback_never_revives_a_quarantined_or_forgotten_record(cairn, db_path, at, verdict):
    quarantined = fact(cairn)
    forgotten = fact(cairn, "Deploys happen every Friday afternoon")
    at(1)
    cairn.feedback(quarantined.id, "incorrect", source="s")
    cairn.forget(forgotten.id)
    before = db_fingerprint(db_path)
    assert cairn.feedback(quarantined.id, verdict, source="t").reason == "quarantined"
    assert cairn.feedback(forgotten.id, verdict, source="t").reason == "inactive"
    assert db_fingerprint(db_path) == before
    assert cairn.get(quarantined.id).status is Status.CONFLICTED


@pytest.mark.parametrize(
    ("verdict", "kwargs", "match"),
    [("wrong", {}, "unknown verdict 'wrong'"), ("useful", {"at": day(30)}, "future"), ("useful", {"source": ""}, "source")],
)
def test_bad_feedback_is_refused_and_writes_nothing(cairn, db_path, verdict, kwargs, match):
    old = fact(cairn)
    before = db_fingerprint(db_path)
    with pytest.raises(InvalidInput, match=match):
        cairn.feedback(old.id, verdict, **kwargs)
    assert db_fingerprint(db_path) == before


# -- the whole-message parser -------------------------------------------------------------

ID = "0123456789abcdef01234567"


@pytest.mark.parametrize(
    ("message", "verdict"),
    [
        (f"memory {ID} is useful.", Verdict.USEFUL),
        (f"memory {ID} is unhelpful", Verdict.UNHELPFUL),
        (f"  Memory {ID} is accurate.  ", Verdict.ACCURATE),
        (f"memory {ID} is incorrect.", Verdict.INCORRECT),
        (f"记忆 {ID} 有用。", Verdict.USEFUL),
        (f"记忆{ID}没用", Verdict.UNHELPFUL),
        (f"记忆 {ID} 正确。", Verdict.ACCURATE),
        (f"记忆 {ID} 错误。", Verdict.INCORRECT),
    ],
)
def test_parser_accepts_the_exact_statements(cairn, message, verdict):
    parsed = cairn.parse_feedback_message(message)
    assert parsed is not None and (parsed.memory_id, parsed.verdict) == (ID, verdict)


@pytest.mark.parametrize(
    "message",
    [
        f'"memory {ID} is useful."',  # a quote
        f"'memory {ID} is useful.'",
        f"memory {ID} is useful?",  # a question
        f"is memory {ID} useful?",
        f"memory {ID} is useful. memory {ID} is incorrect.",  # several statements
        f"memory {ID} is useful.\nthanks",
        f"memory {ID} is wrong.",  # vague wording
        f"memory {ID} is kind of useful.",
        f"for example: memory {ID} is useful.",
        f"memory {ID[:10]} is useful.",  # not the conservative id syntax
        f"记忆 {ID} 有用吗？",
        f"“记忆 {ID} 有用。”",
        f"记忆 {ID} 不对。",
        "",
    ],
)
def test_parser_rejects_everything_else(cairn, message):
    assert cairn.parse_feedback_message(message) is None
