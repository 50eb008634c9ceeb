"""Lexical and semantic evidence together: the semantic gate and the ``hybrid`` fusions.

Two fusions (:data:`FUSIONS`) are lane names a request may give:

* ``hybrid`` — the ``claims`` lane (lexical, its gates applied) and the ``semantic``
  lane (its own gate, :func:`semantic_gate`); the default lane of a recall when the
  semantic extra is active (:func:`default_lane`; ``CAIRN_DEFAULT_LANE=claims`` opts out).
* ``hybrid-episodes`` — the ``episodes`` lane and the ``semantic-episodes`` lane, for
  evidence-finding over verbatim turns (gates reported, not applied, as in ``episodes``).

Both lanes run in full (exclusions, scores, gates, as each lane declares) and are then
fused; each lane's rank and share, and the cosine, are numbers ``explain`` shows per
candidate (``factors.fusion``):

* claims — calibrated score fusion (:func:`_fuse_claims`): relevance is the lexical
  share (raw over the best lexical survivor's) plus a small weight × the cosine;
* episodes — calibrated score fusion too (:func:`_fuse_episodes`): the episode ranker's
  share (its score over the best's) plus a weight × meaning's share, where meaning is
  *in context* (:func:`in_context`): a turn's cosine plus a share of its neighbours', by
  the episode ranker's context rules, so that a reply is found through the question it
  answers. Each list is scaled by its own best, so no common scale between the episode
  ranker's score and a cosine is assumed.

The semantic gate. A cosine is not relevance: every text has a nearest neighbour, and an
unrelated memory still scores 0.1-0.3 with this model. A candidate passes on meaning
alone only when its cosine reaches ``strong`` (no query word in the record),
``strong_partial`` (some, not enough for the lexical coverage gate) or
``strong_attribute`` (the named subject, not the attribute asked); with a cosine of at
least ``support`` it passes when the lexical gates pass too. Never overridden: a strict
literal the caller typed (a quoted string, a path), a named subject the record lacks
(:data:`IDENTITY`), the lexical relative cutoff (its words matched, and a much better
match exists), and a number asked for ("how much", "how many") that the record does not
state. Anything else is ``below-similarity``. In ``hybrid``, what passes on meaning alone
must also not be a sibling's neighbour (:func:`_turned_away`): not a record holding
neither word of a thing the question names by two when the store calls other things by
its noun, nor one further in meaning than a record that holds the question's words and
was turned down. The lexical lane's own gates are unchanged, so a
hybrid recall passes what either lane passes: what the lexical lane passed stays
findable, and a strong paraphrase is added. Exclusions, corrections, time rules and the
digest bounds are the pipeline's, as for every lane. The thresholds were set on the
development paraphrase set (``tests/semantic/paraphrase.json``, split ``dev``) and
LoCoMo's dev conversations only; the sibling rules on the natural-question set's
nothing-questions, with the paraphrase set as the check that no paraphrase is lost.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .gates import GATES, Reason, below_cutoff, lacks_form, named_verdict, names_another, relevance_gate
from .kinds import instances
from .query import asking_verbs, closing_verb, is_label, states_quantity
from .rank import order_key, rank_factors
from .score import field_terms

if TYPE_CHECKING:
    from ..model import Memory
    from ..store import ReadView
    from .lanes import Lane
    from .pipeline import Candidate, Request
    from .query import ParsedQuery


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class SemanticProfile:
    """When nearness of meaning admits a record, alone or beside lexical evidence."""

    pool: int = 24  # nearest texts a semantic lane reads
    strong: float = 0.35  # a cosine that passes on meaning alone
    strong_partial: float = 0.6  # the same when the record holds some of the query's words, not enough
    strong_attribute: float = 0.65  # the same when it holds the named subject but not the attribute asked
    support: float = 0.2  # the least cosine that counts beside lexical evidence
    min_words: int = 2  # query words (phrasing included) before meaning alone may answer it
    claims_semantic_weight: float = 0.25  # hybrid claims: relevance = lexical share + this × cosine
    # hybrid-episodes, calibrated score fusion: relevance = the episode ranker's share (its
    # score over the best's) + this × meaning's share (relevance in context over the best).
    # Set on LoCoMo dev (conversations 0-4): the episode ranker is much the stronger list
    # there (any@5 0.786 against 0.492 for meaning in context), so meaning re-orders turns
    # of about equal lexical relevance and brings in a turn of its own only behind the
    # lexical list's strong ones. Any weight from 0.1 to 0.3 gives the same any@5 within
    # half a point; reciprocal-rank fusion at its best was no better and fell off sharply
    # around its best setting (docs/benchmarks.md, "Semantic extra").
    episodes_semantic_weight: float = 0.2
    # A turn's relevance by meaning lends a share to the turns around it, as in the episode
    # ranker (cairn.recall.episodes, step 5, same shares): a reply ("Mostly pottery") means
    # little alone, the question it answers carries the meaning.
    context_neighbour: float = 0.6  # of the best cosine of the turn before or after
    context_second: float = 0.6  # of the turn two places away, in the same session (the same speaker)
    context_answer: float = 0.8  # of the turn before, when it asks a question
    context_session: float = 0.35  # of the best cosine in the turn's session


SEMANTIC = SemanticProfile()
# Lexical verdicts no similarity overrides: the query names a subject the record lacks.
# A missing *attribute* word has its own bar (``strong_attribute``): "which AWS region is
# production in" and a record on the production region do not share the word, and mean
# the same thing (cosine 0.72), while "sqlite authentication" and "SQLite timeouts are
# five seconds" share the subject and mean different things (0.55).
IDENTITY = frozenset({Reason.MISSING_SUBJECT})
SEMANTIC_LANES = ("semantic", "semantic-episodes")
FUSIONS: dict[str, tuple[str, str]] = {
    "hybrid": ("claims", "semantic"),
    "hybrid-episodes": ("episodes", "semantic-episodes"),
}


def matched(c: Candidate) -> bool:
    """Whether a candidate counts as a match for the silence note: a semantic lane reads
    its nearest neighbours however far they are, and one below the ``strong`` cosine
    matched nothing (whether it was then excluded or not)."""
    if c.lane not in SEMANTIC_LANES:
        return True
    return c.reason is not Reason.BELOW_SIMILARITY and (c.lane_score or 0.0) >= SEMANTIC.strong


DEFAULT_LANE_ENV = "CAIRN_DEFAULT_LANE"
DEFAULT_LANES = ("claims", "hybrid")  # what $CAIRN_DEFAULT_LANE may name


def default_lane(store: object = None) -> str:
    """The lane a recall uses when none is named: ``hybrid`` when the semantic extra is
    active and ``store`` (when given) keeps vectors, else ``claims``.
    ``$CAIRN_DEFAULT_LANE=claims`` keeps the lexical lane the default with the extra
    installed (a one-shot process then never loads the model); ``hybrid`` asks for the
    fused lane, which still needs the extra.

    Hybrid became the default with the extra because, measured, it is at least as good as
    the lexical lane everywhere this project measures it: LoCoMo held-out, the natural
    question set (the same on its tuning part, better on its held-out part) and every
    negative control of the paraphrase and natural sets (docs/semantic.md,
    docs/benchmarks.md "Semantic extra")."""
    from ..embed.vectors import enabled
    from ..errors import InvalidInput

    chosen = os.environ.get(DEFAULT_LANE_ENV, "").strip().lower()
    if chosen and chosen not in DEFAULT_LANES:
        raise InvalidInput(f"${DEFAULT_LANE_ENV}", f"must be one of {', '.join(DEFAULT_LANES)}, not {chosen!r}")
    if chosen == "claims":
        return "claims"
    if store is not None and not hasattr(store, "vector_rows"):
        return "claims"
    return "hybrid" if enabled() else "claims"


# -- the semantic gate -------------------------------------------------------------------


def understood(query: ParsedQuery, profile: SemanticProfile) -> bool:
    """Whether the query is one the embedder's similarity may answer on its own: a
    question of at least ``min_words`` words, none of them CJK (the packaged model is
    English: it reads Chinese as unknown pieces)."""
    return len(query.text.split()) >= profile.min_words and not any(f.cjk for f in query.features)


def semantic_verdict(query: ParsedQuery, c: Candidate, cosine: float | None,
                     profile: SemanticProfile | None = None) -> Reason | None:
    """Why ``c`` fails the semantic gate with this ``cosine``, or None when it passes
    (``profile``: :data:`SEMANTIC` unless given)."""
    profile = profile or SEMANTIC
    assert c.memory is not None and c.lexical is not None  # live candidates: excluded and scored
    anywhere = c.lexical.in_content | c.lexical.in_aliases
    for literal in query.literals:
        if literal.strict and not set(literal.terms) <= anywhere:
            return Reason.MISSING_LITERAL  # a quoted string or a path is a demand, for meaning too
    if lacks_form(query, c.memory.content):
        return Reason.MISSING_ATTRIBUTE  # a phone number or a version is a form, not a meaning
    if query.quantity and not states_quantity(c.memory.content):
        # "how much protein should I eat a day" and "I eat vegetarian on weekdays" (0.36):
        # the answer to how much or how many is a number, as the lexical gates demand of a
        # record (cairn.recall.gates); nearness of meaning does not supply one.
        return Reason.MISSING_ATTRIBUTE
    if c.reason is Reason.BELOW_CUTOFF:
        return c.reason  # its words matched, and the lexical lane found a much better match
    lexical = relevance_gate(query, c.memory, c.lexical)
    if lexical is not None:
        # The lexical gates check coverage first, so a record holding little of the question
        # fails as below coverage whether or not it names the subject and what is asked of
        # it ("what is my rate for *French*", "who is Sophie's *university tutor*"); for
        # meaning, the named rule's verdict decides the bar (never overridden for the subject).
        lexical = named_verdict(query, c.lexical) or lexical
        if query.qualified and names_another(query, c.memory.content, anywhere):
            # the note names another thing of the kind ("UK orders" for "EU orders"),
            # however little of the question it holds: meaning does not make it this one
            lexical = Reason.MISSING_SUBJECT
    if lexical in IDENTITY:
        # Meaning bridges vocabulary, not identity: "RabbitMQ topic retention" is close in
        # meaning to a note on Kafka topic retention (0.56), and still not about it.
        return lexical
    if cosine is None:
        return Reason.BELOW_SIMILARITY
    if lexical is not None and not understood(query, profile):
        # A bare word is a name or a keyword, not a paraphrase ("Zürich" is near any note
        # on another city, 0.4); and the model reads English: between Chinese texts its
        # cosine says nothing. Only the lexical lanes may answer such a query.
        return Reason.BELOW_SIMILARITY
    if lexical is None:
        return None if cosine >= profile.support else Reason.BELOW_SIMILARITY
    # Some of the query's words are in the record and the rest are not: the similarity
    # then comes largely from the shared words ("MySQL authentication" and a note on
    # SQLite authentication score 0.48), so a higher bar than for a pure paraphrase.
    if query.known_kinds and not _names_kind(query, c.memory, anywhere):
        # "what tea do I like" and a note on flat whites share no word, and mean alike
        # (0.35): the question asks for a kind the table knows, and the record names none
        # of it, so it is the attribute that is missing (cairn.recall.gates).
        bar = profile.strong_attribute
    elif lexical is Reason.NO_MATCH or _shares_no_topic_word(query, c.memory, anywhere):
        # No word is shared, only an instance of the kind asked for ("on which days do we
        # release": a record naming Tuesdays) or the verb of asking ("do we keep": "kept"):
        # as for no shared word at all.
        bar = profile.strong
    elif lexical is Reason.MISSING_ATTRIBUTE:
        bar = profile.strong_attribute
    else:
        bar = profile.strong_partial
    return None if cosine >= bar else Reason.BELOW_SIMILARITY


def _names_kind(query: ParsedQuery, memory: Memory, matched: frozenset[str]) -> bool:
    """Whether the record names a kind the question asks for (cairn.recall.kinds): the
    word, or one of its listed instances (a phrase instance word for word, in order). The
    semantic lane's own candidates were scored without the instances as variants, so the
    record's words are read here."""
    if query.known_kinds & matched:
        return True
    text = f" {' '.join(field_terms(memory.content))} {' '.join(field_terms(' '.join(memory.aliases)))} "
    return any(f" {name} " in text for f in query.features if f.kind for name in (f.term, *instances(f.kind)))


