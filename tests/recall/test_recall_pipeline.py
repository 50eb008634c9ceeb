"""The recall stages end to end on the engine: exclusions with reasons, dormancy,
search, time (as_of / known_at through the contracts), relation resolution, lanes."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

import pytest

from cairn.model import Feedback, Status, Verdict, VerdictSlot
from cairn.policy.temporal import TemporalStatus
from cairn.recall.gates import EXCLUSIONS, GATES, Reason
from cairn.recall.resolve import Resolved
from cairn.store import ReadView


def reasons(cairn, query: str, **options) -> dict[str, str]:
    return {c["id"]: c["reason"] for c in cairn.explain(query, **options)["candidates"]}


def overwrite(cairn, memory_id: str, **changes) -> None:
    """Test setup: change a stored record directly (the owning APIs live elsewhere)."""
    with cairn.store.write() as tx:
        tx.put_memory(replace(tx.get_memory(cairn.space, memory_id), **changes))


def test_reason_set_is_closed():
    assert {r.value for r in EXCLUSIONS} == {
        "forgotten", "conflicted", "retired", "disputed", "dormant", "other-space", "not-valid-at", "not-yet-recorded",
        "not-yet-valid", "other-origin",
    }
    assert {"below-coverage", "below-cutoff"} <= {r.value for r in GATES}
    assert {"rank-cut", "over-budget", "successor-not-selected"} <= {r.value for r in Reason}


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"status": Status.CONFLICTED}, Reason.CONFLICTED),
        ({"status": Status.RETIRED}, Reason.RETIRED),
        ({"status": Status.FORGOTTEN}, Reason.FORGOTTEN),
    ],
)
def test_lifecycle_exclusions(cairn, mem, change, reason):
    target = mem("The staging cluster runs on Hetzner machines")
    assert cairn.recall("staging cluster hetzner").ids == [target]  # control
    overwrite(cairn, target, **change)
    assert cairn.recall("staging cluster hetzner").ids == []
    assert reasons(cairn, "staging cluster hetzner")[target] == reason


def test_disputed_by_an_incorrect_verdict_is_excluded(cairn, mem, clock):
    target = mem("The staging cluster runs on Hetzner machines")
    overwrite(cairn, target, feedback=Feedback(accuracy=VerdictSlot(Verdict.INCORRECT, "user", clock.at)))
    assert reasons(cairn, "staging cluster hetzner")[target] == Reason.DISPUTED
    overwrite(cairn, target, feedback=Feedback(accuracy=VerdictSlot(Verdict.ACCURATE, "user", clock.at)))
    assert cairn.recall("staging cluster hetzner").ids == [target]


def test_other_space_is_never_seen(cairn, db_path, clock):
    from cairn import Cairn

    with Cairn(db_path, space="elsewhere", now=clock) as other:
        hidden = other.remember("The staging cluster runs on Hetzner machines", kind="fact").memory.id
    assert cairn.recall("staging cluster hetzner").ids == []
    assert hidden not in reasons(cairn, "staging cluster hetzner")


def test_dormant_is_left_out_of_injection_but_found_when_asked(cairn, mem):
    old = mem("The sprint board lives in Linear", kind="project_state", days_ago=10)  # dormant after 7 d
    assert cairn.recall("sprint board linear", inject=True).ids == []
    assert reasons(cairn, "sprint board linear", inject=True)[old] == Reason.DORMANT
    assert reasons(cairn, "sprint board linear")[old] == "selected"  # explain shows the recall that runs
    assert cairn.recall("sprint board linear", include_dormant=True).ids == [old]
    assert cairn.recall("sprint board linear").ids == [old]  # asked, with nothing current: shown, labelled
    found = cairn.search("sprint board linear")
    assert found.ids == [old]
    assert "dormant" in found.results[0].markers


def test_aging_marker_is_reported(cairn, mem):
    aging = mem("The sprint board lives in Linear", kind="project_state", days_ago=5)  # past half of 7 d
    result = cairn.recall("sprint board linear").results[0]
    assert result.id == aging and result.aging and "aging" in result.markers
    assert "aging" in cairn.recall("sprint board linear").digest


def test_search_returns_up_to_ten(cairn, mem):
    for i in range(12):
        mem(f"Zeppelin hangar inspection log entry {i}")
    assert len(cairn.search("zeppelin hangar inspection log").results) == 10
    assert len(cairn.recall("zeppelin hangar inspection log").results) == 3


def test_not_valid_at_comes_from_the_temporal_contract(cairn, mem, monkeypatch):
    target = mem("The office is in Lisbon")
    seen = {}

    def fake(memory, *, now, as_of, include_future=False):
        seen["as_of"] = as_of
        return TemporalStatus("not-valid-at") if as_of is not None else TemporalStatus(None, ("past-state", "checkpoint-passed"))

    monkeypatch.setattr("cairn.recall.pipeline.temporal_status", fake)
    result = cairn.recall("office lisbon").results[0]
    assert result.id == target and {"past-state", "checkpoint-passed"} <= set(result.markers)
    assert "past-state" in cairn.recall("office lisbon").digest
    assert cairn.recall("office lisbon", as_of="2020-01-01").ids == []
    assert seen["as_of"].year == 2020
    assert reasons(cairn, "office lisbon", as_of="2020-01-01")[target] == Reason.NOT_VALID_AT


def test_known_at_scores_the_records_of_that_time(cairn, mem, clock):
    early = mem("The office is in Lisbon")
    clock.at += timedelta(days=2)
    later = mem("The office is in Porto, the Lisbon office closed")
    at = clock.at - timedelta(days=1)
    recalled = cairn.recall("office lisbon", known_at=at)
    assert recalled.ids == [early]
    assert reasons(cairn, "office lisbon", known_at=at)[later] == Reason.NOT_YET_RECORDED
    assert set(cairn.recall("office lisbon").ids) >= {later}


def test_known_at_uses_the_timetravel_contract(cairn, mem, monkeypatch):
    current = mem("The office is in Lisbon")
    past = replace(cairn.get(current), content="The office was in a Lisbon garage")
    monkeypatch.setattr("cairn.recall.lanes.claims.records_known_at", lambda view, space, at: [past])
    result = cairn.recall("office lisbon garage", known_at="2026-10-01").results[0]
    assert result.id == current and "garage" in result.excerpt


def test_resolution_replaces_a_corrected_hit_and_carries_refs(cairn, mem, monkeypatch):
    old = mem("The API listens on port 8080")
    new = mem("Correction: the service binds 9090 now")  # does not match the query itself

    def fake(view: ReadView, space: str, ranked_ids: list[str], *, include_history: bool, now: datetime, **_) -> list[Resolved]:
        return [Resolved(new, ("corrected",), corrects=(old,), matched=old) if i == old else Resolved(i) for i in ranked_ids]

    monkeypatch.setattr("cairn.recall.pipeline.resolve", fake)
    recalled = cairn.recall("API port 8080")
    assert recalled.ids == [new]
    doc = recalled.to_dict()["results"][0]
    assert doc["markers"] == ["corrected"] and doc["corrects"] == [old] and doc["matched"] == old
    assert reasons(cairn, "API port 8080")[old] == Reason.REPLACED


def test_resolution_keeps_historical_rationale_after_its_successor(cairn, mem, monkeypatch):
    new = mem("Decision: use an offline tablet for field observations", kind="decision")
    old = mem("Decision: use a paper log for field observations", kind="decision")
    calls = {}

    def fake(view: ReadView, space: str, ranked_ids: list[str], *, include_history: bool, now: datetime, **_) -> list[Resolved]:
        calls["include_history"] = include_history
        out = [Resolved(i) for i in ranked_ids if i != old]
        if include_history:
            out.insert(out.index(Resolved(new)) + 1, Resolved(old, ("historical-rationale",), superseded_by=new))
        return out

    monkeypatch.setattr("cairn.recall.pipeline.resolve", fake)
    recalled = cairn.recall("field observations decision", include_history=True)
    assert calls["include_history"] is True
    assert recalled.ids == [new, old]
    assert recalled.results[1].markers == ("historical-rationale",)
    assert recalled.to_dict()["results"][1]["superseded_by"] == new


def test_unknown_markers_never_reach_a_result(cairn, mem, monkeypatch):
    target = mem("The office is in Lisbon")
    monkeypatch.setattr(
        "cairn.recall.pipeline.resolve",
        lambda view, space, ids, *, include_history, now, **_: [
            Resolved(i, ("made-up", "contradicted"), contradicts=("x",)) for i in ids
        ],
    )
    result = cairn.recall("office lisbon").results[0]
    assert result.id == target and result.markers == ("contradicted",) and result.contradicts == ("x",)


def test_episode_lane_reports_gates_without_applying_them(cairn, mem):
    for i in range(3):
        mem(f"turn {i}: we talked about the glacier trip", kind="episode", basis="transcript", method="local")
    weak = mem("turn 9: glacier", kind="episode", basis="transcript", method="local")
    claim = mem("The glacier trip is planned for June")
    episodes = cairn.recall("glacier trip talked", lane="episodes", limit=5)
    assert weak in episodes.ids and claim not in episodes.ids
    entry = {c["id"]: c for c in cairn.explain("glacier trip talked", lane="episodes", limit=5)["candidates"]}[weak]
    assert entry["reason"] == "selected" and entry["factors"]["gate_reported"] in {g.value for g in GATES}
    claims = cairn.recall("glacier trip", lane="claims")
    assert claims.ids == [claim]
    both = cairn.recall("glacier trip", lane="all", limit=4)
    assert both.ids[0] == claim and set(both.ids[1:]) <= set(episodes.ids)


def test_episode_lane_applies_exclusions(cairn, mem):
    gone = mem("turn 1: the glacier trip", kind="episode", basis="transcript", method="local")
    cairn.forget(gone)
    assert cairn.recall("glacier trip", lane="episodes").ids == []
    assert reasons(cairn, "glacier trip", lane="episodes")[gone] == Reason.FORGOTTEN


def test_nothing_relevant_returns_nothing_no_recency_fallback(cairn, mem):
    mem("The office is in Lisbon")
    recalled = cairn.recall("quantum chromodynamics")
    assert recalled.results == [] and recalled.digest == "" and recalled.note


def test_resolution_never_brings_back_an_excluded_record(cairn, mem, monkeypatch):
    new = mem("Decision: use an offline tablet for field observations", kind="decision")
    old = mem("Decision: use a paper log for field observations", kind="decision")
    cairn.forget(old)
    monkeypatch.setattr(
        "cairn.recall.pipeline.resolve",
        lambda view, space, ids, *, include_history, now, **_: [
            Resolved(new),
            Resolved(old, ("historical-rationale",), superseded_by=new),
        ],
    )
    assert cairn.recall("field observations decision", include_history=True).ids == [new]
    assert reasons(cairn, "field observations decision")[old] == Reason.FORGOTTEN


def test_resolution_may_bring_in_a_gate_rejected_predecessor_after_its_successor(cairn, mem, monkeypatch):
    new = mem("Field observations are logged on an offline tablet", kind="decision")
    old = mem("Observations: paper", kind="decision")  # weak match: below the cutoff on its own
    assert reasons(cairn, "field observations logged tablet")[old] != Reason.SELECTED
    monkeypatch.setattr(
        "cairn.recall.pipeline.resolve",
        lambda view, space, ids, *, include_history, now, **_: [
            x
            for i in ids
            if i != old
            for x in ([Resolved(i)] + ([Resolved(old, ("historical-rationale",), superseded_by=new)] if i == new else []))
        ],
    )
    recalled = cairn.recall("field observations logged tablet", include_history=True)
    assert recalled.ids == [new, old]
    assert reasons(cairn, "field observations logged tablet", include_history=True)[old] == Reason.SELECTED


def test_a_duplicate_from_resolution_is_emitted_once(cairn, mem, monkeypatch):
    target = mem("The office is in Lisbon")
    monkeypatch.setattr(
        "cairn.recall.pipeline.resolve", lambda view, space, ids, *, include_history, now, **_: [Resolved(i) for i in ids] * 2
    )
    assert cairn.recall("office lisbon").ids == [target]
    assert reasons(cairn, "office lisbon")[target] == Reason.SELECTED


@pytest.mark.parametrize("budget", [256, 300, 400, 520, 700, 900, 2048])
def test_historical_rationale_invariant_on_the_final_results_at_tight_budgets(cairn, mem, monkeypatch, budget):
    """Hand-made Resolved lists through the whole pipeline: whatever the budget, a
    historical rationale is in the results only right after its successor."""
    long = "because of several long reasons " * 12
    d1 = mem("Decision: field observations go on an offline tablet " + long, kind="decision")
    h1 = mem("Decision: field observations went in a paper log", kind="decision")
    d2 = mem("Decision: field observations sync nightly", kind="decision")
    h2 = mem("Decision: field observations synced weekly " + long, kind="decision")

    def fake(view: ReadView, space: str, ids: list[str], *, include_history: bool, now: datetime, **_) -> list[Resolved]:
        return [
            Resolved(d1), Resolved(h1, ("historical-rationale",), superseded_by=d1),
            Resolved(d2), Resolved(h2, ("historical-rationale",), superseded_by=d2),
        ]

    monkeypatch.setattr("cairn.recall.pipeline.resolve", fake)
    recalled = cairn.recall("field observations decision", budget=budget, limit=4, include_history=True)
    ids = recalled.ids
    assert len(recalled.digest.encode()) <= budget
    for k, result in enumerate(recalled.results):
        if "historical-rationale" in result.markers:
            assert k > 0 and ids[k - 1] == result.superseded_by
    why = reasons(cairn, "field observations decision", budget=budget, limit=4, include_history=True)
    for rid in (d1, h1, d2, h2):
        assert (rid in ids) == (why[rid] == "selected")
