"""Confidence never re-orders: a generated store recalled with confidence on and off gives
identical rankings, while the confidences themselves differ between records."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn import Cairn
from cairn.engine.recalling import Recalling
from testkit import Clock

WORDS = "billing deploy staging database port backup cache queue invoice search index report".split()
CERTAINTY = [None, "low", "medium", "high"]
BASIS = ["user_statement", "summary", "tool_observation"]


@pytest.mark.parametrize("seed", range(4))
def test_ranking_is_identical_with_confidence_on_or_off(tmp_path, clock, monkeypatch, seed):
    rng = random.Random(seed)
    with Cairn(tmp_path / "c.db", now=clock) as cairn:
        ids = []
        for i in range(40):
            words = rng.sample(WORDS, 4)
            rec = cairn.remember(f"The {' '.join(words)} setting number {i} is on", kind="fact",
                                 certainty=rng.choice(CERTAINTY), basis=rng.choice(BASIS)).memory
            ids.append(rec.id)
        for rid in rng.sample(ids, 10):  # low-confidence grounds on some records
            cairn.reinforce(rid, "explicit_correction")
            cairn.feedback(rid, "useful", f"s-{rid}")
        queries = [" ".join(rng.sample(WORDS, 2)) for _ in range(12)]
        on = [cairn.recall(q, limit=10, trace=False) for q in queries]
        monkeypatch.setattr(Recalling, "with_confidence", False)
        off = [cairn.recall(q, limit=10, trace=False) for q in queries]
    assert [r.ids for r in on] == [r.ids for r in off]
    levels = {c["level"] for r in on for c in (r.confidence or {}).values()}
    assert len(levels) >= 2  # control: confidence really varies over what was ranked
    assert all(r.confidence is None for r in off)


record = st.tuples(st.lists(st.sampled_from(WORDS), min_size=2, max_size=5, unique=True), st.sampled_from(CERTAINTY),
                   st.sampled_from(BASIS), st.sampled_from([None, "explicit_correction", "explicit_reinforcement",
                                                            "implicit_success", "useful", "incorrect"]))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(record, min_size=3, max_size=14),
       queries=st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3, unique=True), min_size=1, max_size=4))
def test_property_confidence_never_reorders(tmp_path_factory, records, queries):
    """Any store, any grounds (certainty, basis, reinforcement, verdicts), any query: the
    ranking with confidence attached is the ranking without it."""
    folder = tmp_path_factory.mktemp("prop")
    with Cairn(folder / "c.db", now=Clock()) as cairn:
        for i, (words, certainty, basis, signal) in enumerate(records):
            rec = cairn.remember(f"The {' '.join(words)} item {i} holds", kind="fact", certainty=certainty, basis=basis).memory
            if signal in ("useful", "incorrect"):
                cairn.feedback(rec.id, signal, f"s-{i}")
            elif signal:
                cairn.reinforce(rec.id, signal)
        texts = [" ".join(q) for q in queries]
        on = [cairn.recall(q, limit=10, trace=False) for q in texts]
        Recalling.with_confidence = False
        try:
            off = [cairn.recall(q, limit=10, trace=False) for q in texts]
        finally:
            Recalling.with_confidence = True
    assert [r.ids for r in on] == [r.ids for r in off]
    assert all(r.confidence is None for r in off)
