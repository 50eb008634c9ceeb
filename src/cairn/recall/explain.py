"""Readers' views of a recall :class:`~cairn.recall.pipeline.Outcome`.

* :func:`explain_doc` — every candidate with its raw relevance, each factor, its
  rankScore and its reason (closed set), plus the parsed query. No memory bodies, and the
  serialised document is capped at 8 KB (DESIGN §5, seed 000): candidates that do not fit
  are counted in ``omitted``, selected ones first so the cap never hides a result.
* :func:`recall_doc` — the JSON form of a recall (DESIGN §11).
"""

from __future__ import annotations

import json

from ..model import format_time
from .gates import Reason
from .pipeline import Candidate, Outcome, ResultItem

EXPLAIN_MAX_BYTES = 8192


def _size(doc: dict) -> int:
    return len(json.dumps(doc, ensure_ascii=False).encode("utf-8"))


def explain_doc(outcome: Outcome) -> dict:
    request = outcome.request
    doc = {
        "query": {
            **outcome.query.to_dict(),
            "lane": request.lane,
            "limit": request.limit,
            "budget": request.budget,
            "include_dormant": request.include_dormant,
            "as_of": None if request.as_of is None else format_time(request.as_of),
            "known_at": None if request.known_at is None else format_time(request.known_at),
        },
        "selected": [r.id for r in outcome.results],
        "note": outcome.note,
        "scan": outcome.scan,
        "candidates": [],
        "omitted": 0,
    }
    for candidate in _explain_order(outcome):
        entry = candidate.explain()
        doc["candidates"].append(entry)
        if _size(doc) > EXPLAIN_MAX_BYTES:
            doc["candidates"].pop()
            doc["omitted"] += 1
    while _size(doc) > EXPLAIN_MAX_BYTES and doc["candidates"]:  # defensive: never exceed
        doc["candidates"].pop()
        doc["omitted"] += 1
    return doc


def _explain_order(outcome: Outcome) -> list[Candidate]:
    """Selected first (in digest order), then the rest by raw relevance."""
    order = {r.id: i for i, r in enumerate(outcome.results)}
    selected = sorted((c for c in outcome.candidates if c.id in order and c.reason is None), key=lambda c: order[c.id])
    rest = sorted((c for c in outcome.candidates if not (c.id in order and c.reason is None)), key=lambda c: (-c.raw, c.id))
    return selected + rest


def result_dict(item: ResultItem) -> dict:
    m = item.memory
    doc = {
        "id": item.id,
        "kind": m.kind.value,
        "status": m.status.value,
        "content": item.excerpt,
        "truncated": item.truncated,
        "relevance": round(item.relevance, 4),
        "rank_score": round(item.rank_score, 4),
        "freshness": round(item.freshness, 4),
        "aging": item.aging,
        "dormant": item.dormant,
        "evidence": {
            "basis": m.evidence.basis.value,
            "method": m.evidence.method.value,
            "source_id": m.evidence.source_id,
            "at": None if m.evidence.at is None else format_time(m.evidence.at),
        },
        "markers": list(item.markers),
        "corrects": list(item.corrects),
        "contradicts": list(item.contradicts),
        "lane": item.lane,
    }
    if item.superseded_by:
        doc["superseded_by"] = item.superseded_by
    if item.matched:
        doc["matched"] = item.matched
    return doc


def recall_doc(outcome: Outcome, trace: str | None) -> dict:
    rejected = sum(1 for c in outcome.candidates if c.reason not in (None, Reason.SELECTED))
    return {
        "results": [result_dict(r) for r in outcome.results],
        "digest": outcome.digest,
        "trace": trace,
        "note": outcome.note,
        "query": outcome.query.to_dict(),
        "candidates": len(outcome.candidates),
        "rejected": rejected,
    }
