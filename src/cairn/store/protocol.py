"""The storage seam: the only door through which anything above ``cairn.store`` reaches data.

Three protocols, structural (``typing.Protocol``), so a backend needs no base class:

* :class:`ReadView` — every read the engine and recall make, each scoped to one space
  (the few index statistics that span the file say so);
* :class:`WriteTx` — a read view plus the writes of one atomic transaction;
* :class:`Backend` — a read view over the committed state, plus opening a consistent
  read snapshot, one write transaction at a time, and maintenance.

``cairn.store.sqlite.Store`` is the embedded default; ``tests/testkit/memstore.py`` holds a
pure-Python one that the engine tests drive through these protocols alone.

Keys and order. Records carry a backend-chosen **key** (opaque to callers, hashable,
orderable) and the backend keeps an explicit **insertion order**: lexical postings come
back newest first, and ties elsewhere fall back to insertion order, never to whatever a
storage engine happens to return. Episodes also carry a **turn position**: the turn's
place within its origin's conversation (1, 2, ...), so "the turn before" is ``turn - 1``
in the same origin.

Terms. Every term passed in is in Cairn's index form (:mod:`cairn.text`); a backend folds,
quotes and joins them in its own query language. No query syntax crosses this seam.

Errors. A backend raises only the :class:`~cairn.errors.StoreError` family: a driver
error on a read or a write is translated at the boundary.

Threading. A backend object belongs to the thread that opened it. Using it (or an engine
holding it) from another thread raises :class:`~cairn.errors.StoreError` with a message
naming the cause; nothing is read or written. A server that serves one space from several
threads opens one engine per thread (opening is cheap; SQLite's WAL lets the connections
share the file safely) or funnels every call of that engine through one worker thread.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import NamedTuple, Protocol

from ..model import Event, Memory, Relation

Key = Hashable  # a backend's opaque record key
SPEAKER_SCAN = 512  # index hits of a word read to tell whether it names a speaker (ReadView.names_speaker)


class EpisodeTurn(NamedTuple):
    """One episode as the episode lane reads it: its indexed terms, speaker and time."""

    key: Key  # opaque; orders like insertion
    id: str
    origin: str
    turn: int  # position within its origin's conversation (1, 2, ...)
    terms: str  # the indexed terms of its content, space-joined
    speaker: str  # the indexed terms of its aliases (the speaker), space-joined
    at: str  # evidence time as stored (ISO-8601), "" when absent


class RecordFacts(NamedTuple):
    """What retention policies and maintenance rules read of one record, without its
    body: read from columns and an index, never by decoding the whole record. Times are
    POSIX seconds (whole seconds), None when absent or unreadable."""

    id: str
    kind: str
    status: str
    revision: int
    pinned: bool
    purged: bool
    created_at: float | None
    evidence_at: float | None
    reinforced_at: float | None
    last_confirmed_at: float | None


def facts_of(memory: Memory) -> RecordFacts:
    """A decoded record's facts (for a backend without an index holding them)."""
    def t(value: datetime | None) -> float | None:
        return None if value is None else float(math.floor(value.timestamp()))

    return RecordFacts(memory.id, memory.kind.value, memory.status.value, memory.revision, memory.pinned,
                       memory.purged_at is not None, t(memory.created_at), t(memory.evidence.at),
                       t(memory.reinforced_at), t(memory.last_confirmed_at))


