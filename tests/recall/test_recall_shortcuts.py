"""The shortcuts of the claims recall path give exactly what the plain computation gives:
per-recall memos never hand one query's (or profile's) numbers to another, and whatever
is kept per process is keyed by content, so a changed record is never read stale."""

from __future__ import annotations

import gc
import random
from dataclasses import replace
from datetime import UTC, datetime
from typing import cast

from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.model import Kind, Memory, Status
from cairn.recall import candidates
from cairn.recall.candidates import IndexStats, fetch
from cairn.recall.query import parse_query
from cairn.recall.score import SCORE, ListStats, lexical
from cairn.store import ReadView

T = datetime(2026, 11, 1, tzinfo=UTC)


def m(i: str, content: str, aliases: tuple[str, ...] = (), origin: str = "") -> Memory:
    return Memory(id=i, space="default", origin=origin, kind=Kind.FACT, content=content, created_at=T, updated_at=T,
                  aliases=aliases)


CORPUS = [m(f"f{i}", f"unrelated note number {i} about lunch and coffee") for i in range(20)] + [
    m("a", "the zeppelin hangar moved to Berlin in 2024", aliases=("airship",)),
    m("b", "coffee beans for the hangar crew", origin="zeppelin"),
    m("c", "lunch", aliases=("zeppelin hangar", "zeppelin")),
]


def test_one_stats_object_scores_each_query_as_a_fresh_one_would():
    shared = ListStats(CORPUS)
    for text in ("zeppelin hangar", "coffee lunch 2024", "airship", "zeppelin hangar"):
        query = parse_query(text)
        for record in CORPUS[-3:]:
            assert lexical(query, record, shared) == lexical(query, record, ListStats(CORPUS))


def test_a_query_that_reuses_a_freed_id_gets_its_own_weights():
    shared = ListStats(CORPUS)
    target = CORPUS[-3]
    for text in ("zeppelin", "coffee hangar", "berlin airship", "lunch coffee"):
        query = parse_query(text)
        got = lexical(query, target, shared)
        assert got == lexical(query, target, ListStats(CORPUS)), text
        del query
        gc.collect()  # the next query may be allocated at the freed address


def test_another_profile_on_the_same_stats_is_not_served_the_first_ones_weights():
    shared = ListStats(CORPUS)
    query = parse_query("zeppelin hangar")
    target = CORPUS[-3]
    plain = lexical(query, target, shared)
    heavier = replace(SCORE, k1=2.0)
    assert lexical(query, target, shared, heavier) == lexical(query, target, ListStats(CORPUS), heavier) != plain


# -- candidate order: the stable sort equals the heap of the plain computation ----------


class _Postings:
    """A read view holding crafted postings; records what ``load_ranked`` is asked for."""

    def __init__(self, postings: dict[str, list[int]], docs: int) -> None:
        self.postings, self.docs = postings, docs
        self.asked: list[list[int]] = []

    def space_document_frequencies(self, space, terms):
        return {t: len(self.postings.get(t, [])) for t in terms}

    def space_document_count(self, space):
        return self.docs

    def term_postings(self, term, limit):
        return self.postings.get(term, [])[:limit]

    def terms_postings(self, terms, limit):
        return {term: self.term_postings(term, limit) for term in terms}

    def load_ranked(self, space, keys, *, claims_only, limit, skip_retired=False):
        self.asked.append(list(keys))
        return []  # nothing loads: fetch reads on down the whole order


def _plain_order(query, view, stats):
    """The order as first written: one update per posting, then heapq.nlargest."""
    import heapq

    from cairn.recall.score import feature_df, idf

    overlap: dict = {}
    for feature in query.features:
        keys: dict = {}
        for term in (feature.term, *feature.variants):
            keys.update(dict.fromkeys(view.term_postings(term, candidates.SCAN_PER_TERM + 1)[: candidates.SCAN_PER_TERM]))
        weight = idf(feature_df(feature, stats), stats.docs) * feature.weight
        for key in keys:
            overlap[key] = overlap.get(key, 0.0) + weight
    head = heapq.nlargest(candidates.POOL * 4, overlap, key=overlap.__getitem__)
    seen = set(head)
    return head, [r for r in sorted(overlap, key=overlap.__getitem__, reverse=True) if r not in seen]


def test_candidate_order_equals_the_plain_computation_with_ties_and_variants():
    rng = random.Random(5)
    for _ in range(40):
        universe = rng.sample(range(1, 5000), 900)
        # Equal document frequencies give equal weights: many exact ties across features.
        sizes = [rng.choice((60, 60, 150, 400, 700)) for _ in range(4)]
        postings = {t: sorted(rng.sample(universe, n), reverse=True) for t, n in zip(("alpha", "beta", "gamma", "delta"),
                                                                                       sizes, strict=True)}
        postings["gammas"] = sorted(rng.sample(universe, 80), reverse=True)  # a variant sharing records
        query = parse_query("alpha beta gamma delta")
        query = replace(query, features=tuple(replace(f, variants=("gammas",)) if f.term == "gamma" else f
                                              for f in query.features))
        view = _Postings(postings, docs=5000)
        read = cast(ReadView, view)
        fetch(read, "default", query, IndexStats(read, "default"), claims=True)
        head, rest = _plain_order(query, view, IndexStats(read, "default"))
        assert view.asked == [head, rest]


# -- variants: every frequency expand() asks about is read beforehand in one go ---------


