"""Recall with relations and time: corrections, chains, contradictions, the decision pair
at every budget, as-of, known-at, both together, checkpoints, and byte-for-byte
unchanged behaviour of records without intervals or relations."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

import cairn.recall.pipeline as pipeline
from cairn.policy.temporal import TemporalStatus
from cairn.recall.resolve import Resolved


def results(recalled) -> list[dict]:
    return recalled.to_dict()["results"]


def ids(recalled) -> list[str]:
    return [r["id"] for r in results(recalled)]


def by_id(recalled) -> dict[str, dict]:
    return {r["id"]: r for r in results(recalled)}


def later(clock, **delta):
    clock.at += timedelta(**delta)


def test_recall_follows_a_correction(cairn, mem, clock):
    a = mem("The wifi password rotates every month")
    later(clock, days=1)
    b = mem("Correction: the wifi password changes each week", relates=[("corrects", a)])
    got = cairn.recall("wifi password rotates every month")  # words of the old text only
    assert ids(got) == [b]
    [r] = results(got)
    assert r["markers"] == ["corrected"] and r["corrects"] == [a] and r["matched"] == a
    assert "month" not in got.digest
    history = cairn.recall("wifi password rotates every month", include_history=True)
    assert ids(history) == [b, a]  # the older text only when asked, right after its correction
    assert by_id(history)[a]["markers"] == ["historical-rationale"] and by_id(history)[a]["superseded_by"] == b


def test_without_the_relation_both_come_back_as_current(cairn, mem, clock):
    """Negative control: the same two records, no relation: nothing is marked."""
    a = mem("The wifi password rotates every month")
    later(clock, days=1)
    b = mem("The wifi password rotates every week")
    got = cairn.recall("wifi password rotates")
    assert set(ids(got)) == {a, b} and all(r["markers"] == [] for r in results(got))


def test_chain_resolves_to_the_newest(cairn, mem, clock):
    a = mem("The release branch is named develop")
    later(clock, days=1)
    b = mem("The release branch is named main", relates=[("corrects", a)])
    later(clock, days=1)
    c = mem("The release branch is named trunk", relates=[("supersedes", b)])
    for query in ("release branch develop", "release branch main", "release branch trunk", "release branch"):
        got = cairn.recall(query)
        assert ids(got) == [c], query
        assert results(got)[0]["corrects"] == [b, a]
        assert "develop" not in got.digest and '"The release branch is named main"' not in got.digest


def test_withdrawn_correction_restores_the_older_record(cairn, mem, clock):
    a = mem("The release branch is named develop")
    later(clock, days=1)
    made = cairn.remember("The release branch is named main", kind="fact", relates=[("corrects", a)])
    cairn.undo(made.event.id)  # record forgotten and relation removed in one compensating event
    assert ids(cairn.recall("release branch develop")) == [a]


def test_contradiction_pair_until_one_side_is_resolved(cairn, mem, clock, judge_incorrect):
    x = mem("Alice lives in Paris")
    later(clock, days=1)
    y = mem("Alice lives in Lyon", relates=[("contradicts", x)])
    got = cairn.recall("where does Alice live")
    assert set(ids(got)) == {x, y}
    assert by_id(got)[x]["contradicts"] == [y] and by_id(got)[y]["contradicts"] == [x]
    assert all(r["markers"] == ["contradicted"] for r in results(got))
    only_lyon = cairn.recall("Alice Lyon")  # the partner comes back beside the hit, no side chosen
    assert ids(only_lyon) == [y, x]
    later(clock, days=1)
    judge_incorrect(x)
    got = cairn.recall("where does Alice live")
    assert ids(got) == [y] and results(got)[0]["markers"] == []


def test_contradiction_resolved_by_a_correction(cairn, mem, clock):
    x = mem("Alice lives in Paris")
    y = mem("Alice lives in Lyon", relates=[("contradicts", x)])
    later(clock, days=1)
    z = mem("Alice lives in Lyon since May", relates=[("corrects", y)])
    got = cairn.recall("where does Alice live")
    assert by_id(got)[x]["markers"] == [] and by_id(got)[z]["markers"] == ["corrected"]
    assert y not in ids(got)


def decision_pair(mem, clock):
    paper = mem("Expedition log decision: use a paper log for simplicity in the field", kind="decision")
    later(clock, days=1)
    tablet = mem("Expedition log decision: use an offline tablet for searchable observations",
                 kind="decision", relates=[("supersedes", paper)])
    return paper, tablet


def test_superseded_decision_follows_its_successor_as_rationale(cairn, mem, clock):
    paper, tablet = decision_pair(mem, clock)
    got = cairn.recall("expedition paper log decision")
    assert ids(got) == [tablet, paper]
    assert by_id(got)[paper]["markers"] == ["historical-rationale"] and by_id(got)[paper]["superseded_by"] == tablet
    assert by_id(got)[tablet]["markers"] == ["corrected"]


def test_a_superseded_fact_is_not_a_rationale(cairn, mem, clock):
    """Negative control: only decisions keep their predecessor by default."""
    old = mem("Expedition log tool: a paper notebook")
    later(clock, days=1)
    new = mem("Expedition log tool: an offline tablet", relates=[("supersedes", old)])
    assert ids(cairn.recall("expedition log paper notebook")) == [new]


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_decision_pair_at_every_budget(cairn, mem, clock, limit):
    paper, tablet = decision_pair(mem, clock)
    for budget in range(256, 1200, 8):
        got = ids(cairn.recall("expedition paper log decision", budget=budget, limit=limit, trace=False))
        assert got in ([], [tablet], [tablet, paper]), (budget, got)  # never the predecessor without it
        if paper in got:
            assert got.index(paper) == got.index(tablet) + 1


def test_as_of_returns_what_held_then(cairn, mem, clock):
    old = mem("The office address is 4 Oak Avenue", valid_from="2020-01-01", valid_to="2024-06-30")
    new = mem("The office address is 12 Elm Street", valid_from="2024-07-01",
              relates=[("supersedes", old)])
    assert ids(cairn.recall("office address", as_of="2022-03-01")) == [old]
    assert ids(cairn.recall("office address", as_of="2025-03-01")) == [new]
    now = cairn.recall("office address")
    assert ids(now) == [new] and results(now)[0]["corrects"] == [old]


def test_ended_validity_is_a_past_state_never_current(cairn, mem):
    gone = mem("The team channel is #dev-old", valid_to="2026-01-01")
    got = cairn.recall("team channel")
    assert ids(got) == [gone] and results(got)[0]["markers"] == ["past-state"]
    assert "past-state" in got.digest
    assert ids(cairn.recall("team channel", as_of="2026-02-01")) == []  # not valid then


def test_known_at_answers_from_what_was_known(cairn, mem, clock):
    t0 = clock.at
    a = mem("The on-call phone number ends in 4411")
    later(clock, days=2)
    b = mem("The on-call phone number ends in 9902", relates=[("corrects", a)])
    before = cairn.recall("on-call phone number", known_at=t0 + timedelta(days=1))
    assert ids(before) == [a] and results(before)[0]["markers"] == []
    after = cairn.recall("on-call phone number", known_at=t0 + timedelta(days=3))
    assert ids(after) == [b] and results(after)[0]["corrects"] == [a]
    assert ids(cairn.recall("on-call phone number", known_at=t0 - timedelta(days=1))) == []


def test_what_cairn_believed_at_t1_about_t2(cairn, mem, clock):
    clock.at = datetime(2026, 1, 10, tzinfo=UTC)
    first = mem("The Berlin office lease is held by Acme GmbH", valid_from="2025-01-01")
    clock.at = datetime(2026, 3, 10, tzinfo=UTC)
    fixed = mem("The Berlin office lease is held by Acme Holding", valid_from="2025-01-01",
                relates=[("corrects", first)])
    clock.at = datetime(2026, 6, 1, tzinfo=UTC)
    t1_before, t1_after, t2 = "2026-02-01", "2026-04-01", "2025-06-01"
    assert ids(cairn.recall("Berlin office lease", known_at=t1_before, as_of=t2)) == [first]
    assert ids(cairn.recall("Berlin office lease", known_at=t1_after, as_of=t2)) == [fixed]
    assert ids(cairn.recall("Berlin office lease", known_at=t1_before, as_of="2024-06-01")) == []


def test_checkpoint_marks_without_changing_rank(cairn, mem):
    m = mem("The vendor contract renewal is pending", expected_resolution_at="2026-10-01")
    before = results(cairn.recall("vendor contract renewal", as_of="2026-09-01"))
    after = results(cairn.recall("vendor contract renewal", as_of="2026-10-15"))
    assert [r["id"] for r in before] == [r["id"] for r in after] == [m]
    assert before[0]["markers"] == [] and after[0]["markers"] == ["checkpoint-passed"]
    assert before[0]["rank_score"] == after[0]["rank_score"]
    assert cairn.get(m).expected_resolution_at is not None  # never rewritten


def test_an_accurate_verdict_after_the_checkpoint_clears_it(cairn, mem, clock):
    m = mem("The vendor contract renewal is pending", expected_resolution_at="2026-10-01")
    clock.at = datetime(2026, 11, 2, tzinfo=UTC)  # past the checkpoint
    assert results(cairn.recall("vendor contract renewal"))[0]["markers"] == ["checkpoint-passed"]
    cairn.feedback(m, "useful", source="review-1")  # negative control: usefulness confirms nothing
    assert results(cairn.recall("vendor contract renewal"))[0]["markers"] == ["checkpoint-passed"]
    cairn.feedback(m, "accurate", source="review-2")  # an explicit confirmation of the state
    assert cairn.get(m).last_confirmed_at == clock.at
    assert cairn.get(m).updated_at < clock.at  # the evidence clock did not move
    assert results(cairn.recall("vendor contract renewal"))[0]["markers"] == []


def test_plain_records_behave_byte_for_byte_as_before(cairn, mem, clock, monkeypatch):
    """With no intervals and no relations, resolve and temporal policy change nothing:
    the recall document equals the one produced with the original stubs."""
    for i, text in enumerate(["The API is deployed with Docker Compose", "Prefer pytest fixtures in tests",
                              "Use PostgreSQL 16 for billing", "The API gateway is Envoy",
                              "Deploy the API on Fridays"]):
        later(clock, hours=i)
        mem(text, kind="fact" if i % 2 else "decision")
    queries = ["API deploy", "pytest fixtures", "billing database", "gateway", "deploy"]
    mine = [json.dumps(cairn.recall(q, trace=False).to_dict()) for q in queries]
    monkeypatch.setattr(pipeline, "resolve", lambda view, space, ranked, **kw: [Resolved(i) for i in ranked])
    monkeypatch.setattr(pipeline, "temporal_status", lambda memory, **kw: TemporalStatus())
    stubbed = [json.dumps(cairn.recall(q, trace=False).to_dict()) for q in queries]
    assert mine == stubbed
    assert any(json.loads(d)["results"] for d in mine)  # the comparison is not vacuous


def test_checkpoint_passing_with_now_keeps_the_record_and_its_order(cli):
    def remember(text, *extra):
        return cli("--json", "--now", "2026-06-01T00:00:00Z", "remember", text, "--kind", "project_state", *extra).json()["id"]

    pending = remember("The vendor contract renewal is pending legal review", "--expected-resolution-at", "2026-06-03")
    other = remember("The vendor contract renewal needs a budget owner")

    def recall(now):
        doc = cli("--json", "--now", now, "recall", "vendor contract renewal", "--no-trace").json()
        return [(r["id"], r["relevance"], r["markers"]) for r in doc["results"]]

    before, after = recall("2026-06-02T00:00:00Z"), recall("2026-06-04T00:00:00Z")
    assert [(i, rel) for i, rel, _ in before] == [(i, rel) for i, rel, _ in after]  # same records, same order
    assert {i for i, _, _ in after} == {pending, other}
    assert dict((i, m) for i, _, m in after)[pending] == ["checkpoint-passed"]
    assert dict((i, m) for i, _, m in before)[pending] == []
    assert dict((i, m) for i, _, m in after)[other] == []