class ReadView(Protocol):
    """Reads. Rows that do not parse into the model are skipped (see ``problems``)."""

    # -- memories
    def get_memory(self, space: str, memory_id: str) -> Memory | None: ...
    def get_memories(self, space: str, ids: list[str]) -> dict[str, Memory]: ...
    def iter_memories(self, space: str, *, statuses: tuple[str, ...] | None = None,
                      kinds: tuple[str, ...] | None = None, limit: int | None = None,
                      offset: int = 0) -> Iterator[Memory]: ...
    def count_memories(self, space: str, *, statuses: tuple[str, ...] | None = None,
                       kinds: tuple[str, ...] | None = None) -> int: ...
    def record_facts(self, space: str, *, kinds: tuple[str, ...] | None = None,
                     statuses: tuple[str, ...] | None = None) -> list[RecordFacts]:
        """The facts of every record of ``space`` that is neither retired nor forgotten
        (of ``kinds`` and ``statuses`` when given), by id. A row whose body does not
        parse is skipped, as every read skips it."""
        ...
    def memories_with_hash(self, space: str, origin: str, digest: str) -> list[Memory]: ...
    def memories_with_hashes(self, space: str, keys: Sequence[tuple[str, str]]) -> list[Memory]:
        """:meth:`memories_with_hash` for many ``(origin, digest)`` keys at once (a bulk
        write's duplicate check): every record of ``space`` whose origin and content hash
        are one of ``keys``, in no particular order."""
        ...
    def ids_with_prefix(self, table: str, space: str, prefix: str, limit: int = 20) -> list[str]: ...
    def present_ids(self, table: str, space: str, ids: Sequence[str]) -> set[str]:
        """The ids among ``ids`` that have a row in ``table`` (memories, events or
        relations) of ``space``: one look-up for a batch (import), not one per id."""
        ...
    def spaces_holding(self, prefix: str, *, besides: str, limit: int = 5) -> list[str]:
        """Other spaces holding a memory whose id starts with ``prefix``, sorted."""
        ...

    # -- events, relations, receipts, sources
    def get_event(self, space: str, event_id: str) -> Event | None: ...
    def events(self, space: str, *, record_id: str | None = None, limit: int | None = None,
               newest_first: bool = True) -> list[Event]: ...
    def count_events(self, space: str) -> int: ...
    def events_by_reason(self, space: str, prefixes: Sequence[str]) -> list[Event]:
        """The events of ``space`` whose reason starts with one of ``prefixes``, in log
        order; the other events are not decoded."""
        ...
    def history_by_reason(self, space: str, record_ids: Sequence[str],
                          prefixes: Sequence[str]) -> dict[str, list[Event]]:
        """For each of ``record_ids``, the events of its history (as ``events(space,
        record_id=...)`` lists them) whose reason starts with one of ``prefixes``, oldest
        first, in one read; a record with none is absent. The other events are not
        decoded: a bulk ingest event in a history is skipped at its reason."""
        ...
    def events_after(self, space: str, at: datetime) -> list[Event]:
        """The events of ``space`` recorded strictly after ``at``, in log order (read
        through an index by time: the cost grows with those events, not the history)."""
        ...
    def get_relation(self, space: str, relation_id: str) -> Relation | None: ...
    def relations(self, space: str, *, record_id: str | None = None, active_only: bool = True) -> list[Relation]: ...
    def get_receipt(self, space: str, source_id: str, memory_id: str) -> tuple[str, str] | None: ...
    def latest_receipt(self, space: str, memory_id: str, verdicts: Sequence[str]) -> datetime | None:
        """The newest receipt time for ``memory_id`` among ``verdicts``."""
        ...
    def get_source(self, space: str, source_id: str) -> dict | None: ...

    # -- traces
    def recent_traces(self, space: str, limit: int) -> list[dict]: ...
    def get_trace(self, space: str, trace_id: str) -> dict | None: ...

    # -- values derived from the data, kept while it stays unchanged
    def state_memo(self) -> dict | None:
        """A dict that lives as long as the data this view reads is unchanged: emptied
        before it is handed out after any commit (this connection's or another's), so a
        caller may keep there what it derived from reads (document frequencies, a term's
        postings) and reuse it in a later read view. None when the backend cannot tell
        (nothing is then kept). Callers bound what they keep."""
        ...

    # -- lexical index: statistics (per space, or file-wide numbers, never records)
    def document_count(self) -> int:
        """An O(1) upper bound of the records in the index, every space included."""
        ...
    def document_frequency(self, term: str) -> int:
        """Records (every space) whose index holds ``term``."""
        ...
    def space_document_count(self, space: str) -> int:
        """Indexed records of ``space`` (a purged record is not indexed)."""
        ...
    def space_document_frequencies(self, space: str, terms: Sequence[str]) -> dict[str, int]:
        """For each of ``terms``, the indexed records of ``space`` holding it (content or
        aliases); a term no record of ``space`` holds maps to 0. Kept exact in the write
        transaction, so one space's content never changes another's ranking."""
        ...
    def terms_with_prefix(self, prefix: str, limit: int) -> list[str]:
        """Indexed terms (every space) longer than ``prefix`` that start with it, in
        term order, at most ``limit``."""
        ...

    # -- lexical index: candidates
    def term_postings(self, term: str, limit: int) -> list[Key]:
        """Keys of records (every space) holding ``term``, newest first, at most ``limit``."""
        ...
    def terms_postings(self, terms: Sequence[str], limit: int) -> dict[str, list[Key]]:
        """:meth:`term_postings` of each of ``terms`` (each at most ``limit``), read at once:
        a server store answers them in one round trip."""
        ...
    def load_ranked(self, space: str, keys: Sequence[Key], *, claims_only: bool, limit: int,
                    skip_retired: bool = False) -> list[Memory]:
        """The first ``limit`` readable records of ``space`` among ``keys``, in the order
        of ``keys`` (claims only: no episodes; ``skip_retired``: no record a retention
        policy retired, judged on the stored status without decoding the record). Loads
        in chunks and stops once it has ``limit``: the keys are usually many more than
        the records wanted."""
        ...
    def phrase_texts(self, space: str, words: Sequence[str], limit: int) -> list[tuple[str, list[str]]]:
        """(content, aliases) of at most ``limit`` records of ``space`` whose index holds
        ``words`` adjacent and in order (a superset: callers verify)."""
        ...
    def search_all(self, space: str, words: Sequence[str], limit: int) -> list[tuple[str, float]]:
        """Ids of records of ``space`` holding every word, best match first, with a
        backend relevance score (lower is better)."""
        ...
    def search_any(self, space: str, words: Sequence[str], limit: int) -> list[tuple[str, float]]:
        """As :meth:`search_all`, for records whose content holds any of the words."""
        ...
    def mentioning(self, space: str, origin: str, words: Sequence[str]) -> list[tuple[str, str]]:
        """(id, indexed content terms) of the active records of ``origin`` whose index
        holds at least one of ``words``."""
        ...

    # -- lexical index: the episode lane
    def names_speaker(self, space: str, word: str) -> bool:
        """Whether ``word`` is among the indexed speaker names of an episode of ``space``,
        checked over a bounded number of index hits: the newest 16 of those that hold it
        as a speaker, among its newest :data:`SPEAKER_SCAN` in any column (a common word
        that is never a name costs that many, not all of its postings)."""
        ...
    def episode_matches(self, space: str, words: Sequence[tuple[str, bool]], cap: int,
                        skip_retired: bool = False) -> list[EpisodeTurn]:
        """Episodes of ``space`` whose content holds any ``(word, prefix)`` (prefix: any
        term starting with it), best backend relevance first, at most ``cap``
        (``skip_retired``: leaving out the episodes a retention policy retired). Ranks
        every match: callers keep it for words that few records hold."""
        ...
    def episode_match_keys(self, space: str, words: Sequence[tuple[str, bool]], cap: int,
                           skip_retired: bool = False) -> list[Key]:
        """The keys of what :meth:`episode_matches` returns, in its order, without reading
        the turns (a caller that keeps turns already read loads only the others, with
        :meth:`episode_turns`)."""
        ...
    def episode_match_set(self, space: str, words: Sequence[tuple[str, bool]], limit: int,
                          skip_retired: bool = False) -> list[Key]:
        """Keys of the episodes :meth:`episode_matches` finds (every one, when at most
        ``limit`` match), unranked, in key order, at most ``limit`` (which ones when more
        match is the backend's choice): a caller that orders the matches itself asks for
        one more than it takes, to know it has them all, and spares the backend's ranking."""
        ...
    def content_postings(self, term: str, limit: int) -> list[Key]:
        """Keys of records (every space and kind) whose content holds the indexed term
        ``term``, newest first, at most ``limit``."""
        ...
    def episode_turns(self, space: str, keys: Sequence[Key], limit: int,
                      skip_retired: bool = False) -> list[EpisodeTurn]:
        """The first ``limit`` episodes of ``space`` among ``keys``, in the order of
        ``keys`` (other records are skipped; ``skip_retired``: as :meth:`episode_matches`).
        Reads in chunks and stops once it has ``limit``."""
        ...
    def speaker_turns(self, space: str, word: str, cap: int, skip_retired: bool = False) -> list[EpisodeTurn]:
        """Episodes of ``space`` whose speaker (aliases) holds the indexed term ``word``,
        newest first, at most ``cap`` (``skip_retired``: as :meth:`episode_matches`)."""
        ...
    def count_matching(self, words: Sequence[tuple[str, bool]], bound: int) -> int:
        """Records (every space) whose content holds any of ``words``, counted up to ``bound``."""
        ...
    def neighbour_turns(self, space: str, positions: Sequence[tuple[str, int]]) -> list[EpisodeTurn]:
        """The episodes of ``space`` at the given ``(origin, turn)`` positions."""
        ...
    def episode_source_ids(self, space: str, origin: str) -> set[str]:
        """Evidence source ids (turn ids) of every episode of ``origin``, any status."""
        ...


