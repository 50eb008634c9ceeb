"""Confidence never re-orders: a generated store recalled with confidence on and off gives
identical rankings, while the confidences themselves differ between records."""

from __future__ import annotations

import random

import pytest

from cairn import Cairn
from cairn.engine.recalling import Recalling

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
