"""The recall pipeline: parse → candidates → exclude → score → gate → rank → resolve →
pack. Read-only: it takes a store read view and returns an :class:`Outcome` (results,
digest, and every candidate with its numbers and its :class:`Reason`). The engine writes
the trace afterwards; nothing here writes.

Candidates come from lanes (:mod:`cairn.recall.lanes`), looked up by name in the lane
registry: ``claims`` (remembered claims, every gate applied, ordered by rank score) and
``episodes`` (verbatim turns; gates computed and reported, not applied), plus any lane an
installed plug-in registers. A lane excludes and scores its candidates; the gate stage
here applies or only reports the relevance gates as the lane declares. ``all`` is a
composition, not a lane: claims and episodes interleaved, a claim first (their raw
scores are not one scale, so neither list may crowd out the other).

The closed set of reasons, :class:`Reason`, is defined in :mod:`.gates` (the lowest
module that needs it) and re-exported here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import lru_cache, partial
from typing import NamedTuple

from .. import plugins
from ..errors import InvalidInput
from ..model import Kind, Marker, Memory, Status
from ..policy.aging import Freshness, confirmation_anchor, freshness
from ..policy.temporal import temporal_status
from ..store import ReadView
from ..store.timetravel import memory_known_at
from ..text import STOPWORDS, LazyPattern, stem
from . import kept
from .candidates import KEPT_SPACES, IndexStats, index_frequency
from .fusion import FUSIONS, matched
from .gates import (
    GATES,
    Reason,
    below_cutoff,
    exclusion,
    kinds_told_apart,
    names_another,
    of_another_kind,
    relevance_gate,
)
from .lanes import Lane, lane, lane_names
from .pack import PACK, PackItem, Pending, label_text, pack
from .phrase import PhraseHit, phrase_hits
from .query import (
    ParsedQuery,
    asking_verbs,
    closing_verb,
    names_someone,
    parse_query,
    states_form,
    states_quantity,
    states_time,
    store_named,
    validate_query,
)
from .rank import RankFactors, order_key, rank_factors
from .resolve import Resolved, related, resolve
from .score import Lexical, common_words, field_terms, held_terms, lexical
from .variants import expand, lookups

__all__ = [
    "COMPOSITIONS", "LANES", "Candidate", "Outcome", "Reason", "Request", "ResultItem", "exclude", "lane_choices", "run",
    "validate",
]

MAX_LIMIT = 20  # a digest is for a few memories; search caps at 10
MAX_BUDGET = 65536
# Lane names that stand for several lanes, interleaved in this order.
COMPOSITIONS: dict[str, tuple[str, ...]] = {"all": ("claims", "episodes")}
_LEXICAL = ("claims", "episodes")  # listed first, then the compositions and fusions, then every other lane


def lane_choices() -> tuple[str, ...]:
    """Every lane name a request may give: the installed lanes, then the compositions.

    A plug-in registered under a composition's name is never reached, so not listed.
    Raises :class:`~cairn.errors.PluginError` when Cairn's own lanes are not installed."""
    lanes = [name for name in lane_names() if name not in COMPOSITIONS and name not in FUSIONS]
    lexical = [name for name in lanes if name in _LEXICAL]
    return (*lexical, *COMPOSITIONS, *FUSIONS, *(name for name in lanes if name not in _LEXICAL))


class _LaneChoices(Sequence):
    """:func:`lane_choices` as a sequence read on first use, so that importing this
    module (or building the command line) scans no installed metadata. When the
    registry cannot be read it offers the built-in names, leaving the error to be
    raised, with its explanation, when the request is validated."""

    def _names(self) -> tuple[str, ...]:
        try:
            return lane_choices()
        except plugins.PluginError:
            lanes = plugins.BUILTINS[plugins.LANE_GROUP]
            return (*_LEXICAL, *COMPOSITIONS, *FUSIONS, *(name for name in lanes if name not in _LEXICAL))

    def __getitem__(self, index):
        return self._names()[index]

    def __len__(self) -> int:
        return len(self._names())

    def __repr__(self) -> str:
        return f"LANES{self._names()!r}"


LANES: Sequence[str] = _LaneChoices()


@dataclass(frozen=True, slots=True)
class Request:
    """One recall as asked: the query, its space and time, its limits and options."""

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
    include_retired: bool = False  # retired records come back only when asked (search does)
    # Dormant records ranked beside current ones although dormant records were not asked
    # for: those that answer the question as well as the current results
    # (:func:`dormant_beside`), when a lane other than claims alone is run again with them
    # (the claims lane joins them without a second run: :func:`join_dormant`).
    admitted: frozenset[str] = frozenset()
    # origin: only records of this origin (a filter, reason `other-origin`);
    # prefer_origin: records of this origin first among the relevant (a preference, not a filter).
    origin: str | None = None
    prefer_origin: str | None = None
    # The turns a recall falls back on when its claims found nothing (:func:`turn_lane`):
    # of a fusion's turns only those said in the question's words or meant as it is meant
    # are handed out (:func:`_said_or_meant`), as the episode lane hands out only turns
    # that hold a word of the question.
    answering_turns: bool = False


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
    _factors: RankFactors | None = field(default=None, repr=False)  # read as ``factors``
    reason: Reason | None = None
    _gate: Reason | None = field(default=None, repr=False)  # read as ``gate``
    turn_coverage: float | None = None  # episodes: the share of the question the turn holds, as the episode lane reads it
    updates: bool = False  # placed above an earlier turn it says changed (recall.episodes), or an older claim (newer_first)
    by_subject: bool = False  # episodes: spoken by the speaker the question is about
    markers: tuple[str, ...] = ()
    fusion: dict | None = None  # hybrid lanes: each lane's rank and share, the cosine (cairn.recall.fusion)
    judged: bool = False  # exclude() has looked at it (lanes exclude early; the pipeline checks what they did not)
    fresh: Freshness | None = None  # freshness at the request's now, when exclude() needed it (ranking reuses it)
    # (now, raw, fresh) of rank factors owed but not yet made (:meth:`rank_later`)
    _owed: tuple[datetime, float, Freshness | None] | None = field(default=None, repr=False)
    _report: _GateReport | None = field(default=None, repr=False, compare=False)  # gates owed (:class:`_GateReport`)

    @property
    def gate(self) -> Reason | None:
        """Episodes: the gate verdict, reported not applied; a pool's verdicts are judged
        together when the first of them is read (:class:`_GateReport`)."""
        if self._report is not None:
            self._report.judge()
        return self._gate

    @gate.setter
    def gate(self, value: Reason | None) -> None:
        if self._report is not None:
            self._report.judge()  # the reported verdict first, as it was due: this one replaces it
        self._gate = value

    @property
    def factors(self) -> RankFactors | None:
        """The rank factors (:func:`cairn.recall.rank.rank_factors`), made on first read
        when they are owed."""
        if self._owed is not None:
            now, raw, fresh = self._owed
            assert self.memory is not None  # only a candidate with its record is ranked
            self._factors, self._owed = rank_factors(self.memory, raw, now, fresh=fresh), None
        return self._factors

    @factors.setter
    def factors(self, value: RankFactors | None) -> None:
        self._factors, self._owed = value, None

    def rank_later(self, now: datetime) -> None:
        """Owe the rank factors at the relevance the candidate has now (``raw``): made when
        first read, by the packer, explain or a trace, with the same arguments as if made
        here. A search's episode pool is 48 turns for 10 results; most are never packed,
        and their factors are read only when a caller asks for them. Factors already made
        or owed at this relevance are kept."""
        owed = self._owed
        held = owed[1] if owed is not None else None if self._factors is None else self._factors.relevance
        if held != self.raw:
            self._factors, self._owed = None, (now, self.raw, self.fresh)

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
        if self.updates:
            factors["update"] = 1
        if self.fusion:
            factors["fusion"] = self.fusion
        doc = {
            "id": self.id,
            "lane": self.lane,
            "raw": round(self.raw, 4),
            "rank_score": None if self.factors is None else round(self.factors.rank_score, 4),
            "factors": factors,
            "reason": (self.reason or Reason.SELECTED).value,
            # What the record stands on (its evidence weight is in the factors), shown for
            # every candidate, excluded ones too: why a weaker claim lost is part of the answer.
            "basis": None if self.memory is None else self.memory.evidence.basis.value,
            "method": None if self.memory is None else self.memory.evidence.method.value,
        }
        if self.markers:
            doc["markers"] = list(self.markers)
        if self.memory is not None and self.memory.kind is Kind.EPISODE and self.memory.evidence.source_id:
            doc["turn"] = self.memory.evidence.source_id
        return doc


