"""A dormant answer ranked below a full packet of results cannot be packed: the join
(:func:`cairn.recall.pipeline.join_dormant`) then returns the recall as it was without
resolving and packing it again (:func:`cairn.recall.pipeline._packet_full`). Checked
against the join with that shortcut switched off, on the scale ladder's 1k store, where
the generated store's old records make a third of the questions join one."""

from __future__ import annotations

from itertools import chain, islice

import pytest

from cairn import Cairn
from cairn.bench import scale
from cairn.recall import pipeline


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    gen = scale.Generator(1000, 7)
    path = tmp_path_factory.mktemp("ladder") / "cairn.db"
    with Cairn(path, now=scale.NOW) as cairn:
        lines = gen.lines()
        while (first := next(lines, None)) is not None:
            cairn.import_(chain((first,), islice(lines, scale.BATCH - 1)))
    return path, [q for _, q in gen.needles] + gen.background_queries(scale.BACKGROUND_QUERIES)


def _answers(ladder) -> list:
    path, queries = ladder
    with Cairn(path, now=scale.NOW) as cairn:
        return [(cairn.recall(q, trace=False, lane="claims").to_dict(), cairn.explain(q, lane="claims")) for q in queries]


def _counted(monkeypatch) -> dict[str, int]:
    """How often the shortcut was taken, and how often a join resolved and packed."""
    counts = {"full": 0, "packed": 0}
    full, packed, join = pipeline._packet_full, pipeline._resolve_and_pack, pipeline.join_dormant
    joining = [False]

    def packet_full(outcome, ranked):
        found = full(outcome, ranked)
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
    monkeypatch.setattr(pipeline, "_packet_full", lambda outcome, ranked: False)
    slow = _answers(ladder)
    assert fast == slow  # results, digests, notes and every number of explain
    assert shortcut["full"] >= 20  # the shortcut was taken (once per recall, once per explain) ...
    assert shortcut["packed"] >= 10  # ... and the joins it does not cover still packed: neither side is vacuous


def test_a_wrong_shortcut_is_seen(ladder, monkeypatch):
    """The negative control: a shortcut that takes every packet for full hides the
    dormant answers that do rank in, and the comparison above would say so."""
    right = _answers(ladder)
    monkeypatch.setattr(pipeline, "_packet_full", lambda outcome, ranked: True)
    assert _answers(ladder) != right
