"""explain's document is capped at EXPLAIN_MAX_BYTES by keeping its size as candidates
are added (:func:`cairn.recall.explain.explain_doc`) rather than encoding the whole
document after each one. The documents are those of the plain rule: the same
candidates kept and the same count omitted, on the scale ladder's 1k store (most of its
questions reach the cap) and on a natural part in the default lane."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from cairn import Cairn
from cairn.bench import scale
from cairn.model import parse_time
from cairn.recall import explain
from cairn.recall.fusion import default_lane
from cairn.recall.pipeline import Request, run
from cairn.recall.rank import rank_factors
from testkit import Clock

PART = Path(__file__).parents[1] / "recall" / "natural" / "fresh11.json"


def plain(outcome):
    """The rule as first written: encode the whole document after each candidate."""
    def size(doc):
        return len(json.dumps(doc, ensure_ascii=False).encode("utf-8"))

    doc = {"query": explain.wire.explain_query(outcome.query.to_dict(), outcome.request),
           "selected": [r.id for r in outcome.results], "note": outcome.note, "scan": outcome.scan,
           "candidates": [], "omitted": 0}
    for candidate in explain._explain_order(outcome):
        shown = candidate.explain()
        if candidate.factors is None and candidate.memory is not None:
            shown["factors"].update(rank_factors(candidate.memory, candidate.raw, outcome.request.now).to_dict())
        doc["candidates"].append(shown)
        if size(doc) > explain.EXPLAIN_MAX_BYTES:
            doc["candidates"].pop()
            doc["omitted"] += 1
    while size(doc) > explain.EXPLAIN_MAX_BYTES and doc["candidates"]:  # the count grew a digit
        doc["candidates"].pop()
        doc["omitted"] += 1
    return doc


def _outcomes(cairn, questions, lane):
    with cairn.store.snapshot() as view:
        return [run(view, Request(query=q, space=cairn.space, now=cairn.now(), lane=lane)) for q in questions]


def test_the_kept_size_caps_as_the_plain_rule(ladder):
    path, questions = ladder
    with Cairn(path, now=scale.NOW) as cairn:
        outcomes = _outcomes(cairn, questions, "claims")
    docs = [(explain.explain_doc(o), plain(o)) for o in outcomes]
    assert all(kept == expected for kept, expected in docs)
    capped = [kept for kept, _ in docs if kept["omitted"]]
    assert len(capped) >= 50  # the cap was reached: the comparison is not vacuous
    assert all(len(json.dumps(d, ensure_ascii=False).encode()) <= explain.EXPLAIN_MAX_BYTES for d in capped)
    # near the cap: a document that one more candidate would have taken over it
    assert any(len(json.dumps(d, ensure_ascii=False).encode()) > explain.EXPLAIN_MAX_BYTES - 200 for d in capped)


def test_the_default_lane_too(tmp_path):
    data = json.loads(PART.read_text(encoding="utf-8"))
    now = parse_time(data["now"])
    clock = Clock(now)
    with Cairn(tmp_path / "cairn.db", now=clock) as cairn:
        for spec in data["stores"]["pipelines"]:
            clock.at = now - timedelta(days=spec["days_ago"])
            cairn.remember(spec["text"], kind=spec["kind"])
        clock.at = now
        questions = [case["q"] for case in data["questions"] + data["nothing"]]
        outcomes = _outcomes(cairn, questions, default_lane(cairn.store))
    assert all(explain.explain_doc(o) == plain(o) for o in outcomes)
    assert any(o.candidates for o in outcomes)