def _shares_no_topic_word(query: ParsedQuery, memory: Memory, matched: frozenset[str]) -> bool:
    """Whether ``matched`` is only the verb of asking ("how long do we *keep* copies",
    met by "kept") and kinds the question asks for, each met through an instance
    (cairn.recall.kinds) rather than the word itself: no word of what is asked about."""
    if not matched:
        return False
    asked = matched - asking_verbs(query.text)
    if not asked:
        return True
    if not (query.kinds and asked <= query.kinds):
        return False
    held = set(field_terms(memory.content)) | set(field_terms(" ".join(memory.aliases)))
    return not asked & held


def semantic_gate(live: list[Candidate], query: ParsedQuery, request: Request, *, report_only: bool = False) -> None:
    """Judge a semantic lane's live candidates (cosine in ``lane_score``), then the
    relative cutoff on the cosine among those that passed; rank the survivors. With
    ``report_only`` the verdicts go to ``gate`` and decide nothing."""
    verdicts = {c.id: semantic_verdict(query, c, c.lane_score) for c in live}
    low = below_cutoff({c.id: c.raw for c in live if verdicts[c.id] is None and c.id not in request.admitted})
    for c in live:
        assert c.memory is not None
        verdict = verdicts[c.id] or (Reason.BELOW_CUTOFF if c.id in low else None)
        if report_only:
            c.gate = verdict
            c.factors = rank_factors(c.memory, c.raw, request.now)
        else:
            c.reason = verdict
            if verdict is None:
                c.factors = rank_factors(c.memory, c.raw, request.now)