class ResultItem(NamedTuple):
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
    """What one recall found: results, digest, every candidate and the notes on what was withheld."""

    request: Request
    query: ParsedQuery
    results: list[ResultItem] = field(default_factory=list)
    digest: str = ""
    candidates: list[Candidate] = field(default_factory=list)
    note: str | None = None
    scan: dict = field(default_factory=dict)  # postings read, terms whose scan was bounded
    # Silence notes: relevant matches left out, by exclusion reason (dormant, retired,
    # not-yet-valid), and conversation turns a claims-only recall would have found.
    withheld: dict[str, int] = field(default_factory=dict)
    turns_found: int = 0
    # The episode lane's candidates behind ``turns_found``, as that lane judged them for
    # this request: the engine answers from them instead of asking the lane again.
    turn_candidates: list[Candidate] | None = field(default=None, repr=False, compare=False)
    # Dormant records that answer as well as the results (ids, best first): a question
    # asked rather than injected is answered with them too (:func:`dormant_beside`).
    dormant_beside: tuple[str, ...] = ()
    # What the turn lane noted while it was asked for ``turns_found`` (``scan``): the answer
    # from those turns reuses its candidates, and shows its notes.
    turn_scan: dict = field(default_factory=dict, repr=False, compare=False)


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
    # Cairn's own lanes and the compositions need no look at the installed plug-ins.
    if not isinstance(lane, str) or not (lane in COMPOSITIONS or lane in FUSIONS or plugins.is_builtin(plugins.LANE_GROUP, lane)):
        known = lane_choices()
        if lane not in known:
            raise InvalidInput("lane", f"unknown lane {lane!r} (one of: {', '.join(known)})")
    return text


# -- the stages ------------------------------------------------------------------------


def run(view: ReadView, request: Request, asked: Mapping[str, list[Candidate]] | None = None,
        parsed: ParsedQuery | None = None, scanned: Mapping[str, object] | None = None) -> Outcome:
    """Run every stage for ``request`` over the read view ``view``. Writes nothing.

    ``asked``: lanes already asked for this request in this view, by name, with the
    candidates they gave (``Outcome.turn_candidates``); those are not asked again (a
    fusion's: its ranked candidates first, in the fused order, then the rest), and
    ``scanned`` is what they noted when they were asked (``Outcome.turn_scan``).
    ``parsed``: ``parse_query(request.query)`` when the caller has it (``Outcome.query``
    of a recall of the same text): parsing is pure, and a recall asked again with the
    dormant records or the turns need not pay it twice."""
    query = parse_query(request.query) if parsed is None else parsed
    if query.context_free:
        why = "context-free query: no topic to recall, so nothing is returned (no recency fallback)"
        return Outcome(request, query, note=why)
    scan: dict = dict(scanned) if asked and scanned else {}
    if request.lane in FUSIONS:
        fused = (asked or {}).get(request.lane)
        if fused is not None:
            # A fusion's candidates as :func:`_turns_found` kept them: its ranked ones first,
            # in the fused order, then the rest (every live one was ranked).
            ranked, candidates = [c for c in fused if c.reason is None], fused
        else:
            ranked, candidates = _fused(view, request, query, scan)
        if request.answering_turns:
            ranked = [c for c in ranked if _said_or_meant(c)]
    else:
        names = COMPOSITIONS.get(request.lane, (request.lane,))
        given = asked or {}
        per_lane = [given[name] if name in given else _lane_candidates(lane(name), view, request, query, scan)
                    for name in names]
        ranked = _interleave([[c for c in found if c.reason is None] for found in per_lane])
        candidates = [c for found in per_lane for c in found]
    ranked = settle(ranked, request, query)
    results, digest = _resolve_and_pack(view, request, ranked, candidates)
    note: str | None = None
    withheld: dict[str, int] = {}
    turns = 0
    turn_candidates: list[Candidate] | None = None
    turn_scan: dict = {}
    if not results:
        found = any(matched(c) for c in candidates)
        # Silence says a retired record matched, and the trace lists it with its reason.
        candidates = candidates + _retired_matches(view, request, query)
        withheld = _withheld(view, request.space, _as_judged(query, candidates), candidates)
        if request.lane in ("claims", "hybrid"):
            turns, turn_candidates, turn_scan = _turns_found(view, request, query)
        note = _silence_note(request, withheld, turns, found)
    else:
        # Only a dormant candidate is judged beside results: no names to read without one.
        judged = _as_judged(query, candidates) if any(c.reason is Reason.DORMANT for c in candidates) else query
        beside = dormant_beside(view, request, judged, candidates, results, ranked)
        if beside:
            dormant = len(beside)
            withheld = {Reason.DORMANT.value: dormant}
            note = (f"also {dormant} dormant {'memory matches' if dormant == 1 else 'memories match'} as well as "
                    f"these (not confirmed lately): see {'it' if dormant == 1 else 'them'} with --include-dormant "
                    "or `cairn search`")
        return Outcome(request, query, results, digest, candidates, note, scan, withheld, turns, turn_candidates,
                       dormant_beside=beside)
    return Outcome(request, query, results, digest, candidates, note, scan, withheld, turns, turn_candidates,
                   turn_scan=turn_scan)


def _as_judged(query: ParsedQuery, candidates: list[Candidate]) -> ParsedQuery:
    """``query`` as the lane judged its candidates: with the names its notes showed
    (:func:`~cairn.recall.query.store_named`), so that an excluded record that would fail
    the gates under them is never promised as hidden."""
    return store_named(query, (c.memory.content for c in candidates if c.memory is not None))


# Lanes whose candidates carry their record as this read view holds it now, handed to
# resolution (the semantic lanes are left to read theirs).
READ_AS_IS = frozenset(("claims", "episodes"))

WITHHELD_CHECKED = 6  # excluded candidates judged for the silence note (best overlap first)
DORMANT_CHECKED = 3  # dormant candidates judged beside a recall that returned something
COVERAGE_TIE = 1e-9  # coverages this close are equal (sums of the same word weights)

# Exclusions that hide a relevant memory a caller can still ask for, and how.
_WITHHELD_HINTS: dict[Reason, str] = {
    Reason.DORMANT: "dormant (not confirmed lately): see them with --include-dormant or `cairn search`",
    Reason.RETIRED: "retired: see them with `cairn timeline`",
    Reason.NOT_YET_VALID: "not valid yet: see them with --include-history, or --as-of a time they hold",
}


def _withheld(view: ReadView, space: str, query: ParsedQuery, candidates: list[Candidate]) -> dict[str, int]:
    """How many excluded candidates would have passed the relevance gates, by reason.

    Only the exclusions a caller can lift are counted, and only candidates that match
    the question (an excluded record sharing one common word is no hidden answer)."""
    counts: dict[str, int] = {}
    scoring: _Scoring | None = None
    # Candidates arrive best overlap first; the first few decide whether anything relevant
    # was hidden, and scoring every excluded one would cost an empty recall milliseconds.
    hidden = [c for c in candidates if c.reason in _WITHHELD_HINTS and c.memory is not None][:WITHHELD_CHECKED]
    for c in hidden:
        assert c.memory is not None and c.reason is not None
        if c.lexical is None:
            scoring = scoring or _Scoring(view, space, query)
            c.lexical = scoring.lexical(c.memory)
        if relevance_gate(query, c.memory, c.lexical, anchored=_anchored(c)) is None:
            counts[c.reason.value] = counts.get(c.reason.value, 0) + 1
    return counts


