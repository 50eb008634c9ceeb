"""Recall traces: a record of each recall that outlives the bug it helps to find.

Every recall writes a trace by default — query features (terms of the *redacted* query,
never its raw text), the selected ids, every rejected id with its reason, and each
candidate's numbers with the query phrase its record matched (``scores``) — into the
``traces`` table, and prunes traces older than the retention window (14 days by default)
in the same transaction. A trace write touches the ``traces`` table only: records, events
and relations stay byte-identical, and ``export`` does not carry traces.

Pruning is the one delete recall performs, so it is written defensively: a row
is removed only when its id has the exact trace shape, its own ``at`` (the trace's record
of when it was taken, not a file or row timestamp) parses to a real time before the
cutoff, and its body says it is a recall trace. Anything else is left alone.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timedelta
from functools import lru_cache

from .. import wire
from ..errors import InvalidInput, NotFound
from ..model import BadTime, format_time, parse_time
from ..policy.redaction import redact
from ..store import Backend, ReadView, WriteTx
from .gates import Reason
from .pipeline import Candidate, Outcome
from .query import parse_query

RETENTION_DAYS = 14.0  # traces are kept for a window, then pruned
MAX_REJECTED = 200  # bounds one trace row
TRACE_KIND = "recall"
_ID_RE = re.compile(r"^[0-9a-f]{24}$")


def trace_doc(outcome: Outcome, trace_id: str, at: datetime) -> wire.TraceDoc:
    """The trace body: features, parameters, selected and rejected ids with reasons."""
    request = outcome.request
    redacted, found = _redacted(request.query)
    features = (parse_query(redacted) if found else outcome.query).to_dict()
    rejected: list[wire.RejectedDoc] = [
        {"id": c.id, "reason": _VALUES[c.reason]}
        for c in outcome.candidates
        if c.reason is not None and c.reason is not Reason.SELECTED
    ]
    scores = [_score(c) for c in outcome.candidates[:MAX_REJECTED]]
    return wire.trace(
        kind=TRACE_KIND,
        trace_id=trace_id,
        at=at,
        query=features,
        request=request,
        candidates=len(outcome.candidates),
        selected=[r.id for r in outcome.results],
        rejected=rejected[:MAX_REJECTED],
        rejected_omitted=max(0, len(rejected) - MAX_REJECTED),
        note=outcome.note,
        scores=scores,
    )


# Each reason's wire value, read from a dict: an enum member's ``.value`` is a Python-level
# property call, and a trace reads one or two per candidate.
_VALUES: dict[Reason, str] = {reason: reason.value for reason in Reason}


def _score(c: Candidate) -> wire.TraceScoreDoc:
    """A candidate's numbers and the phrase it matched. The span is query text; it is
    redacted again all the same, since the trace keeps no raw query text."""
    factors = c.factors
    doc: wire.TraceScoreDoc = {
        "id": c.id,
        "reason": _VALUES[c.reason or Reason.SELECTED],
        "raw": round(c.raw, 4),
        "rank_score": None if factors is None else round(factors.rank_score, 4),
    }
    if c.phrase is not None:
        doc["span"] = _redacted(c.phrase.span)[0]
    return doc


@lru_cache(maxsize=4096)
def _redacted(text: str) -> tuple[str, bool]:
    """``redact(text)``: the text, and whether a secret was found. A pure function of the
    text, and the costliest part of a trace (a query holding a keyword such as "key" is
    matched against its patterns: about 0.1 ms); the spans of one recall repeat across
    its candidates, and a process keeps the recently traced texts."""
    clean, found = redact(text)
    return clean, bool(found)


def write_trace(store: Backend, space: str, outcome: Outcome, at: datetime, *, retention_days: float = RETENTION_DAYS) -> str:
    """Insert one trace and prune expired ones, in one transaction. Returns the trace id."""
    trace_id = os.urandom(12).hex()  # what secrets.token_hex does, without importing it (start-up)
    doc = trace_doc(outcome, trace_id, at)
    # A trace is a diagnostic: it commits without syncing the WAL (the next durable write
    # syncs it), which keeps the default traced recall close to a pure read in latency.
    with store.write(durable=False) as tx:
        tx.put_trace(space, trace_id, doc["at"], doc)
        prune(tx, space, at, retention_days=retention_days)
    return trace_id


def prune(tx: WriteTx, space: str, now: datetime, *, retention_days: float = RETENTION_DAYS) -> int:
    """Delete this space's recall traces older than the window; returns how many."""
    cutoff = now - timedelta(days=retention_days)
    return tx.prune_traces(space, format_time(cutoff) + "~", lambda i, at, data: _expired(i, at, data, cutoff))


def _expired(trace_id: str, at: str, data: str, cutoff: datetime) -> bool:
    if not isinstance(trace_id, str) or not _ID_RE.match(trace_id):
        return False  # not shaped like a trace id: not ours to delete
    try:
        taken = parse_time(at)
    except BadTime:
        return False  # an impossible date: skip rather than guess
    if taken >= cutoff:
        return False
    try:
        body = json.loads(data)
    except (TypeError, ValueError):
        return False
    return isinstance(body, dict) and body.get("kind") == TRACE_KIND and body.get("id") == trace_id


def read_traces(view: ReadView, space: str, *, limit: int = 20) -> list[dict]:
    """The newest traces of ``space`` (bodies that do not parse are skipped)."""
    return view.recent_traces(space, limit)


def get_trace(view: ReadView, space: str, trace_id: str) -> dict | None:
    """One trace of ``space`` by id (for use reports joined to a recall), or None."""
    return view.get_trace(space, trace_id)


def read_trace(view: ReadView, space: str, trace_id: str) -> wire.TraceDoc:
    """One trace of ``space`` by its full id, in today's wire form (``cairn trace ID``).
    Read-only; a trace holds ids, numbers and query features, never a memory body."""
    ref = trace_id.strip().lower() if isinstance(trace_id, str) else ""
    if not _ID_RE.match(ref):
        raise InvalidInput("trace id", f"{trace_id!r} is not a trace id (24 hexadecimal characters)")
    body = view.get_trace(space, ref)
    if body is None or body.get("kind") != TRACE_KIND:
        raise NotFound("trace", ref)
    return wire.stored_trace(body)
