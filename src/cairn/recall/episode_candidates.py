"""Which turns the episode lane scores: candidates read in bounded time at any store size.

The episode ranker (:mod:`cairn.recall.episodes`) scores its candidates itself; this
module only picks them, through the store's lexical-index primitives. How depends on how
common the words are in the space (its own document frequencies; a prefix word counts
every indexed term it starts, summed):

* **Ranked by the store** when the words are held by at most :data:`EXACT` records
  (summed over the words): the store's own relevance order over every match
  (:meth:`ReadView.episode_matches`), best ``cap`` first. Ranking that many is bounded
  too, and the candidates are exactly the ones the lane always had: in LoCoMo's
  conversations (300-700 turns) the sum is at most 825.
* **By IDF-weighted overlap of postings** when the words are more common (as the claims lane's
  candidates, :mod:`cairn.recall.candidates`). The rarer words' postings are read in full,
  rarest first; a common word's newest ``SCAN`` postings only when the rarer words find
  fewer than ``cap`` records (with rarer words at hand, the newest holders of a common
  word are no better candidates than any other, and reading them costs the most). Each
  record scores the summed IDF of the words it holds; the best are loaded as turns of the
  space (ties: the order read, so the rarest word's newest holders first) until ``cap``.
  The cost grows with ``SCAN`` and the number of words, not with the store.

Postings span every space and kind of the file: in a file where other records hold the
same common words, fewer of a word's newest postings are turns of this space. The cost
of the first way counts the file's matches too, so a space beside much larger ones can
take it with more matches than ``SCAN`` per word to rank.

What a question reads that the data decides alone (the space's document frequencies and
record count, the spellings a prefix reaches, a word's newest postings, each turn read by
its key) is kept in the read view's ``state_memo`` (:mod:`cairn.recall.kept`), emptied by
any commit: the next question reads only what no question before it read. A view that
keeps nothing is read exactly as before (the store ranks and reads in one call).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

from ..store import EpisodeTurn, ReadView
from . import kept
from .candidates import IndexStats

EXACT = 2000  # records holding the words (summed) up to which the store ranks every match
SCAN = 2000  # postings read per word; a word held by more records of the space is common
PREFIX_TERMS = 256  # indexed terms a prefix word reaches, read at most (more: the word is common)
KEPT_TURNS = 1024  # turns kept read per space and filter (about 0.6 MB; a LoCoMo conversation fits)
KEPT_POSTINGS = 16384  # postings kept, all words together (a common word's SCAN each)


def turn_candidates(view: ReadView, space: str, words: Sequence[tuple[str, bool]], cap: int,
                    skip_retired: bool = False) -> list[EpisodeTurn]:
    """At most ``cap`` episodes of ``space`` whose content holds a ``(word, prefix)`` of
    ``words``, the likeliest first (see the module docstring)."""
    if not words or cap < 1:
        return []
    stats = IndexStats(view, space)
    forms, held = _held(stats, words)
    if sum(held) <= EXACT:
        if not keeps(view):
            return view.episode_matches(space, words, cap, skip_retired)
        return load_turns(view, space, view.episode_match_keys(space, words, cap, skip_retired), cap, skip_retired)
    docs = max(stats.docs, 1)
    overlap: dict[Hashable, float] = {}
    order = sorted(range(len(words)), key=lambda i: (held[i], i))
    rare = [i for i in order if held[i] <= SCAN]
    common = [i for i in order if held[i] > SCAN]
    read: dict[str, list[Hashable]] = {}  # postings of each term, read once ("paint" and "paint*" share)
    for group in (rare, common):
        if group is common and len(overlap) >= cap:
            break  # the rarer words found enough: the common ones are not read
        for i in group:
            weight = math.log(1 + (docs - held[i] + 0.5) / (held[i] + 0.5))
            keys = _postings(view, forms[i][:PREFIX_TERMS], read)
            if not overlap:
                overlap = dict.fromkeys(keys, 0.0 + weight)  # what the loop gives each, in one step
                continue
            for key in keys:
                overlap[key] = overlap.get(key, 0.0) + weight
    # Higher overlap first; equal overlaps keep the order read (stable, reversed or not).
    ranked = sorted(overlap, key=overlap.__getitem__, reverse=True)
    return load_turns(view, space, ranked, cap, skip_retired)


def every_match(view: ReadView, space: str, words: Sequence[tuple[str, bool]], cap: int,
                skip_retired: bool = False) -> list[EpisodeTurn] | None:
    """Every episode of ``space`` that :func:`turn_candidates` would rank (ranked by the
    store), unranked, in key order, when no more than ``cap`` of them match: the same
    turns, spared the store's ranking. None when the store would not rank every match
    (more than ``cap``, or words too common) or the view keeps nothing; the caller then
    asks :func:`turn_candidates`."""
    if not words or cap < 1 or not keeps(view) or sum(_held(IndexStats(view, space), words)[1]) > EXACT:
        return None
    keys = view.episode_match_set(space, words, cap + 1, skip_retired)
    return None if len(keys) > cap else load_turns(view, space, keys, cap, skip_retired)


def _held(stats: IndexStats, words: Sequence[tuple[str, bool]]) -> tuple[list[list[str]], list[int]]:
    """The indexed terms each word matches, and how many records of the space hold them
    (summed; a prefix reaching too many terms counts as common)."""
    forms = [_forms(stats, word, prefix) for word, prefix in words]
    df = frequencies(stats, sorted({t for f in forms for t in f}))
    return forms, [sum(df[t] for t in f) if len(f) <= PREFIX_TERMS else SCAN + 1 for f in forms]


def keeps(view: ReadView) -> bool:
    """Whether ``view`` keeps values while its data is unchanged (inside a snapshot)."""
    return (view.state_memo() if hasattr(view, "state_memo") else None) is not None


def frequencies(stats: IndexStats, terms: Sequence[str]) -> dict[str, int]:
    """Records of the space holding each of ``terms`` (kept: read once per term)."""
    stats.prefetch(terms)
    return {t: stats.df(t) for t in terms}


def load_turns(view: ReadView, space: str, keys: Sequence[Hashable], limit: int,
               skip_retired: bool = False) -> list[EpisodeTurn]:
    """As :meth:`ReadView.episode_turns`, each key's outcome (its turn, or None: not an
    episode of ``space``, or retired when ``skip_retired``) kept while the data is
    unchanged: only the keys no question before read are asked for."""
    known = kept.table(view, ("episode turns", space, skip_retired), KEPT_TURNS) if keeps(view) else None
    if known is None:
        return view.episode_turns(space, keys, limit, skip_retired)
    if len(keys) <= limit:
        # One read of them all, as the loop below makes it (its first chunk is every key).
        missing = [key for key in keys if key not in known]
        if missing:
            read = {t.key: t for t in view.episode_turns(space, missing, len(missing), skip_retired)}
            for key in missing:
                known[key] = read.get(key)
        return [turn for turn in map(known.__getitem__, keys) if turn is not None]
    out: list[EpisodeTurn] = []
    start = 0
    while start < len(keys) and len(out) < limit:
        # As episode_turns: the first read asks for as many rows as wanted, later ones
        # (after rows were left out) for twice as many.
        step = limit if start == 0 else limit * 2
        chunk = keys[start : start + step]
        start += step
        missing = [key for key in chunk if key not in known]
        if missing:
            read = {t.key: t for t in view.episode_turns(space, missing, len(missing), skip_retired)}
            for key in missing:
                known[key] = read.get(key)
        for key in chunk:
            turn = known[key]
            if turn is not None:
                out.append(turn)
                if len(out) >= limit:
                    break
    return out


def _forms(stats: IndexStats, word: str, prefix: bool) -> list[str]:
    """The indexed terms ``(word, prefix)`` matches: the word, and with ``prefix`` every
    longer indexed term it starts (one more than :data:`PREFIX_TERMS` read at most)."""
    return [word, *stats.extensions(word, PREFIX_TERMS)] if prefix else [word]


def _postings(view: ReadView, terms: list[str], read: dict[str, list[Hashable]]) -> list[Hashable]:
    """The newest :data:`SCAN` records whose content holds one of ``terms``, newest first
    (``read``: the postings of each term read so far, filled in; kept across questions)."""
    known, weight = kept.weighed(view, ("episode postings", SCAN), KEPT_POSTINGS)
    for term in terms:
        if term not in read:
            keys = known.get(term)
            if keys is None:
                keys = known[term] = view.content_postings(term, SCAN)
                weight[0] += len(keys) + 1
            read[term] = keys
    if len(terms) == 1:
        return read[terms[0]]
    found = {key for term in terms for key in read[term]}
    return sorted(found, reverse=True)[:SCAN]  # type: ignore[type-var]