class _Vocabulary:
    def __init__(self, held: dict[str, int]) -> None:
        self.held = held
        self.asked: list[str] = []

    def df(self, term: str) -> int:
        self.asked.append(term)
        return self.held.get(term, 0)

    def extensions(self, prefix: str, limit: int) -> list[str]:
        return sorted(t for t in self.held if t.startswith(prefix) and t != prefix)[:limit]


def test_lookups_name_every_frequency_expand_asks_about():
    from cairn.recall.variants import expand, lookups
    from cairn.text import stem

    held = {stem(w): 3 for w in ("postgres", "postgresql", "database", "login", "deploy", "deployment", "linter",
                                  "setup", "approval", "formatter", "mongo")}
    for text in ("postgresql db migration", "how do I log in to the deployments", "lint the parser output",
                 "set up approvals for formatting", "mongodb \"exact phrase\" 2024 数据库", "db prod env config repo"):
        query = parse_query(text)
        vocabulary = _Vocabulary(held)
        expand(query, vocabulary)
        assert set(vocabulary.asked) <= set(lookups(query)), text


# -- phrase bonus: the per-word precheck never hides a span -------------------------------


def test_phrase_precheck_finds_spans_in_aliases_and_keeps_the_longest():
    from cairn.recall.phrase import phrase_hits

    query = parse_query("glacier custard incident review")
    records = [
        m("alias", "postmortem notes", aliases=("the Glacier Custard Incident",)),  # only in an alias
        m("short", "glacier custard stock is low; incident review on Monday"),  # two spans, not the long one
        m("apart", "custard near the glacier, an incident"),  # words present, no span in order
        m("none", "nothing here"),
    ]
    hits = phrase_hits(query, records, lambda span: 1)
    assert hits["alias"].span == "glacier custard incident"
    assert hits["short"].span in ("glacier custard", "incident review") and hits["short"].words == 2
    assert "apart" not in hits and "none" not in hits


# -- resolution: records handed over are used only as the view holds them ----------------


def test_resolution_with_records_handed_over_equals_resolution_that_reads_them(tmp_path):
    from datetime import timedelta

    from cairn import Cairn
    from cairn.recall.resolve import resolve
    from testkit import Clock

    clock = Clock()
    with Cairn(tmp_path / "c.db", now=clock) as cairn:
        old = cairn.remember("The relay rotates keys every 30 days", kind="fact").memory.id
        clock.at += timedelta(hours=1)
        new = cairn.remember("The relay rotates keys every 14 days", kind="fact").memory.id
        cairn.relate(new, "corrects", old)
        rival = cairn.remember("The relay never rotates its keys", kind="fact").memory.id
        cairn.relate(rival, "contradicts", new)
        ids = [old, rival]
        records = cairn.store.get_memories(cairn.space, [old, new, rival])
        plain = resolve(cairn.store, cairn.space, ids, include_history=False, now=clock.at)
        assert resolve(cairn.store, cairn.space, ids, include_history=False, now=clock.at, read=records) == plain
        # Handed-over records are used (a withdrawn correction corrects nothing) ...
        withdrawn = {new: replace(records[new], status=Status.FORGOTTEN)}
        assert resolve(cairn.store, cairn.space, ids, include_history=False, now=clock.at, read=withdrawn) != plain
        # ... except under known_at, where the records as they stood then decide.
        later = clock.at + timedelta(minutes=1)
        then = resolve(cairn.store, cairn.space, ids, include_history=False, now=later, known_at=later)
        assert resolve(cairn.store, cairn.space, ids, include_history=False, now=later, known_at=later,
                       read=withdrawn) == then == plain
        # A record of another space is never taken for this space's.
        foreign = {new: replace(records[new], space="elsewhere", status=Status.FORGOTTEN)}
        assert resolve(cairn.store, cairn.space, ids, include_history=False, now=clock.at, read=foreign) == plain


# -- field terms: read from the index form, the same terms as the tokeniser's ----------


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=80) | st.lists(st.sampled_from(["Postgres", "naïve", "数据库端口", "v2.1", "e-mail", "x\u3000y",
                                                          "ǅemal", "İstanbul", "ﬁle", "\u2028", "don't", "5432"]),
                                         max_size=8).map(" ".join))
def test_field_terms_are_the_tokenisers_terms(text):
    from cairn.recall.score import field_terms
    from cairn.text import tokenize

    assert field_terms(text) == [t.term for t in tokenize(text)]


# -- phrase frequency: a short first read counts what the whole scan counts --------------


class _Phrases:
    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.limits: list[int] = []

    def phrase_texts(self, space, words, limit):
        self.limits.append(limit)
        return [(t, []) for t in self.texts[:limit]]


def _full_count(texts: list[str], span, ceiling: int = 3) -> int:
    from cairn.recall.phrase import holds
    from cairn.text import normalize

    n = 0
    for t in texts[: candidates.PHRASE_SCAN]:
        if holds([normalize(t)], span):
            n += 1
            if n > ceiling:
                break
    return n


def test_phrase_frequency_from_a_short_first_read_equals_the_whole_scan():
    span = ("signing", "key")
    hit, miss = "rotate the signing key", "the key for signing"  # the store's superset: words, not the phrase
    rng = random.Random(3)
    for _ in range(200):
        texts = [rng.choice((hit, miss)) for _ in range(rng.randint(0, 70))]
        view = _Phrases(texts)
        assert candidates.index_frequency(cast(ReadView, view), "default")(span) == _full_count(texts, span), texts
    view = _Phrases([hit] * 10)
    assert candidates.index_frequency(cast(ReadView, view), "default")(span) == 4
    assert view.limits == [4]  # one short read sufficed
