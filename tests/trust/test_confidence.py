"""Confidence: deterministic grounds, independent corroboration, and no effect on ranking."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cairn.model import Certainty
from cairn.policy.confidence import Support, compose, corroborations

NOW = datetime(2026, 11, 10, 12, tzinfo=UTC)


def grounds(doc) -> dict[str, float]:
    return {g["name"]: g["contribution"] for g in doc["grounds"]}


def test_a_user_statement_asserted_high_is_high_and_says_why(cairn):
    rec = cairn.remember("The staging database listens on port 5432", kind="fact", certainty="high").memory
    doc = cairn.confidence(rec.id).to_dict()
    assert doc["level"] == "high"
    assert grounds(doc) == {"base": 0.5, "asserted-certainty": 0.15, "evidence-basis": 0.1}


def test_a_low_certainty_summary_is_low(cairn):
    rec = cairn.remember("Maybe the deploy runs on Fridays", kind="fact", basis="summary", method="agent",
                         certainty="low").memory
    assert cairn.confidence(rec.id).level == "low"


def test_a_correction_lowers_the_corrected_record(cairn):
    old = cairn.remember("Use PostgreSQL 16 for billing", kind="decision").memory
    before = cairn.confidence(old.id)
    cairn.remember("Use PostgreSQL 17 for billing", kind="decision", relates=[("corrects", old.id)])
    after = cairn.confidence(old.id)
    assert "corrected" not in {g.name for g in before.grounds}
    assert {g.name: g.contribution for g in after.grounds}["corrected"] < 0
    assert after.score < before.score


def test_validity_verdicts_and_contradiction_are_grounds(cairn, clock):
    ended = cairn.remember("The office was in Lyon", kind="fact", valid_to="2026-01-01T00:00:00Z").memory
    assert "validity-ended" in {g.name for g in cairn.confidence(ended.id).grounds}
    rec = cairn.remember("Standup is at 9:30", kind="fact").memory
    cairn.feedback(rec.id, "accurate", "s1")
    assert {g.name: g.contribution for g in cairn.confidence(rec.id).grounds}["verdict-accurate"] > 0
    other = cairn.remember("Standup is at 10:00", kind="fact", relates=[("contradicts", rec.id)]).memory
    assert other.id != rec.id and "contradicted" in {g.name for g in cairn.confidence(rec.id).grounds}


def _record(cairn):
    return cairn.remember("Deploys go out on Tuesdays", kind="fact", source="chat-1").memory


def test_distinct_sources_on_distinct_days_corroborate_and_repetition_earns_nothing(cairn):
    rec = _record(cairn)
    day = rec.created_at
    repeated = [Support("explicit_reinforcement", 1.0, day + timedelta(days=i), "chat-2") for i in range(1, 6)]
    assert corroborations(rec, repeated)[0] == 1  # one new source, however many times
    same_day = [Support("explicit_reinforcement", 1.0, day, f"chat-{i}") for i in range(2, 6)]
    assert corroborations(rec, same_day)[0] == 0  # all on the record's own day
    own_source = [Support("explicit_reinforcement", 1.0, day + timedelta(days=3), "chat-1")]
    assert corroborations(rec, own_source)[0] == 0
    independent = [Support("explicit_reinforcement", 1.0, day + timedelta(days=i), f"chat-{i + 1}") for i in (1, 2)]
    assert corroborations(rec, independent)[0] == 2
    c = compose(rec, now=NOW, supports=independent)
    assert {g.name: g.contribution for g in c.grounds}["corroborations"] == 0.2


def test_reinforcement_events_reach_confidence_through_the_engine(cairn, clock):
    rec = _record(cairn)
    start = cairn.confidence(rec.id).score
    clock.at += timedelta(days=2)
    cairn.reinforce(rec.id, "explicit_reinforcement", source="chat-9")
    assert "corroborations" in {g.name for g in cairn.confidence(rec.id).grounds}
    clock.at += timedelta(days=1)
    cairn.reinforce(rec.id, "explicit_correction")
    assert cairn.confidence(rec.id).score < start + 0.1  # the correction takes part of it back


def test_composition_is_deterministic():
    from cairn.model import Memory
    from cairn.model.enums import Kind

    m = Memory("a" * 24, "default", "", Kind.FACT, "x", NOW, NOW, certainty=Certainty.MEDIUM)
    assert compose(m, now=NOW) == compose(m, now=NOW)


def test_show_recall_json_and_mcp_carry_confidence(cairn, cli, db_path):
    from cairn import Cairn
    from cairn.mcp.registry import call

    rec = cairn.remember("The billing service uses PostgreSQL 17", kind="decision", certainty="high").memory
    shown = cli("--json", "show", rec.id).json()
    assert shown["confidence"]["level"] == "high" and shown["confidence"]["grounds"]
    recalled = cli("--json", "recall", "billing service PostgreSQL").json()
    assert recalled["results"][0]["confidence"] == shown["confidence"]
    with Cairn(db_path) as engine:
        reply = call(engine, "memory_recall", {"query": "billing service PostgreSQL"})
    assert reply.doc["results"][0]["confidence"] == shown["confidence"]
