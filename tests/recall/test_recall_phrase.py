"""The contiguity phrase bonus (docs/recall.md, stage 4), tested as a set: the positive case and its
negative controls — words out of order, words joined by punctuation, a single word, a
span above the frequency ceiling, a span opening (or closing) with a function word."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from cairn.model import Basis, Evidence, Kind, Memory
from cairn.recall.phrase import PHRASE, candidate_spans, list_frequency, phrase_hits
from cairn.recall.query import parse_query

T = datetime(2026, 11, 1, tzinfo=UTC)


def m(i: str, content: str, basis: Basis = Basis.USER_STATEMENT) -> Memory:
    return Memory(id=i, space="default", origin="", kind=Kind.FACT, content=content, created_at=T, updated_at=T,
                  evidence=Evidence(basis=basis))


def hits(query: str, *records: Memory, corpus: list[Memory] | None = None):
    corpus = list(records) + (corpus or [])
    return phrase_hits(parse_query(query), records, list_frequency(corpus))


def test_positive_the_named_phrase_earns_a_bounded_bonus_naming_its_span():
    found = hits("the glacier custard incident", m("a", "Remember the glacier custard incident at camp."))
    assert found["a"].span == "glacier custard incident"
    assert found["a"].words == 3
    assert 0 < found["a"].bonus <= PHRASE.cap


def test_negative_words_out_of_order():
    assert hits("glacier custard incident", m("a", "incident custard glacier")) == {}


def test_negative_words_joined_by_punctuation_in_the_record():
    assert hits("glacier custard incident", m("a", "the glacier-custard-incident file")) == {}


def test_negative_a_hyphenated_compound_is_one_word():
    # "custard-incident" is one word: neither "glacier custard" nor "custard incident" is
    # present on whole-word boundaries.
    assert hits("glacier custard incident", m("a", "glacier custard-incident")) == {}


def test_negative_words_joined_by_punctuation_in_the_query():
    assert hits("glacier, custard", m("a", "glacier custard")) == {}


def test_partial_word_keeps_only_the_whole_word_span():
    found = hits("glacier custard incident", m("a", "glacier custard incidents"))
    assert found["a"].span == "glacier custard"


def test_negative_a_single_word():
    assert candidate_spans(parse_query("glacier")) == []
    assert hits("glacier", m("a", "glacier")) == {}


def test_negative_span_above_the_frequency_ceiling():
    repeated = [m(f"r{i}", f"note {i}: glacier custard") for i in range(PHRASE.ceiling + 1)]
    assert hits("glacier custard", repeated[0], corpus=repeated[1:]) == {}
    # control: at the ceiling it still counts
    at_ceiling = repeated[: PHRASE.ceiling]
    assert "r0" in hits("glacier custard", at_ceiling[0], corpus=at_ceiling[1:])


def test_negative_span_opening_or_closing_with_a_function_word():
    record = m("a", "we met on the glacier yesterday")
    assert hits("on the glacier", record) == {}
    assert hits("on the", m("b", "on the")) == {}
    spans = candidate_spans(parse_query("on the glacier custard of"))
    assert all(s[0] not in ("on", "the", "of") and s[-1] not in ("on", "the", "of") for s in spans)
    assert ("glacier", "custard") in spans


def test_function_word_inside_a_span_is_allowed():
    found = hits("state of art", m("a", "the state of art method"))
    assert found["a"].span == "state of art"


def test_bonus_is_bounded():
    long = "alpha bravo charlie delta echo foxtrot golf"
    assert hits(long, m("a", long))["a"].bonus == PHRASE.cap


def test_derived_view_gets_a_fraction_of_the_bonus():
    canonical = hits("glacier custard incident", m("a", "glacier custard incident"))["a"]
    summary = hits("glacier custard incident", m("s", "glacier custard incident", Basis.SUMMARY))["s"]
    assert summary.bonus == pytest.approx(canonical.bonus * PHRASE.derived_fraction)


def test_the_named_phrase_beats_a_chatty_record_sharing_only_scaffolding(cairn):
    """A long chatty record sharing scattered words must not outrank the one record
    that holds the named phrase."""
    anchor = cairn.remember("Our old joke was the glacier custard incident", kind="fact").memory.id
    chatty = cairn.remember(
        "Custard for dessert, then we talked about the incident with the car and a glacier documentary, "
        "custard again, glacier photos, another incident", kind="fact").memory.id
    explained = {c["id"]: c for c in cairn.explain("glacier custard incident")["candidates"]}
    assert explained[anchor]["factors"]["phrase"]["span"] == "glacier custard incident"
    assert "phrase" not in explained[chatty]["factors"]
    assert cairn.recall("glacier custard incident").ids[0] == anchor


def test_a_record_sharing_much_more_of_the_query_can_still_win(cairn):
    phrase_only = cairn.remember("glacier custard", kind="fact").memory.id
    broad = cairn.remember("custard recipe glacier trip notes: dessert menu for the glacier trip", kind="fact").memory.id
    q = "glacier custard recipe dessert menu trip"
    explained = {c["id"]: c for c in cairn.explain(q)["candidates"]}
    assert "phrase" in explained[phrase_only]["factors"]
    assert explained[broad]["raw"] > explained[phrase_only]["raw"]


def test_index_frequency_applies_the_ceiling_on_the_fts_path(cairn):
    first = cairn.remember("glacier custard is on the menu", kind="fact").memory.id
    explained = {c["id"]: c for c in cairn.explain("glacier custard")["candidates"]}
    assert explained[first]["factors"]["phrase"]["frequency"] == 1
    for i in range(PHRASE.ceiling):
        cairn.remember(f"note {i}: glacier custard again", kind="fact")
    explained = {c["id"]: c for c in cairn.explain("glacier custard")["candidates"]}
    assert "phrase" not in explained[first]["factors"]


def test_stemmed_fts_hits_are_verified_before_counting_toward_the_ceiling(cairn):
    exact = cairn.remember("glacier custard is on the menu", kind="fact").memory.id
    for i in range(PHRASE.ceiling + 2):
        cairn.remember(f"note {i}: two glacier custards", kind="fact")  # same FTS terms, other words
    explained = {c["id"]: c for c in cairn.explain("glacier custard")["candidates"]}
    assert explained[exact]["factors"]["phrase"]["frequency"] == 1