def dormant_beside(view: ReadView, request: Request, query: ParsedQuery, candidates: list[Candidate],
                   results: list[ResultItem], ranked: list[Candidate]) -> tuple[str, ...]:
    """The dormant matches that answer the question as well as what a recall returned: they
    pass the relevance gates, cover at least as much of the question as the least covering
    result, and no result replaces them (:func:`_replaces`: of their kind and saying what
    changed, or naming what they say as replaced). Only the best few by overlap are judged.

    Old is not false: "who's my GP" answered by a current note that mentions the doctor in
    passing should not hide the year-old note that says who the GP is, nor "when is the
    paper due" the deadline behind a note on its co-author. A dormant record that matches
    less well, or whose matter a current result has updated ("the VPN gateway moved to
    gw.example.net"), is what dormancy is for."""
    returned = {r.id for r in results}
    kept = [c for c in ranked if c.id in returned and c.lexical is not None]
    if not kept:
        return ()
    floor = min(c.lexical.coverage for c in kept if c.lexical is not None)
    # Asked for a time that no result states, a dormant note that states one answers
    # better however little else of the question it holds (:func:`timed_first`).
    untimed = query.when and not any(c.memory is not None and states_time(c.memory.content) for c in kept)
    hidden = [c for c in candidates if c.reason is Reason.DORMANT and c.memory is not None][:DORMANT_CHECKED]
    scoring: _Scoring | None = None
    found: list[str] = []
    for c in hidden:
        assert c.memory is not None
        if c.lexical is None:
            scoring = scoring or _Scoring(view, request.space, query)
            c.lexical = scoring.lexical(c.memory)
        if c.lexical.coverage < floor - COVERAGE_TIE and not (untimed and states_time(c.memory.content)):
            continue
        if relevance_gate(query, c.memory, c.lexical, anchored=_anchored(c)) is not None:
            continue
        if not any(_replaces(later, c, query) for later in kept):
            found.append(c.id)
    return tuple(found)


JOIN_REACH = 2  # a joined record ranked below twice the limit is not packed (resolution drops few)


def join_dormant(view: ReadView, outcome: Outcome) -> Outcome | None:
    """``outcome`` with its dormant answers (``Outcome.dormant_beside``) ranked beside its
    results, as a recall with them admitted (``Request.admitted``) ranks them, without
    asking the lane again: they were scored when judged, they set no cutoff, and the rest
    keeps the verdicts it had. Only for the claims lane alone (None otherwise: the caller
    runs the recall again)."""
    request, query, candidates = outcome.request, outcome.query, list(outcome.candidates)
    if request.lane != "claims" or not outcome.dormant_beside:
        return None
    admitted = [c for c in candidates
                if c.id in outcome.dormant_beside and c.memory is not None and c.lexical is not None]
    # The phrase bonus as the lane pays it, with the question as the lane widened it.
    widened = kept.table(view, ("expanded", request.space), kept.EXPANDED_KEPT).get(query, query)
    hits = phrase_hits(widened, [c.memory for c in admitted if c.memory is not None],
                       index_frequency(view, request.space)) if request.known_at is None else {}
    for c in admitted:
        assert c.memory is not None and c.lexical is not None
        c.phrase = hits.get(c.id)
        c.reason, c.raw = None, c.lexical.score * (1 + (c.phrase.bonus if c.phrase else 0.0))
        c.factors = rank_factors(c.memory, c.raw, request.now, fresh=c.fresh)
    # What _order then settle rank (the sort is stable: sorting the ranked alone keeps
    # their order among themselves).
    key = _order_key(request)
    ranked = settle(sorted((c for c in candidates if c.reason is None), key=key), request, query)
    ids = {c.id for c in admitted}
    if _packet_full(view, outcome, ranked, admitted):
        results: list[ResultItem] = []  # the packet fills before any joined record: the recall as it was
    elif not any(c.id in ids for c in ranked[:JOIN_REACH * request.limit]):
        results = []  # ranked too low to be packed: the recall as it was
    else:
        candidates.sort(key=key)  # as _order sorts them
        results, digest = _resolve_and_pack(view, request, ranked, candidates)
    if not any(r.dormant for r in results):
        for c in admitted:  # none ranked in: the recall as it was, its note naming them
            c.reason, c.raw, c.factors, c.phrase = Reason.DORMANT, 0.0, None, None
        return outcome
    return replace(outcome, results=results, digest=digest, candidates=candidates, dormant_beside=())


def _packet_full(view: ReadView, outcome: Outcome, ranked: list[Candidate], admitted: list[Candidate]) -> bool:
    """Whether the joined ranking opens with a full packet of the results, in the order
    they were packed, and nothing ranked has a relation: then no joined record can be
    packed, and resolving and packing again would give the recall as it was. What is
    ranked is the results and the joined records (the packer gave every other candidate
    its reason); without relations resolution hands them on as they are ranked (no
    correction, contradiction or history placed beside any), and the results pack as
    they did (each after the same lines; the origin label, if now left out, only
    shortens them), so the packet is full before the first joined record is reached.
    A joined record that contradicts a result, or that a result superseded, is placed
    right after it: that takes the full join."""
    request = outcome.request
    shown = [r.id for r in outcome.results]
    return (len(shown) >= request.limit and request.known_at is None and len(ranked) == len(shown) + len(admitted)
            and [c.id for c in ranked[: len(shown)]] == shown
            and not any(related(view, request.space, c.id) for c in ranked))


class _Scoring:
    """Lexical scores of excluded candidates, which the lanes leave unscored, for the
    questions silence asks of them: with the query's words widened by the spellings the
    index holds, as a lane scores (:func:`cairn.recall.variants.expand`), so that a
    dormant record is judged as it would be if it were current ("the EMNLP trip" meets
    "travel to EMNLP" either way)."""

    def __init__(self, view: ReadView, space: str, query: ParsedQuery) -> None:
        self.stats = IndexStats(view, space)
        widened = kept.table(view, ("expanded", space), kept.EXPANDED_KEPT).get(query)  # as the claims lane widened it
        if widened is None:
            self.stats.prefetch(lookups(query))
            widened = expand(query, self.stats)
        self.query = widened

    def lexical(self, memory: Memory) -> Lexical:
        return lexical(self.query, memory, self.stats)


def _retired_matches(view: ReadView, request: Request, query: ParsedQuery) -> list[Candidate]:
    """Retired records are no candidates (the store skips them, so they take no place in
    the pool). When a claims recall finds nothing, the claims lane is asked once more with
    them, so that silence can say a retired record matched (only then: it costs a lane)."""
    if request.include_retired or request.known_at is not None:
        return []
    if "claims" not in COMPOSITIONS.get(request.lane, FUSIONS.get(request.lane, (request.lane,))):
        return []
    counts = kept.table(view, "retired", 64)  # kept while the store's data is unchanged
    if request.space not in counts:
        counts[request.space] = view.count_memories(request.space, statuses=(Status.RETIRED.value,))
    if not counts[request.space]:
        return []  # nothing retired in this space (an index count): no second lane run
    found = _lane_candidates(lane("claims"), view, replace(request, include_retired=True), query, {})
    retired = [c for c in found if c.memory is not None and c.memory.status is Status.RETIRED]
    for c in retired:
        c.reason = Reason.RETIRED
    return retired


RESCUE_SHARED = 2  # words of the question both must hold before the cutoff spares the later one (one, "tea", is a topic)


