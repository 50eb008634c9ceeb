"""The ``episodes`` lane: verbatim conversation turns, gates reported, not applied.

Candidates are the ranked list of :func:`cairn.recall.episodes.rank_episodes`
(:func:`~cairn.recall.episodes.scored_episodes`, its factors left unnamed), read in
the request's space, with the same exclusions as claims. Their raw relevance is the
episode ranker's own score and their order its order: this lane serves
evidence-finding, which wants recall more than precision, so the relevance gates are
computed and reported (explain's ``gate_reported``) but decide nothing. The ranker
returns only turns that hold a word of the question or were said by a speaker it names
(a neighbour lends context, never itself); ``--as-of`` reaches the ranker, which puts
turns said after that time behind. The records of the pool are kept read while the
store's data is unchanged (:mod:`cairn.recall.kept`).
"""

from __future__ import annotations

from ...model import Memory
from ...store import ReadView
from .. import kept
from ..candidates import IndexStats
from ..episodes import scored_episodes
from ..gates import Reason
from ..pipeline import Candidate, Request, exclude
from ..query import ParsedQuery
from ..score import scorer
from ..variants import expand, lookups

POOL_MIN = 48  # episode-lane candidates asked for
KEPT_RECORDS = 1024  # records kept read per space (cairn.recall.kept): a LoCoMo conversation (up to ~700 turns) fits


class EpisodesLane:
    name = "episodes"
    applies_gates = False

    def candidates(self, view: ReadView, request: Request, query: ParsedQuery, scan: dict) -> list[Candidate]:
        """The episode ranker's pool (at least :data:`POOL_MIN`), excluded, with lexical evidence."""
        pool = max(POOL_MIN, request.limit * 4)
        scored = scored_episodes(view, request.space, request.query, limit=pool, as_of=request.as_of,
                                 include_retired=request.include_retired)
        memories = _memories(view, request.space, [s.id for s in scored])
        stats = IndexStats(view, request.space)
        candidates: list[Candidate] = []
        for s in scored:
            memory = memories.get(s.id)
            c = Candidate(s.id, self.name, memory, lane_score=s.score, raw=s.score, turn_coverage=s.coverage,
                          updates=s.updates, by_subject=s.by_subject)
            if memory is None:
                c.reason = Reason.OTHER_SPACE  # not readable in this space
            candidates.append(c)
        exclude(candidates, request)
        if request.lane != self.name:
            # Asked on behalf of a claims recall (whether turns answer it) or a composition,
            # the gates decide: they read the question's words widened as the claims lane
            # widens them ("built" meets "build", "which framework" meets "FastAPI"). Asked
            # directly, the lane only reports its gates and leaves that read out.
            stats.prefetch(lookups(query))
            query = expand(query, stats)
        score = scorer(query, stats)  # the query's plan looked up once, not once a candidate
        for c in candidates:
            if c.reason is None and c.memory is not None:
                c.lexical = score(c.memory)
        return candidates


def _memories(view: ReadView, space: str, ids: list[str]) -> dict[str, Memory]:
    """As :meth:`ReadView.get_memories`, each record read kept while the data is
    unchanged: the next question's pool holds many of the same turns. An id not found
    (or a malformed row) is not kept, so every read that skips it counts it."""
    known: dict[str, Memory] = kept.table(view, ("episode records", space), KEPT_RECORDS)
    missing = [i for i in ids if i not in known]
    if missing:
        known.update(view.get_memories(space, missing))
    return {i: known[i] for i in ids if i in known}
