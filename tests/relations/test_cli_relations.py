"""CLI: relate, timeline, remember --corrects/--supersedes/--contradicts/--qualifies,
recall --as-of/--known-at; refusals exit 1 with one line and write nothing."""

from __future__ import annotations

import pytest

from testkit.db import db_fingerprint

NOW = ["--now", "2026-06-01T12:00:00Z"]


def remember(cli, text, *extra, at="2026-06-01T12:00:00Z"):
    result = cli("--json", "--now", at, "remember", text, "--kind", "fact", *extra)
    assert result.code == 0, result.err
    return result.json()


def test_relate_prints_the_event(cli):
    a = remember(cli, "The cafeteria opens at eight")["id"]
    b = remember(cli, "The cafeteria opens at half past seven")["id"]
    result = cli("--json", *NOW, "relate", b[:8], "corrects", a[:8])
    assert result.code == 0
    doc = result.json()
    assert set(doc) >= {"event"} and doc["relation"]["from"] == b and doc["relation"]["to"] == a
    shown = cli("--json", "show", a).json()
    assert [(r["from"], r["role"]) for r in shown["relations"]] == [(b, "corrects")]
    assert f"{b[:10]} qualifies {a[:10]}" in cli(*NOW, "relate", b, "qualifies", a).out


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("SELF", "corrects", "SELF"), "self-reference"),
        (("A", "corrects", "B"), "cycle"),
        (("B", "corrects", "A"), "duplicate"),
    ],
)
def test_relate_refusals_exit_1_with_their_code(cli, db_path, args, code):
    a = remember(cli, "The cafeteria opens at eight")["id"]
    b = remember(cli, "The cafeteria opens at seven", "--corrects", a)["id"]
    names = {"SELF": a, "A": a, "B": b}
    before = db_fingerprint(db_path)
    result = cli(*NOW, "relate", *(names.get(x, x) for x in args))
    assert result.code == 1 and result.out == ""
    assert f"({code})" in result.err and len(result.err.strip().splitlines()) == 1
    assert db_fingerprint(db_path) == before


def test_relate_cross_space_and_bad_role(cli, db_path):
    theirs = cli("--json", "--space", "team", "remember", "Team notes live in the wiki", "--kind", "fact").json()["id"]
    mine = remember(cli, "My notes live in a notebook")["id"]
    before = db_fingerprint(db_path)
    crossed = cli("relate", mine, "contradicts", theirs)
    assert crossed.code == 1 and "(cross-space)" in crossed.err
    bad = cli("relate", mine, "replaces", mine)
    assert bad.code == 1 and "role" in bad.err
    assert cli("relate", mine).code == 2  # usage error
    assert db_fingerprint(db_path) == before


def test_remember_with_relation_options_is_one_event(cli):
    a = remember(cli, "The meetup is in room 101")["id"]
    b = remember(cli, "The meetup might be in room 202")["id"]
    c = remember(cli, "The meetup is in room 303", "--corrects", a, "--contradicts", b[:8], "--qualifies", a)
    history = cli("--json", "history", "--limit", "1").json()["events"]
    assert history[0]["id"] == c["event"] and len(history[0]["changed"]) == 4  # record + three relations
    rels = cli("--json", "show", c["id"]).json()["relations"]
    assert sorted(r["role"] for r in rels) == ["contradicts", "corrects", "qualifies"]
    d = remember(cli, "The meetup is in room 404", "--supersedes", c["id"])
    assert cli("--json", "show", d["id"]).json()["relations"][0]["role"] == "supersedes"


def test_remember_relation_refusal_writes_nothing(cli, db_path):
    remember(cli, "The meetup is in room 101")
    before = db_fingerprint(db_path)
    result = cli("remember", "The meetup is in room 505", "--kind", "fact", "--corrects", "abcdef123456")
    assert result.code == 1 and db_fingerprint(db_path) == before


def test_recall_as_of_and_known_at_on_the_cli(cli):
    old = remember(cli, "The office address is 4 Oak Avenue", "--valid-from", "2020-01-01", "--valid-to", "2024-06-30",
                   at="2026-01-01T00:00:00Z")["id"]
    new = remember(cli, "The office address is 12 Elm Street", "--valid-from", "2024-07-01", "--supersedes", old,
                   at="2026-03-01T00:00:00Z")["id"]
    ids = lambda *a: [r["id"] for r in cli("--json", *NOW, "recall", "office address", *a).json()["results"]]  # noqa: E731
    assert ids() == [new]
    assert ids("--as-of", "2022-01-01") == [old]
    assert ids("--known-at", "2026-02-01") == [old]  # before the new address was recorded


def test_timeline_lists_states_in_time_order(cli):
    a = remember(cli, "The office address is 4 Oak Avenue", "--valid-from", "2020-01-01", "--valid-to", "2024-06-30")["id"]
    b = remember(cli, "The office address is 12 Elm Street", "--valid-from", "2024-07-01", "--supersedes", a)["id"]
    remember(cli, "The cafeteria opens at eight")
    doc = cli("--json", *NOW, "timeline", "office address").json()
    assert [s["id"] for s in doc["states"]] == [a, b]
    assert [s["current"] for s in doc["states"]] == [False, True]
    assert doc["states"][0]["replaced_by"] == [b] and doc["states"][0]["markers"] == ["past-state"]
    assert [(r["from"], r["role"], r["to"]) for r in doc["relations"]] == [(b, "supersedes", a)]
    text = cli(*NOW, "timeline", "office address").out
    assert text.index(a[:10]) < text.index(b[:10]) and "current" in text
    assert cli("--json", "timeline", "nothing like this").json()["states"] == []
    assert cli("timeline", "the of").code == 1  # only stopwords: no subject


@pytest.mark.parametrize("command", ["relate", "timeline"])
def test_help_exists(cli, command):
    result = cli(command, "--help")
    assert result.code == 0 and "usage:" in result.out and len(result.out) > 200
