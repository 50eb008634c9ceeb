"""Readers' views of a recall :class:`~cairn.recall.pipeline.Outcome`, in the wire format
declared in :mod:`cairn.wire`.

* :func:`explain_doc` — every candidate with its raw relevance, each factor, its rank
  score, its evidence basis/method and its reason (closed set), plus the parsed query and
  the request. A candidate excluded before ranking has no rank score, but still shows its
  record's freshness, priority, evidence weight, utility and accuracy. No memory
  bodies, and the serialised document is capped at :data:`EXPLAIN_MAX_BYTES`: candidates
  that do not fit are counted in ``omitted``, selected ones first so the cap never hides
  a result.
* :func:`recall_doc` — the document of a recall or a search.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, cast

from .. import wire
from ..model import Kind
from .gates import Reason
from .pipeline import Candidate, Outcome, ResultItem
from .rank import rank_factors

EXPLAIN_MAX_BYTES = 8192


_ENCODER = json.JSONEncoder(ensure_ascii=False)  # json.dumps(doc, ensure_ascii=False), built once


def _size(doc: object) -> int:
    return len(_ENCODER.encode(doc).encode("utf-8"))


def explain_doc(outcome: Outcome) -> wire.ExplainDoc:
    doc: wire.ExplainDoc = {
        "query": wire.explain_query(outcome.query.to_dict(), outcome.request),
        "selected": [r.id for r in outcome.results],
        "note": outcome.note,
        "scan": cast(wire.ScanDoc, outcome.scan),
        "candidates": [],
        "omitted": 0,
    }
    # The document's size as json.dumps writes it, kept as candidates are added: the
    # document without them ("candidates": [] and "omitted": 0), less the digits of the
    # count, plus each candidate's own encoding and the ", " between two. Encoding the
    # whole document after each candidate cost an explain milliseconds.
    empty = _size(doc) - 1  # without the one digit of "omitted": 0
    listed = 0  # bytes of the candidates listed, separators included
    for candidate in _explain_order(outcome):
        shown = cast(wire.ExplainCandidateDoc, candidate.explain())
        if candidate.factors is None and candidate.memory is not None:
            # Put out before ranking, it has no rank score; its record's own quality
            # (freshness, evidence weight, utility, accuracy) still says what it stood on.
            quality = rank_factors(candidate.memory, candidate.raw, outcome.request.now).to_dict()
            shown["factors"].update(cast(wire.FactorsDoc, quality))
        grown = listed + _size(shown) + (2 if doc["candidates"] else 0)
        if empty + len(str(doc["omitted"])) + grown > EXPLAIN_MAX_BYTES:
            doc["omitted"] += 1
        else:
            doc["candidates"].append(shown)
            listed = grown
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


def result_dict(item: ResultItem) -> wire.RecallResultDoc:
    m = item.memory
    doc: wire.RecallResultDoc = {
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
        "evidence": wire.evidence(m.evidence),
        "markers": list(item.markers),
        "corrects": list(item.corrects),
        "contradicts": list(item.contradicts),
        "lane": item.lane,
        "origin": m.origin,
    }
    if m.kind is Kind.EPISODE:
        doc["speaker"] = m.aliases[0] if m.aliases else None
        doc["turn"] = m.evidence.source_id
    if item.superseded_by:
        doc["superseded_by"] = item.superseded_by
    if item.matched:
        doc["matched"] = item.matched
    return doc


def recall_doc(outcome: Outcome, trace: str | None,
               confidence: Mapping[str, Mapping[str, Any]] | None = None) -> wire.RecallDoc:
    """The recall document; ``confidence`` (by record id) is attached to each result after
    ranking, so it cannot change the order."""
    rejected = sum(1 for c in outcome.candidates if c.reason not in (None, Reason.SELECTED))
    results = [result_dict(r) for r in outcome.results]
    for doc in results:
        if confidence and doc["id"] in confidence:
            doc["confidence"] = cast(wire.ConfidenceDoc, dict(confidence[doc["id"]]))
    return {
        "results": results,
        "digest": outcome.digest,
        "trace": trace,
        "note": outcome.note,
        "query": wire.query_features(outcome.query.to_dict()),
        "candidates": len(outcome.candidates),
        "rejected": rejected,
    }