class WriteTx(ReadView, Protocol):
    """An open write transaction: everything written commits together or not at all."""

    def put_memory(self, memory: Memory) -> None: ...
    def put_lifecycle(self, memory: Memory) -> None:
        """Rewrite a stored record whose indexed text, kind and origin are unchanged (a
        lifecycle change: its status, revision, clocks): the full-text index, its
        statistics and the vectors stay as they are. A backend may treat it as
        :meth:`put_memory`; one that finds the stored text different must."""
        ...
    def append_event(self, event: Event) -> None: ...
    def put_memories(self, memories: Sequence[Memory]) -> None:
        """:meth:`put_memory` for each of ``memories``, in order (bulk ingest: one
        round trip per batch where the backend can)."""
        ...
    def append_events(self, events: Sequence[Event]) -> None:
        """:meth:`append_event` for each of ``events``, in order."""
        ...
    def rewrite_event(self, event: Event) -> None: ...
    def put_relation(self, relation: Relation) -> None: ...
    def put_relations(self, relations: Sequence[Relation]) -> None:
        """:meth:`put_relation` for each of ``relations``, in order (import: one round
        trip per batch where the backend can)."""
        ...
    def put_receipt(self, space: str, source_id: str, memory_id: str, verdict: str, at: datetime) -> None: ...
    def put_source(self, space: str, source: dict) -> None: ...
    def put_trace(self, space: str, trace_id: str, at: str, doc: Mapping[str, object]) -> None: ...
    def prune_traces(self, space: str, before: str, expired: Callable[[str, str, str], bool]) -> int:
        """Delete the traces of ``space`` stored with ``at < before`` for which
        ``expired(id, at, raw_body)`` holds; returns how many."""
        ...