# -- fusion ------------------------------------------------------------------------------


def _lexical_first(lexical: list[Candidate], semantic: list[Candidate]) -> dict[str, Candidate]:
    merged = {c.id: c for c in lexical}
    for c in semantic:
        merged.setdefault(c.id, c)
    return merged


def fuse(view: ReadView, request: Request, query: ParsedQuery, scan: dict, lanes: tuple[Lane, Lane],
         per_lane: tuple[list[Candidate], list[Candidate]]) -> tuple[list[Candidate], list[Candidate]]:
    """Fuse a lexical lane's and a semantic lane's candidates (each already excluded,
    scored and gated or judged by its lane). Returns (ranked survivors, every candidate
    once) for the pipeline to resolve and pack."""
    from .lanes.semantic import similarities

    lexical_lane, _ = lanes
    lexical, semantic = per_lane
    episodes = not lexical_lane.applies_gates
    cosine = {c.id: float(c.lane_score) for c in semantic if c.lane_score is not None}
    unknown = [c for c in lexical if c.id not in cosine and (c.reason is None or c.reason in GATES)]
    if unknown:
        cosine.update(similarities(view, request, unknown, episodes=episodes))
    # The lexical candidates first, in their lane's order (best overlap first: what the
    # silence note judges, it judges in that order), then those only meaning found; the
    # lexical candidate carries the lexical evidence. Never the semantic lane's order of
    # the excluded, which follows the records' random ids from one store to the next.
    merged: dict[str, Candidate] = _lexical_first(lexical, semantic)
    if episodes:
        semantic, context = in_context(view, request, query, semantic, scan)
        merged = _lexical_first(lexical, semantic)
        cosine.update({c.id: float(c.lane_score) for c in semantic if c.lane_score is not None and c.id not in cosine})
        ranked = _fuse_episodes(lexical, semantic, merged, cosine, request, context)
    else:
        ranked = _fuse_claims(lexical, semantic, merged, cosine, query, request)
    scan["fusion"] = {"lanes": [lexical_lane.name, lanes[1].name], "fused": len(ranked)}
    return ranked, list(merged.values())


