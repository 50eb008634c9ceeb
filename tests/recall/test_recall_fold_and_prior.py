"""The pieces behind natural questions, one rule at a time: the shared normalisation
(accents, inflections), the spelling variants the store's vocabulary confirms, and the
size-independent rarity prior of the coverage gate — each with its negative control."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cairn.model import Kind, Memory
from cairn.recall.query import parse_query
from cairn.recall.score import SCORE, ListStats, common_words, coverage_weight, lexical
from cairn.recall.variants import expand, variants
from cairn.text import normalize, stem, terms
from testkit import NOW


@pytest.mark.parametrize(
    "words",
    [
        ("cache", "caches", "caching", "cached"),
        ("use", "used", "uses", "using"),
        ("lint", "linting", "linted", "lints"),
        ("reply", "replies", "replied"),
        ("fly", "flies", "flying"),
        ("format", "formatted", "formatting"),
    ],
)
def test_inflections_share_one_term(words):
    assert len({stem(w) for w in words}) == 1, [stem(w) for w in words]


def test_distinct_words_stay_distinct():
    assert len({stem(w) for w in ("use", "user", "us", "cache", "catch", "form", "format")}) == 7


def test_accents_fold_on_latin_letters_only():
    assert normalize("München Café Größere Ἀθῆναι") == "munchen cafe grossere αθηναι"
    assert normalize("がぎ") == "がぎ"  # Japanese voicing marks carry meaning
    assert terms("Änderungen") == terms("anderungen")


class Vocab:
    def __init__(self, *terms_: str) -> None:
        self.terms = set(terms_)

    def df(self, term: str) -> int:
        return int(term in self.terms)

    def extensions(self, prefix: str, limit: int) -> list[str]:
        return sorted(t for t in self.terms if t.startswith(prefix) and t != prefix)[:limit]


@pytest.mark.parametrize(
    ("term", "vocab", "expected"),
    [
        ("postgr", {"postgresql"}, ()),  # the stem alone does not reach it ...
        ("postgresql", {"postgr"}, ("postgr",)),  # ... the stored word does, through its stem
        ("mongo", {"mongodb"}, ("mongodb",)),
        ("lint", {"linter"}, ("linter",)),
        ("linter", {"lint"}, ("lint",)),
        ("approv", {"approval"}, ("approval",)),
        ("db", {"databas"}, ("databas",)),
        ("form", {"format", "formation", "former"}, ()),  # a tail with a vowel is another word
        ("custom", {"customer"}, ()),  # -mer / -ner nouns are not agents
        ("port", {"portion", "portal"}, ()),
        ("insur", {"insuranc"}, ("insuranc",)),  # insure / insurance: -ance derives a noun ...
        ("insuranc", {"insur"}, ("insur",)),
        ("confer", {"conferenc"}, ()),  # ... but a conference is no conferring
        ("weekend", {"week"}, ()),  # "nd" ends a word: cut, it leaves the stem of another ...
        ("nodejs", {"node"}, ("node",)),  # ... "js" is an identifier's suffix
    ],
)
def test_variants_are_confirmed_by_the_vocabulary(term, vocab, expected):
    assert variants(term, Vocab(*vocab)) == expected


def test_the_word_as_typed_reaches_an_identifier_its_stem_cuts():
    query = expand(parse_query("are we on postgres"), Vocab("postgresql"))
    assert query.features[0].variants == ("postgresql",)
    assert expand(parse_query("are we on mysql"), Vocab("postgresql")).features[0].variants == ()


def test_the_common_word_table_is_small_and_in_index_form():
    table = common_words()
    assert 500 < len(table) < 2000
    assert all(word == normalize(word) and word.split() == [word] for word in table)  # index form: one folded term
    assert {stem(w) for w in ("want", "long", "use", "using", "way", "ways")} <= table
    assert "omar" not in table and "postgresql" not in table and stem("database") not in table


def memory(text: str) -> Memory:
    return Memory(id=text[:12], space="default", origin="", kind=Kind.PREFERENCE, content=text, created_at=NOW, updated_at=NOW)


def test_coverage_weight_does_not_depend_on_the_store_size_for_rare_words():
    feature = parse_query("postgresql").features[0]
    weights = {coverage_weight(feature, df, docs) for df in (0, 1) for docs in (1, 2, 100, 1_000_000)}
    assert weights == {1.0}
    common = parse_query("want").features[0]
    assert coverage_weight(common, 0, 2) == SCORE.common_weight
    # a term every record holds still weighs something in a two-record store, little in a large one
    assert coverage_weight(feature, 2, 2) > 0.7 and coverage_weight(feature, 500_000, 1_000_000) < 0.1


def test_the_two_record_store_covers_the_question_only_with_the_prior():
    records = [memory("Omar likes his eggs scrambled"), memory("Omar switched to poached eggs")]
    stats = ListStats(records)
    query = parse_query("how does Omar want his eggs cooked")
    assert lexical(query, records[0], stats).coverage >= 0.4
    # The policy broken: the store's own counts alone (no prior, no pseudo-records) let
    # the words no record holds take the coverage mass, and the answer is rejected.
    broken = replace(SCORE, common_weight=1.0, prior_docs=0)
    assert lexical(query, records[0], stats, broken).coverage < 0.4


def test_an_unrelated_question_stays_below_coverage_in_a_tiny_store():
    records = [memory("Omar likes his eggs scrambled")]
    stats = ListStats(records)
    assert lexical(parse_query("Omar's flight to Berlin next week"), records[0], stats).coverage < 0.4


@pytest.mark.parametrize(
    ("term", "longer"),
    [("product", "production"), ("quest", "question"), ("depart", "department"), ("process", "procession")],
)
def test_look_alikes_are_not_derived_nouns(term, longer):
    assert variants(stem(term), Vocab(stem(longer))) == ()
    assert variants(stem(longer), Vocab(stem(term))) == ()
    # control: the same shape from a real verb still meets its noun
    assert variants(stem("connect"), Vocab(stem("connection"))) == (stem("connection"),)


@pytest.mark.parametrize("seed", range(3))
def test_the_indexed_terms_are_the_match_terms_whatever_the_script(seed):
    """``index_text`` (the store's index, with a shortcut for ASCII texts) and ``terms``
    (every query and every score) must agree, or a stored word could never be found."""
    import random
    import string

    from cairn.text import index_text

    rng = random.Random(seed)
    alphabet = string.printable + "éüßÅ中文字数据库_—’"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))) for _ in range(4000)]
    texts += ["snake_case_name and CamelCase v1.2.3", "Café MÜNCHEN 数据库 port", "ｆｕｌｌｗｉｄｔｈ ＡＢＣ"]
    for text in texts:
        assert index_text(text) == " ".join(terms(text)), text
    assert index_text("caching deploys") == "cach deploy"  # control: terms are stemmed, not copied
