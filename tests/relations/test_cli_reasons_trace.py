"""Every candidate of a recall ends ``selected`` or with one reason of the closed set, explain
names each candidate's evidence, and the trace keeps each candidate's numbers with the
phrase it matched, read back by ``cairn trace ID`` — all through the CLI.
"""

from __future__ import annotations

import json

import pytest

from cairn.recall.gates import Reason
from testkit.db import full_fingerprint

NOW = "2026-11-10T12:00:00Z"
OLDER = "2026-10-01T00:00:00Z"
QUERY = "Atlas rollout reached phase"


def remember(cli, text, *, kind="fact", at=NOW, extra=()):
    out = cli("--now", NOW, "--json", "remember", text, "--kind", kind, "--at", at, *extra)
    assert out.code == 0, out.err
    return out.json()["id"]


def explained(cli, query=QUERY):
    return {c["id"]: c for c in cli("--now", NOW, "--json", "explain", query).json()["candidates"]}


def assert_every_candidate_accounted_for(cli, query=QUERY):
    """Explain's ``selected`` is exactly the results; everything else carries a reason."""
    doc = cli("--now", NOW, "--json", "explain", query).json()
    recalled = cli("--now", NOW, "--json", "recall", query, "--no-trace").json()
    results = [r["id"] for r in recalled["results"]]
    assert doc["selected"] == results
    reasons = {c["id"]: c["reason"] for c in doc["candidates"]}
    assert {i for i, r in reasons.items() if r == "selected"} == set(results)
    assert set(reasons.values()) <= {r.value for r in Reason}
    assert recalled["rejected"] == recalled["candidates"] - len(results)
    return reasons


# -- superseded candidates end with a reason ---------------------------------------------


def test_a_superseded_candidate_ranked_below_its_successor_is_replaced(cli):
    old = remember(cli, "Atlas rollout reached phase one", at=OLDER)
    new = remember(cli, "Atlas rollout reached phase two", extra=("--supersedes", old))
    reasons = assert_every_candidate_accounted_for(cli)
    assert reasons == {new: "selected", old: "replaced-by-successor"}
    recalled = cli("--now", NOW, "--json", "recall", QUERY).json()
    trace = cli("--json", "trace", recalled["trace"]).json()
    assert trace["rejected"] == [{"id": old, "reason": "replaced-by-successor"}]


def test_control_two_unrelated_records_are_both_selected(cli):
    first = remember(cli, "Atlas rollout reached phase one", at=OLDER)
    second = remember(cli, "Atlas rollout reached phase two")
    assert assert_every_candidate_accounted_for(cli) == {first: "selected", second: "selected"}


def test_a_second_predecessor_not_given_as_rationale_is_replaced(cli):
    first = remember(cli, "Atlas rollout reached phase one", kind="decision", at=OLDER)
    second = remember(cli, "Atlas rollout reached phase two", kind="decision", at=OLDER)
    head = remember(cli, "Atlas rollout reached phase three", kind="decision",
                    extra=("--supersedes", first, "--supersedes", second))
    reasons = assert_every_candidate_accounted_for(cli)
    assert reasons[head] == "selected"
    assert sorted(reasons[i] for i in (first, second)) == ["replaced-by-successor", "selected"]


# -- explain names each candidate's evidence ---------------------------------------------


def test_explain_shows_the_basis_and_method_of_every_candidate(cli, tmp_path):
    user = remember(cli, "Atlas database port is 5432", extra=("--origin", "acme"))
    batch = {"source": {"id": "s1", "text": "Summary: the Atlas database port is 1111.", "kind": "summary",
                        "origin": "acme"},
             "claims": [{"kind": "fact", "content": "Atlas database port is 1111", "replaces": user}]}
    path = tmp_path / "b.json"
    path.write_text(json.dumps(batch), encoding="utf-8")
    assert cli("--now", NOW, "apply", str(path)).code == 0
    candidates = explained(cli, "Atlas database port")
    evidence = {c["reason"]: (c["basis"], c["method"]) for c in candidates.values()}
    assert evidence == {"selected": ("user_statement", "manual"), "conflicted": ("summary", "local")}
    chosen = candidates[user]
    assert chosen["raw"] > 0 and chosen["rank_score"] > 0
    assert {"freshness", "utility", "accuracy", "priority"} <= set(chosen["factors"])
    quarantined = next(c for c in candidates.values() if c["reason"] == "conflicted")
    assert quarantined["rank_score"] is None
    assert (quarantined["factors"]["priority"], quarantined["factors"]["utility"]) == (1, 1.0)


def test_explain_shows_the_quality_of_a_candidate_excluded_before_ranking(cli):
    judged = remember(cli, "Atlas database port is 5432")
    kept = remember(cli, "Atlas database port is 6000")
    assert cli("--now", NOW, "feedback", judged, "incorrect").code == 0
    candidates = explained(cli, "Atlas database port")
    assert (candidates[judged]["reason"], candidates[judged]["rank_score"]) == ("conflicted", None)
    assert candidates[judged]["factors"]["accuracy"] == 0.5  # the verdict that put it out
    assert candidates[kept]["factors"]["accuracy"] == 1.0  # control: no verdict, neutral


# -- the trace keeps the matched phrase, and `cairn trace` reads it back ---------------------

BODY = "Atlas rollout reached phase two after the quartz-lantern review"


@pytest.mark.parametrize(("query", "span"), [(QUERY, "atlas rollout reached phase"), ("rollout Atlas phase", None)])
def test_the_trace_stores_the_span_each_candidate_matched(cli, query, span):
    memory = remember(cli, BODY)
    recalled = cli("--now", NOW, "--json", "recall", query).json()
    assert [r["id"] for r in recalled["results"]] == [memory]
    trace = cli("--json", "trace", recalled["trace"]).json()
    assert [(s["id"], s["reason"], s.get("span")) for s in trace["scores"]] == [(memory, "selected", span)]
    assert trace["scores"][0]["raw"] == recalled["results"][0]["relevance"]


def test_cairn_trace_is_read_only_and_carries_no_memory_body(cli, db_path):
    remember(cli, BODY)
    trace_id = cli("--now", NOW, "--json", "recall", QUERY).json()["trace"]
    before = full_fingerprint(db_path)
    as_json = cli("--json", "trace", trace_id)
    as_text = cli("trace", trace_id)
    assert as_json.code == as_text.code == 0
    assert trace_id in as_text.out and "selected" in as_text.out
    for shown in (as_json.out, as_text.out):
        assert "quartz" not in shown and "lantern" not in shown  # body words the query never held
    assert full_fingerprint(db_path) == before


@pytest.mark.parametrize(("ref", "message"), [("abc", "not a trace id"), ("0" * 24, "no trace matches")])
def test_cairn_trace_refuses_an_unknown_id_in_one_line(cli, ref, message):
    remember(cli, BODY)
    out = cli("trace", ref)
    assert out.code == 1 and message in out.err and out.err.count("\n") == 1 and out.out == ""