# -- meaning in context (episodes) ---------------------------------------------------------

_ASKS = frozenset("what how why which where who".split())  # a turn holding one asks (as the episode ranker reads it)


def in_context(view: ReadView, request: Request, query: ParsedQuery, semantic: list[Candidate],
               scan: dict) -> tuple[list[Candidate], dict[str, float]]:
    """The ``semantic-episodes`` candidates re-ordered by their relevance in context, with
    the turns around them added: the same rules as the episode ranker's context step.

    A turn's relevance is its cosine, plus the best share its neighbours lend: the turn
    before or after (``context_neighbour``), the turn before when it asks a question
    (``context_answer``: the likely reply), the turn two places away in the same session
    (``context_second``); plus ``context_session`` × the best cosine of its session among
    the turns at hand. Every turn at most two places from a nearest turn is read and
    scored, so a reply that shares no meaning with the question is found through the
    question before it. Returns the candidates, the best ``pool`` by that relevance
    first and in that order, and the relevance of each turn scored (explain shows it as
    ``factors.fusion.in_context``); ``lane_score`` stays the turn's own cosine.

    Only turns that pass the exclusions (and are not retired, unless asked for) take
    part or lend: a forgotten turn has no vector, and a turn another rule hides must not
    shape what is shown. Under ``known_at`` the order is left as the lane made it (the
    turns around a match are read as they are now, not as they were then); likewise on
    a store that cannot say where a turn sits."""
    p = SEMANTIC
    live = [c for c in semantic if c.reason is None and c.memory is not None]
    places_of = getattr(view, "episode_places", None)
    if not live or request.known_at is not None or places_of is None:
        return semantic, {}
    places: dict[str, tuple[str, int]] = places_of(request.space, [c.id for c in live])
    wanted = sorted({(o, t + d) for o, t in places.values() for d in (-2, -1, 0, 1, 2)})
    turns = {t.id: t for t in view.neighbour_turns(request.space, wanted)}
    by_id = {c.id: c for c in semantic}
    # A turn with no place (an episode stored outside a conversation) keeps its cosine.
    at_hand = [*live, *_around(view, request, [i for i in turns if i not in by_id])]
    relevance = {c.id: max(float(c.lane_score or 0.0), 0.0) for c in at_hand}
    relevance.update(_context_scores([c for c in at_hand if c.id in turns], turns, p))
    at_hand.sort(key=lambda c: (-relevance[c.id], -float(c.lane_score or 0.0), c.id))
    lead = at_hand[: p.pool]
    chosen = {c.id for c in lead}
    # A turn read only for its context becomes a candidate when it leads; it is then
    # judged as the lane judges its own (gates reported). The others only lent.
    added = [c for c in lead if c.id not in by_id]
    _judge(view, request, query, added)
    scan["semantic_context"] = {"read": len(turns), "added": len(added)}
    return [*lead, *(c for c in semantic if c.id not in chosen)], relevance


