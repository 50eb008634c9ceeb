"""Relevance gates on raw relevance (docs/recall.md, stage 5): strict literals, coverage,
the named-attribute rule, rare aliases, the 75 % relative cutoff."""

from __future__ import annotations

import pytest

from cairn.recall.gates import GATE, Reason, below_cutoff


def reasons(cairn, query: str, **options) -> dict[str, str]:
    return {c["id"]: c["reason"] for c in cairn.explain(query, **options)["candidates"]}


@pytest.fixture
def auth(mem):
    return {
        "sqlite_auth": mem("SQLite authentication uses a password file next to the database"),
        "pg_auth": mem("PostgreSQL authentication uses scram-sha-256"),
        "sqlite_timeout": mem("SQLite timeout is 5 seconds for the busy handler"),
    }


def test_named_attribute_positive_the_named_answer_is_recalled(cairn, auth):
    assert cairn.recall("SQLite authentication").ids == [auth["sqlite_auth"]]


def test_named_attribute_no_substitute_once_the_answer_is_suppressed(cairn, auth):
    """After SQLite authentication is suppressed, neither PostgreSQL authentication nor
    SQLite timeout may answer for it."""
    cairn.forget(auth["sqlite_auth"])
    recalled = cairn.recall("SQLite authentication")
    assert recalled.ids == []
    why = reasons(cairn, "SQLite authentication")
    assert why[auth["sqlite_auth"]] == Reason.FORGOTTEN
    assert why[auth["pg_auth"]] == Reason.MISSING_SUBJECT
    assert why[auth["sqlite_timeout"]] == Reason.MISSING_ATTRIBUTE


def test_named_attribute_other_subject_is_still_found_for_its_own_query(cairn, auth):
    assert cairn.recall("PostgreSQL authentication").ids == [auth["pg_auth"]]


def test_long_query_is_not_held_to_the_named_rule(cairn, auth):
    # Five features: the named rule does not apply; coverage and the cutoff decide.
    why = reasons(cairn, "which authentication method does postgresql use with scram passwords")
    assert why[auth["pg_auth"]] == Reason.SELECTED
    assert Reason.MISSING_SUBJECT not in why.values()


def test_origin_may_name_the_subject_but_not_the_attribute(cairn, mem):
    in_origin = mem("Authentication uses a password file", origin="sqlite")
    assert cairn.recall("SQLite authentication").ids == [in_origin]
    only_origin = mem("SQLite timeouts are five seconds", origin="authentication")
    assert reasons(cairn, "sqlite authentication")[only_origin] == Reason.MISSING_ATTRIBUTE


def test_a_rare_alias_names_the_subject(cairn, mem):
    aliased = mem("Authentication uses a password file", aliases=["sqlite"])
    assert cairn.recall("SQLite authentication").ids == [aliased]


def test_a_common_alias_does_not_name_the_subject(cairn, mem):
    # "infra" tags many records: it is a tag, not a name, so it cannot stand for the subject.
    tagged = [mem(f"Note {i} about the build cache", aliases=["infra"]) for i in range(5)]
    target = mem("Authentication uses a password file", aliases=["infra"])
    why = reasons(cairn, "infra authentication")
    assert why[target] == Reason.MISSING_SUBJECT
    assert all(why.get(t) != Reason.SELECTED for t in tagged)


def test_strict_literal_must_be_present(cairn, mem):
    path = mem("The tokeniser lives in src/cairn/text.py")
    other = mem("The tokeniser is tested in tests/test_text.py")
    assert cairn.recall("tokeniser src/cairn/text.py").ids == [path]
    assert reasons(cairn, "tokeniser src/cairn/text.py")[other] == Reason.MISSING_LITERAL


def test_numeric_literal_is_not_a_demand(cairn, mem):
    # "is the timeout still 30": the current value may be another number.
    current = mem("The request timeout is 60 seconds")
    assert cairn.recall("request timeout 30").ids == [current]


def test_low_coverage_is_rejected(cairn, mem):
    for i in range(10):
        mem(f"Lunch note {i}: sandwiches and soup")
    partial = mem("The zeppelin hangar opens at dawn")
    full = mem("Quarterly budget forecast for marketing spend review")
    why = reasons(cairn, "quarterly budget forecast marketing spend zeppelin")
    assert why[full] == Reason.SELECTED
    assert why[partial] == Reason.BELOW_COVERAGE


def test_relative_cutoff_drops_matches_below_75_percent_of_the_best():
    assert GATE.relative_cutoff == 0.75
    assert below_cutoff({"a": 10.0, "b": 7.6, "c": 7.4}) == {"c"}
    assert below_cutoff({"a": 10.0, "b": 7.5}) == set()  # at the line: kept
    assert below_cutoff({}) == set()


def test_relative_cutoff_on_raw_relevance_not_quality(cairn, mem):
    # A weaker match with every quality advantage (pinned, manual correction, useful) is
    # still cut: quality re-orders relevant matches, it never rescues a weaker one.
    strong = mem("Deploy the API with Docker Compose on staging", basis="summary", days_ago=150)
    weak = mem("Docker is installed on the build machine, restart it weekly", basis="manual_correction", pin=True)
    why = reasons(cairn, "deploy API docker compose staging")
    assert why[strong] == Reason.SELECTED
    assert why[weak] in (Reason.BELOW_CUTOFF, Reason.BELOW_COVERAGE)
