"""Ranking of the episode lane (verbatim conversation turns).

Owned by the benchmark work (issue 6), called by the recall pipeline (issue 4) for
``--lane episodes|all``. The contract:

    rank_episodes(view, space, query, *, limit) -> list[EpisodeScore]

``view`` is a store read object (``cairn.store.Store`` or an open ``Tx``), ``query`` the
raw query text. Returns at most ``limit`` candidate episode ids, best first, with a raw
relevance score (higher is better) and named factors for ``explain``. It must not write.
Exclusions (forgotten, other space, ...) are applied by the pipeline afterwards, so this
may over-fetch a little.

This first version is plain FTS5 bm25 over Cairn's terms; the benchmark work replaces it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..text import content_terms


@dataclass(frozen=True, slots=True)
class EpisodeScore:
    id: str
    score: float
    factors: dict[str, float] = field(default_factory=dict)


def fts_or_query(query: str) -> str | None:
    """An FTS5 MATCH expression OR-ing the query's content terms (quoted), or None."""
    terms = list(dict.fromkeys(content_terms(query)))
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def rank_episodes(view, space: str, query: str, *, limit: int) -> list[EpisodeScore]:
    match = fts_or_query(query)
    if match is None:
        return []
    hits = view.fts_match(space, match, limit * 4)
    memories = view.get_memories(space, [i for i, _ in hits])
    out = [EpisodeScore(i, -s, {"bm25": -s}) for i, s in hits if i in memories and memories[i].kind.value == "episode"]
    return out[:limit]
