"""A dormant answer ranked below a full packet of results cannot be packed: the join
(:func:`cairn.recall.pipeline.join_dormant`) then returns the recall as it was without
resolving and packing it again (:func:`cairn.recall.pipeline._packet_full`). Checked
against the join with that shortcut switched off, on the scale ladder's 1k store, where
the generated store's old records make a third of the questions join one."""

from __future__ import annotations

from cairn import Cairn
from cairn.bench import scale
from cairn.recall import pipeline


def _answers(ladder) -> list:
    path, queries = ladder
    with Cairn(path, now=scale.NOW) as cairn:
        return [(cairn.recall(q, trace=False, lane="claims").to_dict(), cairn.explain(q, lane="claims")) for q in queries]


def _counted(monkeypatch) -> dict[str, int]:
    """How often the shortcut was taken, and how often a join resolved and packed."""
    counts = {"full": 0, "packed": 0}
    full, packed, join = pipeline._packet_full, pipeline._resolve_and_pack, pipeline.join_dormant
    joining = [False]

    def packet_full(view, outcome, ranked, admitted):
        found = full(view, outcome, ranked, admitted)
        counts["full"] += found
        return found

    def resolve_and_pack(*args, **kwargs):
        counts["packed"] += joining[0]
        return packed(*args, **kwargs)

    def counted_join(view, outcome):
        joining[0] = True
        try:
            return join(view, outcome)
        finally:
            joining[0] = False

    monkeypatch.setattr(pipeline, "_packet_full", packet_full)
    monkeypatch.setattr(pipeline, "_resolve_and_pack", resolve_and_pack)
    monkeypatch.setattr("cairn.engine.recalling.join_dormant", counted_join)
    return counts


def test_a_full_packet_is_not_packed_again(ladder, monkeypatch):
    counts = _counted(monkeypatch)
    fast = _answers(ladder)
    shortcut = dict(counts)
    monkeypatch.setattr(pipeline, "_packet_full", lambda view, outcome, ranked, admitted: False)
    slow = _answers(ladder)
    assert fast == slow  # results, digests, notes and every number of explain
    assert shortcut["full"] >= 20  # the shortcut was taken (once per recall, once per explain) ...
    assert shortcut["packed"] >= 10  # ... and the joins it does not cover still packed: neither side is vacuous


def test_a_wrong_shortcut_is_seen(ladder, monkeypatch):
    """The negative control: a shortcut that takes every packet for full hides the
    dormant answers that do rank in, and the comparison above would say so."""
    right = _answers(ladder)
    monkeypatch.setattr(pipeline, "_packet_full", lambda view, outcome, ranked, admitted: True)
    assert _answers(ladder) != right


def test_a_joined_record_that_contradicts_a_result_is_placed_beside_it(tmp_path, monkeypatch):
    """A dormant answer below a full packet is still packed when it contradicts a
    result: resolution places it right after that result. The shortcut leaves such a
    record to the full join (it has a relation); taken anyway, it would hide it."""
    from datetime import timedelta

    from testkit import Clock

    now = scale.NOW
    clock = Clock(now - timedelta(days=400))
    with Cairn(tmp_path / "cairn.db", now=clock) as cairn:
        old = cairn.remember("The office front door is painted green", kind="fact").memory.id
        clock.at = now - timedelta(days=3)
        current = [cairn.remember(text, kind="fact").memory.id for text in (
            "The office front door is painted blue", "The office front door is painted blue, Ana chose it",
            "The office front door is painted blue since the spring")]
        cairn.relate(current[0], "contradicts", old)
        clock.at = now
        counts = _counted(monkeypatch)
        shown = cairn.recall("what colour is the office front door painted", lane="claims", trace=False)
        assert old in shown.ids and shown.results[shown.ids.index(old)].dormant
        assert counts["packed"] >= 1  # the full join ran
        monkeypatch.setattr(pipeline, "related", lambda view, space, record_id: False)
        hidden = cairn.recall("what colour is the office front door painted", lane="claims", trace=False)
        assert old not in hidden.ids  # the negative control: without the relation test the shortcut hides it
