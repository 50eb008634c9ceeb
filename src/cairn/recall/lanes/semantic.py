"""The ``semantic`` and ``semantic-episodes`` lanes: nearest texts by meaning.

Both need the semantic extra (``pip install 'cairn-memory[semantic]'``); without it,
asking for either is a :class:`~cairn.embed.vectors.SemanticUnavailable` error that says
how to install it, and nothing else changes.

Candidates are the :data:`~cairn.recall.fusion.SEMANTIC` ``pool`` stored texts of the
space nearest to the query by cosine (exact search over the space's vectors,
:class:`cairn.embed.vectors.VectorIndex`), mapped back to the records holding them, with
the same exclusions as every lane. ``lane_score`` and ``raw`` are the cosine. A record
a retention policy retired takes no place in the pool unless the request includes retired
records, as in the lexical lanes.

* ``semantic`` (claims, episodes left out) gates its candidates itself
  (:func:`cairn.recall.fusion.semantic_gate`): a strong similarity passes alone, a
  moderate one only beside lexical evidence, and a literal the caller typed is still
  demanded. Similarity alone is not relevance: every text has a nearest neighbour.
* ``semantic-episodes`` (verbatim turns) serves evidence-finding like the ``episodes``
  lane: its order is kept and the gates are only reported.

With ``known_at`` the records are read as Cairn held them then
(:func:`cairn.store.timetravel.records_known_at`) and scored by the vector of their text
at that time, when it is stored; a current match that did not exist then is excluded as
``not-yet-recorded``.
"""

from __future__ import annotations

import time
from typing import Any, cast

from ...embed import Embedder
from ...embed.vectors import VectorIndex, embed_texts, require
from ...errors import StoreError
from ...model import Kind, Status
from ...store import ReadView, content_hash
from ...store.protocol import VectorView
from ...store.timetravel import records_known_at
from ..fusion import SEMANTIC, semantic_gate
from ..gates import Reason
from ..pipeline import Candidate, Request, exclude
from ..query import ParsedQuery

_QUERY_CACHE: dict[tuple[str, str], Any] = {}  # (embedder, query) -> vector: hybrid asks twice


def vector_view(view: ReadView) -> VectorView:
    """``view`` as a store that keeps vectors, or a :class:`~cairn.errors.StoreError`."""
    if not hasattr(view, "vector_rows"):
        raise StoreError("this store keeps no vectors: the semantic lanes need a backend that does (the SQLite store)")
    return cast(VectorView, view)


def query_vector(model: Embedder, text: str) -> Any:
    """The query's vector, embedded once per process and query text."""
    key = (model.name, text)
    found = _QUERY_CACHE.get(key)
    if found is None:
        if len(_QUERY_CACHE) > 256:
            _QUERY_CACHE.clear()
        found = _QUERY_CACHE[key] = embed_texts(model, [text])[0]
    return found


def similarities(view: ReadView, request: Request, candidates: list[Candidate], *, episodes: bool) -> dict[str, float]:
    """Cosine of each readable candidate's text to the query (those with a stored vector)."""
    model = require()
    index = VectorIndex.load(vector_view(view), request.space, model, episodes)
    if not len(index):
        return {}
    vector = query_vector(model, request.query)
    out: dict[str, float] = {}
    for c in candidates:
        if c.memory is not None:
            score = index.similarity(vector, content_hash(c.memory.content))
            if score is not None:
                out[c.id] = score
    return out


class SemanticLane:
    name = "semantic"
    applies_gates = True
    episodes = False

    def candidates(self, view: ReadView, request: Request, query: ParsedQuery, scan: dict) -> list[Candidate]:
        """The nearest stored texts' records, excluded, with their cosine as raw relevance."""
        model = require()
        started = time.perf_counter()
        index = VectorIndex.load(vector_view(view), request.space, model, self.episodes)
        if not len(index):
            scan["semantic"] = {"lane": self.name, "vectors": 0, "pool": 0}  # nothing embedded yet: no query to embed
            return []
        vector = query_vector(model, request.query)
        embedded = time.perf_counter()
        hits = index.search(vector, SEMANTIC.pool)
        candidates = self._read(view, request, index, vector, hits)
        exclude(candidates, request)
        scan["semantic"] = {
            "lane": self.name, "vectors": len(index), "pool": len(hits), "load_embed_ms": round((embedded - started) * 1000, 2),
            "search_ms": round((time.perf_counter() - embedded) * 1000, 2),
        }
        return candidates

    def _read(self, view: ReadView, request: Request, index: VectorIndex, vector: Any,
              hits: list[tuple[str, float]]) -> list[Candidate]:
        space = request.space
        if request.known_at is None:
            holders = vector_view(view).ids_by_hash(space, [h for h, _ in hits], self.episodes)
            ids = [i for h, _ in hits for i in holders.get(h, [])]
            memories = view.get_memories(space, ids)
            score = dict(hits)
            out = []
            for h, _ in hits:
                for i in holders.get(h, []):
                    m = memories.get(i)
                    if m is not None and m.status is Status.RETIRED and not request.include_retired:
                        continue  # as in the lexical lanes: a retired record takes no place in the pool
                    c = Candidate(i, self.name, m, lane_score=score[h], raw=score[h])
                    if c.memory is None:
                        c.reason = Reason.OTHER_SPACE
                    out.append(c)
            return out
        # As Cairn held it then: every record of that time with a stored vector for its text.
        then = [m for m in records_known_at(view, space, request.known_at) if (m.kind is Kind.EPISODE) == self.episodes]
        scored = [(m, index.similarity(vector, content_hash(m.content))) for m in then]
        ranked = sorted(((m, s) for m, s in scored if s is not None), key=lambda p: (-p[1], p[0].id))[: SEMANTIC.pool]
        out = [Candidate(m.id, self.name, m, lane_score=s, raw=s) for m, s in ranked]
        known = {m.id for m in then}
        holders = vector_view(view).ids_by_hash(space, [h for h, _ in hits], self.episodes)
        later = [i for h, _ in hits for i in holders.get(h, []) if i not in known]
        current = view.get_memories(space, later)
        out += [Candidate(i, self.name, current.get(i), reason=Reason.NOT_YET_RECORDED) for i in later]
        return out

    def apply_gates(self, live: list[Candidate], query: ParsedQuery, request: Request) -> None:
        """The semantic gate (see :func:`cairn.recall.fusion.semantic_gate`)."""
        semantic_gate(live, query, request)


class SemanticEpisodesLane(SemanticLane):
    name = "semantic-episodes"
    applies_gates = False
    episodes = True

    def apply_gates(self, live: list[Candidate], query: ParsedQuery, request: Request) -> None:
        """Evidence-finding: the verdict is reported, the lane's order kept."""
        semantic_gate(live, query, request, report_only=True)