def _around(view: ReadView, request: Request, ids: list[str]) -> list[Candidate]:
    """The turns ``ids`` read around the nearest ones, as candidates with their cosine:
    those that pass the exclusions, are not retired (unless asked for) and have a vector."""
    from ..embed.vectors import VectorIndex, require
    from ..model import Status
    from ..store import content_hash
    from .lanes.semantic import query_vector, vector_view
    from .pipeline import Candidate, exclude

    memories = view.get_memories(request.space, ids)
    fresh = [Candidate(i, "semantic-episodes", memories.get(i)) for i in ids]
    exclude(fresh, request)
    model = require()
    index = VectorIndex.load(vector_view(view), request.space, model, True)
    vector = query_vector(model, request.query)
    out = []
    for c in fresh:
        if c.reason is not None or c.memory is None:
            continue
        if c.memory.status is Status.RETIRED and not request.include_retired:
            continue  # as the lane: a retired turn takes no place unless asked for
        cos = index.similarity(vector, content_hash(c.memory.content))
        if cos is not None:
            c.lane_score = c.raw = cos
            out.append(c)
    return out


def _judge(view: ReadView, request: Request, query: ParsedQuery, added: list[Candidate]) -> None:
    """Lexical evidence and the reported semantic gate of turns that joined the list, as
    the pipeline and the lane give them to the lane's own candidates."""
    if not added:
        return
    from .candidates import IndexStats
    from .score import lexical as lexical_evidence

    stats = IndexStats(view, request.space)
    for c in added:
        assert c.memory is not None  # excluded above: every one has its record
        c.lexical = lexical_evidence(query, c.memory, stats)
    semantic_gate(added, query, request, report_only=True)