def _updates_of_survivors(live: list[Candidate], low: set[str], request: Request, query: ParsedQuery) -> set[str]:
    """The candidates below the relative cutoff that a present-tense question keeps: each
    answers alike (:func:`_alike`) a survivor of the same kind that is older. The cutoff
    weighs scores, where a longer note loses to a shorter one holding the same words;
    the later note is the likelier to say how things are now (:func:`newer_first`). Both
    must hold at least :data:`RESCUE_SHARED` words of the question: one shared word ("who
    do we get our *tea* from") makes notes on one topic, not two answers to one question —
    unless the later one says what changed in the older one's matter (:func:`_declares_change`)."""
    if not low or not _asks_now(request):
        return set()
    survivors = [c for c in live if c.reason is None and c.id not in low and c.memory is not None]
    out: set[str] = set()
    for c in live:
        if c.id not in low or c.reason is not None or c.memory is None or c.memory.kind is Kind.EPISODE:
            continue
        anchor = confirmation_anchor(c.memory)
        held = _held(c)
        named = _named_as_replaced(c.memory.content)
        if any(k.memory is not None and confirmation_anchor(k.memory) < anchor
               and ((k.memory.kind is c.memory.kind
                     and ((_alike(_held(k), held, k, c) and len(_held(k) & held) >= RESCUE_SHARED)
                          or _declares_change(c, k, query)))
                    or (named and names_replaced(c, k))) for k in survivors):
            out.add(c.id)
    return out


def _asks_now(request: Request) -> bool:
    """Whether the question asks how things are now: not in the past tense, no --as-of before now."""
    if request.as_of is not None and request.as_of < request.now:
        return False
    from .tense import Tense, tense  # only when two claims could trade places: not on a recall process's import path

    return tense(request.query) is not Tense.PAST


def _may_update(later: Candidate, older: Candidate) -> bool:
    """Whether ``later`` is a later note that says something changed and holds a word of
    the question that ``older`` holds: it may update it, so no rule that only reorders
    moves ``older`` above it."""
    if later.memory is None or older.memory is None or later.factors is None or older.factors is None:
        return False
    return (older.factors.anchor < later.factors.anchor and bool(_held(later) & _held(older))
            and not CHANGE_WORDS.isdisjoint(field_terms(later.memory.content)))


def newer_first(ranked: list[Candidate], request: Request, query: ParsedQuery | None = None) -> list[Candidate]:
    """Asked about the present, a claim placed below an older claim of the same kind that
    answers the question alike (:func:`_alike`, through at least :data:`RESCUE_SHARED` of
    its words: every note on a one-word topic holds that word) takes its place, just above it: when two
    notes answer alike, the later one is the more likely to say how things are now ("late
    homework loses 10 percent a day" and, ten weeks later, "late homework is accepted
    without penalty up to 48 hours"), however their lengths weigh in the scores; so does a
    later claim that says what changed in another note's matter (:func:`_declares_change`). A
    declared correction is the stronger evidence and is followed first (``resolve``); this
    only orders what no relation orders. Past-tense questions and ``--as-of`` keep the
    scores' order; a pinned claim keeps its place, and the caller's preferred origin stays
    first (a claim moves only among claims inside it, or among those outside). A moved
    claim shows ``update`` in explain."""
    claims = [c for c in ranked if c.memory is not None and c.memory.kind is not Kind.EPISODE and c.factors is not None]
    if len(claims) < 2 or not _asks_now(request):
        return ranked  # conversation turns have their own rule (recall.episodes)
    out = list(ranked)
    i = 1
    while i < len(out):
        later = out[i]
        words = _held(later)
        if words and later.factors is not None and later.memory is not None and later.memory.kind is not Kind.EPISODE:
            named = _named_as_replaced(later.memory.content)
            for j in range(i):
                older = out[j]
                if (older.memory is not None and older.factors is not None
                        and not older.memory.pinned and _elsewhere(older, request) == _elsewhere(later, request)
                        and older.factors.anchor < later.factors.anchor
                        and ((older.memory.kind is later.memory.kind and updates(later, older, query))
                             or (named and names_replaced(later, older)))):
                    out.insert(j, out.pop(i))
                    later.updates = True
                    break
        i += 1
    return out


def settle(ranked: list[Candidate], request: Request, query: ParsedQuery) -> list[Candidate]:
    """The ranking's last word on the gated, scored candidates: updates above what they
    update (:func:`newer_first`), then, asked who, the claims naming someone first
    (:func:`named_first`), and, asked when, only the claims that state a time when any
    does (:func:`timed_first`)."""
    return timed_first(named_first(newer_first(ranked, request, query), query), query)


def named_first(ranked: list[Candidate], query: ParsedQuery) -> list[Candidate]:
    """Asked who ("who does my taxes", "who is on my committee now"), the claims that
    name someone (a capitalised word inside a sentence: a person, a firm) rank before
    those that name no one, each group in its order; nothing is left out, since a
    plain noun may answer too ("Customers pay return postage"). Applied after
    :func:`newer_first`: a note it lifted, or a later note that may update a named one
    (:func:`_may_update`), keeps its place above it. Conversation turns keep their places."""
    if not _WHO_RE.match(query.text):
        return ranked
    claims = [c for c in ranked if c.memory is not None and c.memory.kind is not Kind.EPISODE]
    named = [c for c in claims if c.memory is not None and names_someone(c.memory.content)]
    if not named or len(named) == len(claims):
        return ranked
    ids = {c.id for c in named}
    # "our accountant is now the bookkeeping firm upstairs, since we switched in May"
    ids |= {c.id for c in claims if c.id not in ids and (c.updates or any(_may_update(c, n) for n in named))}
    order = iter([c for c in claims if c.id in ids] + [c for c in claims if c.id not in ids])
    return [next(order) if c.memory is not None and c.memory.kind is not Kind.EPISODE else c for c in ranked]


_WHO_RE = re.compile(r"\s*(?:who|whom|whose)\b", re.IGNORECASE)
def timed_first(ranked: list[Candidate], query: ParsedQuery) -> list[Candidate]:
    """Asked for a time ("when does my funding run out", "which day do I teach", "how
    often do we release"), when at least one ranked claim states a time, the claims that
    state none are left out (``missing-attribute``): a time is the form the answer takes,
    and a note on the topic that names no time ("Currently re-running the analysis") beside
    one that does ("My funding ends on 30 September") answers another question. When no
    claim states a time the ranking stands: a note may say when in words no time pattern
    knows ("dbt runs after every load finishes"). Pinned claims and conversation turns keep
    their place. The gates apply it before the relative cutoff (a timed note is not cut
    below untimed ones that hold more of the words); this applies it again once dormant
    answers have joined."""
    untimed = _untimed(ranked, query)
    if not untimed:
        return ranked
    for c in untimed:
        c.reason = Reason.MISSING_ATTRIBUTE
    out = {c.id for c in untimed}
    return [c for c in ranked if c.id not in out]


def _untimed(passed: list[Candidate], query: ParsedQuery) -> list[Candidate]:
    """The claims of ``passed`` that :func:`timed_first` leaves out: none unless the
    question asks for a time and some claim, but not every claim, states one."""
    if not query.when:
        return []
    claims = [c for c in passed if c.memory is not None and c.memory.kind is not Kind.EPISODE and not c.memory.pinned]
    untimed = [c for c in claims if c.memory is not None and not states_time(c.memory.content)]
    return untimed if len(untimed) < len(claims) else []


def updates(later: Candidate, older: Candidate, query: ParsedQuery | None = None) -> bool:
    """Whether ``later`` reads as the update of ``older`` (taken to be the older, and of
    its kind): it answers the question alike through at least :data:`RESCUE_SHARED` of
    the same words, or it says what changed in ``older``'s matter."""
    words = _held(later)
    return ((_alike(_held(older), words, older, later) and len(_held(older) & words) >= RESCUE_SHARED)
            or _declares_change(later, older, query))


