"""Query parsing (docs/recall.md, stage 1): features, literals, named subject and attributes,
context-free detection, validation."""

from __future__ import annotations

import pytest

from cairn.errors import InvalidInput
from cairn.recall.query import LITERAL_WEIGHT, MAX_INPUT_CHARS, MAX_QUERY_CHARS, parse_query, validate_query


def test_unicode_is_normalised_and_casefolded():
    q = parse_query("ＳＱＬｉｔｅ Straße")
    assert q.terms == ("sqlit", "strass")  # one spelling: the silent e goes, ß and accents fold


def test_stopwords_never_become_features():
    q = parse_query("what is the timeout of the API")
    assert q.terms == ("timeout", "api")


def test_light_stemming_meets_inflections():
    assert parse_query("deployments tests").terms == ("deployment", "test")


def test_cjk_becomes_character_bigrams():
    assert parse_query("数据库").terms == ("数据", "据库")


def test_chinese_framing_is_not_a_feature():
    assert "多少" not in parse_query("超时 多少").terms


@pytest.mark.parametrize(
    ("query", "literal", "strict"),
    [
        ('the "glacier custard" note', "glacier custard", True),
        ("where is src/cairn/text.py", "src/cairn/text.py", True),
        ("timeout 30", "30", False),
        ("upgrade to 3.11", "3.11", False),
    ],
)
def test_literals_are_marked_and_quoted_or_path_literals_are_strict(query, literal, strict):
    q = parse_query(query)
    found = {lit.text: lit for lit in q.literals}
    assert literal in found
    assert found[literal].strict is strict


def test_apostrophes_quote_nothing():
    """"what's the plumber's phone number" holds two apostrophes, not a quoted string: read
    as a quote, "s the plumber" became a strict literal that every note lacked."""
    assert parse_query("what's the plumber's phone number").literals == ()
    assert parse_query("what's Mia's email address").literals == ()
    # Negative control: single quotes around words still quote them.
    assert [lit.text for lit in parse_query("where is the 'busy timeout' set").literals] == ["busy timeout"]


def test_literal_terms_weigh_more_than_words():
    q = parse_query("timeout 30")
    assert q.weight("30") == LITERAL_WEIGHT
    assert q.weight("timeout") == 1.0


def test_named_subject_and_attribute_of_a_short_query():
    q = parse_query("SQLite authentication")
    assert (q.subject, q.attributes, q.named_rule) == ("sqlit", ("authentication",), True)


def test_capitalised_name_is_the_subject_even_when_not_first():
    q = parse_query("authentication for PostgreSQL")
    assert q.subject == "postgresql" and q.attributes == ("authentication",)


def test_numbers_are_never_the_subject_nor_mandatory():
    q = parse_query("42 timeout sqlite")
    assert q.subject == "timeout" and q.attributes == ("sqlit",)
    assert "42" not in q.attributes


def test_a_longer_lowercase_query_has_no_named_subject():
    # "pick" is a verb, not a subject: without a written name only a bare pair counts
    assert not parse_query("what did we pick for field notes").named_rule
    assert parse_query("What did we pick for SQLite backups").subject == "sqlit"


def test_the_verb_after_an_auxiliary_and_a_person_is_phrasing_not_an_attribute():
    q = parse_query("how did we configure SQLite backups")
    assert (q.subject, q.attributes) == ("sqlit", ("backup",))
    assert "configur" in [f.term for f in q.features]  # still a feature: a record saying it scores more
    assert "pick" not in parse_query("what LoRA rank did we pick").attributes
    # The control: without "did we" the same verb is what is asked about, and stays mandatory.
    q = parse_query("configure SQLite backups")
    assert q.subject == "sqlit" and "configur" in q.attributes


def test_a_tracker_key_is_a_strict_literal_and_the_rest_is_not_mandatory():
    q = parse_query("what caused INC-2291")
    assert not q.named_rule  # "caused" need not be in the answer
    [key] = [lit for lit in q.literals if lit.strict]
    assert key.terms == ("inc", "2291")
    assert [lit.terms for lit in parse_query("what broke in #4821").literals if lit.strict] == [("4821",)]
    # Controls: a plain number and a name with digits are no tracker keys.
    assert not [lit for lit in parse_query("what caused 2291 errors").literals if lit.strict]
    assert parse_query("k8s authentication").named_rule


def test_generic_status_words_are_not_mandatory_attributes():
    q = parse_query("sqlite migration status")
    assert q.subject == "sqlit" and q.attributes == ("migration",)


@pytest.mark.parametrize(
    "query",
    [
        "sqlite",  # one feature: nothing to pair
        "sqlite status",  # only a generic attribute
        "SQLite PostgreSQL migration",  # two names: the subject is ambiguous
        "sqlite authentication timeout backup retries",  # five features: not a short query
        "port 5432",  # the only other feature is a number
    ],
)
def test_named_rule_does_not_apply(query):
    assert not parse_query(query).named_rule


@pytest.mark.parametrize("query", ["ok", "continue", "thanks", "OK, thanks!", "yes please", "go on", "好的 谢谢"])
def test_context_free_queries(query):
    assert parse_query(query).context_free


@pytest.mark.parametrize("query", ["ok docker", "continue the migration", "thanks for the sqlite tip"])
def test_queries_with_a_topic_are_not_context_free(query):
    assert not parse_query(query).context_free


def test_word_runs_break_at_punctuation():
    q = parse_query("glacier custard, incident report")
    assert q.runs == (("glacier", "custard"), ("incident", "report"))


@pytest.mark.parametrize("bad", ["", "   ", "\n\t", "x" * (MAX_INPUT_CHARS + 1), None, "a\x00b"])
def test_invalid_queries_are_refused(bad):
    with pytest.raises(InvalidInput):
        validate_query(bad)


def test_a_query_of_exactly_512_characters_is_accepted():
    assert validate_query("y" * MAX_QUERY_CHARS) == "y" * MAX_QUERY_CHARS