def _context_scores(at_hand: list[Candidate], turns: dict, p: SemanticProfile) -> dict[str, float]:
    """Relevance in context of each turn at hand (see :func:`in_context`); ``turns``: the
    store's :class:`~cairn.store.EpisodeTurn` of each, by id."""
    own = {c.id: max(float(c.lane_score or 0.0), 0.0) for c in at_hand}
    at = {(turns[i].origin, turns[i].turn): i for i in own}
    session: dict[tuple[str, str], float] = {}
    for i, score in own.items():
        key = (turns[i].origin, turns[i].at[:10])
        session[key] = max(session.get(key, 0.0), score)
    out = {}
    for i, score in own.items():
        t = turns[i]
        best = 0.0
        before, after = at.get((t.origin, t.turn - 1)), at.get((t.origin, t.turn + 1))
        if before is not None:
            asks = not _ASKS.isdisjoint(turns[before].terms.split())
            best = max(best, (max(p.context_neighbour, p.context_answer) if asks else p.context_neighbour) * own[before])
        if after is not None:
            best = max(best, p.context_neighbour * own[after])
        for j in (at.get((t.origin, t.turn - 2)), at.get((t.origin, t.turn + 2))):
            if j is not None and turns[j].at[:10] == t.at[:10]:
                best = max(best, p.context_second * own[j])
        out[i] = score + best + p.context_session * session[(t.origin, t.at[:10])]
    return out


