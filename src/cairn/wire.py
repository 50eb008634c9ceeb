"""The wire format: the JSON form of every result Cairn hands to the outside.

These shapes are the public wire format. The CLI prints them with ``--json`` today; the
MCP tools and the HTTP API are to return the very same documents. The contract:

* Every document is a JSON object whose shape is declared here as a ``TypedDict``.
  Keys are stable: a key is never renamed or dropped, and a new one comes in as optional
  (``NotRequired``) so that existing readers keep working. ``tests/foundation/test_wire.py``
  runs every command with ``--json`` and pins its keys, nested ones included, to the
  declarations below.
* Times are ISO-8601 UTC strings (``model.format_time``); absent values are ``null``;
  enum values are their wire spelling (``Kind.FACT`` is ``"fact"``).
* A memory body (``content``) appears only where a command's purpose is to return it
  (remember's record, show, list, recall, search, timeline). ``explain`` and the recall
  trace carry ids, numbers and query features, never a memory body.
* The recall request is serialised by one function, :func:`recall_request`, which
  ``explain``'s ``query`` and the stored recall trace both use, so the two cannot drift.

The builders turn model values and the plain fields of engine results into these
documents. This module imports nothing of Cairn's but ``cairn.model`` (and may import
``cairn.errors``); values of other layers reach it through the small protocols below
(``QualityValues``, ``TransferCounts``, ``ClaimOutcome``, ``RecallRequest``) or as plain
fields. Some documents are still assembled by their producer (``status`` and a
timeline's states by the engine, a recall result, an explain candidate and the query
features by ``recall``, the benchmark tables by ``bench``); for those this module
declares the shape, and the builder only marks the value as that shape for the type
checker.
"""

# No ``from __future__ import annotations`` here: on Python 3.11 string annotations hide
# ``NotRequired`` from ``TypedDict``, which would then count every optional key as required.

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, NotRequired, Protocol, TypedDict, cast

from .model import Event, Evidence, Memory, Relation, format_time, memory_to_dict, relation_to_dict
from .model.codec import evidence_to_dict

# -- records, relations, events ------------------------------------------------------------


class EvidenceDoc(TypedDict):
    basis: str
    method: str
    source_id: str | None
    at: str | None


class VerdictSlotDoc(TypedDict):
    verdict: str
    source_id: str
    at: str | None


class FeedbackSlotsDoc(TypedDict):
    utility: VerdictSlotDoc | None
    accuracy: VerdictSlotDoc | None


class MemoryDoc(TypedDict):
    """One record, every field (also the export and event-snapshot form)."""

    id: str
    space: str
    origin: str
    kind: str
    content: str
    aliases: list[str]
    status: str
    layer: str
    evidence: EvidenceDoc
    certainty: str | None
    valid_from: str | None
    valid_to: str | None
    created_at: str | None
    updated_at: str | None
    reinforced_at: str | None
    feedback: FeedbackSlotsDoc
    revision: int
    expected_resolution_at: str | None
    last_confirmed_at: str | None
    purged_at: str | None
    topics: NotRequired[list[str]]  # canonical vocabulary ids; present only when the record has some
    entities: NotRequired[list[str]]


# "from" is a Python keyword: the functional form spells the key as it is on the wire.
RelationDoc = TypedDict(
    "RelationDoc",
    {"id": str, "space": str, "from": str, "role": str, "to": str, "created_at": str | None, "status": str},
)


class EventRefDoc(TypedDict):
    """forget, pin, unpin, undo: the id of the event written."""

    event: str


class EventSummaryDoc(TypedDict):
    """One event as history lists it: the records it changed, not their snapshots."""

    id: str
    at: str
    actor: str
    reason: str
    changed: list[str]
    data: NotRequired[dict[str, Any]]


def evidence(e: Evidence) -> EvidenceDoc:
    return cast(EvidenceDoc, evidence_to_dict(e))


def memory(m: Memory) -> MemoryDoc:
    return cast(MemoryDoc, memory_to_dict(m))


def relation(r: Relation) -> RelationDoc:
    return cast(RelationDoc, relation_to_dict(r))


def event_ref(event: Event) -> EventRefDoc:
    return {"event": event.id}


def event_summary(e: Event) -> EventSummaryDoc:
    doc: EventSummaryDoc = {
        "id": e.id,
        "at": format_time(e.at),
        "actor": e.actor.value,
        "reason": e.reason,
        "changed": list(dict.fromkeys(e.changed_ids)),  # a record changed twice is listed once
    }
    if e.data:
        doc["data"] = e.data
    return doc


# -- record commands -----------------------------------------------------------------------


