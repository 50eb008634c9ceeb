"""What claims recall keeps between recalls gives what reading afresh gives: the store's
state memo is emptied by every commit that may change what was derived from it (this
connection's writes, another connection's, a change made outside Cairn's own writes),
and is kept across a traced recall, whose trace rows nothing kept is derived from; the
per-recall shortcuts (dormancy judged last, the plan looked up once, phrase spans
matched by hand, name-like words found once) equal the plain computation."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn import Cairn
from cairn.model import Kind, Layer, Memory, Status
from cairn.policy.aging import freshness
from cairn.policy.temporal import temporal_status
from cairn.recall import phrase, query
from cairn.recall.gates import exclusion
from cairn.recall.pipeline import Candidate, Request, exclude
from cairn.recall.rank import rank_factors
from cairn.recall.score import ListStats, lexical, scorer

QUESTIONS = ["which relay rotates the signing key", "glacier custard incident", "zeppelin hangar Berlin"]


def _seed(engine: Cairn) -> None:
    engine.remember("The relay rotates the signing key every 30 days", kind="fact")
    engine.remember("Glacier custard incident: the freezer failed at night", kind="fact")
    engine.remember("The zeppelin hangar moved to Berlin", kind="decision")


def _answer(engine: Cairn, question: str) -> tuple:
    got = engine.recall(question, trace=False, lane="claims")
    return got.ids, got.digest, got.note, engine.explain(question, lane="claims")


def _fresh(db_path, clock, question: str) -> tuple:
    """The same question from a new engine: a new connection, nothing kept."""
    with Cairn(db_path, now=clock) as other:
        return _answer(other, question)


# -- the state memo --------------------------------------------------------------------


def test_a_write_of_this_connection_empties_what_recall_kept(cairn, db_path, clock):
    _seed(cairn)
    before = {q: _answer(cairn, q) for q in QUESTIONS}  # fills the memo
    assert all(before[q][0] for q in QUESTIONS)
    new = cairn.remember("Relay signing key rotation moved to weekly", kind="fact").memory.id
    after = _answer(cairn, QUESTIONS[0])
    assert new in after[0] + [c["id"] for c in after[3]["candidates"]]
    assert after == _fresh(db_path, clock, QUESTIONS[0])


def test_a_write_of_another_connection_empties_what_recall_kept(cairn, db_path, clock):
    _seed(cairn)
    for q in QUESTIONS:
        _answer(cairn, q)
    with Cairn(db_path, now=clock) as other:
        new = other.remember("The glacier custard incident was caused by a relay", kind="fact").memory.id
    after = _answer(cairn, QUESTIONS[1])
    assert new in [c["id"] for c in after[3]["candidates"]]
    assert after == _fresh(db_path, clock, QUESTIONS[1])


def test_a_forgotten_record_is_not_served_from_what_was_kept(cairn, db_path, clock):
    _seed(cairn)
    first = _answer(cairn, QUESTIONS[2])[0][0]
    cairn.forget(first)
    after = _answer(cairn, QUESTIONS[2])
    assert first not in after[0]
    assert after == _fresh(db_path, clock, QUESTIONS[2])


def test_a_change_made_outside_cairns_writes_empties_the_memo(cairn):
    _seed(cairn)
    store = cairn.store
    with store.snapshot() as view:
        memo = view.state_memo()
        assert memo is not None
        memo["probe"] = 1
    store.conn.execute("UPDATE space_stats SET docs = docs WHERE space = ?", (cairn.space,))  # a row changed
    with store.snapshot() as view:
        assert "probe" not in view.state_memo()


def test_a_traced_recall_keeps_the_memo_and_a_record_write_does_not(cairn):
    _seed(cairn)
    cairn.recall(QUESTIONS[0], trace=False, lane="claims")
    with cairn.store.snapshot() as view:
        kept = view.state_memo()
    assert kept  # the recall kept what it derived
    traced = cairn.recall(QUESTIONS[1], lane="claims")
    assert traced.trace is not None
    with cairn.store.snapshot() as view:
        assert view.state_memo() is kept
    cairn.remember("A new fact about nothing in particular", kind="fact")
    with cairn.store.snapshot() as view:
        assert view.state_memo() is not kept


def test_the_version_is_read_on_the_snapshots_own_transaction(cairn, db_path, clock):
    """The check opens the snapshot: a commit landing right after it is neither seen by
    that snapshot's reads nor hidden from the next snapshot's check."""
    _seed(cairn)
    with cairn.store.snapshot() as view:
        memo = view.state_memo()
        assert memo is not None
        memo["probe"] = 1
        with Cairn(db_path, now=clock) as other:
            other.remember("A fact written while the snapshot is open", kind="fact")
        assert view.space_document_count(cairn.space) == 3  # the snapshot's data: what the memo was checked against
    with cairn.store.snapshot() as view:
        assert "probe" not in view.state_memo()
        assert view.space_document_count(cairn.space) == 4


def test_nothing_is_kept_outside_a_read_snapshot_or_inside_a_write(cairn):
    store = cairn.store
    assert store.state_memo() is None  # each statement its own snapshot: nothing to tie a value to
    with store.write() as tx:
        assert tx.state_memo() is None
    with store.snapshot() as view:
        assert view.state_memo() is not None


def test_load_ranked_from_the_memo_equals_a_fresh_read_and_still_counts_bad_rows(cairn, db_path, clock):
    from cairn.store.sqlite import backend

    ids = [cairn.remember(f"Relay note {n} for the cluster", kind="fact").memory.id for n in range(8)]
    conn = cairn.store.conn
    keys = {i: conn.execute("SELECT rowid FROM memories WHERE id = ?", (i,)).fetchone()[0] for i in ids}
    conn.execute("UPDATE memories SET data = '{not json' WHERE id = ?", (ids[3],))
    order = [keys[i] for i in reversed(ids)] + [999_999]
    with Cairn(db_path, now=clock) as plain:
        with plain.store.snapshot() as view:
            expected = [m.id for m in view.load_ranked(cairn.space, order, claims_only=True, limit=5)]
    assert ids[3] not in expected and len(expected) == 5
    for _ in range(2):  # the second round is served from the memo
        with cairn.store.snapshot() as view:
            skipped = backend.SKIPPED[0]
            got = [m.id for m in view.load_ranked(cairn.space, order, claims_only=True, limit=5)]
            assert got == expected
            assert backend.SKIPPED[0] == skipped + 1  # the malformed row is read, and counted, every time
            assert [m.id for m in view.load_ranked(cairn.space, order[2:], claims_only=True, limit=2)] == expected[2:4]


def test_kept_postings_are_those_the_index_holds_after_a_write(cairn):
    from cairn.recall import kept

    _seed(cairn)
    cairn.recall(QUESTIONS[0], trace=False, lane="claims")
    cairn.remember("relay relay relay", kind="fact")
    with cairn.store.snapshot() as view:
        table, _ = kept.weighed(view, "postings", 10)
        assert "relay" not in table  # emptied by the write: the next read sees the new posting


# -- per-recall shortcuts --------------------------------------------------------------

T = datetime(2026, 11, 1, tzinfo=UTC)


def _memory(i: int, **fields) -> Memory:
    return Memory(id=f"m{i}", space=fields.pop("space", "default"), origin="", kind=fields.pop("kind", Kind.FACT),
                  content=f"relay note {i}",
                  created_at=T - timedelta(days=400), updated_at=fields.pop("updated_at", T), **fields)


RECORDS = [
    _memory(0),
    _memory(1, updated_at=T - timedelta(days=200)),  # a dormant fact
    _memory(2, kind=Kind.PROJECT_STATE, updated_at=T - timedelta(days=8)),  # a dormant project state
    _memory(3, status=Status.FORGOTTEN, updated_at=T - timedelta(days=200)),  # forgotten and dormant
    _memory(4, status=Status.RETIRED),
    _memory(5, valid_from=T + timedelta(days=3)),  # not yet valid
    _memory(6, valid_to=T - timedelta(days=3), updated_at=T - timedelta(days=300)),  # past state, dormant
    _memory(7, layer=Layer.PINNED, updated_at=T - timedelta(days=900)),  # pinned: never dormant
    _memory(8, space="other"),
    _memory(9, status=Status.CONFLICTED),
]


def _plain_exclude(memory: Memory, request: Request):
    """The exclusion as written before the shortcut: freshness for every record."""
    temporal = temporal_status(memory, now=request.now, as_of=request.as_of, include_future=request.include_history)
    return exclusion(memory, space=request.space, dormant=freshness(memory, request.now).dormant,
                     include_dormant=request.include_dormant or (request.as_of is not None and request.as_of < request.now),
                     temporal=temporal.exclusion, include_retired=request.include_retired), temporal.markers


@pytest.mark.parametrize("options", [{}, {"include_dormant": True}, {"as_of": T - timedelta(days=30)},
                                     {"include_history": True}, {"include_retired": True}])
def test_exclusion_with_dormancy_judged_last_equals_the_plain_rule(options):
    request = Request("relay", "default", T, **options)
    found = [Candidate(m.id, "claims", m) for m in RECORDS]
    exclude(found, request)
    assert [(c.reason, c.markers) for c in found] == [_plain_exclude(m, request) for m in RECORDS]
    for c in found:  # ranking reuses the freshness exclusion computed: the same factors
        if c.fresh is not None and c.memory is not None:
            assert rank_factors(c.memory, 1.5, T, fresh=c.fresh) == rank_factors(c.memory, 1.5, T)


def test_a_scorer_gives_what_lexical_gives():
    corpus = [_memory(i) for i in range(6)] + [
        Memory(id="z", space="default", origin="zeppelin", kind=Kind.FACT, content="the zeppelin hangar moved",
               created_at=T, updated_at=T, aliases=("airship", "hangar crew"))]
    stats = ListStats(corpus)
    for text in ("zeppelin hangar", "relay note 3", "airship crew relay"):
        q = query.parse_query(text)
        score = scorer(q, stats)
        for record in corpus:
            assert score(record) == lexical(q, record, ListStats(corpus))


_ALPHABET = st.sampled_from(["ab", "abc", "b", "x", " ", "  ", "\u00a0", "\u2003", "-", "_", "1", "é", "\n", ".", "'"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_ALPHABET, max_size=14), st.lists(st.sampled_from(["ab", "abc", "b", "x", "é", "1"]), min_size=2,
                                                  max_size=3))
def test_spans_matched_by_hand_equal_the_pattern(pieces, span):
    text = "".join(pieces)
    pattern = phrase._span_re(tuple(span))
    assert phrase.holds([text], tuple(span)) == bool(pattern.search(text)), (text, span)


@pytest.mark.parametrize("text, span, found", [
    ("glacier custard incident", ("glacier", "custard"), True),
    ("glacier-custard incident", ("glacier", "custard"), False),
    ("the glacier  custard", ("glacier", "custard"), True),
    ("glaciers custard", ("glacier", "custard"), False),
    ("x glacier custard_y", ("glacier", "custard"), False),
    ("glacier custard glacier custards", ("glacier", "custard"), True),
    ("glaciercustard", ("glacier", "custard"), False),
    ("pre-glacier custard", ("glacier", "custard"), False),
    ("glacier custard-like", ("glacier", "custard"), False),
    ("glacier custard_x", ("glacier", "custard"), False),
    ("1glacier custard", ("glacier", "custard"), False),
    ("(glacier\u00a0custard)", ("glacier", "custard"), True),
])
def test_hand_matched_spans_keep_the_word_rules(text, span, found):
    assert phrase.holds([text], span) is found
    assert bool(phrase._span_re(span).search(text)) is found


def _plain_name_like(text: str) -> set[str]:
    import unicodedata

    from cairn.text import tokenize

    out: set[str] = set()
    for word in re.findall(r"[^\W_]+", unicodedata.normalize("NFKC", text)):
        if query._MEASURE_RE.match(word):
            continue  # a number with a unit ("9am") is no name
        if any(c.isupper() for c in word[1:]) or (any(c.isdigit() for c in word) and any(c.isalpha() for c in word)):
            out.update(t.term for t in tokenize(word))
    return out


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aZé1ǅ _-ßŞ٣x")), max_size=24))
def test_name_like_words_are_the_plain_rules(text):
    assert query._name_like(text) == _plain_name_like(text)


def test_kept_tables_stay_bounded_however_many_spaces_are_read(cairn):
    from cairn.recall import kept

    with cairn.store.snapshot() as view:
        for n in range(kept.TABLES * 2):
            kept.table(view, ("df", f"space-{n}"), 4)["term"] = n
        assert len(view.state_memo()) <= kept.TABLES
        full = kept.table(view, "full", 2)
        full.update(a=1, b=2)
        assert kept.table(view, "full", 2) == {}  # a full table is dropped, not grown
