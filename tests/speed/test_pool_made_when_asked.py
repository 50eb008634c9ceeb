"""A search hands the packer more candidates than it returns (the episode lane's pool of 48
turns for 10 results). Their rank factors and their pack items are made when something
reads them: the packer, for the items it reaches with room to emit; explain, a trace or a
caller, for the rest (recall/pipeline.py ``Candidate.rank_later``, recall/pack.py
``Pending``). Each test holds the deferred way to the way that makes everything at once,
with a control that the deferred way did defer."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from cairn import Cairn
from cairn.recall import pipeline
from cairn.recall.explain import explain_doc
from cairn.recall.gates import Reason, below_cutoff, relevance_gate
from cairn.recall.pack import HISTORICAL, PACK, PackItem, Pending, pack
from cairn.recall.pipeline import Candidate
from cairn.recall.query import parse_query
from cairn.recall.rank import rank_factors
from cairn.recall.resolve import Resolved
from cairn.recall.traces import trace_doc
from testkit import timeless

TALK = [
    "What should we plant by the greenhouse?",
    "The quince tree, it likes the south wall",
    "I pruned the medlar yesterday",
    "Did you water the garden beds?",
    "Yes, the beds by the greenhouse got water on Friday",
    "The quince tree needs pruning in winter",
    "Ana planted garlic by the quince tree in October",
    "The medlar and the quince share the south wall of the garden",
] * 8
QUESTIONS = ["what did Ana say about the quince tree", "who pruned the medlar", "the greenhouse beds",
             "when did Ben water the garden", "the south wall"]
NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def _lines() -> list[str]:
    return [json.dumps({"id": f"t{n}", "speaker": ("Ana", "Ben")[n % 2], "text": text,
                        "time": f"2026-{1 + n // 16:02d}-{1 + n % 28:02d}T10:{n % 60:02d}:00Z"})
            for n, text in enumerate(TALK)]


def _item(i: str, content: str = "a turn of the conversation", markers=(), superseded_by=None) -> PackItem:
    return PackItem(i, content, ("episode", "active", *markers), tuple(markers), superseded_by)


def _pending(item: PackItem, made: list[str]) -> Pending:
    def make() -> PackItem:
        made.append(item.id)
        return item

    return Pending(item.id, item.markers, item.superseded_by, make)


LISTS = [
    [_item(f"m{i}") for i in range(12)],
    [_item("a"), _item("a"), _item("b"), _item("a"), _item("c"), _item("d"), _item("b")],
    [_item("new"), _item("old", markers=(HISTORICAL,), superseded_by="new"), _item("x"), _item("y"),
     _item("old2", markers=(HISTORICAL,), superseded_by="y"), _item("z"),
     _item("last", markers=(HISTORICAL,), superseded_by="z")],
    [_item("long", "w" * 2000), _item("short", "s"), _item("long2", "v" * 900), _item("s2", "t"), _item("s3", "u")],
    [_item("other"), _item("old", markers=(HISTORICAL,), superseded_by="gone")] + [_item(f"n{i}") for i in range(5)],
]


def test_pending_items_pack_as_made_items():
    for items in LISTS:
        for limit in (1, 2, 3, 10):
            for budget in (PACK.min_budget, 600, PACK.budget):
                made: list[str] = []
                lazy = pack([_pending(i, made) for i in items], limit=limit, budget=budget)
                assert lazy == pack(items, limit=limit, budget=budget), (limit, budget, [i.id for i in items])
                # Only an item reached with room to emit it is made: no more than were
                # tried before the limit (emitted, shortened or left out over budget).
                over = sum(1 for _, reason in lazy.rejected if reason is Reason.OVER_BUDGET)
                assert len(made) == len(lazy.emitted) + over


def test_the_items_past_the_limit_are_not_made():
    made: list[str] = []
    items = [_item(f"m{i}") for i in range(12)]
    packed = pack([_pending(i, made) for i in items], limit=3)
    assert made == ["m0", "m1", "m2"]
    assert packed.rejected == [(f"m{i}", Reason.RANK_CUT) for i in range(3, 12)]
    # Control: given made items, the same packet.
    assert packed == pack(items, limit=3)


def test_factors_owed_are_those_made_at_once(cairn):
    cairn.ingest(_lines(), origin="chat", progress=False)
    memory = cairn.search("quince", lane="episodes", trace=False).results[0].memory
    c = Candidate(memory.id, "episodes", memory, raw=0.5)
    c.rank_later(NOW)
    assert c._owed is not None  # not made yet
    c.raw = 0.9  # a later change of relevance does not reach factors owed at 0.5 ...
    assert c.factors == rank_factors(memory, 0.5, NOW)
    assert c._owed is None
    made = c.factors
    c.rank_later(NOW)  # ... unless they are owed again: at 0.9 now
    assert c.factors == rank_factors(memory, 0.9, NOW) != made
    again = c.factors
    c.rank_later(NOW)  # at the relevance they were made at: kept, not owed again
    assert c._owed is None and c.factors is again
    c.factors = None  # set: nothing owed
    assert c.factors is None


def _asked(cairn: Cairn) -> list:
    """What a caller can ask of each question's search and recall: results, digest,
    explain, every candidate's own numbers and the trace."""
    out: list = []
    for q in QUESTIONS:
        for found in (cairn.search(q, lane="episodes", limit=3, trace=False),
                      cairn.recall(q, lane="episodes", limit=2, budget=300, trace=False),
                      cairn.recall(q, trace=False)):
            outcome = found.outcome
            # With the semantic extra a plain recall's turns come from a fusion, whose notes
            # time its search: the two ways differ only there.
            out.append((found.to_dict(), [c.explain() for c in outcome.candidates], timeless(explain_doc(outcome)),
                        timeless(trace_doc(outcome, "0" * 24, NOW))))
        out.append(cairn.explain(q, lane="episodes", limit=3))
    return out