def _replaces(later: Candidate, older: Candidate, query: ParsedQuery) -> bool:
    """Whether ``later`` says that it replaces ``older``: a note of its kind that says
    something changed and updates it (:func:`updates`: "the VPN gateway moved to
    gw.example.net" after "the VPN gateway is vpn.example.org"). Two notes that say nothing
    of a change ("dbt models live in the analytics-dbt repo", "dbt tests run on every
    model") are two answers, however alike; so are notes of two kinds ("Dr. Patel changed
    the iron tablet" is no new GP)."""
    if later.memory is None or older.memory is None:
        return False
    if later.memory.kind is not older.memory.kind:
        return names_replaced(later, older)
    return not CHANGE_WORDS.isdisjoint(field_terms(later.memory.content)) and updates(later, older, query)


# "moved crash reporting *from Crashlytics* to Sentry", "*replaced finAPI* with Tink",
# "Salesforce *instead of* HubSpot": the words right after these name what was replaced.
_REPLACED_RE = LazyPattern(r"\b(?:from|replaced|replacing|replace|instead\s+of|no\s+longer|dropped|dropping)\s+"
                           r"(?:the\s+|our\s+|my\s+|a\s+|an\s+)?([^\W_][\w.-]*)", re.IGNORECASE)


def names_replaced(later: Candidate, older: Candidate) -> bool:
    """Whether ``later`` says it changed something and names, as what was replaced, a word
    the older note holds that is no common word ("we moved the home insurance from *Aviva*
    to LV" after "buildings and contents insurance is with Aviva"): it updates that note
    whatever kind each was filed as — a decision often records the change of a fact.
    Sharing a name is not enough ("Dr. Patel changed the iron tablet" changes nothing of
    "my GP is Dr. Patel")."""
    if later.memory is None or older.memory is None or later.memory.kind is Kind.EPISODE:
        return False
    named = _named_as_replaced(later.memory.content)
    return bool(named) and not named.isdisjoint(held_terms(older.memory.content))


@lru_cache(maxsize=4096)
def _named_as_replaced(text: str) -> frozenset[str]:
    """The uncommon words a note names as what it replaced, when it says that something
    changed (a pure function of the text, kept for the recently seen notes)."""
    if _REPLACED_RE.search(text) is None or CHANGE_WORDS.isdisjoint(held_terms(text)):
        return frozenset()
    return frozenset(term for match in _REPLACED_RE.finditer(text) for term in field_terms(match.group(1))
                     if term.isalpha() and term not in STOPWORDS and term not in common_words())


ALIKE_COVERAGE = 0.05  # two claims whose coverage of the question differs by no more answer it alike ...
ALIKE_SHARED = 0.5  # ... when at least this share of the words either holds is held by both


def _alike(older: frozenset[str], later: frozenset[str], a: Candidate, b: Candidate) -> bool:
    """Whether two claims answer the question alike: about the same share of it, mostly
    through the same words ("late homework ... per day" and "late homework is accepted")."""
    if not older or not later or a.lexical is None or b.lexical is None:
        return False
    shared = len(older & later) / max(len(older), len(later))
    return shared >= ALIKE_SHARED and b.lexical.coverage >= a.lexical.coverage - ALIKE_COVERAGE


# Words with which a note says that it replaces what was true before: "Marcus moved our
# weekly call to Tuesdays", "Salesforce sync now runs every 4 hours", "we replaced Airflow
# with Dagster". In a note (not in conversation, where "now" is filler) "now" says it too.
CHANGE_WORDS = frozenset(stem(w) for w in """moved switched instead rescheduled anymore replaced postponed
    changed now upgraded migrated renamed""".split())
# Asked where, a note that says its matter moved somewhere ("Alice moved to Utrecht").
_WHERE_RE = re.compile(r"\s*where\b", re.IGNORECASE)
_MOVED_TO_RE = LazyPattern(r"\b(?:moved|moving|relocated|relocating|switched)\s+(?:\w+\s+){0,2}?(?:to|into)\b", re.IGNORECASE)


# Words two notes share without being about one thing: quantifiers the table of common
# words lacks ("synced every 15 minutes", "runs every 4 hours").
_PLAIN = frozenset(stem(w) for w in "every each per both either neither because".split())


def _declares_change(later: Candidate, older: Candidate, query: ParsedQuery | None = None) -> bool:
    """Whether ``later`` updates ``older`` although it does not answer alike: it says that
    something changed, holds a word of the question that ``older`` holds too, and shares
    with it a word the question did not bring — the thing changed ("target finish time for
    the Seville Marathon: 3 hours 45" and, later, "moved my Seville target to 3:30") — or
    both state what the question asks for in its form ("when does salesforce load":
    "Salesforce is loaded nightly at 02:00" and, later, "Salesforce sync now runs every 4
    hours"); or the later holds at least two words of the question and every one the older
    holds but the asker's verb ("Omar now takes his eggs poached" after "Omar likes his eggs
    scrambled"); or, asked where, the later says its matter moved somewhere ("Alice moved to
    Utrecht"). Words of the question alone make two notes on one topic ("Acme renews on 1
    February" and "Acme now has 150 seats"; "the support team moved to Lisbon" is no answer
    on its working hours), not one note and its update."""
    if later.memory is None or older.memory is None:
        return False
    asked = _held(later) | _held(older)
    if not (_held(later) & _held(older)):
        return False
    words = set(field_terms(later.memory.content))
    if CHANGE_WORDS.isdisjoint(words):
        return False
    if (query is not None and len(_held(later) & _held(older)) >= RESCUE_SHARED
            and _held(older) - _held(later) <= asking_verbs(query.text) | {closing_verb(query.text)}):
        # Two words of the question in both, every one the older holds but the asker's verb
        # in the later, and the later says what changed: "Omar now takes his eggs poached"
        # after "Omar likes his eggs scrambled", asked "how does Omar like his eggs".
        return True
    if query is not None and _WHERE_RE.match(query.text) and _MOVED_TO_RE.search(later.memory.content):
        # Asked where, a later note that says its matter moved somewhere ("Alice moved to
        # Utrecht" after "Alice lives in Rotterdam") gives the new place.
        return True
    if (query is not None and states_form(query, later.memory.content) and states_form(query, older.memory.content)
            and _held(older) - _held(later) <= {closing_verb(query.text)}):
        # Both answer in the form asked, and the later holds every word of the question the
        # older holds but the verb: "Salesforce ... loaded nightly" then "Salesforce sync
        # now runs every 4 hours"; not "Orders ... synced every 15 minutes" then it.
        return True
    own = words & set(field_terms(older.memory.content))
    return any(w.isalpha() and w not in asked and w not in STOPWORDS and w not in _PLAIN and w not in common_words()
               for w in own)


def _held(c: Candidate) -> frozenset[str]:
    """The question's words a candidate holds (content or aliases), or none when unscored."""
    return frozenset() if c.lexical is None else c.lexical.in_content | c.lexical.in_aliases


def _anchored(c: Candidate) -> bool:
    """Whether the candidate holds a phrase anchor of the query (a bonus was paid)."""
    return c.phrase is not None and c.phrase.bonus > 0


# A conversation turn answers a question that found no claim when it passes the relevance
# gates, or when the gates found only its subject missing and it holds at least half of
# what the question asks about as the episode lane reads it: in conversation the subject
# is often its speaker, or named in the turn before ("who is the contact at Northwind" ->
# "Their contact is Grace Liu", after "Northwind signed!"), and a speaker's name selects
# that speaker's turns rather than being looked for in the text (the gates want "Jonas" in
# "where does Jonas's sister live now"; the lane reads "sister" and "live", said by Jonas),
# and words meet through their strong stems. A turn that holds too little of the question
# for the gates is no answer however the lane counts ("how much is the water bill" is not
# answered by the electricity bill, nor by flour and water). A turn spoken by the person
# the question is about answers when it holds any word of the question: the speaker is
# the subject, as a named subject is for a claim, and the word is what is asked of them
# ("which shoes does Jon wear" -> Jon: "... since I switched to the Hoka Clifton shoes");
# "does Jon have a cat" finds no turn of Jon's saying "cat".
TURN_ANSWER_COVERAGE = 0.5