class Backend(ReadView, Protocol):
    """An open store. Reads on the backend itself see the committed state."""

    path: str
    read_only: bool

    def close(self) -> None: ...
    def snapshot(self) -> AbstractContextManager[ReadView]:
        """One consistent read view across several reads."""
        ...
    def write(self, *, durable: bool = True) -> AbstractContextManager[WriteTx]:
        """One atomic write. ``durable=False`` may skip syncing (diagnostics only)."""
        ...
    def problems(self) -> list[dict]: ...
    def integrity(self) -> str: ...
    def schema_version(self) -> int:
        """The schema version the database holds (not the code's newest)."""
        ...
    def checkpoint(self) -> None:
        """Fold any write-ahead log into the main file (a no-op where there is none)."""
        ...


# -- vectors (the semantic extra) -------------------------------------------------------------


class VectorView(Protocol):
    """The reads of the semantic lanes, beside a :class:`ReadView` (optional: a backend
    without them has no semantic lane, and the default lane stays ``claims``).

    Vectors belong to texts: keyed on (space, embedder, content hash, kind group) where
    the group is episodes or claims; ``data`` is opaque bytes written by the embedding
    side. A vector lives while a not-forgotten record of its space and group holds its
    text: a backend deletes it in the transaction that forgets, purges or rewrites the
    last such record."""

    def vector_signature(self, space: str, embedder: str, episodes: bool) -> tuple:
        """A value that changes on every write to one group's vectors (cheap: read per recall)."""
        ...
    def vector_rows(self, space: str, embedder: str, episodes: bool) -> list[tuple[str, bytes]]:
        """Every (content hash, vector bytes) of one group, in insertion order."""
        ...
    def vector_keys(self, space: str, embedder: str, hashes: Sequence[str]) -> set[tuple[str, bool]]:
        """The (content hash, is episode) pairs among ``hashes`` that have a vector."""
        ...
    def ids_by_hash(self, space: str, hashes: Sequence[str], episodes: bool) -> dict[str, list[str]]:
        """Ids of the not-forgotten records of one group holding each hash, oldest first."""
        ...
    def missing_vectors(self, space: str, embedder: str, limit: int) -> list[tuple[str, bool, str]]:
        """Up to ``limit`` (content hash, is episode, content) of live texts without a vector."""
        ...
    def episode_places(self, space: str, ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        """The (origin, turn) of each episode of ``space`` among ``ids``: where a turn found
        by meaning sits, so that its neighbours can be read (:meth:`ReadView.neighbour_turns`)."""
        ...
    def count_missing_vectors(self, space: str, embedder: str) -> int: ...
    def count_vectors(self, space: str, embedder: str | None = None) -> int: ...


class VectorTx(VectorView, Protocol):
    """Vector writes of an open transaction. The transaction also lists in ``written``
    the (space, content hash, is episode, content) of every live record it put, which
    the backend's ``before_commit`` hook (set by :func:`cairn.embed.vectors.attach`)
    reads to embed them before the commit."""

    written: list[tuple[str, str, bool, str]]

    def put_vectors(self, space: str, embedder: str, rows: Sequence[tuple[str, bool, bytes]]) -> None:
        """Store (content hash, is episode, vector bytes) rows; an existing row is kept."""
        ...