class SimilarDoc(TypedDict):
    """A current record of the same kind and origin that a new claim seems to replace."""

    id: str
    content: str


class WithheldDoc(TypedDict):
    id: str
    reason: str  # pinned | older-source | weaker


class RememberDoc(TypedDict):
    id: str
    status: str
    event: str | None  # None when identical content already stood and nothing was written
    deduplicated: NotRequired[bool]
    similar: NotRequired[list[SimilarDoc]]  # current records the new claim seems to replace
    replaced: NotRequired[list[str]]  # with --replaces-similar: the records it now supersedes
    withheld: NotRequired[list[WithheldDoc]]  # with --replaces-similar: what the write policy kept standing


class QualityDoc(TypedDict):
    freshness: float
    aging: bool
    dormant: bool
    age_days: float
    confirmed_at: str
    reinforced: bool
    priority: int
    evidence_weight: float
    utility: float
    accuracy: float
    basis: str
    method: str


class GroundDoc(TypedDict):
    name: str
    contribution: float
    detail: str


class ConfidenceDoc(TypedDict):
    """A record's confidence: a level and every ground that moved it (never a ranking input)."""

    level: str  # low | medium | high
    score: float
    grounds: list[GroundDoc]


class ShowDoc(TypedDict):
    memory: MemoryDoc
    quality: QualityDoc
    relations: list[RelationDoc]
    confidence: NotRequired[ConfidenceDoc]


class ListDoc(TypedDict):
    memories: list[MemoryDoc]
    page: int
    pages: int
    total: int


class HistoryDoc(TypedDict):
    events: list[EventSummaryDoc]


class ExportDoc(TypedDict):
    records: int
    events: int
    relations: int


class ImportDoc(TypedDict):
    records: int
    events: int
    relations: int
    skipped: int  # lines already present (import is idempotent)


class ProblemDoc(TypedDict):
    table: str
    space: str
    id: str
    problem: str


class StatusDoc(TypedDict):
    schema: int
    path: str
    space: str
    memories: int
    by_status: dict[str, int]
    events: int
    relations: int
    integrity: str
    problems: list[ProblemDoc]
    problems_elsewhere: int


def remembered(
    m: Memory,
    event: Event | None,
    *,
    deduplicated: bool,
    similar: Iterable[Memory] = (),
    replaced: Sequence[str] = (),
    withheld: Sequence[tuple[str, str]] = (),
) -> RememberDoc:
    doc: RememberDoc = {"id": m.id, "status": m.status.value, "event": None if event is None else event.id}
    if deduplicated:
        doc["deduplicated"] = True
    close = [{"id": s.id, "content": s.content} for s in similar]
    if close:
        doc["similar"] = cast(list[SimilarDoc], close)
    if replaced:
        doc["replaced"] = list(replaced)
    if withheld:
        doc["withheld"] = [{"id": i, "reason": r} for i, r in withheld]
    return doc


class QualityValues(Protocol):
    """What :func:`shown` reads of the engine's read-time quality of a record."""

    @property
    def freshness(self) -> float: ...
    @property
    def aging(self) -> bool: ...
    @property
    def dormant(self) -> bool: ...
    @property
    def age_days(self) -> float: ...
    @property
    def confirmed_at(self) -> datetime: ...
    @property
    def reinforced(self) -> bool: ...
    @property
    def priority(self) -> int: ...
    @property
    def evidence_weight(self) -> float: ...
    @property
    def utility(self) -> float: ...
    @property
    def accuracy(self) -> float: ...


def quality(q: QualityValues, m: Memory) -> QualityDoc:
    return {
        "freshness": q.freshness,
        "aging": q.aging,
        "dormant": q.dormant,
        "age_days": q.age_days,
        "confirmed_at": format_time(q.confirmed_at),
        "reinforced": q.reinforced,
        "priority": q.priority,
        "evidence_weight": q.evidence_weight,
        "utility": q.utility,
        "accuracy": q.accuracy,
        "basis": m.evidence.basis.value,
        "method": m.evidence.method.value,
    }


def shown(m: Memory, q: QualityValues, relations: Iterable[Relation], confidence: Mapping[str, Any] | None = None) -> ShowDoc:
    """``show``: one record, its quality, its relations and (when given) its confidence."""
    doc: ShowDoc = {"memory": memory(m), "quality": quality(q, m), "relations": [relation(r) for r in relations]}
    if confidence is not None:
        doc["confidence"] = cast(ConfidenceDoc, dict(confidence))
    return doc


def memory_page(memories: Iterable[Memory], *, page: int, pages: int, total: int) -> ListDoc:
    return {"memories": [memory(m) for m in memories], "page": page, "pages": pages, "total": total}