def _answers(c: Candidate) -> bool:
    """Whether an episode-lane candidate answers a question that found no claim. A turn
    that asks ("Oh exciting! Which school?") answers nothing by the subject rule: its
    speaker holds the question's word by asking it too."""
    if c.reason is not None:
        return False
    coverage = c.turn_coverage or 0.0
    return (c.gate is None or (c.gate is Reason.MISSING_SUBJECT and coverage >= TURN_ANSWER_COVERAGE)
            or (c.by_subject and coverage > 0 and not _asks(c)))


def _asks(c: Candidate) -> bool:
    """Whether the candidate's text is itself a question (it ends with a question mark)."""
    return c.memory is not None and c.memory.content.rstrip().endswith(("?", "？"))


# The lane a recall's turns come from when its claims found nothing: meaning too when the
# recall weighed meaning for its claims (the default with the semantic extra), so that
# "which restaurant are we eating at" meets "The George does a good dinner, I'll book a
# table" as a paraphrase meets a claim.
TURN_LANES = {"hybrid": "hybrid-episodes"}


def turn_lane(request: Request) -> str:
    """The lane :func:`_turns_found` asks for ``request`` (:data:`TURN_LANES`)."""
    return TURN_LANES.get(request.lane, "episodes")


def _turns_found(view: ReadView, request: Request,
                 query: ParsedQuery) -> tuple[int, list[Candidate] | None, dict]:
    """Conversation turns that the episodes lane (:func:`turn_lane`) finds and that answer
    the question (:data:`TURN_ANSWER_COVERAGE`, in the form it asks for:
    :func:`_in_asked_form`): a claims recall that found nothing either says so or, asked
    rather than injected, answers from them (``cairn.engine.recalling``). Returns the count,
    the lane's candidates (None when the lane was not asked) and what it noted (``scan``)."""
    if not plugins.is_builtin(plugins.LANE_GROUP, "episodes") or not _holds_episodes(view, request.space):
        return 0, None, {}
    name = turn_lane(request)
    scan: dict = {}
    if name in FUSIONS:
        # Kept as run() reads a fusion asked before: the ranked first, in the fused order.
        ranked, merged = _fused(view, replace(request, lane=name), query, scan)
        kept_ids = {c.id for c in ranked}
        found = ranked + [c for c in merged if c.id not in kept_ids]
    else:
        found = _lane_candidates(lane(name), view, request, query, scan)
    turns = sum(1 for c in found if _answers(c) and _in_asked_form(query, c))
    return turns, found, scan


def _said_or_meant(c: Candidate) -> bool:
    """Whether a fused turn holds a word of the question (or is said by the person it is
    about), or passed the semantic gate on meaning: a turn whose nearness in meaning the
    gate found too weak, and that shares no word with the question, lends context and is
    not handed out ("what happened to the dog" is not answered by "she moved to Berlin")."""
    return (c.turn_coverage or 0.0) > 0 or c.by_subject or c.gate is None


def _in_asked_form(query: ParsedQuery, c: Candidate) -> bool:
    """Whether a turn states what the question asks for in the form its answer takes, when
    it asks for one (:func:`~cairn.recall.query.states_form`, as for claims): "when is the
    harvest supper" is not answered by "we'll give you a send-off at the harvest supper",
    nor "what time is Chloe's pottery class" by "I was at my pottery class". In conversation
    a count comes with its own noun ("131 finishers" answers "how many people finished the
    10k"), so there any number stated is a quantity."""
    if c.memory is None:
        return False
    text = c.memory.content
    if query.quantity and not query.detail and not query.version:
        return states_quantity(text)
    return states_form(query, text) is not False


def _holds_episodes(view: ReadView, space: str) -> bool:
    """Whether ``space`` may hold a conversation turn, by the store's one-row probe when
    it has one (``holds_episodes``; kept while the data is unchanged): in a claims-only
    space the episode lane would still parse the question and read the claims' postings
    to find that none of them is a turn. A store without the probe is asked through the
    lane, as before."""
    probe = getattr(view, "holds_episodes", None)
    if probe is None:
        return True
    known = kept.table(view, "holds-episodes", KEPT_SPACES)
    if space not in known:
        known[space] = bool(probe(space))
    return known[space]


def _silence_note(request: Request, withheld: dict[str, int], turns: int, any_candidate: bool) -> str:
    """Silence must mean "nothing relevant", never "something was hidden"."""
    parts: list[str] = []
    for reason, hint in _WITHHELD_HINTS.items():
        n = withheld.get(reason.value, 0)
        if n:
            parts.append(f"{n} matching {'memory is' if n == 1 else 'memories are'} {hint}")
    if turns:
        parts.append(
            f"{turns} conversation {'turn matches' if turns == 1 else 'turns match'}: "
            f"see them with --lane {turn_lane(request)} (or --lane all)"
        )
    if parts:
        return "nothing current to recall; " + "; ".join(parts)
    if any_candidate:
        return "nothing relevant: every candidate was excluded or rejected (see explain)"
    return "nothing matched the query"


def _lane_candidates(source: Lane, view: ReadView, request: Request, query: ParsedQuery, scan: dict) -> list[Candidate]:
    """One lane's candidates, excluded, scored, then gated (or only judged) and ordered."""
    candidates = source.candidates(view, request, query, scan)
    exclude(candidates, request)  # what the lane did not judge: no lane can let an excluded record through
    live = [c for c in candidates if c.reason is None]
    missing = [c for c in live if c.lexical is None]
    if missing:
        # A lane that leaves its candidates unscored (the semantic lanes): scored with the
        # question's words widened as the claims lane widens them ("built" meets "build"),
        # so that the gates judge every lane's candidates alike.
        scoring = _Scoring(view, request.space, query)
        for c in missing:
            assert c.memory is not None  # exclude() put every candidate without one out
            c.lexical = scoring.lexical(c.memory)
    own_gate = getattr(source, "apply_gates", None)
    if own_gate is not None or source.applies_gates:
        # A question typed in lower case: the notes found say which of its words is a name.
        named = store_named(query, (c.memory.content for c in candidates if c.memory is not None))
        if named is not query:
            scan["store_named"] = {"subject": named.subject, "attributes": list(named.attributes)}
            query = named
    if own_gate is not None:
        own_gate(live, query, request)  # a lane with its own relevance gate (the semantic lanes)
        if source.applies_gates:
            _order(candidates, request)
    elif source.applies_gates:
        _apply_gates(live, query, request)
        _order(candidates, request)
    else:
        _report_gates(live, query, request)
    return candidates


_LEFT_OUT = (True, False, (0,))  # the order key of a candidate left out and unranked


def _order(candidates: list[Candidate], request: Request) -> None:
    """Ranked candidates first, in rank order; then the rest in the order the lane found
    them (best overlap first): the silence note and the dormant answers judge the first
    few of those, which must be the likeliest, not the first few ids."""
    # The sort is stable: what ties (every candidate left out, unranked) keeps its place.
    candidates.sort(key=_order_key(request))


def _order_key(request: Request) -> Callable[[Candidate], tuple]:
    """The sort key of :func:`_order`. Without a preferred origin no candidate lies
    elsewhere, and a candidate left out without rank factors (made or owed) has the key
    of every other such one."""
    preferring = request.prefer_origin is not None

    def key(c: Candidate) -> tuple:
        if not preferring and c.reason is not None and c._factors is None and c._owed is None:
            return _LEFT_OUT
        factors = c.factors
        return (c.reason is not None, preferring and _elsewhere(c, request),
                order_key(c.id, factors) if factors else (0,))

    return key


