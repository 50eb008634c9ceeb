"""The recall pipeline (DESIGN §5): parse → candidates → exclude → score → gate → rank →
resolve → pack. Read-only: it takes a store read view and returns a :class:`Outcome`
(results, digest, and every candidate with its numbers and its :class:`Reason`). The
engine writes the trace afterwards; nothing here writes.

Lanes:

* ``claims`` — FTS5 candidates (episodes left out), Cairn's BM25F + phrase bonus, every
  gate applied, ordered by rankScore. With ``known_at`` the records rebuilt from the
  event log are scored in memory instead, and current matches that did not exist then
  are excluded as ``not-yet-recorded``.
* ``episodes`` — the ranked list of :func:`cairn.recall.episodes.rank_episodes`, with the
  same exclusions; gates are computed and *reported*, not applied (evidence-finding wants
  recall more than precision, DESIGN §5).
* ``all`` — both, interleaved claim first (their raw scores are not one scale, seed 004).
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime

from ..errors import InvalidInput
from ..model import Kind, Marker, Memory, memory_from_dict
from ..policy.temporal import temporal_status
from ..store.timetravel import records_known_at
from ..text import normalize, terms
from .episodes import rank_episodes
from .gates import Reason, below_cutoff, exclusion, relevance_gate
from .pack import PACK, PackItem, pack
from .phrase import PhraseHit, holds, list_frequency, phrase_hits
from .query import ParsedQuery, parse_query, validate_query
from .rank import RankFactors, order_key, rank_factors
from .resolve import Resolved, resolve
from .score import SCORE, Lexical, ListStats, field_terms, lexical

__all__ = ["LANES", "Candidate", "Outcome", "Reason", "Request", "ResultItem", "run", "validate"]

LANES = ("claims", "episodes", "all")
MAX_LIMIT = 20  # ours: a digest is for a few memories; search caps at 10
MAX_BUDGET = 65536  # ours
POOL_MIN = 48  # ours: FTS candidates fetched before Cairn's own scoring
COMMON_FRACTION = 0.2  # ours: in a large corpus, terms in >20 % of records do not drive
COMMON_MIN_DOCS = 1000  # candidate fetching when rarer terms exist (they still score)


@dataclass(frozen=True, slots=True)
class Request:
    query: str
    space: str
    now: datetime
    limit: int = PACK.limit
    budget: int = PACK.budget
    lane: str = "claims"
    include_dormant: bool = False
    include_history: bool = False
    as_of: datetime | None = None
    known_at: datetime | None = None


@dataclass(slots=True)
class Candidate:
    """One candidate as it moves through the stages (filled in stage by stage)."""

    id: str
    lane: str
    memory: Memory | None = None
    lane_score: float | None = None  # the episode lane's own score
    lexical: Lexical | None = None
    phrase: PhraseHit | None = None
    raw: float = 0.0
    factors: RankFactors | None = None
    reason: Reason | None = None
    gate: Reason | None = None  # episodes: the gate verdict, reported not applied
    markers: tuple[str, ...] = ()

    def explain(self) -> dict:
        """Numbers only, never the memory body."""
        factors: dict = {}
        if self.lexical is not None:
            factors["bm25"] = round(self.lexical.score, 4)
            factors["coverage"] = round(self.lexical.coverage, 4)
        if self.lane_score is not None:
            factors["lane_score"] = round(self.lane_score, 4)
        if self.phrase is not None:
            factors["phrase"] = self.phrase.to_dict()
        if self.factors is not None:
            factors.update(self.factors.to_dict())
        if self.gate is not None:
            factors["gate_reported"] = self.gate.value
        doc = {
            "id": self.id,
            "lane": self.lane,
            "raw": round(self.raw, 4),
            "rank_score": None if self.factors is None else round(self.factors.rank_score, 4),
            "factors": factors,
            "reason": (self.reason or Reason.SELECTED).value,
        }
        if self.markers:
            doc["markers"] = list(self.markers)
        return doc


@dataclass(frozen=True, slots=True)
class ResultItem:
    id: str
    lane: str
    memory: Memory
    excerpt: str
    truncated: bool
    relevance: float
    rank_score: float
    freshness: float
    aging: bool
    dormant: bool
    markers: tuple[str, ...]
    corrects: tuple[str, ...] = ()
    contradicts: tuple[str, ...] = ()
    superseded_by: str | None = None
    matched: str | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    request: Request
    query: ParsedQuery
    results: list[ResultItem] = field(default_factory=list)
    digest: str = ""
    candidates: list[Candidate] = field(default_factory=list)
    note: str | None = None


# -- validation ------------------------------------------------------------------------


def validate(query, *, limit, budget, lane, max_limit: int = MAX_LIMIT) -> str:
    """Refuse bad input before anything is read or written; returns the stripped query."""
    text = validate_query(query)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= max_limit:
        raise InvalidInput("limit", f"{limit!r}; give 1-{max_limit}")
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise InvalidInput("budget", f"{budget!r} is not a number of bytes")
    if budget < PACK.min_budget:
        raise InvalidInput("budget", f"{budget} bytes is below one digest line (at least {PACK.min_budget})")
    if budget > MAX_BUDGET:
        raise InvalidInput("budget", f"{budget} bytes; at most {MAX_BUDGET}")
    if lane not in LANES:
        raise InvalidInput("lane", f"unknown lane {lane!r} (one of: {', '.join(LANES)})")
    return text


# -- the stages ------------------------------------------------------------------------


def run(view, request: Request) -> Outcome:
    """Run every stage for ``request`` over the read view ``view``. Writes nothing."""
    query = parse_query(request.query)
    if query.context_free:
        return Outcome(request, query, note="context-free query: no topic to recall, so nothing is returned (no recency fallback)")
    claims: list[Candidate] = []
    episodes: list[Candidate] = []
    if request.lane in ("claims", "all"):
        claims = _claims_lane(view, request, query)
    if request.lane in ("episodes", "all"):
        episodes = _episodes_lane(view, request, query)
    ranked = _interleave([c for c in claims if c.reason is None], [c for c in episodes if c.reason is None])
    candidates = claims + episodes
    results, digest = _resolve_and_pack(view, request, ranked, candidates)
    note = None if results else "nothing relevant: every candidate was excluded or rejected (see explain)" if candidates else "nothing matched the query"
    return Outcome(request, query, results, digest, candidates, note)


def _claims_lane(view, request: Request, query: ParsedQuery) -> list[Candidate]:
    if request.known_at is not None:
        records = [m for m in records_known_at(view, request.space, request.known_at) if m.kind is not Kind.EPISODE]
        stats = ListStats(records)
        known = {m.id for m in records}
        matched = [m for m in records if set(query.terms) & (set(field_terms(m.content)) | set(field_terms(" ".join(m.aliases))))]
        later = [m for m in _fts_candidates(view, request.space, query, IndexStats(view), claims=True) if m.id not in known]
        frequency = list_frequency(records)
    else:
        stats = IndexStats(view)
        matched = _fts_candidates(view, request.space, query, stats, claims=True)
        later, frequency = [], _index_frequency(view, request.space)
    candidates = [Candidate(m.id, "claims", m) for m in matched]
    candidates += [Candidate(m.id, "claims", m, reason=Reason.NOT_YET_RECORDED) for m in later]
    _exclude(candidates, request)
    live = [c for c in candidates if c.reason is None]
    hits = phrase_hits(query, [c.memory for c in live], frequency)
    for c in live:
        c.lexical = lexical(query, c.memory, stats)
        c.phrase = hits.get(c.id)
        c.raw = c.lexical.score * (1 + (c.phrase.bonus if c.phrase else 0.0))
        c.reason = relevance_gate(query, c.memory, c.lexical)
    passed = {c.id: c.raw for c in live if c.reason is None}
    low = below_cutoff(passed)
    for c in live:
        if c.reason is None:
            c.factors = rank_factors(c.memory, c.raw, request.now)
            c.reason = Reason.BELOW_CUTOFF if c.id in low else None
    candidates.sort(key=lambda c: (c.reason is not None, order_key(c.id, c.factors) if c.factors else (0,), c.id))
    return candidates


def _episodes_lane(view, request: Request, query: ParsedQuery) -> list[Candidate]:
    pool = max(POOL_MIN, request.limit * 4)
    scored = rank_episodes(view, request.space, request.query, limit=pool)
    memories = view.get_memories(request.space, [s.id for s in scored])
    stats = IndexStats(view)
    candidates: list[Candidate] = []
    for s in scored:
        memory = memories.get(s.id)
        c = Candidate(s.id, "episodes", memory, lane_score=s.score, raw=s.score)
        if memory is None:
            c.reason = Reason.OTHER_SPACE  # not readable in this space
        candidates.append(c)
    _exclude([c for c in candidates if c.reason is None], request)
    live = [c for c in candidates if c.reason is None]
    for c in live:
        # Gates are reported, not applied: this lane serves evidence-finding.
        c.lexical = lexical(query, c.memory, stats)
        c.gate = relevance_gate(query, c.memory, c.lexical)
        c.factors = rank_factors(c.memory, c.raw, request.now)
    low = below_cutoff({c.id: c.raw for c in live if c.gate is None})
    for c in live:
        if c.id in low:
            c.gate = Reason.BELOW_CUTOFF
    return candidates


def _exclude(candidates: list[Candidate], request: Request) -> None:
    """Set the exclusion reason (DESIGN §5.3) and temporal markers of each candidate."""
    for c in candidates:
        if c.reason is not None:
            continue
        temporal = temporal_status(c.memory, now=request.now, as_of=request.as_of)
        dormant = rank_factors(c.memory, 0.0, request.now).dormant
        c.markers = tuple(temporal.markers)
        c.reason = exclusion(
            c.memory,
            space=request.space,
            dormant=dormant,
            include_dormant=request.include_dormant,
            temporal=temporal.exclusion,
        )


def _interleave(first: list[Candidate], second: list[Candidate]) -> list[Candidate]:
    out: list[Candidate] = []
    for i in range(max(len(first), len(second))):
        out += first[i : i + 1] + second[i : i + 1]
    return out


# -- resolve and pack ------------------------------------------------------------------


def _resolve_and_pack(view, request: Request, ranked: list[Candidate], candidates: list[Candidate]):
    if not ranked:
        return [], ""
    by_id = {c.id: c for c in candidates}
    resolved = resolve(view, request.space, [c.id for c in ranked], include_history=request.include_history, now=request.now)
    extra = view.get_memories(request.space, [r.id for r in resolved if r.id not in by_id or by_id[r.id].memory is None])
    items: list[tuple[Resolved, Candidate, Memory]] = []
    for r in resolved:
        source = by_id.get(r.matched or r.id) or by_id.get(r.id)
        memory = by_id[r.id].memory if r.id in by_id and by_id[r.id].memory else extra.get(r.id)
        if memory is None or source is None:
            continue  # unreadable: never invent a result
        if r.id not in by_id:
            # A successor or a predecessor brought in by resolution: same exclusions apply.
            c = Candidate(r.id, source.lane, memory, raw=source.raw)
            _exclude([c], request)
            candidates.append(c)
            by_id[r.id] = c
            if c.reason is not None:
                continue
            c.factors = rank_factors(memory, source.raw, request.now)
        if r.matched and r.matched != r.id and r.matched in by_id:
            by_id[r.matched].reason = Reason.REPLACED
        items.append((r, by_id[r.id], memory))
    pack_items = [_pack_item(r, c, m) for r, c, m in items]
    packed = pack(pack_items, limit=request.limit, budget=request.budget)
    for item_id, reason in packed.rejected:
        if by_id[item_id].reason is None:
            by_id[item_id].reason = reason
    emitted = {item.id: (text, cut) for item, text, cut in packed.emitted}
    results = []
    for r, c, m in items:
        if r.id not in emitted or any(x.id == r.id for x in results):
            continue
        text, cut = emitted[r.id]
        f = c.factors or rank_factors(m, c.raw, request.now)
        results.append(
            ResultItem(
                id=r.id, lane=c.lane, memory=m, excerpt=text, truncated=cut, relevance=c.raw, rank_score=f.rank_score,
                freshness=f.freshness, aging=f.aging, dormant=f.dormant, markers=_markers(r, c, f),
                corrects=tuple(r.corrects), contradicts=tuple(r.contradicts), superseded_by=r.superseded_by,
                matched=r.matched if r.matched and r.matched != r.id else None,
            )
        )
    return results, packed.digest


_MARKER_ORDER = [m.value for m in Marker]


def _markers(r: Resolved, c: Candidate, f: RankFactors) -> tuple[str, ...]:
    found = set(r.markers) | set(c.markers)
    if f.aging:
        found.add(Marker.AGING.value)
    if f.dormant:
        found.add(Marker.DORMANT.value)
    # Only markers of the closed set reach a result.
    return tuple(m for m in _MARKER_ORDER if m in found)


def _pack_item(r: Resolved, c: Candidate, m: Memory) -> PackItem:
    f = c.factors
    markers = _markers(r, c, f) if f else tuple(r.markers)
    labels = (m.kind.value, m.status.value, f"{m.evidence.basis.value}/{m.evidence.method.value}", *markers)
    return PackItem(r.id, m.content, labels, markers, r.superseded_by)


# -- corpus access (read-only SQL on the view's connection) -----------------------------


class IndexStats:
    """Document frequencies from the FTS5 index, through a TEMP ``fts5vocab`` table
    (created in the connection's temp schema: the database file is never touched).

    The index spans every space of the file, so document frequencies are file-wide: a
    number, never a record, crosses spaces. ``docs`` is the highest memory rowid (rows are
    never deleted), an O(1) stand-in for the record count.
    """

    def __init__(self, view) -> None:
        self.conn = view.conn
        self.conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.cairn_fts_vocab USING fts5vocab(main, memories_fts, row)")
        self.docs = int(self.conn.execute("SELECT COALESCE(MAX(rowid), 0) FROM memories").fetchone()[0])
        self._cache: dict[str, int] = {}

    def df(self, term: str) -> int:
        if term not in self._cache:
            row = self.conn.execute("SELECT doc FROM temp.cairn_fts_vocab WHERE term = ?", (_fts_form(term),)).fetchone()
            self._cache[term] = int(row[0]) if row else 0
        return self._cache[term]


def _fts_form(term: str) -> str:
    """The form unicode61 stores a term in (diacritics removed)."""
    decomposed = unicodedata.normalize("NFD", term)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _fts_candidates(view, space: str, query: ParsedQuery, stats: IndexStats, *, claims: bool, pool: int = POOL_MIN) -> list[Memory]:
    """Records of ``space`` whose index holds a query feature, best FTS5 bm25 first.

    Very common terms do not drive fetching when rarer ones exist (they still score):
    an OR over a term in every record would make the pool arbitrary and the query slow.
    """
    feature_terms = [t for t in query.terms if stats.df(t) > 0]  # absent terms fetch nothing
    chosen = feature_terms
    if stats.docs >= COMMON_MIN_DOCS:
        chosen = [t for t in feature_terms if stats.df(t) <= COMMON_FRACTION * stats.docs] or feature_terms
    if not chosen:
        return []
    match = " OR ".join('"' + t.replace('"', '""') + '"' for t in chosen)
    kind_clause = " AND m.kind != 'episode'" if claims else ""
    rows = view.conn.execute(
        "SELECT m.data FROM memories_fts JOIN memories m ON m.rowid = memories_fts.rowid"
        f" WHERE memories_fts MATCH ? AND m.space = ?{kind_clause}"
        " ORDER BY bm25(memories_fts, ?, ?) LIMIT ?",
        (match, space, SCORE.content_weight, SCORE.alias_weight, pool),
    )
    out = []
    for (data,) in rows:
        try:
            out.append(memory_from_dict(json.loads(data)))
        except ValueError:
            continue  # malformed rows are reported by `cairn status`, never fatal here
    return out


def _index_frequency(view, space: str, ceiling: int | None = None, scan: int = 64):
    """How many records of ``space`` hold a span (stops at ceiling + 1).

    FTS5 phrase matching over stemmed terms finds a superset; each hit is verified with
    the exact whole-word rule. At most ``scan`` hits are verified per span.
    """
    from .phrase import PHRASE

    limit = PHRASE.ceiling if ceiling is None else ceiling

    def count(span) -> int:
        phrase = '"' + " ".join(terms(" ".join(span))) + '"'
        rows = view.conn.execute(
            "SELECT json_extract(m.data, '$.content'), json_extract(m.data, '$.aliases')"
            " FROM memories_fts JOIN memories m ON m.rowid = memories_fts.rowid"
            " WHERE memories_fts MATCH ? AND m.space = ? LIMIT ?",
            (phrase, space, scan),
        )
        n = 0
        for content, aliases in rows:
            texts = [normalize(content or ""), *(normalize(a) for a in json.loads(aliases or "[]"))]
            if holds(texts, span):
                n += 1
                if n > limit:
                    break
        return n

    return count

