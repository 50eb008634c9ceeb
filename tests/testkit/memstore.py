"""A pure-Python, in-memory store implementing :class:`cairn.store.Backend`.

It exists to prove the seam: the engine must run on it through the protocols alone. It
keeps records in dicts, indexes their terms (Cairn's own :func:`cairn.text.index_text`,
as the SQLite store does), and makes a write atomic by restoring a copy of its state when
the block raises. Relevance here is a simple match count, not FTS5's bm25: tests that
use it assert what was found, not fine ranking.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime

from cairn.model import Event, Memory, Relation, format_time, parse_time
from cairn.store import SCHEMA_VERSION, EpisodeTurn, RecordFacts, content_hash
from cairn.store.protocol import SPEAKER_SCAN, facts_of
from cairn.store.sqlite.vectors import vector_text
from cairn.text import index_text

ACTIVE = ("provisional", "confirmed")


@dataclass
class _Row:
    key: int
    memory: Memory
    turn: int | None
    content: list[str]  # indexed terms
    aliases: list[str]


@dataclass
class _State:
    rows: dict[tuple[str, str], _Row] = field(default_factory=dict)
    by_key: dict[int, tuple[str, str]] = field(default_factory=dict)
    events: list[tuple[int, Event]] = field(default_factory=list)
    touched: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # (space, record) -> event seqs
    relations: dict[tuple[str, str], Relation] = field(default_factory=dict)
    receipts: dict[tuple[str, str, str], tuple[str, str]] = field(default_factory=dict)
    sources: dict[tuple[str, str], dict] = field(default_factory=dict)
    traces: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)  # -> (at, body)
    # (space, embedder, content hash, is episode) -> (insertion number, vector bytes)
    vectors: dict[tuple[str, str, str, bool], tuple[int, bytes]] = field(default_factory=dict)
    vector_seq: int = 0


def _holds_phrase(terms: list[str], words: Sequence[str]) -> bool:
    n = len(words)
    return n > 0 and any(terms[i : i + n] == list(words) for i in range(len(terms) - n + 1))


def _matches(terms: list[str], words: Sequence[tuple[str, bool]]) -> int:
    """How many of ``words`` (exact, or as a prefix) the terms hold."""
    return sum(1 for w, prefix in words if any(t.startswith(w) if prefix else t == w for t in terms))


class MemStore:
    """The fake backend. ``MemStore()`` is open; ``close()`` only marks it closed."""

    def __init__(self, path: str = ":memory-fake:") -> None:
        self.path = path
        self.read_only = False
        self.closed = False
        self._s = _State()
        self.before_commit: Callable[[MemStore], None] | None = None  # as the SQLite store's
        self.written: list[tuple[str, str, bool, str]] = []

    # -- backend -----------------------------------------------------------------------

    def close(self) -> None:
        self.closed = True

    @contextmanager
    def snapshot(self) -> Iterator[MemStore]:
        yield self

    @contextmanager
    def write(self, *, durable: bool = True) -> Iterator[MemStore]:
        saved = copy.deepcopy(self._s)
        self.written = []
        try:
            yield self
            if self.before_commit is not None and self.written:
                self.before_commit(self)
        except BaseException:
            self._s = saved
            raise
        finally:
            self.written = []

    def problems(self) -> list[dict]:
        return []

    def integrity(self) -> str:
        return "ok"

    def schema_version(self) -> int:
        return SCHEMA_VERSION

    def checkpoint(self) -> None:
        return None

    # -- memories ----------------------------------------------------------------------

    def _space_rows(self, space: str) -> list[_Row]:
        return [r for (s, _), r in self._s.rows.items() if s == space]

    def get_memory(self, space: str, memory_id: str) -> Memory | None:
        row = self._s.rows.get((space, memory_id))
        return None if row is None else row.memory

    def get_memories(self, space: str, ids: list[str]) -> dict[str, Memory]:
        return {i: self._s.rows[(space, i)].memory for i in ids if (space, i) in self._s.rows}

    def iter_memories(self, space: str, *, statuses=None, kinds=None, limit=None, offset=0) -> Iterator[Memory]:
        found = [
            r.memory for r in self._space_rows(space)
            if (not statuses or r.memory.status.value in statuses) and (not kinds or r.memory.kind.value in kinds)
        ]
        found.sort(key=lambda m: (format_time(m.created_at), m.id))
        yield from (found[offset : offset + limit] if limit is not None else found)

    def count_memories(
        self, space: str, *, statuses: tuple[str, ...] | None = None, kinds: tuple[str, ...] | None = None
    ) -> int:
        return len(list(self.iter_memories(space, statuses=statuses, kinds=kinds)))

    def memories_with_hash(self, space: str, origin: str, digest: str) -> list[Memory]:
        return [m for m in self.iter_memories(space) if m.origin == origin and content_hash(m.content) == digest]

    def memories_with_hashes(self, space: str, keys: Sequence[tuple[str, str]]) -> list[Memory]:
        wanted = set(keys)
        return [m for m in self.iter_memories(space) if (m.origin, content_hash(m.content)) in wanted]

    def ids_with_prefix(self, table: str, space: str, prefix: str, limit: int = 20) -> list[str]:
        pool = {
            "memories": [i for (s, i) in self._s.rows if s == space],
            "events": [e.id for _, e in self._s.events if e.space == space],
            "relations": [i for (s, i) in self._s.relations if s == space],
        }[table]
        return sorted(i for i in pool if i.startswith(prefix))[:limit]

    def present_ids(self, table: str, space: str, ids: Sequence[str]) -> set[str]:
        if table not in ("memories", "events", "relations"):
            raise ValueError(table)
        return set(ids) & set(self.ids_with_prefix(table, space, "", limit=1 << 62))

    def spaces_holding(self, prefix: str, *, besides: str, limit: int = 5) -> list[str]:
        return sorted({s for (s, i) in self._s.rows if i.startswith(prefix) and s != besides})[:limit]

    # -- events, relations, receipts, sources ------------------------------------------

    def get_event(self, space: str, event_id: str) -> Event | None:
        return next((e for _, e in self._s.events if e.space == space and e.id == event_id), None)

    def events(self, space: str, *, record_id=None, limit=None, newest_first=True) -> list[Event]:
        if record_id is None:
            found = [(seq, e) for seq, e in self._s.events if e.space == space]
        else:
            seqs = set(self._s.touched.get((space, record_id), []))
            found = [(seq, e) for seq, e in self._s.events if seq in seqs]
        found.sort(key=lambda p: p[0], reverse=newest_first)
        out = [e for _, e in found]
        return out[:limit] if limit is not None else out

    def events_after(self, space: str, at: datetime) -> list[Event]:
        return [e for e in self.events(space, newest_first=False) if e.at > at]

    def count_events(self, space: str) -> int:
        return sum(1 for _, e in self._s.events if e.space == space)

    def events_by_reason(self, space: str, prefixes: Sequence[str]) -> list[Event]:
        return [e for e in self.events(space, newest_first=False) if any(e.reason.startswith(p) for p in prefixes)]

    def history_by_reason(self, space: str, record_ids: Sequence[str], prefixes: Sequence[str]) -> dict[str, list[Event]]:
        found = {i: [e for e in self.events(space, record_id=i, newest_first=False)
                     if any(e.reason.startswith(p) for p in prefixes)] for i in dict.fromkeys(record_ids)}
        return {i: events for i, events in found.items() if events and prefixes}

    def record_facts(self, space: str, *, kinds=None, statuses=None) -> list[RecordFacts]:
        return sorted((facts_of(m) for m in self.iter_memories(space, statuses=statuses, kinds=kinds)
                       if m.status.value not in ("retired", "forgotten")), key=lambda f: (f.kind, f.status, f.id))

    def get_relation(self, space: str, relation_id: str) -> Relation | None:
        return self._s.relations.get((space, relation_id))

    def relations(self, space: str, *, record_id=None, active_only=True) -> list[Relation]:
        found = [
            r for (s, _), r in self._s.relations.items()
            if s == space and (record_id is None or record_id in (r.from_id, r.to_id))
            and (not active_only or r.status.value == "active")
        ]
        return sorted(found, key=lambda r: (format_time(r.created_at), r.id))

    def get_receipt(self, space: str, source_id: str, memory_id: str) -> tuple[str, str] | None:
        return self._s.receipts.get((space, source_id, memory_id))

    def latest_receipt(self, space: str, memory_id: str, verdicts: Sequence[str]) -> datetime | None:
        receipts = self._s.receipts.items()
        times = [parse_time(at) for (s, _, m), (v, at) in receipts if s == space and m == memory_id and v in verdicts]
        return max(times, default=None)

    def get_source(self, space: str, source_id: str) -> dict | None:
        return self._s.sources.get((space, source_id))

    def state_memo(self) -> dict | None:
        return None  # nothing is kept across reads: every recall reads afresh

    # -- traces ------------------------------------------------------------------------

    def recent_traces(self, space: str, limit: int) -> list[dict]:
        found = sorted(((at, i, body) for (s, i), (at, body) in self._s.traces.items() if s == space),
                       key=lambda t: (t[0], t[1]))
        found.sort(key=lambda t: t[0], reverse=True)  # newest first, ties by id
        return [json.loads(body) for _, _, body in found[:limit]]

    def get_trace(self, space: str, trace_id: str) -> dict | None:
        found = self._s.traces.get((space, trace_id))
        return None if found is None else json.loads(found[1])

    # -- lexical index -----------------------------------------------------------------

    def _indexed(self) -> list[_Row]:
        return [r for r in self._s.rows.values() if r.memory.purged_at is None]

    def document_count(self) -> int:
        return len(self._s.by_key)

    def document_frequency(self, term: str) -> int:
        return sum(1 for r in self._indexed() if term in r.content or term in r.aliases)

    def space_document_count(self, space: str) -> int:
        return sum(1 for r in self._indexed() if r.memory.space == space)

    def space_document_frequencies(self, space: str, terms: Sequence[str]) -> dict[str, int]:
        rows = [r for r in self._indexed() if r.memory.space == space]
        return {t: sum(1 for r in rows if t in r.content or t in r.aliases) for t in dict.fromkeys(terms)}

    def terms_with_prefix(self, prefix: str, limit: int) -> list[str]:
        found = {t for r in self._indexed() for t in (*r.content, *r.aliases) if t.startswith(prefix) and t != prefix}
        return sorted(found)[:limit]

    def term_postings(self, term: str, limit: int) -> list[Hashable]:
        keys = sorted((r.key for r in self._indexed() if term in r.content or term in r.aliases), reverse=True)
        return list(keys[:limit])

    def terms_postings(self, terms: Sequence[str], limit: int) -> dict[str, list[Hashable]]:
        return {term: self.term_postings(term, limit) for term in dict.fromkeys(terms)}

    def load_ranked(self, space: str, keys: Sequence[Hashable], *, claims_only: bool, limit: int,
                    skip_retired: bool = False) -> list[Memory]:
        out: list[Memory] = []
        for key in keys:
            place = self._s.by_key.get(key)  # type: ignore[call-overload]
            if place is None or place[0] != space:
                continue
            memory = self._s.rows[place].memory
            if not (claims_only and memory.kind.value == "episode") and not (skip_retired and memory.status.value == "retired"):
                out.append(memory)
            if len(out) >= limit:
                break
        return out

    def phrase_texts(self, space: str, words: Sequence[str], limit: int) -> list[tuple[str, list[str]]]:
        rows = [r for r in self._indexed() if r.memory.space == space
                and (_holds_phrase(r.content, words) or _holds_phrase(r.aliases, words))]
        return [(r.memory.content, list(r.memory.aliases)) for r in rows[:limit]]

    def search_all(self, space: str, words: Sequence[str], limit: int) -> list[tuple[str, float]]:
        hits = [(r, sum((r.content + r.aliases).count(w) for w in words)) for r in self._indexed()
                if r.memory.space == space and all(w in r.content or w in r.aliases for w in words)]
        hits.sort(key=lambda h: (-h[1], h[0].key))
        return [(r.memory.id, -float(n)) for r, n in hits[:limit]]

    def search_any(self, space: str, words: Sequence[str], limit: int) -> list[tuple[str, float]]:
        pairs = [(w, False) for w in words]
        hits = [(r, _matches(r.content, pairs)) for r in self._indexed() if r.memory.space == space]
        hits = [h for h in hits if h[1]]
        hits.sort(key=lambda h: (-h[1], h[0].key))
        return [(r.memory.id, -float(n)) for r, n in hits[:limit]]

    def mentioning(self, space: str, origin: str, words: Sequence[str]) -> list[tuple[str, str]]:
        wanted = set(words)
        return [(r.memory.id, " ".join(r.content)) for r in self._indexed()
                if r.memory.space == space and r.memory.origin == origin and r.memory.status.value in ACTIVE
                and wanted & (set(r.content) | set(r.aliases))]

    def _episodes(self, space: str) -> list[_Row]:
        return [r for r in self._indexed() if r.memory.space == space and r.memory.kind.value == "episode"]

    @staticmethod
    def _turn(r: _Row) -> EpisodeTurn:
        at = r.memory.evidence.at
        return EpisodeTurn(r.key, r.memory.id, r.memory.origin, r.turn or 0, " ".join(r.content), " ".join(r.aliases),
                           "" if at is None else format_time(at))

    def names_speaker(self, space: str, word: str) -> bool:
        hits = sorted((r for r in self._indexed() if word in r.content or word in r.aliases), key=lambda r: r.key,
                      reverse=True)[:SPEAKER_SCAN]
        named = [r for r in hits if word in r.aliases][:16]
        return any(r.memory.space == space and r.memory.kind.value == "episode" for r in named)

    def episode_matches(self, space: str, words: Sequence[tuple[str, bool]], cap: int,
                        skip_retired: bool = False) -> list[EpisodeTurn]:
        hits = [(r, _matches(r.content, words)) for r in self._episodes(space)
                if not (skip_retired and r.memory.status.value == "retired")]
        hits = [h for h in hits if h[1]]
        hits.sort(key=lambda h: (-h[1], h[0].key))
        return [self._turn(r) for r, _ in hits[:cap]]

    def episode_match_keys(self, space: str, words: Sequence[tuple[str, bool]], cap: int,
                           skip_retired: bool = False) -> list[Hashable]:
        return [t.key for t in self.episode_matches(space, words, cap, skip_retired)]

    def episode_match_set(self, space: str, words: Sequence[tuple[str, bool]], limit: int,
                          skip_retired: bool = False) -> list[Hashable]:
        return sorted(self.episode_match_keys(space, words, limit, skip_retired))  # type: ignore[type-var]

    def content_postings(self, term: str, limit: int) -> list[Hashable]:
        keys = sorted((r.key for r in self._indexed() if term in r.content), reverse=True)
        return list(keys[:limit])

    def episode_turns(self, space: str, keys: Sequence[Hashable], limit: int,
                      skip_retired: bool = False) -> list[EpisodeTurn]:
        by_key = {r.key: r for r in self._episodes(space) if not (skip_retired and r.memory.status.value == "retired")}
        return [self._turn(by_key[k]) for k in keys if k in by_key][:limit]

    def speaker_turns(self, space: str, word: str, cap: int, skip_retired: bool = False) -> list[EpisodeTurn]:
        hits = [r for r in self._episodes(space) if word in r.aliases
                and not (skip_retired and r.memory.status.value == "retired")]
        hits.sort(key=lambda r: r.key, reverse=True)
        return [self._turn(r) for r in hits[:cap]]

    def count_matching(self, words: Sequence[tuple[str, bool]], bound: int) -> int:
        return min(bound, sum(1 for r in self._indexed() if _matches(r.content, words)))

    def neighbour_turns(self, space: str, positions: Sequence[tuple[str, int]]) -> list[EpisodeTurn]:
        wanted = set(positions)
        return [self._turn(r) for r in self._episodes(space) if (r.memory.origin, r.turn) in wanted]

    def episode_source_ids(self, space: str, origin: str) -> set[str]:
        return {r.memory.evidence.source_id for r in self._space_rows(space)
                if r.memory.origin == origin and r.memory.kind.value == "episode" and r.memory.evidence.source_id}

    # -- writes ------------------------------------------------------------------------

    def put_lifecycle(self, memory: Memory) -> None:
        self.put_memory(memory)

    def put_memory(self, memory: Memory) -> None:
        place = (memory.space, memory.id)
        old = self._s.rows.get(place)
        if old is None:
            key = len(self._s.by_key) + 1
            turn = None
            if memory.kind.value == "episode":
                turns = [r.turn or 0 for r in self._space_rows(memory.space) if r.memory.origin == memory.origin and r.turn]
                turn = max(turns, default=0) + 1
            self._s.by_key[key] = place
        else:
            key, turn = old.key, old.turn
        self._s.rows[place] = _Row(key, memory, turn, index_text(memory.content).split(),
                                   index_text(" ".join(memory.aliases)).split())
        digest = content_hash(memory.content)
        live = memory.purged_at is None and memory.status.value != "forgotten"
        if old is not None:
            self._drop_unheld(memory.space, {content_hash(old.memory.content), digest})
        if live:
            self.written.append((memory.space, digest, memory.kind.value == "episode", vector_text(memory)))

    def put_memories(self, memories) -> None:
        for memory in memories:
            self.put_memory(memory)

    def append_events(self, events) -> None:
        for event in events:
            self.append_event(event)

    def append_event(self, event: Event) -> None:
        seq = len(self._s.events) + 1
        self._s.events.append((seq, event))
        for record_id in event.history_ids:
            self._s.touched.setdefault((event.space, record_id), []).append(seq)

    def rewrite_event(self, event: Event) -> None:
        self._s.events = [(seq, event if e.space == event.space and e.id == event.id else e) for seq, e in self._s.events]

    def put_relation(self, relation: Relation) -> None:
        self._s.relations[(relation.space, relation.id)] = relation

    def put_relations(self, relations) -> None:
        for relation in relations:
            self.put_relation(relation)

    def put_receipt(self, space: str, source_id: str, memory_id: str, verdict: str, at: datetime) -> None:
        self._s.receipts[(space, source_id, memory_id)] = (verdict, format_time(at))

    def put_source(self, space: str, source: dict) -> None:
        self._s.sources[(space, source["id"])] = dict(source)

    def put_trace(self, space: str, trace_id: str, at: str, doc: Mapping[str, object]) -> None:
        self._s.traces[(space, trace_id)] = (at, json.dumps(doc, ensure_ascii=False))

    def prune_traces(self, space: str, before: str, expired: Callable[[str, str, str], bool]) -> int:
        doomed = [i for (s, i), (at, body) in self._s.traces.items() if s == space and at < before and expired(i, at, body)]
        for trace_id in doomed:
            del self._s.traces[(space, trace_id)]
        return len(doomed)

    # -- vectors (cairn.store.protocol.VectorView / VectorTx) ----------------------------

    def _holders(self, space: str, digest: str, episodes: bool) -> list[_Row]:
        return [r for r in self._space_rows(space) if content_hash(r.memory.content) == digest
                and (r.memory.kind.value == "episode") == episodes and r.memory.status.value != "forgotten"]

    def _drop_unheld(self, space: str, hashes: set[str]) -> None:
        for key in [k for k in self._s.vectors if k[0] == space and k[2] in hashes]:
            if not self._holders(space, key[2], key[3]):
                del self._s.vectors[key]

    def _group(self, space: str, embedder: str, episodes: bool) -> list[tuple[int, str, bytes]]:
        return sorted((seq, k[2], data) for k, (seq, data) in self._s.vectors.items()
                      if k[0] == space and k[1] == embedder and k[3] == episodes)

    def vector_signature(self, space: str, embedder: str, episodes: bool) -> tuple:
        rows = self._group(space, embedder, episodes)
        return id(self), len(rows), max((seq for seq, _, _ in rows), default=0)

    def vector_rows(self, space: str, embedder: str, episodes: bool) -> list[tuple[str, bytes]]:
        return [(digest, data) for _, digest, data in self._group(space, embedder, episodes)]

    def vector_keys(self, space: str, embedder: str, hashes: Sequence[str]) -> set[tuple[str, bool]]:
        wanted = set(hashes)
        return {(k[2], k[3]) for k in self._s.vectors if k[0] == space and k[1] == embedder and k[2] in wanted}

    def ids_by_hash(self, space: str, hashes: Sequence[str], episodes: bool) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for digest in dict.fromkeys(hashes):
            rows = sorted(self._holders(space, digest, episodes), key=lambda r: r.key)
            if rows:
                out[digest] = [r.memory.id for r in rows]
        return out

    def missing_vectors(self, space: str, embedder: str, limit: int) -> list[tuple[str, bool, str]]:
        out: dict[tuple[str, bool], str] = {}
        for r in sorted(self._space_rows(space), key=lambda r: r.key):
            if r.memory.status.value == "forgotten":
                continue
            pair = (content_hash(r.memory.content), r.memory.kind.value == "episode")
            if (space, embedder, *pair) not in self._s.vectors and pair not in out:
                out[pair] = vector_text(r.memory)
        return [(d, e, t) for (d, e), t in list(out.items())[:limit]]

    def episode_places(self, space: str, ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        rows = [self._s.rows.get((space, i)) for i in dict.fromkeys(ids)]
        return {r.memory.id: (r.memory.origin, r.turn) for r in rows
                if r is not None and r.turn is not None and r.memory.kind.value == "episode"}

    def count_missing_vectors(self, space: str, embedder: str) -> int:
        return len(self.missing_vectors(space, embedder, 10**9))

    def count_vectors(self, space: str, embedder: str | None = None) -> int:
        return sum(1 for k in self._s.vectors if k[0] == space and (embedder is None or k[1] == embedder))

    def put_vectors(self, space: str, embedder: str, rows: Sequence[tuple[str, bool, bytes]]) -> None:
        for digest, episode, data in rows:
            key = (space, embedder, digest, bool(episode))
            if key not in self._s.vectors:
                self._s.vector_seq += 1
                self._s.vectors[key] = (self._s.vector_seq, data)