def _fused(view: ReadView, request: Request, query: ParsedQuery, scan: dict) -> tuple[list[Candidate], list[Candidate]]:
    """A fusion (``hybrid``, ``hybrid-episodes``): both of its lanes run as above, then
    :func:`cairn.recall.fusion.fuse` merges them by rank. Returns (ranked, candidates)."""
    from .fusion import fuse

    lexical_lane, semantic_lane = (lane(name) for name in FUSIONS[request.lane])
    found = (_lane_candidates(lexical_lane, view, request, query, scan),
             _lane_candidates(semantic_lane, view, request, query, scan))
    # Each lane judged its own with the names its notes showed; the fusion judges them all
    # again, with the names that every note found shows.
    if lexical_lane.applies_gates:
        query = store_named(query, (c.memory.content for lane_found in found for c in lane_found if c.memory is not None))
    return fuse(view, request, query, scan, (lexical_lane, semantic_lane), found)


def _apply_gates(live: list[Candidate], query: ParsedQuery, request: Request) -> None:
    """Reject what fails a relevance gate or the relative cutoff; rank the rest."""
    for c in live:
        assert c.memory is not None and c.lexical is not None  # live: excluded and scored above
        c.reason = relevance_gate(query, c.memory, c.lexical, anchored=_anchored(c))
    _replacements_pass(live, request)
    _told_apart(live, query)
    for c in _untimed([c for c in live if c.reason is None], query):
        c.reason = Reason.MISSING_ATTRIBUTE
    # A dormant record let in beside the current results (``Request.admitted``) joins
    # them; it sets no cutoff, so it never pushes a current answer out.
    low = below_cutoff({c.id: c.raw for c in live
                        if (c.reason is None or _about_another(c, query)) and c.id not in request.admitted})
    low -= _updates_of_survivors(live, low, request, query)
    for c in live:
        if c.reason is None:
            assert c.memory is not None
            c.factors = rank_factors(c.memory, c.raw, request.now, fresh=c.fresh)
            c.reason = Reason.BELOW_CUTOFF if c.id in low else None


def _replacements_pass(live: list[Candidate], request: Request) -> None:
    """Asked about the present, a later note that names what a passing note says as the
    thing it replaced (:func:`names_replaced`) answers too, though it holds less of the
    question: "which company covers our house and contents" finds "buildings and contents
    insurance is with Aviva", and the later "we moved the home insurance from Aviva to LV"
    says what holds now in other words."""
    passed = [c for c in live if c.reason is None and c.memory is not None]
    if not passed:
        return
    found = [c for c in live if c.reason is Reason.BELOW_COVERAGE and c.memory is not None
             and _named_as_replaced(c.memory.content) and any(
        k.memory is not None and confirmation_anchor(k.memory) < confirmation_anchor(c.memory)
        and names_replaced(c, k) for k in passed)]
    if found and _asks_now(request):  # the tense is read only when something could pass
        for c in found:
            c.reason = None


def _told_apart(live: list[Candidate], query: ParsedQuery) -> None:
    """Turn away what passed but is about another of the things the store tells apart by
    the word before their noun (:func:`cairn.recall.gates.of_another_kind`): when the notes
    on home, travel and car insurance were turned away for "who is our life insurance
    with", the note that the cat is insured names no kind of insurance, and the store says
    which kind whenever it means one."""
    if not query.qualified:
        return
    told = kinds_told_apart(query, [c.lexical.in_content | c.lexical.in_aliases for c in live
                                    if c.lexical is not None and _about_another(c, query)])
    if not told:
        return
    for c in live:
        if c.reason is None and c.lexical is not None \
                and of_another_kind(told, c.lexical.in_content | c.lexical.in_aliases):
            c.reason = Reason.MISSING_SUBJECT


def _about_another(c: Candidate, query: ParsedQuery, reason: Reason | None = None) -> bool:
    """Whether ``c`` was turned away as a note on another thing of the kind the question
    names (:func:`cairn.recall.gates.names_another`). Such a note still shows how well the
    store matches the question's words, so it sets the relative cutoff with the survivors:
    "Year 9's parents' evening is on Thursday" keeps a weaker note that names no year out
    of the answer to "when is parents evening for year 11", as it would if it answered."""
    return ((reason or c.reason) is Reason.MISSING_SUBJECT and bool(query.qualified) and c.memory is not None
            and c.lexical is not None and names_another(query, c.memory.content, c.lexical.in_content | c.lexical.in_aliases))


def _elsewhere(c: Candidate, request: Request) -> bool:
    """Whether a candidate lies outside the caller's preferred origin (sorted after those
    inside it). Only survivors of every relevance gate are ordered by it, so the preference
    can never bring in an unrelated record."""
    return request.prefer_origin is not None and (c.memory is None or c.memory.origin != request.prefer_origin)


def _report_gates(live: list[Candidate], query: ParsedQuery, request: Request) -> None:
    """Judge every candidate as :func:`_apply_gates` would, but only record the verdict
    (judged when first read: :class:`_GateReport`)."""
    report = _GateReport(live, query)
    for c in live:
        c._report = report
        c.rank_later(request.now)


class _GateReport:
    """The reported gate verdicts of one lane's pool, judged when the first is read: by
    explain, or by a claims recall asking whether turns answer it. A search reads none of
    them (they decide nothing), and the pool is 48 turns. The cutoff is taken among the
    relevances the candidates had when the report was due."""

    __slots__ = ("pool", "query")

    def __init__(self, live: list[Candidate], query: ParsedQuery) -> None:
        self.pool = [(c, c.raw) for c in live]
        self.query = query

    def judge(self) -> None:
        pool, query = self.pool, self.query
        self.pool = []
        verdicts: dict[str, Reason | None] = {}
        for c, _ in pool:
            assert c.memory is not None and c.lexical is not None  # live: excluded and scored above
            verdicts[c.id] = relevance_gate(query, c.memory, c.lexical, anchored=_anchored(c))
        low = below_cutoff({c.id: raw for c, raw in pool
                            if (v := verdicts[c.id]) is None or _about_another(c, query, v)})
        for c, _ in pool:
            if c._report is self:  # not reported again since (the later report holds its verdict)
                c._report = None
                c._gate = Reason.BELOW_CUTOFF if c.id in low else verdicts[c.id]


def exclude(candidates: list[Candidate], request: Request) -> None:
    """Set the exclusion reason and temporal markers of each candidate not yet excluded.

    The rules of :func:`cairn.recall.gates.exclusion` (another space, forgotten,
    conflicted, retired, disputed, not valid at ``as_of``, not yet valid — kept and
    marked ``future`` under ``include_history`` —, dormant unless asked for or under an
    ``as_of`` before now);
    a candidate without a readable record is out as ``other-space``."""
    now, origin = request.now, request.origin
    # A question about the past is not answered from freshness: under an as-of before
    # now, dormancy stays a label and excludes nothing.
    include_dormant = request.include_dormant or (request.as_of is not None and request.as_of < now)
    for c in candidates:
        if c.reason is None and origin is not None and c.memory is not None and c.memory.origin != origin:
            c.reason = Reason.OTHER_ORIGIN  # the caller asked for one origin only
            continue
        if c.reason is not None or c.judged:
            continue
        c.judged = True
        memory = c.memory
        if memory is None:
            c.reason = Reason.OTHER_SPACE
            continue
        temporal = temporal_status(memory, now=now, as_of=request.as_of, include_future=request.include_history)
        c.markers = temporal.markers
        # Dormancy is the last rule of exclusion(), read only when every other rule let
        # the record through and dormant records are not asked for: the freshness it
        # takes is most of an exclusion's cost, and most candidates never reach it.
        reason = exclusion(memory, space=request.space, dormant=False, include_dormant=True,
                           temporal=temporal.exclusion, include_retired=request.include_retired)
        if reason is None and not include_dormant:
            c.fresh = freshness(memory, now)
            if c.fresh.dormant and c.id not in request.admitted:
                reason = Reason.DORMANT
        c.reason = reason


