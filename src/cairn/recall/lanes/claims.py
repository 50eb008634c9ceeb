"""The ``claims`` lane: remembered claims (episodes left out), gates applied.

The query's words are first widened by the spellings the index holds
(:mod:`cairn.recall.variants`: ``postgres`` → ``postgresql``). Candidates come from the
full-text index by IDF-weighted overlap (:func:`cairn.recall.candidates.fetch`) and are scored with Cairn's BM25F plus the phrase
bonus. With ``known_at`` the records rebuilt from the event log are scored in memory
instead, and current matches that did not exist then are excluded as
``not-yet-recorded``.
"""

from __future__ import annotations

from ...model import Kind
from ...store import ReadView
from ...store.timetravel import records_known_at
from .. import kept
from ..candidates import IndexStats, fetch, index_frequency
from ..gates import Reason
from ..phrase import list_frequency, phrase_hits
from ..pipeline import Candidate, Request, exclude
from ..query import ParsedQuery
from ..score import CorpusStats, ListStats, field_terms, scorer
from ..variants import expand, lookups


class ClaimsLane:
    name = "claims"
    applies_gates = True

    def candidates(self, view: ReadView, request: Request, query: ParsedQuery, scan: dict) -> list[Candidate]:
        """Index (or ``known_at``) matches, excluded, then scored with the phrase bonus."""
        stats: CorpusStats
        if request.known_at is not None:
            records = [m for m in records_known_at(view, request.space, request.known_at) if m.kind is not Kind.EPISODE]
            listed = ListStats(records)
            stats, query = listed, expand(query, listed)
            known = {m.id for m in records}
            wanted = {w for f in query.features for t in (f.term, *f.variants) for w in t.split()}
            matched = [m for m in records if wanted & (set(field_terms(m.content)) | set(field_terms(" ".join(m.aliases))))]
            fetched = fetch(view, request.space, query, IndexStats(view, request.space), claims=True,
                            include_retired=request.include_retired)
            later = [m for m in fetched.memories if m.id not in known]
            frequency = list_frequency(records)
        else:
            index = IndexStats(view, request.space)
            # Kept for the recall's later looks at excluded records (cairn.recall.pipeline),
            # and for the lane asked again with the same question while the data is
            # unchanged (the dormant answer, the retired matches): widening is a pure
            # function of the question and the index.
            expanded = kept.table(view, ("expanded", request.space), kept.EXPANDED_KEPT)
            widened = expanded.get(query)
            if widened is None:
                index.prefetch(lookups(query))  # every frequency the variants ask about, in one read
                widened = expanded[query] = expand(query, index)
            query = widened
            fetched = fetch(view, request.space, query, index, claims=True, include_retired=request.include_retired)
            stats = index
            matched, later = fetched.memories, []
            frequency = index_frequency(view, request.space)
        scan.update(fetched.to_dict())
        candidates = [Candidate(m.id, self.name, m) for m in matched]
        candidates += [Candidate(m.id, self.name, m, reason=Reason.NOT_YET_RECORDED) for m in later]
        exclude(candidates, request)
        live = [(c, c.memory) for c in candidates if c.reason is None and c.memory is not None]
        hits = phrase_hits(query, [m for _, m in live], frequency)
        score = scorer(query, stats)
        for c, memory in live:
            c.lexical = score(memory)
            c.phrase = hits.get(c.id)
            c.raw = c.lexical.score * (1 + (c.phrase.bonus if c.phrase else 0.0))
        return candidates