def history(events: Iterable[Event]) -> HistoryDoc:
    return {"events": [event_summary(e) for e in events]}


class TransferCounts(Protocol):
    """What :func:`exported` and :func:`imported` read of an export or import."""

    records: int
    events: int
    relations: int
    skipped: int


def exported(counts: TransferCounts) -> ExportDoc:
    return {"records": counts.records, "events": counts.events, "relations": counts.relations}


def imported(counts: TransferCounts) -> ImportDoc:
    return {"records": counts.records, "events": counts.events, "relations": counts.relations, "skipped": counts.skipped}


# -- learning: apply, candidates, correct, feedback -------------------------------------------


class ClaimOutcome(Protocol):
    """What happened to one claim of a batch, as the engine reports it."""

    @property
    def index(self) -> int: ...
    @property
    def outcome(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def reason(self) -> str: ...


class ClaimOutcomeDoc(TypedDict):
    index: int
    outcome: str  # added | replaced | reaffirmed | withheld | duplicate | ...
    id: str
    reason: str


class ApplyDoc(TypedDict):
    event: str | None  # None when no record changed
    added: int
    replaced: int
    withheld: int
    conflicted: int
    confirmed: int
    reaffirmed: int
    unchanged: int
    source: str
    claims: list[ClaimOutcomeDoc]
    candidates: list[str]  # ids of the records the source mentions (``Applied.mentioned``)


APPLY_COUNTS = ("added", "replaced", "withheld", "conflicted", "confirmed", "reaffirmed", "unchanged")


class MentionedDoc(TypedDict):
    """``cairn candidates``: the records a batch's source mentions, which its claims may
    name in ``replaces`` (``Cairn.mentioned_by``)."""

    candidates: list[MemoryDoc]


class CorrectDoc(TypedDict):
    id: str
    event: str


class FeedbackDoc(TypedDict):
    applied: bool
    reason: str
    event: str | None
    quarantined: NotRequired[list[str]]


def claim_outcome(c: ClaimOutcome) -> ClaimOutcomeDoc:
    """One claim's outcome: in the apply document and in the event an apply writes."""
    return {"index": c.index, "outcome": c.outcome, "id": c.id, "reason": c.reason}


def applied(event: Event | None, *, source: str, counts: Mapping[str, int], claims: Iterable[ClaimOutcome],
            candidates: Iterable[str]) -> ApplyDoc:
    return {
        "event": None if event is None else event.id,
        "added": counts["added"],
        "replaced": counts["replaced"],
        "withheld": counts["withheld"],
        "conflicted": counts["conflicted"],
        "confirmed": counts["confirmed"],
        "reaffirmed": counts["reaffirmed"],
        "unchanged": counts["unchanged"],
        "source": source,
        "claims": [claim_outcome(c) for c in claims],
        "candidates": list(candidates),
    }


def mentioned_records(memories: Iterable[Memory]) -> MentionedDoc:
    return {"candidates": [memory(m) for m in memories]}


def corrected(m: Memory, event: Event) -> CorrectDoc:
    return {"id": m.id, "event": event.id}


def feedback(*, applied: bool, reason: str, event: Event | None, quarantined: Sequence[str] = ()) -> FeedbackDoc:
    doc: FeedbackDoc = {"applied": applied, "reason": reason, "event": None if event is None else event.id}
    if quarantined:
        doc["quarantined"] = list(quarantined)
    return doc


# -- ingest, relations, timeline ----------------------------------------------------------------


class IngestDoc(TypedDict):
    source: str
    episodes: int
    skipped: int  # turns already present in their origin
    origins: list[str]
    event: str | None  # None when every turn was already present
    archive: NotRequired[str]  # ingest --archive: the archived source's id


class RelateDoc(TypedDict):
    event: str
    relation: RelationDoc


class TimelineStateDoc(TypedDict):
    id: str
    kind: str
    status: str
    content: str
    valid_from: str | None
    valid_to: str | None
    recorded_at: str
    current: bool
    markers: list[str]
    replaced_by: list[str]
    # Earlier texts of this record (a correction keeps the id): [{"event", "at", "before", "after"}].
    texts: NotRequired[list[dict[str, Any]]]


class TimelineDoc(TypedDict):
    query: str
    states: list[TimelineStateDoc]
    relations: list[RelationDoc]


def ingested(*, source: str, episodes: int, skipped: int, origins: Iterable[str], event: Event | None) -> IngestDoc:
    return {"source": source, "episodes": episodes, "skipped": skipped, "origins": list(origins),
            "event": None if event is None else event.id}


def related(event: Event) -> RelateDoc:
    """A relate event and the relation it declared (its one change's snapshot)."""
    return {"event": event.id, "relation": cast(RelationDoc, event.changes[0].after)}


def timeline(query: str, states: Sequence[Mapping[str, Any]], relations: Sequence[Mapping[str, Any]]) -> TimelineDoc:
    """A subject's states (assembled by the engine) and the relations between them."""
    return {"query": query, "states": cast(list[TimelineStateDoc], list(states)),
            "relations": cast(list[RelationDoc], list(relations))}


# -- recall, search, explain, traces -------------------------------------------------------------


class RecallRequest(Protocol):
    """The parameters of one recall, as the recall pipeline holds them."""

    @property
    def lane(self) -> str: ...
    @property
    def limit(self) -> int: ...
    @property
    def budget(self) -> int: ...
    @property
    def include_dormant(self) -> bool: ...
    @property
    def include_history(self) -> bool: ...
    @property
    def as_of(self) -> datetime | None: ...
    @property
    def known_at(self) -> datetime | None: ...
    @property
    def origin(self) -> str | None: ...
    @property
    def prefer_origin(self) -> str | None: ...


class RecallRequestDoc(TypedDict):
    """A recall's parameters (never its query text): in explain's query and in traces."""

    lane: str
    limit: int
    budget: int
    include_dormant: bool
    include_history: bool
    as_of: str | None
    known_at: str | None
    origin: NotRequired[str]  # only that origin's records (given only when asked)
    prefer_origin: NotRequired[str]  # that origin's relevant records first (given only when asked)


class QueryFeaturesDoc(TypedDict):
    """What the query parser found: terms and literals, never the raw text."""

    features: list[str]
    literals: list[str]
    subject: str | None
    attributes: list[str]
    context_free: bool


class RecallResultDoc(TypedDict):
    id: str
    kind: str
    status: str
    content: str  # the excerpt packed into the digest
    truncated: bool
    relevance: float
    rank_score: float
    freshness: float
    aging: bool
    dormant: bool
    evidence: EvidenceDoc
    markers: list[str]
    corrects: list[str]
    contradicts: list[str]
    lane: str
    origin: str  # provenance inside the space ("" when none was given)
    superseded_by: NotRequired[str]
    matched: NotRequired[str]
    speaker: NotRequired[str | None]  # episodes: who said the turn
    turn: NotRequired[str | None]  # episodes: the turn's id in its conversation
    confidence: NotRequired[ConfidenceDoc]  # how far to trust it; never used to rank


class TopicHintDoc(TypedDict):
    given: str
    label: str | None  # None: unknown to the vocabulary and to stored records
    how: str  # canonical | alias | present | unknown
    carried_by: list[str]  # ids of the results that carry the label


class RecallDoc(TypedDict):
    """recall and search."""

    results: list[RecallResultDoc]
    digest: str
    trace: str | None  # the trace id, None when no trace was written
    note: str | None
    query: QueryFeaturesDoc
    candidates: int
    rejected: int
    topic: NotRequired[TopicHintDoc]  # recall --topic: how the hint was understood
    warnings: NotRequired[list[str]]  # e.g. an unknown topic hint (the query still ran)


class PhraseDoc(TypedDict):
    span: str
    words: int
    frequency: int
    bonus: float


class FactorsDoc(TypedDict, total=False):
    """An explain candidate's numbers; which appear depends on its lane and stage."""

    bm25: float
    coverage: float
    lane_score: float
    phrase: PhraseDoc
    freshness: float
    priority: int
    evidence_weight: float
    utility: float
    accuracy: float
    aging: bool
    dormant: bool
    pinned: bool
    gate_reported: str
    fusion: "FusionDoc"  # defined with the semantic extra's documents, at the end


class ExplainCandidateDoc(TypedDict):
    id: str
    lane: str
    raw: float
    rank_score: float | None  # None when the candidate was rejected before ranking
    factors: FactorsDoc
    reason: str
    basis: str | None  # the record's evidence basis and method; None when it is unreadable
    method: str | None
    markers: NotRequired[list[str]]
    turn: NotRequired[str]  # episodes: the turn's id in its conversation


class ExplainQueryDoc(QueryFeaturesDoc, RecallRequestDoc):
    """The parsed query and the request it came with."""


class ScanDoc(TypedDict, total=False):
    postings: int
    bounded_terms: list[str]
    semantic: "SemanticScanDoc"
    fusion: "FusionScanDoc"


class ExplainDoc(TypedDict):
    query: ExplainQueryDoc
    selected: list[str]
    note: str | None
    scan: ScanDoc
    candidates: list[ExplainCandidateDoc]
    omitted: int  # candidates left out to keep the document within 8 KB


class RejectedDoc(TypedDict):
    id: str
    reason: str


class TraceScoreDoc(TypedDict):
    """One candidate of a stored trace: its reason and numbers, and the query phrase its
    record matched (``span``, only when a phrase bonus applied). Never the record's body.
    Kept small on purpose: every recall stores one per candidate."""

    id: str
    reason: str
    raw: float
    rank_score: float | None
    span: NotRequired[str]


class TraceDoc(RecallRequestDoc):
    """The stored trace of one recall: features, parameters, selected and rejected ids,
    and every candidate's numbers (``scores``, absent from traces written before them)."""

    kind: str
    id: str
    at: str
    query: QueryFeaturesDoc
    candidates: int
    selected: list[str]
    rejected: list[RejectedDoc]
    rejected_omitted: int
    note: str | None
    scores: list[TraceScoreDoc]


def recall_request(request: RecallRequest) -> RecallRequestDoc:
    """The one serialisation of a recall's parameters (explain and traces both use it)."""
    doc: RecallRequestDoc = {
        "lane": request.lane,
        "limit": request.limit,
        "budget": request.budget,
        "include_dormant": request.include_dormant,
        "include_history": request.include_history,
        "as_of": None if request.as_of is None else format_time(request.as_of),
        "known_at": None if request.known_at is None else format_time(request.known_at),
    }
    if request.origin is not None:
        doc["origin"] = request.origin
    if request.prefer_origin is not None:
        doc["prefer_origin"] = request.prefer_origin
    return doc


def query_features(doc: Mapping[str, Any]) -> QueryFeaturesDoc:
    """The query parser's own document of what it found."""
    return cast(QueryFeaturesDoc, doc)


def explain_query(features: Mapping[str, Any], request: RecallRequest) -> ExplainQueryDoc:
    return cast(ExplainQueryDoc, {**query_features(features), **recall_request(request)})


def trace(*, kind: str, trace_id: str, at: datetime, query: Mapping[str, Any], request: RecallRequest,
          candidates: int, selected: list[str], rejected: list[RejectedDoc], rejected_omitted: int,
          note: str | None, scores: list[TraceScoreDoc] | None = None) -> TraceDoc:
    return cast(TraceDoc, {
        "kind": kind,
        "id": trace_id,
        "at": format_time(at),
        "query": query_features(query),
        **recall_request(request),
        "candidates": candidates,
        "selected": selected,
        "rejected": rejected,
        "rejected_omitted": rejected_omitted,
        "note": note,
        "scores": list(scores or []),
    })


# -- benchmarks -------------------------------------------------------------------------------


class LocomoCategoryDoc(TypedDict):
    name: str
    questions: int
    cairn: dict[str, float]  # "any@K" and "all@K" for each cut-off K
    baseline: dict[str, float]


class LocomoDoc(TypedDict):
    split: str
    questions: int
    cairn: dict[str, Any]  # "any@K", "all@K" and "latency_ms": {"median", "p95"}
    baseline: dict[str, Any]
    categories: dict[str, LocomoCategoryDoc]


ScaleRowDoc = TypedDict(
    "ScaleRowDoc",
    {
        "size": int,
        "status": str,  # ok | incomplete: … | failed: …; a failed size has no other key
        "records": NotRequired[int],
        "ingest_s": NotRequired[float],
        "ingest_per_s": NotRequired[int],
        "lane": NotRequired[str],
        "queries": NotRequired[int],
        "recall_ms": NotRequired[dict[str, float]],
        "needle_hit@3": NotRequired[float],
        "fts_lane_ms": NotRequired[dict[str, float]],
        "fts_lane_hit@3": NotRequired[float],
        "db_mb": NotRequired[float],
        "peak_rss_mb": NotRequired[float],
        # Linux: the peak while the claims were imported, and the peak after (their recalls).
        "ingest_rss_mb": NotRequired[float | None],
        "recall_rss_mb": NotRequired[float | None],
        "process_ms": NotRequired[dict[str, float]],  # one whole `cairn recall` process, wall time
        # The episode lane on a store of as many conversation turns (see cairn.bench.scale).
        "turns": NotRequired[int],
        "episode_ingest_per_s": NotRequired[int],
        "episode_queries": NotRequired[int],
        "episode_recall_ms": NotRequired[dict[str, float]],
        "episode_needle_hit@5": NotRequired[float],
        "episode_status": NotRequired[str],
    },
)


class ScaleDoc(TypedDict):
    sizes: list[ScaleRowDoc]


def locomo(doc: Mapping[str, Any]) -> LocomoDoc:
    """The LoCoMo harness's result document."""
    return cast(LocomoDoc, doc)


def scale(rows: Iterable[Mapping[str, Any]]) -> ScaleDoc:
    return {"sizes": cast(list[ScaleRowDoc], list(rows))}


# -- learning from transcripts, reinforcement ---------------------------------------------------

LEARN_COUNTS = ("episodes", "skipped_turns", "added", "replaced", "withheld", "conflicted", "confirmed",
                "unchanged", "reaffirmed", "corrections", "reinforcements", "rejected", "problems")


class LearnClaimDoc(TypedDict):
    """One claim an extractor proposed: ``replaces`` a record id, ``#N`` (claim N of the
    same source) or None."""

    kind: str
    content: str
    replaces: str | None


class LearnDoc(TypedDict):
    """``cairn learn``: what was read, proposed and written (nothing when ``dry_run``)."""

    origin: str
    format: str
    extractor: str
    dry_run: bool
    counts: dict[str, int]  # every key of LEARN_COUNTS
    claims: list[LearnClaimDoc]
    problems: list[str]  # malformed lines or messages, skipped ("line 7: not JSON ...")
    rejected: list[str]  # extractor output rejected, with the reason
    events: list[str]
    archive: NotRequired[str]  # learn --archive: the archived source's id


class ReinforceDoc(TypedDict):
    recorded: bool
    reason: str  # recorded | neutral-exposure-off | neutral-exposure-once-per-session
    event: str | None


def learned(*, origin: str, format: str, extractor: str, dry_run: bool, counts: Mapping[str, int],
            claims: Iterable[Any], problems: Iterable[object], rejected: Iterable[str], events: Iterable[Event]) -> LearnDoc:
    return {
        "origin": origin, "format": format, "extractor": extractor, "dry_run": dry_run,
        "counts": {key: int(counts.get(key, 0)) for key in LEARN_COUNTS},
        "claims": [{"kind": c.kind.value, "content": c.content, "replaces": c.replaces} for c in claims],
        "problems": [str(p) for p in problems], "rejected": list(rejected), "events": [e.id for e in events],
    }


def reinforced(*, recorded: bool, reason: str, event: Event | None) -> ReinforceDoc:
    return {"recorded": recorded, "reason": reason, "event": None if event is None else event.id}

# -- confirmation, aliases, history with texts ------------------------------------------


class ConfirmDoc(TypedDict):
    id: str
    moved: bool  # whether the confirmation clock moved
    reason: str  # "confirmed", or why it did not move
    confirmed_at: str  # the freshness anchor after the confirmation


def confirmed(m: Memory, *, moved: bool, reason: str) -> ConfirmDoc:
    anchor = m.reinforced_at if m.reinforced_at is not None and m.reinforced_at > m.updated_at else m.updated_at
    return {"id": m.id, "moved": moved, "reason": reason, "confirmed_at": format_time(anchor)}


class TextChangeDoc(TypedDict):
    """A record's text before and after an event (bounded excerpts)."""

    id: str
    before: str | None  # None: the event created the record
    after: str


class VerboseEventDoc(EventSummaryDoc):
    texts: list[TextChangeDoc]


class VerboseHistoryDoc(TypedDict):
    events: list[VerboseEventDoc]


TEXT_EXCERPT = 200  # characters of each text shown by history --verbose and timeline


def excerpt_text(text: str, width: int = TEXT_EXCERPT) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def text_changes(e: Event) -> list[TextChangeDoc]:
    """The records whose text an event changed (or created), with both texts, bounded."""
    out: list[TextChangeDoc] = []
    for c in e.changes:
        if c.table != "memory" or c.after is None:
            continue
        before = None if c.before is None else str(c.before.get("content", ""))
        after = str(c.after.get("content", ""))
        if before != after:
            out.append({"id": c.id, "before": None if before is None else excerpt_text(before), "after": excerpt_text(after)})
    return out


def verbose_history(events: Iterable[Event]) -> VerboseHistoryDoc:
    return {"events": [cast(VerboseEventDoc, {**event_summary(e), "texts": text_changes(e)}) for e in events]}


# -- the host loop ---------------------------------------------------------------------------


class TriageDoc(TypedDict):
    decision: str  # RETRIEVE | ASK | SKIP
    intent: str | None  # the retrieval query (RETRIEVE)
    anchors: list[str]  # the distinctive fragments, verbatim
    missing: str | None  # the one anchor to ask for (ASK)
    cues: list[str]  # the phrases that said earlier work is meant
    reason: str


class TriageValues(Protocol):
    def to_dict(self) -> Mapping[str, Any]: ...


def triaged(result: TriageValues) -> TriageDoc:
    return cast(TriageDoc, dict(result.to_dict()))


class HookSpecificDoc(TypedDict):
    hookEventName: str
    additionalContext: str


class HookOutputDoc(TypedDict):
    """Claude Code's hook output: exactly this shape, or nothing at all (its validator
    rejects unknown keys)."""

    hookSpecificOutput: NotRequired[HookSpecificDoc]


class SetupChangeDoc(TypedDict):
    path: str
    action: str  # created | updated | unchanged | removed
    backup: str | None


class SetupDoc(TypedDict):
    scope: str  # user | project
    dry_run: bool
    uninstall: bool
    changes: list[SetupChangeDoc]


# -- trust: use reports, maintenance, retention ------------------------------------------------


class UseRefDoc(TypedDict):
    id: str
    failure_class: str | None  # stale | disputed | irrelevant-digest | unused; None for used


class UseReportDoc(TypedDict):
    """``report TRACE VERDICT REF...``: the stored report, joined to its trace."""

    trace: str
    verdict: str
    event: str
    refs: list[UseRefDoc]


class UseRateDoc(TypedDict):
    reports: int
    used: int
    unused: int
    wrong: int
    use_rate: float | None


class ReportSummaryDoc(TypedDict):
    """``report --summary``: aggregates only (no query, no memory text)."""

    since: str | None
    reports: int
    failure_classes: dict[str, int]
    lane: dict[str, UseRateDoc]
    kind: dict[str, UseRateDoc]
    age: dict[str, UseRateDoc]
    basis: dict[str, UseRateDoc]


class MaintenancePlanDoc(TypedDict):
    """``maintain [--report]``: the recommendations, as a plan ``maintain --apply`` reads."""

    kind: str
    space: str
    created_at: str
    records: int
    # each op: op, id, reason, risk (low | review); from/to for stability ops, decay for decay
    ops: list[dict[str, Any]]


class RetentionMatchDoc(TypedDict):
    id: str
    policy: str
    reason: str
    revision: int


class RetentionPlanDoc(TypedDict):
    """``retention plan``: what each policy matches and why, as a plan ``retention apply`` reads."""

    kind: str
    space: str
    created_at: str
    policies: list[str]
    records: int
    matches: list[RetentionMatchDoc]


class PlanAppliedDoc(TypedDict):
    applied: int
    skipped: int
    event: str | None


# -- reading a trace back (``cairn trace ID``) -------------------------------------------------


def stored_trace(body: Mapping[str, Any]) -> TraceDoc:
    """A stored trace body in today's form: keys added after it was written get their
    empty value, so ``cairn trace --json`` always prints every key of :class:`TraceDoc`."""
    doc = dict(body)
    doc.setdefault("scores", [])
    return cast(TraceDoc, doc)


# -- the semantic extra (cairn.recall.fusion, cairn.recall.lanes.semantic, cairn embed) --------


class FusionDoc(TypedDict, total=False):
    """A hybrid candidate: each lane's rank and share of its relevance, and its cosine."""

    cosine: float
    lexical_rank: int
    lexical: float
    semantic_rank: int
    semantic: float


class SemanticScanDoc(TypedDict, total=False):
    """What a semantic lane read: vectors searched, nearest texts taken, time spent."""

    lane: str
    vectors: int
    pool: int
    load_embed_ms: float
    search_ms: float


class FusionScanDoc(TypedDict):
    lanes: list[str]
    fused: int


class EmbedDoc(TypedDict):
    """``cairn embed --json``: one back-fill run."""

    missing_before: int
    embedded: int
    remaining: int
    seconds: float
    per_second: float


def embedded(*, missing_before: int, embedded: int, remaining: int, seconds: float) -> EmbedDoc:
    rate = embedded / seconds if seconds > 0 else 0.0
    return {"missing_before": missing_before, "embedded": embedded, "remaining": remaining,
            "seconds": round(seconds, 3), "per_second": round(rate, 1)}


# -- archive and labels -----------------------------------------------------------------
# The archive's values live in cairn.archive, which this module does not import: these
# functions read them by attribute (an entry's ``to_dict`` holds exactly the catalog fields).


class ArchiveEntryDoc(TypedDict):
    """A catalog entry: metadata only, never any text of the source."""

    schema_version: int
    source_type: str
    source_id: str
    started_at: str | None
    ended_at: str | None
    original_path: str
    preserved_path: str  # relative to the space's raw store
    byte_size: int
    sha256: str
    record_count: int
    copy_mode: str
    status: str  # verified | removed (a tombstone)


class ArchiveAddDoc(TypedDict):
    entry: ArchiveEntryDoc
    deduplicated: bool  # the same bytes were already archived


class ArchiveShownEntryDoc(TypedDict):
    entry: ArchiveEntryDoc


class ArchiveListDoc(TypedDict):
    entries: list[ArchiveEntryDoc]


class ArchiveFailureDoc(TypedDict):
    source_id: str
    code: str
    detail: str


class ArchiveVerifyDoc(TypedDict):
    ok: bool
    checked: list[str]
    failures: list[ArchiveFailureDoc]


class RehydratedRecordDoc(TypedDict):
    turn: int
    id: str | None
    time: str | None
    exact: bool  # raw is the record's exact bytes (False: a JSON message re-serialised)
    raw: str
    channels: dict[str, list[str]]


class ChannelItemDoc(TypedDict):
    turn: int
    text: str


class RehydratedDoc(TypedDict):
    label: str  # untrusted quoted evidence: printed first, always
    entry: ArchiveEntryDoc
    turns: list[int]  # [first, last]
    records: list[RehydratedRecordDoc]
    channels: dict[str, list[ChannelItemDoc]]


class ArchiveRemoveDoc(TypedDict):
    entry: ArchiveEntryDoc  # the tombstone
    event: str


class LabelEntryDoc(TypedDict):
    aliases: list[str]


class VocabularyDoc(TypedDict):
    topics: dict[str, LabelEntryDoc]
    entities: dict[str, LabelEntryDoc]


class LabelProblemDoc(TypedDict):
    where: str
    field: str
    label: str


class LabelsImportDoc(TypedDict):
    topics: dict[str, LabelEntryDoc]
    entities: dict[str, LabelEntryDoc]
    stale: list[LabelProblemDoc]  # stored labels the new vocabulary lacks


class LabelsCheckDoc(TypedDict):
    ok: bool
    problems: list[LabelProblemDoc]


class LabelsMatchDoc(TypedDict):
    labels: dict[str, list[str]]


def archive_entry(entry: Any) -> ArchiveEntryDoc:
    return cast(ArchiveEntryDoc, dict(entry.to_dict()))


def archive_added(entry: Any, *, deduplicated: bool) -> ArchiveAddDoc:
    return {"entry": archive_entry(entry), "deduplicated": deduplicated}


def archive_shown(entry: Any) -> ArchiveShownEntryDoc:
    return {"entry": archive_entry(entry)}


def archive_catalog(entries: Iterable[Any]) -> ArchiveListDoc:
    return {"entries": [archive_entry(e) for e in entries]}


def archive_verified(verified: Any) -> ArchiveVerifyDoc:
    return {"ok": verified.ok, "checked": list(verified.checked),
            "failures": [{"source_id": f.source_id, "code": f.code, "detail": f.detail} for f in verified.failures]}


def rehydrated(entry: Any, r: Any) -> RehydratedDoc:
    """A rehydrated range: the label first, then each record's exact text and channels."""
    return {
        "label": r.label,
        "entry": archive_entry(entry),
        "turns": [r.first, r.last],
        "records": [{"turn": rec.turn, "id": rec.id, "time": None if rec.time is None else format_time(rec.time),
                     "exact": rec.exact, "raw": rec.raw.decode("utf-8", "replace"), "channels": r.record_channels(rec)}
                    for rec in r.records],
        "channels": {name: [{"turn": turn, "text": text} for turn, text in items]
                     for name, items in r.channels().items()},
    }


def archive_removed(entry: Any, event: Event) -> ArchiveRemoveDoc:
    return {"entry": archive_entry(entry), "event": event.id}


def vocabulary(v: Any) -> VocabularyDoc:
    return cast(VocabularyDoc, v.to_dict())


def label_problem(p: Any) -> LabelProblemDoc:
    return {"where": p.where, "field": p.field, "label": p.label}


def labels_imported(v: Any, stale: Iterable[Any]) -> LabelsImportDoc:
    doc = vocabulary(v)
    return {"topics": doc["topics"], "entities": doc["entities"], "stale": [label_problem(p) for p in stale]}


def labels_checked(problems: Iterable[Any]) -> LabelsCheckDoc:
    found = [label_problem(p) for p in problems]
    return {"ok": not found, "problems": found}


def labels_matched(found: Any) -> LabelsMatchDoc:
    return {"labels": found.to_dict()}


# -- moving a store (``cairn migrate SRC DST``) ---------------------------------------------------


class MigrateDoc(TypedDict):
    space: str
    copied: ImportDoc  # what DST took
    identical_export: bool  # DST's export is byte-identical to SRC's (always true: a difference is an error)