def _interleave(lists: list[list[Candidate]]) -> list[Candidate]:
    """Round-robin: the first of each list in order, then the second of each, and so on."""
    out: list[Candidate] = []
    for i in range(max((len(found) for found in lists), default=0)):
        for found in lists:
            out += found[i : i + 1]
    return out


# -- resolve and pack ------------------------------------------------------------------


def _resolve_and_pack(view: ReadView, request: Request, ranked: list[Candidate], candidates: list[Candidate]):
    """Resolve relations of the ranked survivors, pack the digest, build the results.
    Every candidate left out ends with a reason: replaced by its chain's head, or the
    packer's (rank cut, over budget, duplicate, successor not selected)."""
    if not ranked:
        return [], ""
    by_id = {c.id: c for c in candidates}
    resolved = resolve(
        view,
        request.space,
        [c.id for c in ranked],
        include_history=request.include_history,
        now=request.now,
        as_of=request.as_of,
        known_at=request.known_at,
        # The records the lexical lanes read from this view as they stand (the episode
        # lane's kept ones only while the data is unchanged): resolution need not read them
        # again, one query per hit.
        read={c.id: c.memory for c in candidates if c.lane in READ_AS_IS and c.memory is not None},
    )
    items = _gather(view, request, resolved, by_id, candidates)
    placed = {r.id for r in resolved}
    for c in ranked:
        if c.reason is None and c.id not in placed:
            # Resolution places a hit only through its chain's head; a hit left out was
            # replaced by a head already placed for a better-ranked hit (and, for a decision,
            # was not the one predecessor allowed to follow as history).
            c.reason = Reason.REPLACED
    packed = pack([_pending(r, c, m) for r, c, m in items], limit=request.limit, budget=request.budget)
    emitted_ids = set(packed.ids)
    if len({m.origin for r, _, m in items if r.id in emitted_ids}) > 1:
        # Results from several origins: label each line with its origin, so that two
        # projects' memories never mix unlabelled.
        packed = pack([_pending(r, c, m, with_origin=True) for r, c, m in items], limit=request.limit,
                      budget=request.budget)
    emitted = {item.id: (text, cut) for item, text, cut in packed.emitted}
    for item_id, reason in packed.rejected:
        if item_id not in emitted and by_id[item_id].reason is None:
            by_id[item_id].reason = reason
    results: list[ResultItem] = []
    for r, c, m in items:
        if r.id not in emitted or any(x.id == r.id for x in results):
            continue
        text, cut = emitted[r.id]
        f = c.factors
        results.append(
            ResultItem(
                id=r.id, lane=c.lane, memory=m, excerpt=text, truncated=cut, relevance=c.raw, rank_score=f.rank_score,
                freshness=f.freshness, aging=f.aging, dormant=f.dormant, markers=_markers(r, c, f),
                corrects=tuple(r.corrects), contradicts=tuple(r.contradicts), superseded_by=r.superseded_by,
                matched=r.matched if r.matched and r.matched != r.id else None,
            )
        )
    return results, packed.digest


def _gather(view: ReadView, request: Request, resolved: list[Resolved], by_id: dict[str, Candidate], candidates: list[Candidate]):
    """Pair each resolved item with its candidate and record, in resolved order.

    A record brought in by resolution (a correcting successor, a predecessor given as
    historical rationale) passes the same exclusions as any candidate — a forgotten or
    conflicted record is never emitted — but not the relevance gates: it stands in for,
    or follows, a hit that passed them, and carries that hit's relevance.
    """
    missing = [r.id for r in resolved if r.id not in by_id]
    if request.known_at is not None:
        # Answer from what Cairn held then: a record brought in by resolution is read as it
        # stood at known_at, never in its current (possibly later corrected) state.
        extra = {i: m for i in missing if (m := memory_known_at(view, request.space, i, request.known_at)) is not None}
    else:
        extra = view.get_memories(request.space, missing)
    emitted_ids = {r.id for r in resolved}
    items: list[tuple[Resolved, Candidate, Memory]] = []
    for r in resolved:
        source = by_id.get(r.matched or r.id) or by_id.get(r.id) or by_id.get(r.superseded_by or "")
        c = by_id.get(r.id)
        if c is None:
            memory = extra.get(r.id)
            if memory is None or source is None:
                continue  # unreadable: never invent a result
            c = Candidate(r.id, source.lane, memory, raw=source.raw)
            exclude([c], request)
            candidates.append(c)
            by_id[r.id] = c
        if c.reason is Reason.REPLACED and Marker.HISTORICAL_RATIONALE.value in r.markers:
            c.reason = None  # replaced as current advice, yet asked for as history right after its successor
        if c.reason is not None and c.reason not in GATES:
            continue  # an excluded (or already replaced) record stays out
        assert c.memory is not None  # only an excluded candidate lacks its record
        if c.reason in GATES:
            c.reason = None  # brought back by resolution, see above
            c.raw = max(c.raw, source.raw if source else 0.0)
        c.rank_later(request.now)  # at its relevance now; only what is packed or asked for is made
        if r.matched and r.matched != r.id and r.matched in by_id and r.matched not in emitted_ids:
            # Only a hit that does not itself come back (e.g. as one side of a contradiction
            # pair) was replaced by its successor.
            by_id[r.matched].reason = Reason.REPLACED
        items.append((r, c, c.memory))
    return items


_MARKER_ORDER = [m.value for m in Marker]


def _markers(r: Resolved, c: Candidate, f: RankFactors) -> tuple[str, ...]:
    found = set(r.markers) | set(c.markers)
    if f.aging:
        found.add(Marker.AGING.value)
    if f.dormant:
        found.add(Marker.DORMANT.value)
    # Only markers of the closed set reach a result.
    return tuple(m for m in _MARKER_ORDER if m in found)


def _pending(r: Resolved, c: Candidate, m: Memory, *, with_origin: bool = False) -> Pending:
    """The pack item of ``r``, made only if the packer reaches it with room left (its
    labels need the rank factors); the markers its reason depends on are those of the
    resolution and the candidate (historical-rationale is never a factor's)."""
    return Pending(r.id, (*r.markers, *c.markers), r.superseded_by, partial(_pack_item, r, c, m, with_origin=with_origin))


def _pack_item(r: Resolved, c: Candidate, m: Memory, *, with_origin: bool = False) -> PackItem:
    assert c.factors is not None  # set by _gather for every item it returns
    markers = _markers(r, c, c.factors)
    labels: tuple[str, ...] = (m.kind.value, m.status.value, f"{m.evidence.basis.value}/{m.evidence.method.value}", *markers)
    if with_origin:
        labels += (f"origin {m.origin or '-'}",)
    if m.kind is Kind.EPISODE:
        return PackItem(r.id, m.content, (*labels, spoken(m)), markers, r.superseded_by, m.evidence.source_id)
    return PackItem(r.id, m.content, labels, markers, r.superseded_by)


def spoken(m: Memory) -> str:
    """Who said an episode and when (UTC, to the minute): ``Ana, 2026-05-02 10:00``."""
    return _spoken(m.aliases[0] if m.aliases else None, m.evidence.at)


@lru_cache(maxsize=8192)
def _spoken(speaker: str | None, at: datetime | None) -> str:
    """:func:`spoken` of a speaker and a time: every candidate turn of a recall gets its
    label (the packer may hand it out), and a process that recalls again (a server, a
    benchmark) meets the same turns over and over; a pure function, kept bounded."""
    who = label_text(speaker) if speaker is not None else "unknown speaker"
    when = at.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if at else "time unknown"
    return f"{who}, {when}"
