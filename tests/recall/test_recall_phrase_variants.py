"""Two rules found by a held-out natural-question part (a coding agent's memory of a mobile
app, ``natural/fresh5.json``), each with its negative control:

* an abbreviation whose long form is several words (``PR`` → "pull request", ``e2e`` →
  "end-to-end") meets a record that holds those words side by side and in that order, and
  no record that merely holds them apart;
* a possessive after a determiner ("the user's email") names a role, not the subject, when
  the question has other topic words — but alone with what it owns ("who is the cat's vet")
  it still says whose.
"""

from __future__ import annotations

import pytest

from cairn import Cairn
from cairn.recall.query import parse_query
from cairn.recall.variants import ABBREVIATIONS, expand, is_phrase
from testkit import NOW


def _recall(tmp_path, texts: list[str], question: str) -> list[str]:
    """Contents recalled for ``question`` from a store holding ``texts``."""
    with Cairn(tmp_path / "cairn.db", now=NOW) as cairn:
        for text in texts:
            cairn.remember(text, kind="fact")
        return [r.memory.content for r in cairn.recall(question, trace=False).results]


PROJECT = [
    "Every pull request needs one approval and a green CI run before merge",
    "Unit tests run with Jest; end-to-end tests use Detox on an iPhone 15 simulator",
    "Releases ship every second Tuesday through EAS Submit",
    "Crash reports go to Sentry; the project is trailmix-mobile",
]


def test_a_multi_word_long_form_is_a_phrase_variant_one_way_only():
    assert "pull request" in ABBREVIATIONS["pr"] and is_phrase("pull request")
    assert "end to end" in ABBREVIATIONS["e2e"]
    assert "pull request" not in ABBREVIATIONS  # a phrase is no single term to look up


@pytest.mark.parametrize(
    ("question", "expected"),
    [("how many approvals does a PR need", 0), ("how do I run the e2e tests", 1)],
)
def test_an_abbreviation_meets_its_long_form(tmp_path, question, expected):
    assert _recall(tmp_path, PROJECT, question)[:1] == [PROJECT[expected]]


def test_the_words_of_a_long_form_apart_do_not_count(tmp_path):
    apart = ["Pull the request logs from the gateway before the review meeting"]
    assert _recall(tmp_path, apart, "how many approvals does a PR need") == []
    query = parse_query("PR approvals")

    class Vocabulary:  # a store that holds "pull" and "request", but not "e2e"
        def df(self, term):
            return 1 if term in ("pull", "request", "approv") else 0

        def extensions(self, prefix, limit):
            return []

    pr = next(f for f in expand(query, Vocabulary()).features if f.term == "pr")
    assert pr.variants == ("pull request",)


def test_a_phrase_variant_needs_every_word_in_the_store():
    class Vocabulary:
        def df(self, term):
            return 1 if term == "pull" else 0

        def extensions(self, prefix, limit):
            return []

    pr = next(f for f in expand(parse_query("PR approvals"), Vocabulary()).features if f.term == "pr")
    assert pr.variants == ()


ANALYTICS = [
    "Users sign in with magic links sent by email; sessions last 30 days",
    "Product analytics are sent to PostHog; never log email addresses as event properties",
]


def test_a_common_noun_owner_is_a_role_in_a_longer_question(tmp_path):
    assert parse_query("can I log the user's email in analytics").subject is None
    assert _recall(tmp_path, ANALYTICS, "can I log the user's email in analytics")[:1] == [ANALYTICS[1]]


def test_a_common_noun_owner_alone_with_what_it_owns_still_says_whose(tmp_path):
    assert parse_query("who is the cat's vet").subject == "cat"
    assert _recall(tmp_path, ["The dog's vet is Dr. Amsel at Parkside Clinic"], "who is the cat's vet") == []


def test_a_name_owner_is_the_subject_whatever_else_is_asked():
    assert parse_query("can I send Omar's invoice by email").subject == "omar"