def _fuse_claims(lexical: list[Candidate], semantic: list[Candidate], merged: dict[str, Candidate],
                 cosine: dict[str, float], query: ParsedQuery, request: Request) -> list[Candidate]:
    """Calibrated score fusion: relevance = lexical share + ``claims_semantic_weight`` × cosine.

    The lexical share is the candidate's raw relevance over the best lexical survivor's
    (1.0 for the best, at least the 0.75 cutoff for any survivor, 0 without lexical
    evidence that passed). With the weight at 0.25 a cosine re-orders lexical survivors
    only when they are nearly tied, and a match on meaning alone follows the lexical
    ones: the lexical gates are the precise evidence, meaning adds what words missed."""
    p = SEMANTIC
    passed = [c for c in lexical if c.reason is None]
    best = max((c.raw for c in passed), default=0.0)
    lex_share = {c.id: (r, c.raw / best if best > 0 else 0.0) for r, c in enumerate(passed, start=1)}
    semantic_pass: set[str] = set()
    for c in merged.values():
        if c.memory is None or c.lexical is None or (c.reason is not None and c.reason not in GATES):
            continue  # excluded (or unreadable): no lane can bring it back
        if semantic_verdict(query, c, cosine.get(c.id), p) is None:
            semantic_pass.add(c.id)
    # What meaning alone brings in must come near the best cosine of everything that
    # passed (the lexical survivors included): an answer found by its words is not
    # joined by a loosely related note on the same theme.
    pool = {i: cosine[i] for i in semantic_pass | set(lex_share) if i in cosine}
    low = {i for i in below_cutoff(pool) if i not in lex_share}
    semantic_pass -= low
    # What meaning alone brings in must also not be a sibling's neighbour (:func:`_turned_away`).
    turned = _turned_away(query, merged, cosine, semantic_pass - set(lex_share))
    semantic_pass -= set(turned)
    order = sorted(semantic_pass, key=lambda i: (-cosine.get(i, 0.0), i))
    sem_share = {i: (r, p.claims_semantic_weight * max(cosine.get(i, 0.0), 0.0)) for r, i in enumerate(order, start=1)}
    survivors: list[Candidate] = []
    for c in merged.values():
        if c.id not in lex_share and c.id not in sem_share:
            if c.id in turned and c.reason in (None, *GATES):
                c.reason = turned[c.id]
            if c.reason is None:
                c.reason = Reason.BELOW_SIMILARITY
            if c.id in low and c.reason in (None, Reason.BELOW_SIMILARITY, *GATES):
                c.reason = Reason.BELOW_CUTOFF
            _record(c, cosine, lex_share, sem_share)
            continue
        assert c.memory is not None
        c.reason = None
        semantic_part = p.claims_semantic_weight * max(cosine.get(c.id, 0.0), 0.0)
        c.raw = lex_share.get(c.id, (0, 0.0))[1] + semantic_part
        c.factors = rank_factors(c.memory, c.raw, request.now)
        _record(c, cosine, lex_share, {**sem_share, c.id: (sem_share.get(c.id, (0, 0.0))[0], semantic_part)})
        survivors.append(c)
    # As the claims lane orders its survivors: the caller's preferred origin first (a
    # preference among the relevant, never a way in), then the rank score.
    preferred = request.prefer_origin
    survivors.sort(key=lambda c: (preferred is not None and (c.memory is None or c.memory.origin != preferred),
                                  order_key(c.id, c.factors) if c.factors else (0,)))
    return survivors


def _fuse_episodes(lexical: list[Candidate], semantic: list[Candidate], merged: dict[str, Candidate],
                   cosine: dict[str, float], request: Request, context: dict[str, float]) -> list[Candidate]:
    """Calibrated score fusion: relevance = lexical share + ``episodes_semantic_weight`` ×
    semantic share.

    The lexical share is the episode ranker's score over the best's (1.0 for its first
    turn); the semantic share is a turn's relevance by meaning (in context when
    :func:`in_context` scored it, else its cosine) over the best of the ``pool`` turns
    that lead the semantic order, and 0 outside them. No gate decides (evidence-finding:
    the verdicts are reported)."""
    p = SEMANTIC
    lex_live = [c for c in lexical if c.reason is None]
    best_lex = max((float(c.lane_score or 0.0) for c in lex_live), default=0.0)
    lex_share = {c.id: (r, float(c.lane_score or 0.0) / best_lex if best_lex > 0 else 0.0)
                 for r, c in enumerate(lex_live, start=1)}
    lead = [c for c in semantic if c.reason is None][: p.pool]
    meaning = {c.id: max(context.get(c.id, float(c.lane_score or 0.0)), 0.0) for c in lead}
    best_sem = max(meaning.values(), default=0.0)
    sem_share = {c.id: (r, p.episodes_semantic_weight * meaning[c.id] / best_sem if best_sem > 0 else 0.0)
                 for r, c in enumerate(lead, start=1)}
    live = [c for c in merged.values() if c.reason is None and c.memory is not None]
    for c in live:
        assert c.memory is not None
        c.raw = lex_share.get(c.id, (0, 0.0))[1] + sem_share.get(c.id, (0, 0.0))[1]
        c.factors = rank_factors(c.memory, c.raw, request.now)
        _record(c, cosine, lex_share, sem_share)
        if c.id in context and c.fusion is not None:
            c.fusion["in_context"] = round(context[c.id], 4)
    # Ties keep the episode ranker's order, then meaning's (an id is random).
    last = len(merged) + 1
    live.sort(key=lambda c: (-c.raw, lex_share.get(c.id, (last,))[0], sem_share.get(c.id, (last,))[0], c.id))
    return live