def test_a_search_answers_and_explains_as_with_everything_made_at_once(cairn, monkeypatch):
    cairn.ingest(_lines(), origin="chat", progress=False)
    lazy = _asked(cairn)
    owing = Candidate.rank_later

    def at_once(self: Candidate, now: datetime) -> None:
        owing(self, now)
        assert self.factors is not None  # made here

    reporting = pipeline._report_gates

    def judged_at_once(live, query, request) -> None:
        reporting(live, query, request)
        assert all(c._report is not None for c in live)  # owed ...
        if live:
            _ = live[-1].gate
        assert all(c._report is None for c in live)  # ... and all judged with the first read

    with monkeypatch.context() as m:  # the way before: every verdict, factor and pack item made where it is due
        m.setattr(Candidate, "rank_later", at_once)
        m.setattr(pipeline, "_report_gates", judged_at_once)
        m.setattr(pipeline, "_pending", pipeline._pack_item)
        eager = _asked(cairn)
    assert lazy == eager
    assert all(doc["results"] for doc, *_ in eager[:3])  # control: the questions find turns


def test_a_search_makes_the_factors_of_what_it_packs_only(cairn, monkeypatch):
    cairn.ingest(_lines(), origin="chat", progress=False)
    made: list[str] = []
    real = pipeline.rank_factors

    def counted(memory, *args, **kwargs):
        made.append(memory.id)
        return real(memory, *args, **kwargs)

    monkeypatch.setattr(pipeline, "rank_factors", counted)
    found = cairn.search("the quince tree by the south wall", lane="episodes", limit=3, trace=False)
    pool = [c for c in found.outcome.candidates if c.reason is None or c.reason is Reason.RANK_CUT]
    assert len(found.results) == 3 and len(pool) > 10
    assert sorted(made) == sorted(r.id for r in found.results)
    # Control: what was not made is owed, and made when read (by explain, say).
    owed = [c for c in found.outcome.candidates if c._owed is not None]
    assert owed and {c.id for c in owed}.isdisjoint(made)
    explain_doc(found.outcome)
    assert all(c._owed is None for c in owed) and len(made) > 3


def test_a_pending_item_carries_the_markers_its_reason_reads(cairn):
    cairn.ingest(_lines(), origin="chat", progress=False)
    memory = cairn.search("quince", lane="episodes", trace=False).results[0].memory
    for markers in ((), (HISTORICAL,), ("corrected", HISTORICAL), ("aging",)):
        c = Candidate(memory.id, "episodes", memory, raw=0.5)
        c.rank_later(NOW)
        r = Resolved(memory.id, markers, superseded_by="s1" if markers else None)
        made = pipeline._pack_item(r, c, memory)
        pending = pipeline._pending(r, c, memory)
        assert (HISTORICAL in pending.markers) == (HISTORICAL in made.markers) == (HISTORICAL in markers)
        assert (pending.id, pending.superseded_by) == (made.id, made.superseded_by) and pending.make() == made


def _eager_gates(live: list[Candidate], query) -> dict:
    """The reported verdicts as they were made before: every one at once."""
    verdict = {}
    for c in live:
        assert c.memory is not None and c.lexical is not None
        verdict[c.id] = relevance_gate(query, c.memory, c.lexical, anchored=pipeline._anchored(c))
    low = below_cutoff({c.id: c.raw for c in live
                        if verdict[c.id] is None or pipeline._about_another(c, query, verdict[c.id])})
    return {c.id: Reason.BELOW_CUTOFF if c.id in low else verdict[c.id] for c in live}


def test_a_search_judges_no_reported_gate_until_one_is_read(cairn, monkeypatch):
    cairn.ingest(_lines(), origin="chat", progress=False)
    judged: list[str] = []
    real = pipeline.relevance_gate

    def counted(query, memory, *args, **kwargs):
        judged.append(memory.id)
        return real(query, memory, *args, **kwargs)

    monkeypatch.setattr(pipeline, "relevance_gate", counted)
    question = "what did Ana say about the quince tree"
    found = cairn.search(question, lane="episodes", limit=3, trace=True)
    assert found.results and judged == []
    live = [c for c in found.outcome.candidates if c._report is not None]
    assert len(live) > 10
    expected = _eager_gates(live, parse_query(question))
    assert [c.gate for c in live] == [expected[c.id] for c in live]  # read: the whole pool judged, as before
    assert sorted(judged) == sorted(c.id for c in live)
    assert set(expected.values()) - {None}  # control: some verdicts are not a pass


def test_reported_gates_take_the_relevance_of_their_report(cairn):
    cairn.ingest(_lines(), origin="chat", progress=False)
    question = "the quince tree by the south wall"
    found = cairn.search(question, lane="episodes", limit=3, trace=False)
    live = [c for c in found.outcome.candidates if c._report is not None]
    query = parse_query(question)
    expected = _eager_gates(live, query)
    best = max(live, key=lambda c: c.raw)
    best.raw *= 10  # after the report: the cutoff was due before
    assert {c.id: c.gate for c in live} == expected
    # Control: judged at the new relevance, the cutoff would leave others out.
    assert _eager_gates(live, query) != expected
    # A verdict set over a report replaces that one candidate's only.
    again = [c for c in cairn.search(question, lane="episodes", limit=3, trace=False).outcome.candidates
             if c._report is not None]
    again[0].gate = Reason.NO_MATCH
    assert [c.gate for c in again] == [Reason.NO_MATCH] + [expected[c.id] for c in again[1:]]