def _turned_away(query: ParsedQuery, merged: dict[str, Candidate], cosine: dict[str, float],
                 alone: set[str]) -> dict[str, Reason]:
    """Of the candidates in ``alone`` (passed on meaning, not on words), those the
    records around them show to be about something else, each with its reason.

    Every text has a nearest neighbour, and the nearest neighbours of a question about a
    thing the store does not hold are its siblings: the same person's other facts, the
    same topic of another thing. Two signs tell such a neighbour from a paraphrase, and
    both are read from the candidates the lexical lane judged:

    * the question names a thing by two words ("the *rye bread*", "the *running club*"),
      the store calls other things by its noun ("bread", "club"), and the record holds
      neither word (``missing-subject``): a store that speaks of bread says so in a note
      about bread. Meaning bridges the words a store does not use: "the network
      *passphrase*" is the note on the wifi password when no note says passphrase, and "our
      tax *advisor*" the note on the accountant, though other notes say "tax" (a modifier is
      often a common word; the noun says what kind of thing is meant);
    * a record holding some of the question's words is nearer in meaning, and the gates
      turned it down (``below-similarity``): the question is about that record's topic,
      which does not answer it ("when does the running club meet" is nearest the training
      plan, 0.48, and then the goal race, 0.42), and what lies further off is its neighbour.
    """
    if not alone:
        return {}
    out: dict[str, Reason] = {}
    judged = [c for c in merged.values() if c.memory is not None and c.lexical is not None
              and (c.reason is None or c.reason in GATES)]
    spoken = frozenset().union(*(c.lexical.in_content | c.lexical.in_aliases for c in judged if c.lexical))
    verb = closing_verb(query.text)  # "which languages does the app *support*": a verb, not a named thing
    # (noun, its words) of each named thing; "flat A": the noun alone (the label is no word)
    named = [(first, {first}) if is_label(second) else (second, {first, second})
             for first, second in query.qualified if second != verb]
    for i in alone:
        lex = merged[i].lexical
        held = lex.in_content | lex.in_aliases if lex is not None else frozenset()
        if any(noun in spoken and not words & held for noun, words in named):
            out[i] = Reason.MISSING_SUBJECT
    turned_down = [cosine[c.id] for c in judged if c.id in cosine and c.id not in alone and c.reason is not None
                   and c.lexical and (c.lexical.in_content or c.lexical.in_aliases)]
    nearest = max(turned_down, default=None)
    if nearest is not None:
        out.update({i: Reason.BELOW_SIMILARITY for i in alone if i not in out and cosine.get(i, 0.0) <= nearest})
    return out


def _record(c: Candidate, cosine: dict[str, float], lex: dict[str, tuple[int, float]], sem: dict[str, tuple[int, float]]) -> None:
    """The per-candidate numbers explain shows: each lane's rank and share, the cosine."""
    doc: dict = {}
    if c.id in cosine:
        doc["cosine"] = round(cosine[c.id], 4)
    if c.id in lex:
        doc["lexical_rank"], doc["lexical"] = lex[c.id][0], round(lex[c.id][1], 5)
    if c.id in sem:
        if sem[c.id][0]:  # 0: a lexical survivor the semantic lane did not rank
            doc["semantic_rank"] = sem[c.id][0]
        doc["semantic"] = round(sem[c.id][1], 5)
    c.fusion = doc
