"""The PostgreSQL store: the same contract as the SQLite store, on a shared server.

* Chosen by a ``postgresql://`` (or ``postgres://``) URL; :meth:`PgStore.open` verifies the
  database (Cairn's schema, or empty, or refused) before anything is changed and migrates
  it forward (:mod:`.schema`); a newer schema is refused.
* :meth:`PgStore.write` is the only way to change anything: one transaction that first
  takes a transaction-level advisory lock (``WRITE_LOCK``), so writers from any number of
  processes and hosts run one at a time, as SQLite's ``BEGIN IMMEDIATE`` makes them: a
  read-then-write inside a transaction (deduplication, id checks) sees no other writer's
  change. Record keys and event sequence numbers are taken from ``cairn_counters`` under
  that lock, so the event log is gap-free and in commit order (a rolled-back writer
  returns its numbers with its rollback).
* Reads on the store see the committed state (autocommit); :meth:`PgStore.snapshot` is one
  ``REPEATABLE READ`` read-only transaction. Within it, answers read once are kept for
  the snapshot (a record's relations come with the record), and recall's derived values
  (:meth:`PgStore.state_memo`) are kept from one snapshot to the next while no
  transaction on the server has written in between.
* Lexical candidates come from a GIN index over a ``tsvector`` of Cairn's own terms (see
  :mod:`.schema`); where SQLite orders candidates by FTS5's ``bm25()``, this store
  orders them with :mod:`.rank`, the same formula over the same statistics, so both
  backends hand recall the same candidates in the same order. Ties go to the older key.
* Every ``psycopg.Error`` leaves as a :class:`~cairn.errors.StoreError`; a store used
  from a thread other than its opener's raises ``StoreUnavailable`` and touches nothing.
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from functools import wraps
from inspect import isgeneratorfunction
from typing import Any

import psycopg

from ...errors import InvalidInput, NoSuchDatabase, StoreError, StoreUnavailable
from ...model import (
    Event,
    Memory,
    Relation,
    event_from_dict,
    event_to_dict,
    format_time,
    memory_from_dict,
    memory_to_dict,
    relation_from_dict,
    relation_to_dict,
)
from ...text import index_text
from ..protocol import SPEAKER_SCAN, EpisodeTurn, Key, RecordFacts, facts_of
from ..sqlite.backend import (
    _as_stored,
    _decoded,
    _Row,
    _shown,
    _time_or_none,
    content_hash,
    dumps,
    event_text,
    read_row,
)
from . import rank
from .schema import TABLES, WRITE_LOCK, check_version, migrate

ALIAS = "_"  # marks an alias lexeme: Cairn terms never contain "_"
BULK_MIN = 8  # records or events from which a batch is written by COPY, one per table
POSTINGS_SLICE = 8192  # postings written to COPY's stream at a time
ANALYZE_MIN = 5000  # records copied in one transaction from which it may refresh the planner's statistics
KEPT_READS = "postgres index reads"  # the store's own table in state_memo()
KEPT_READS_WEIGHT = 200_000  # items kept there (keys and terms), all entries together: a few MB
PHRASE_BATCH = 4096  # records a phrase check reads at most in one statement
MAX_LEXEME = 2046  # bytes: PostgreSQL refuses longer lexemes (the term stays in the text columns)
SURELY_SHORT = MAX_LEXEME // 4  # characters: a term no longer is within MAX_LEXEME (UTF-8: 4 bytes a character at most)
ACTIVE = ("provisional", "confirmed")
DEFAULT_BUSY_TIMEOUT = 30.0


def is_url(target: object) -> bool:
    return isinstance(target, str) and bool(re.match(r"(?i)^postgres(ql)?://", target))


def shown_url(url: str) -> str:
    """The URL without its password, for messages and ``path``."""
    return re.sub(r"^([^:/]+://[^:/@]*):[^@]*@", r"\1:***@", url)


def _translate(path: str, err: psycopg.Error) -> StoreError:
    text = " ".join(str(err).split()) or type(err).__name__
    if isinstance(err, psycopg.errors.ReadOnlySqlTransaction):
        return StoreUnavailable(path, "the database was opened read-only")
    if isinstance(err, (psycopg.errors.LockNotAvailable, psycopg.errors.QueryCanceled)):
        return StoreUnavailable(path, "the database is locked by another writer (timed out waiting)")
    if isinstance(err, psycopg.errors.InsufficientPrivilege):
        return StoreUnavailable(path, f"permission denied ({text})")
    if isinstance(err, psycopg.OperationalError):
        return StoreUnavailable(path, f"cannot reach the PostgreSQL server ({text})")
    return StoreUnavailable(path, text)


def _guarded(cls):
    """Translate driver errors and refuse a foreign thread, in every public method."""
    for name, fn in list(vars(cls).items()):
        if name.startswith("_") or not callable(fn) or isinstance(fn, (classmethod, staticmethod)):
            continue
        setattr(cls, name, _guard_generator(fn) if isgeneratorfunction(fn) else _guard(fn))
    return cls


def _check_thread(self) -> None:
    if threading.get_ident() != self._thread:
        raise StoreUnavailable(self.path, "this store was opened in another thread; open one engine per thread")


def _guard(fn):
    @wraps(fn)
    def call(self, *args, **kwargs):
        _check_thread(self)
        try:
            return fn(self, *args, **kwargs)
        except psycopg.Error as err:
            raise _translate(self.path, err) from None

    return call


def _guard_generator(fn):
    @wraps(fn)
    def call(self, *args, **kwargs):
        _check_thread(self)
        try:
            yield from fn(self, *args, **kwargs)
        except psycopg.Error as err:
            raise _translate(self.path, err) from None

    return call


# -- tsquery text: the one place Cairn writes PostgreSQL's query syntax -----------------


def _lexeme(term: str, prefix: bool = False) -> str:
    quoted = "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"
    return quoted + (":*" if prefix else "")


def q_content(words: Iterable[tuple[str, bool]]) -> str:
    """Records whose content holds any ``(word, prefix)``."""
    return " | ".join(dict.fromkeys(_lexeme(w, p) for w, p in words))


def q_alias(word: str) -> str:
    return _lexeme(ALIAS + word)


def q_anywhere(words: Iterable[str]) -> str:
    """Records holding any of ``words`` in any column."""
    return " | ".join(f"{_lexeme(w)} | {_lexeme(ALIAS + w)}" for w in dict.fromkeys(words))


def q_every(words: Iterable[str]) -> str:
    """Records holding each of ``words`` in some column."""
    return " & ".join(f"({_lexeme(w)} | {_lexeme(ALIAS + w)})" for w in dict.fromkeys(words))


def q_same_column(words: Sequence[str]) -> str:
    """Records holding every one of ``words`` within one column (a phrase's superset)."""
    unique = list(dict.fromkeys(words))
    content = " & ".join(_lexeme(w) for w in unique)
    aliases = " & ".join(_lexeme(ALIAS + w) for w in unique)
    return f"({content}) | ({aliases})"


def lexemes(content: list[str], aliases: list[str]) -> list[str]:
    if not aliases and (not content or max(map(len, content)) <= SURELY_SHORT):
        return list(dict.fromkeys(content))  # every term short enough, none marked: the terms, each once
    found = dict.fromkeys(t for t in content if t and len(t.encode("utf-8")) <= MAX_LEXEME)
    found.update(dict.fromkeys(ALIAS + t for t in aliases if t and len(t.encode("utf-8")) <= MAX_LEXEME - 1))
    return list(found)


def tsvector_text(found: list[str]) -> str:
    """The ``tsvector`` input text of ``found`` lexemes (quoted as a query quotes them):
    what ``array_to_tsvector`` makes of them, for a ``COPY``."""
    plain = " ".join(found)  # terms hold no whitespace
    if "'" in plain or "\\" in plain:
        return " ".join(_lexeme(lexeme) for lexeme in found)  # a quote or backslash to escape
    return "'" + "' '".join(found) + "'" if found else ""


_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"})
_COPY_FIELD_SPECIAL = re.compile(r"[\\\r\n\t]")


def posting_slices(postings: Mapping[str, list[str]], size: int = POSTINGS_SLICE) -> Iterator[str]:
    """``COPY``'s text of ``term_postings`` rows in (term, key) order, about ``size`` rows
    a piece. ``postings`` maps each term to the rest of its rows in key order (``"\\t"
    + key + "\\t" + space as copy_field writes it + "\\n"``): one join a term, where
    formatting and sorting a tuple a row cost as much as making them."""
    pieces: list[str] = []
    held = 0
    for term in sorted(postings):
        rests = postings[term]
        lead = copy_field(term)
        pieces.append(lead + lead.join(rests))
        held += len(rests)
        if held >= size:
            yield "".join(pieces)
            pieces, held = [], 0
    if pieces:
        yield "".join(pieces)


def posting_terms(found: list[str], aliased: bool = True) -> list[str]:
    """The terms of ``term_postings`` for a record's lexemes: each once, alias mark dropped.
    ``aliased`` False: the record has no aliases, so no lexeme is marked and ``found`` (each
    once already) is its own answer."""
    if not aliased:
        return found
    return list(dict.fromkeys(lexeme[1:] if lexeme.startswith(ALIAS) else lexeme for lexeme in found))


def copy_field(text: str) -> str:
    """One text field in ``COPY``'s text format."""
    return text.translate(_COPY_ESCAPES) if _COPY_FIELD_SPECIAL.search(text) else text


def _holds_phrase(terms: list[str], words: Sequence[str]) -> bool:
    n = len(words)
    return n > 0 and any(terms[i : i + n] == list(words) for i in range(len(terms) - n + 1))


def _aliases_of(data: str) -> tuple[str, list[str]] | None:
    try:
        doc = json.loads(data)
        content = doc.get("content")
        aliases = doc.get("aliases") or []
    except (ValueError, AttributeError):
        return None
    if not isinstance(content, str):
        return None
    return content, [a for a in aliases if isinstance(a, str)] if isinstance(aliases, list) else []


# The active relations of the records at keys %(k)s of space %(s)s, as relations()
# reads them for each (a relation of a record to itself once, from its from side).
_EDGES_OF_KEYS = (
    "SELECT m.id, r.created_at, r.id, r.data FROM memories m JOIN relations r ON r.space = m.space AND r.from_id = m.id"
    " WHERE m.key = ANY(%(k)s) AND m.space = %(s)s AND r.status = 'active'"
    " UNION ALL SELECT m.id, r.created_at, r.id, r.data FROM memories m"
    " JOIN relations r ON r.space = m.space AND r.to_id = m.id AND r.from_id <> m.id"
    " WHERE m.key = ANY(%(k)s) AND m.space = %(s)s AND r.status = 'active'")

# The active relations of the records of ids ``i``, each row under the record it is read for.
_EDGES_OF_IDS = (
    "SELECT r.from_id, r.created_at, r.id, r.data FROM relations r"
    " WHERE r.space = %(s)s AND r.from_id = ANY(%(i)s) AND r.status = 'active'"
    " UNION ALL SELECT r.to_id, r.created_at, r.id, r.data FROM relations r"
    " WHERE r.space = %(s)s AND r.to_id = ANY(%(i)s) AND r.from_id <> r.to_id AND r.status = 'active'")

_TURN_COLUMNS = "i.key, m.id, m.origin, m.turn, i.content, i.aliases, m.data"


def _episode_turn(row) -> EpisodeTurn:
    key, memory_id, origin, turn, content, aliases, data = row
    at = ""
    try:
        found = json.loads(data).get("evidence", {}).get("at")
        at = found if isinstance(found, str) else ""
    except (ValueError, AttributeError):
        pass
    return EpisodeTurn(key, memory_id, origin, turn if isinstance(turn, int) else 0, content, aliases, at)


@_guarded
class _Reads:
    """Read queries shared by the store and an open write transaction."""

    conn: psycopg.Connection
    path: str
    _thread: int
    # Answers already read in the open snapshot (None outside one): a REPEATABLE READ
    # transaction sees one state, so a statistic or a record's relations read twice
    # within one recall are the same, and the second read needs no round trip.
    _cache: dict | None = None

    def _cached(self, key: tuple, read: Callable[[], Any]) -> Any:
        cache = self._cache
        if cache is None:
            return read()
        if key not in cache:
            cache[key] = read()
        return cache[key]

    def _kept(self, key: tuple, read: Callable[[], list]) -> list:
        """As :meth:`_cached`, and kept from one snapshot to the next while the data is
        unchanged (:meth:`PgStore.state_memo`): index reads that recalls repeat, whichever
        lane asks (the claims lane keeps its own in the memo; the episode lane does not).
        A copy is returned: callers may change what they get."""
        memo = self.state_memo()
        if memo is None:
            return list(self._cached(key, read))
        table: dict[tuple, list]
        weight: list[int]
        table, weight = memo.get(KEPT_READS) or ({}, [0])
        if weight[0] >= KEPT_READS_WEIGHT:
            table, weight = {}, [0]
        memo[KEPT_READS] = (table, weight)
        if key not in table:
            table[key] = read()
            weight[0] += len(table[key]) + 1
        return list(table[key])

    def _rows(self, sql: str, args: Sequence[object] | Mapping[str, object] = ()) -> list[tuple]:
        with self.conn.cursor() as cur:
            cur.execute(sql, args)
            return cur.fetchall()

    def _one(self, sql: str, args: Sequence[object] = ()) -> tuple | None:
        with self.conn.cursor() as cur:
            cur.execute(sql, args)
            return cur.fetchone()

    def _planned(self, sql: str, args: Sequence[object] | Mapping[str, object]) -> list[tuple]:
        """:meth:`_rows` for a statement whose best plan depends on its parameters (a
        tsquery, how many records it matches; a prefix, the index range it bounds): planned
        for them every time. psycopg prepares a statement run often, and the server then
        plans it once for any parameters: a rare phrase got the plan of a common one (a
        walk of every record in key order, 150 ms at 100k records, where the GIN index
        answers in 1), and a prefix no range (a scan to the end of the terms)."""
        with self.conn.cursor() as cur:
            cur.execute(sql, args, prepare=False)
            return cur.fetchall()

    # -- memories ----------------------------------------------------------------------

    def get_memory(self, space: str, memory_id: str) -> Memory | None:
        row = self._one("SELECT data FROM memories WHERE space = %s AND id = %s", (space, memory_id))
        return None if row is None else _decoded(row[0], memory_from_dict)

    def get_memories(self, space: str, ids: list[str]) -> dict[str, Memory]:
        found: dict[str, Memory] = {}
        if not ids:
            return found  # no round trip for nothing (recall often asks with none)
        sql = "SELECT data FROM memories WHERE space = %s AND id = ANY(%s)"
        if self._cache is None:
            rows = self._rows(sql, (space, list(ids)))
        else:
            # In a snapshot the records' active relations come in the same round trip: the
            # confidences of recall's results read each result's relations next, one
            # record at a time (2.3 reads per recall at 1M records).
            with self.conn.pipeline(), self.conn.cursor() as load, self.conn.cursor() as edges:
                load.execute(sql, (space, list(ids)))
                edges.execute(_EDGES_OF_IDS, {"i": list(ids), "s": space})
                rows = load.fetchall()
                self._keep_edges(space, ids, edges.fetchall())
        for (data,) in rows:
            memory = _decoded(data, memory_from_dict)
            if memory is not None:
                found[memory.id] = memory
        return found

    @staticmethod
    def _filter(space: str, statuses: tuple[str, ...] | None, kinds: tuple[str, ...] | None) -> tuple[str, list[object]]:
        clauses: list[str] = ["space = %s"]
        args: list[object] = [space]
        if statuses:
            clauses.append("status = ANY(%s)")
            args.append(list(statuses))
        if kinds:
            clauses.append("kind = ANY(%s)")
            args.append(list(kinds))
        return " AND ".join(clauses), args

    def iter_memories(self, space: str, *, statuses: tuple[str, ...] | None = None, kinds: tuple[str, ...] | None = None,
                      limit: int | None = None, offset: int = 0) -> Iterator[Memory]:
        where, args = self._filter(space, statuses, kinds)
        sql = f"SELECT data FROM memories WHERE {where} ORDER BY created_at, id"
        if limit is not None:
            sql += " LIMIT %s OFFSET %s"
            args += [limit, offset]
            rows: Iterable[tuple] = self._rows(sql, args)
        else:
            rows = self._stream(sql, args)
        for (data,) in rows:
            memory = _decoded(data, memory_from_dict)
            if memory is not None:
                yield memory

    def _stream(self, sql: str, args: Sequence[object], batch: int = 2000) -> Iterator[tuple]:
        """Rows read in batches (a whole space need not fit in memory at once)."""
        with self.conn.cursor() as cur:
            cur.execute(sql, args)
            while rows := cur.fetchmany(batch):
                yield from rows

    def count_memories(self, space: str, *, statuses: tuple[str, ...] | None = None,
                       kinds: tuple[str, ...] | None = None) -> int:
        where, args = self._filter(space, statuses, kinds)
        row = self._one(f"SELECT count(*) FROM memories WHERE {where}", args)
        return int(row[0]) if row else 0

    def memories_with_hash(self, space: str, origin: str, digest: str) -> list[Memory]:
        rows = self._rows("SELECT data FROM memories WHERE space = %s AND origin = %s AND content_hash = %s"
                          " ORDER BY created_at, id", (space, origin, digest))
        return [m for m in (_decoded(r[0], memory_from_dict) for r in rows) if m is not None]

    def memories_with_hashes(self, space: str, keys: Sequence[tuple[str, str]]) -> list[Memory]:
        unique = list(dict.fromkeys(keys))
        if not unique:
            return []
        rows = self._rows("SELECT data FROM memories WHERE space = %s AND (origin, content_hash) IN"
                          " (SELECT * FROM unnest(%s::text[], %s::text[]))",
                          (space, [o for o, _ in unique], [d for _, d in unique]))
        return [m for m in (_decoded(r[0], memory_from_dict) for r in rows) if m is not None]

    def ids_with_prefix(self, table: str, space: str, prefix: str, limit: int = 20) -> list[str]:
        if table not in ("memories", "events", "relations"):
            raise ValueError(table)
        rows = self._planned(f"SELECT id FROM {table} WHERE space = %s AND starts_with(id, %s) ORDER BY id LIMIT %s",
                          (space, prefix, limit))
        return [str(r[0]) for r in rows]

    def present_ids(self, table: str, space: str, ids: Sequence[str]) -> set[str]:
        if table not in ("memories", "events", "relations"):
            raise ValueError(table)
        if not ids:
            return set()
        # %b: the ids travel as a binary array (the text form escapes each element).
        rows = self._rows(f"SELECT id FROM {table} WHERE space = %s AND id = ANY(%b::text[])", (space, list(ids)))
        return {str(r[0]) for r in rows}

    def spaces_holding(self, prefix: str, *, besides: str, limit: int = 5) -> list[str]:
        rows = self._planned("SELECT DISTINCT space FROM memories WHERE starts_with(id, %s) AND space <> %s"
                          " ORDER BY space LIMIT %s", (prefix, besides, limit))
        return [str(r[0]) for r in rows]

    # -- events, relations, receipts, sources ------------------------------------------

    def get_event(self, space: str, event_id: str) -> Event | None:
        row = self._one("SELECT data FROM events WHERE space = %s AND id = %s", (space, event_id))
        return None if row is None else _decoded(row[0], event_from_dict)

    def events(self, space: str, *, record_id: str | None = None, limit: int | None = None,
               newest_first: bool = True) -> list[Event]:
        order = "DESC" if newest_first else "ASC"
        args: list[object] = [space]
        if record_id is None:
            sql = f"SELECT data FROM events WHERE space = %s ORDER BY seq {order}"
        else:
            sql = ("SELECT e.data FROM event_records r JOIN events e ON e.seq = r.event_seq"
                   f" WHERE r.space = %s AND r.record_id = %s ORDER BY e.seq {order}")
            args.append(record_id)
        if limit is not None:
            sql += " LIMIT %s"
            args.append(limit)
        found = (_decoded(data, event_from_dict) for (data,) in self._rows(sql, args))
        return [e for e in found if e is not None]

    def history_by_reason(self, space: str, record_ids: Sequence[str],
                          prefixes: Sequence[str]) -> dict[str, list[Event]]:
        ids = list(dict.fromkeys(record_ids))
        if not ids or not prefixes:
            return {}
        clauses = " OR ".join("left(e.reason, %s) = %s" for _ in prefixes)
        args: list[object] = [space, ids]
        for prefix in prefixes:
            args += [len(prefix), prefix]
        rows = self._rows("SELECT r.record_id, e.seq, e.data FROM event_records r JOIN events e ON e.seq = r.event_seq"
                          f" WHERE r.space = %s AND r.record_id = ANY(%s) AND ({clauses}) ORDER BY e.seq", args)
        decoded: dict[int, Event | None] = {}  # an event in several histories is decoded once
        found: dict[str, list[Event]] = {}
        for record_id, seq, data in rows:
            if seq not in decoded:
                decoded[seq] = _decoded(data, event_from_dict)
            event = decoded[seq]
            if event is not None:
                found.setdefault(record_id, []).append(event)
        return found

    def events_by_reason(self, space: str, prefixes: Sequence[str]) -> list[Event]:
        if not prefixes:
            return []
        clauses = " OR ".join("left(reason, %s) = %s" for _ in prefixes)
        args: list[object] = [space]
        for prefix in prefixes:
            args += [len(prefix), prefix]
        rows = self._rows(f"SELECT data FROM events WHERE space = %s AND ({clauses}) ORDER BY seq", args)
        found = (_decoded(data, event_from_dict) for (data,) in rows)
        return [e for e in found if e is not None]

    def record_facts(self, space: str, *, kinds: tuple[str, ...] | None = None,
                     statuses: tuple[str, ...] | None = None) -> list[RecordFacts]:
        # Decoded here; an index holding these facts (as SQLite's memories_by_trust) is to come.
        return sorted((facts_of(m) for m in self.iter_memories(space, statuses=statuses, kinds=kinds)
                       if m.status.value not in ("retired", "forgotten")), key=lambda f: (f.kind, f.status, f.id))

    def count_events(self, space: str) -> int:
        row = self._one("SELECT count(*) FROM events WHERE space = %s", (space,))
        return int(row[0]) if row else 0

    def get_relation(self, space: str, relation_id: str) -> Relation | None:
        row = self._one("SELECT data FROM relations WHERE space = %s AND id = %s", (space, relation_id))
        return None if row is None else _decoded(row[0], relation_from_dict)

    def relations(self, space: str, *, record_id: str | None = None, active_only: bool = True) -> list[Relation]:
        if record_id is None:
            return self._relations(space, None, active_only)
        return list(self._cached(("relations", space, record_id, active_only),
                                 lambda: self._relations(space, record_id, active_only)))

    def _relations(self, space: str, record_id: str | None, active_only: bool) -> list[Relation]:
        active = " AND status = 'active'" if active_only else ""
        args: Sequence[object] | Mapping[str, object]
        if record_id is None:
            sql, args = f"SELECT data FROM relations WHERE space = %s{active} ORDER BY created_at, id", [space]
        else:
            # One index search per side, as on SQLite (where ``from_id = ? OR to_id = ?`` walked
            # every relation of the space). Here the OR form used both indexes already; the
            # union plans and runs a little faster (0.24 / 0.08 ms against 1.0 / 0.19 at 100k).
            # A relation of a record to itself is read once, from its from side.
            sql = (f"SELECT data FROM (SELECT data, created_at, id FROM relations WHERE space = %(s)s AND from_id = %(r)s"
                   f"{active} UNION ALL SELECT data, created_at, id FROM relations WHERE space = %(s)s AND to_id = %(r)s"
                   f" AND from_id <> %(r)s{active}) AS r ORDER BY created_at, id")
            args = {"s": space, "r": record_id}
        found = (_decoded(d, relation_from_dict) for (d,) in self._rows(sql, args))
        return [r for r in found if r is not None]

    def get_receipt(self, space: str, source_id: str, memory_id: str) -> tuple[str, str] | None:
        row = self._one("SELECT verdict, at FROM feedback_receipts WHERE space = %s AND source_id = %s AND memory_id = %s",
                        (space, source_id, memory_id))
        return None if row is None else (str(row[0]), str(row[1]))

    def latest_receipt(self, space: str, memory_id: str, verdicts: Sequence[str]) -> datetime | None:
        if not verdicts:
            return None
        rows = self._rows("SELECT at FROM feedback_receipts WHERE space = %s AND memory_id = %s AND verdict = ANY(%s)",
                          (space, memory_id, list(verdicts)))
        return max((at for at in (_time_or_none(r[0]) for r in rows) if at is not None), default=None)

    def get_source(self, space: str, source_id: str) -> dict | None:
        row = self._one("SELECT data FROM sources WHERE space = %s AND id = %s", (space, source_id))
        return None if row is None else _decoded(row[0], _as_stored)

    def state_memo(self) -> dict | None:
        return None  # in a write transaction the data is changing (PgStore keeps one in a snapshot)

    # -- traces ------------------------------------------------------------------------

    def recent_traces(self, space: str, limit: int) -> list[dict]:
        rows = self._rows("SELECT data FROM traces WHERE space = %s ORDER BY at DESC, id LIMIT %s", (space, limit))
        found = (_decoded(d, _as_stored) for (d,) in rows)
        return [t for t in found if t is not None]

    def get_trace(self, space: str, trace_id: str) -> dict | None:
        row = self._one("SELECT data FROM traces WHERE space = %s AND id = %s", (space, trace_id))
        return None if row is None else _decoded(row[0], _as_stored)

    # -- lexical index: statistics -----------------------------------------------------

    def document_count(self) -> int:
        # Keys come gap-free from a counter and rows are never deleted: the counter is
        # the highest key, an O(1) bound of the record count (as SQLite's max rowid).
        row = self._cached(("documents",), lambda: self._one("SELECT value FROM cairn_counters WHERE name = 'memory'"))
        return int(row[0]) if row else 0

    def document_frequency(self, term: str) -> int:
        row = self._cached(("df", term), lambda: self._one("SELECT COALESCE(sum(anywhere), 0) FROM term_df WHERE term = %s",
                                                           (term,)))
        return int(row[0]) if row else 0

    def space_document_count(self, space: str) -> int:
        row = self._cached(("rows", space), lambda: self._one("SELECT rows FROM index_totals WHERE space = %s", (space,)))
        return int(row[0]) if row else 0

    def space_document_frequencies(self, space: str, terms: Sequence[str]) -> dict[str, int]:
        found = dict.fromkeys(terms, 0)
        known = self._cache.setdefault(("space_df", space), {}) if self._cache is not None else {}
        wanted = [t for t in found if t not in known]
        if wanted:
            rows = self._rows("SELECT term, anywhere FROM term_df WHERE space = %s AND term = ANY(%s)", (space, wanted))
            known.update(dict.fromkeys(wanted, 0))
            known.update((str(t), int(df)) for t, df in rows)
        found.update((t, known[t]) for t in found)
        return found

    def events_after(self, space: str, at: datetime) -> list[Event]:
        # The event's time lives in its document; the log is read in order and filtered here
        # (bounded by the space's history, as the SQLite store's index makes it by time).
        return [e for e in self.events(space, newest_first=False) if e.at > at]

    def terms_with_prefix(self, prefix: str, limit: int) -> list[str]:
        rows = self._kept(("prefix", prefix, limit), lambda: self._planned(
            "SELECT DISTINCT term FROM term_df WHERE term > %s AND starts_with(term, %s)"
            " AND anywhere > 0 ORDER BY term LIMIT %s", (prefix, prefix, limit)))
        return [str(r[0]) for r in rows]

    def _totals(self) -> tuple[int, float]:
        """BM25's N (indexed records, every space) and mean record length."""
        row = self._cached(("totals",), lambda: self._one(
            "SELECT COALESCE(sum(rows), 0), COALESCE(sum(terms), 0) FROM index_totals"))
        rows, terms = (int(row[0]), int(row[1])) if row else (0, 0)
        return rows, (terms / rows if rows else 0.0)

    def _content_hits(self, word: str, prefix: bool) -> int:
        """Indexed records (every space) whose content holds ``word`` (or a term it starts)."""
        if not prefix:
            row = self._one("SELECT COALESCE(sum(in_content), 0) FROM term_df WHERE term = %s", (word,))
        else:
            row = self._planned("SELECT count(*) FROM memory_index WHERE lexemes @@ %s::tsquery", (_lexeme(word, True),))[0]
        return int(row[0]) if row else 0

    # -- lexical index: candidates -----------------------------------------------------

    def term_postings(self, term: str, limit: int) -> list[Key]:
        # The backward walk of one range of term_postings' primary key (see .schema): the
        # records of memory_index holding the term or its alias form, newest first.
        # Binary results: thousands of keys, read without parsing their text.
        with self.conn.cursor(binary=True) as cur:
            cur.execute("SELECT key FROM term_postings WHERE term = %s ORDER BY key DESC LIMIT %s", (term, limit))
            return [r[0] for r in cur.fetchall()]

    def terms_postings(self, terms: Sequence[str], limit: int) -> dict[str, list[Key]]:
        # Each term's range walked as term_postings walks it, all in one statement: a
        # recall asks for three or four terms at once, a round trip each before.
        wanted = list(dict.fromkeys(terms))
        if not wanted:
            return {}
        with self.conn.cursor(binary=True) as cur:
            cur.execute("SELECT t.term, ARRAY(SELECT p.key FROM term_postings p WHERE p.term = t.term"
                        " ORDER BY p.key DESC LIMIT %s) FROM unnest(%s::text[]) WITH ORDINALITY AS t(term, n) ORDER BY t.n",
                        (limit, wanted))
            return {str(term): list(keys) for term, keys in cur.fetchall()}

    def load_ranked(self, space: str, keys: Sequence[Key], *, claims_only: bool, limit: int,
                    skip_retired: bool = False) -> list[Memory]:
        out: list[Memory] = []
        if limit < 1:
            return out
        step = limit * 2
        for start in range(0, len(keys), step):
            chunk = list(keys[start : start + step])
            rows = {key: data for key, kind, data in self._load_chunk(space, chunk, skip_retired)
                    if not (claims_only and kind == "episode")}
            for key in chunk:
                memory = _decoded(rows[key], memory_from_dict) if key in rows else None
                if memory is not None:
                    out.append(memory)
                    if len(out) >= limit:
                        return out
        return out

    def _load_chunk(self, space: str, chunk: list, skip_retired: bool) -> list[tuple]:
        """(key, kind, data) of the records of ``space`` among ``chunk``. In a snapshot, the
        same round trip (a pipeline) reads the active relations of those records into the
        snapshot's cache: recall resolves the relations of its candidates one record at a
        time (13 reads per recall at 100k records, every one for a record loaded here)."""
        sql = ("SELECT key, kind, data, id FROM memories WHERE key = ANY(%s) AND space = %s"
               + (" AND status <> 'retired'" if skip_retired else ""))
        cache = self._cache
        if cache is None:
            return [row[:3] for row in self._rows(sql, (chunk, space))]
        with self.conn.pipeline(), self.conn.cursor() as load, self.conn.cursor() as edges:
            load.execute(sql, (chunk, space))
            edges.execute(_EDGES_OF_KEYS, {"k": chunk, "s": space})
            rows = load.fetchall()
            found = edges.fetchall()
        self._keep_edges(space, [str(row[3]) for row in rows], found)
        return [row[:3] for row in rows]

    def _keep_edges(self, space: str, ids: Iterable[str], found: Iterable[tuple]) -> None:
        """Keep for the snapshot, as :meth:`relations` of each record would read them, the
        active relations ``found`` ((record id, created_at, relation id, data) rows) of the
        records ``ids`` (an empty list for a record with none)."""
        cache = self._cache
        if cache is None:
            return
        by_record: dict[str, list[tuple[str, str, str]]] = {str(i): [] for i in ids}
        for record_id, created_at, relation_id, data in found:
            by_record.setdefault(record_id, []).append((created_at, relation_id, data))
        for record_id, edges_of in by_record.items():
            edges_of.sort()  # ORDER BY created_at, id: "C" collation is code point order
            decoded = (_decoded(data, relation_from_dict) for _, _, data in edges_of)
            cache.setdefault(("relations", space, record_id, True), [r for r in decoded if r is not None])

    def phrase_texts(self, space: str, words: Sequence[str], limit: int) -> list[tuple[str, list[str]]]:
        out: list[tuple[str, list[str]]] = []
        if not words or limit < 1:
            return out
        unique = list(dict.fromkeys(words))
        # The records holding every word, in key order, from a merge of the words' ranges
        # of term_postings (index only, stopping at the batch); each then checked against
        # its index entry (the words in one column). Asked of memory_index alone, the
        # planner walked the whole table in key order filtering (108 ms for a batch of
        # 256 at 1M records, where the pair is held by 2,600), or matched every holder of
        # the pair in the GIN index before sorting them. OFFSET 0 keeps the check a lookup
        # by key. Only the records that hold the phrase are read in full, and a batch
        # that found too few asks for twice as many next: a common pair rarely adjacent
        # took 16 batches of 64 at 1M.
        joins = "".join(f" JOIN term_postings p{n} ON p{n}.key = p0.key" for n in range(1, len(unique)))
        ranges = " AND ".join(f"p{n}.term = %(w{n})s AND p{n}.key > %(after)s" for n in range(len(unique)))
        sql = (f"SELECT k.key, i.content, i.aliases FROM (SELECT p0.key FROM term_postings p0{joins}"
               f" WHERE {ranges}) AS k CROSS JOIN LATERAL (SELECT content, aliases FROM memory_index i"
               " WHERE i.key = k.key AND i.space = %(space)s AND i.lexemes @@ %(q)s::tsquery OFFSET 0) AS i"
               " ORDER BY k.key LIMIT %(batch)s")
        args: dict[str, object] = {f"w{n}": w for n, w in enumerate(unique)}
        args.update(space=space, q=q_same_column(unique))
        after, batch = 0, max(limit * 4, 64)
        while len(out) < limit:
            rows = self._planned(sql, {**args, "after": after, "batch": batch})
            held = [key for key, content, aliases in rows
                    if _holds_phrase(content.split(), words) or _holds_phrase(aliases.split(), words)]
            if held:
                bodies = dict(self._rows("SELECT key, data FROM memories WHERE key = ANY(%s)", (held,)))
                for key in held:
                    found = _aliases_of(bodies[key])
                    if found is not None:
                        out.append(found)
                        if len(out) >= limit:
                            break
            if len(rows) < batch:
                break
            after, batch = rows[-1][0], min(batch * 2, PHRASE_BATCH)
        return out

    def _ranked(self, rows: list[tuple], phrases: Sequence[tuple[str, bool]], hits: Sequence[int],
                content_only: bool, alias_weight: float, texts: tuple[int, int] = (1, 2)) -> list[tuple[float, tuple]]:
        """``rows`` (key first, the indexed content and aliases at positions ``texts``) with
        FTS5's bm25 for ``phrases``, best first; ties to the older key."""
        n, avgdl = self._totals()
        idfs = [rank.idf(n, h) for h in hits]
        scored = []
        for row in rows:
            content, aliases = row[texts[0]].split(), row[texts[1]].split()
            freqs = []
            for word, prefix in phrases:
                f = float(rank.occurrences(content, word, prefix))
                if not content_only:
                    f += alias_weight * rank.occurrences(aliases, word, prefix)
                freqs.append(f)
            scored.append((rank.bm25(freqs, idfs, len(content) + len(aliases), avgdl), row))
        scored.sort(key=lambda s: (s[0], s[1][0]))
        return scored

    def search_all(self, space: str, words: Sequence[str], limit: int) -> list[tuple[str, float]]:
        unique = list(dict.fromkeys(words))
        if not unique:
            return []
        rows = self._planned("SELECT i.key, i.content, i.aliases, m.id FROM memory_index i JOIN memories m ON m.key = i.key"
                          " WHERE i.space = %s AND i.lexemes @@ %s::tsquery", (space, q_every(unique)))
        hits = [self.document_frequency(w) for w in unique]
        scored = self._ranked(rows, [(w, False) for w in unique], hits, False, 0.8)
        return [(row[3], score) for score, row in scored[:limit]]

    def search_any(self, space: str, words: Sequence[str], limit: int) -> list[tuple[str, float]]:
        phrases = list(dict.fromkeys((w, False) for w in words))
        if not phrases:
            return []
        rows = self._planned("SELECT i.key, i.content, i.aliases, m.id FROM memory_index i JOIN memories m ON m.key = i.key"
                          " WHERE i.space = %s AND i.lexemes @@ %s::tsquery", (space, q_content(phrases)))
        hits = [self._content_hits(w, p) for w, p in phrases]
        scored = self._ranked(rows, phrases, hits, True, 0.0)
        return [(row[3], score) for score, row in scored[:limit]]

    def mentioning(self, space: str, origin: str, words: Sequence[str]) -> list[tuple[str, str]]:
        if not words:
            return []
        rows = self._planned(
            "SELECT m.id, i.content FROM memory_index i JOIN memories m ON m.key = i.key"
            " WHERE i.space = %s AND m.origin = %s AND m.status = ANY(%s) AND i.lexemes @@ %s::tsquery ORDER BY i.key",
            (space, origin, list(ACTIVE), q_anywhere(words)))
        return [(str(i), str(c)) for i, c in rows]

    # -- lexical index: the episode lane ---------------------------------------------

    def _without_episodes(self, space: str) -> bool:
        # One probe of the partial index on turn (only episodes have one), as on SQLite: a
        # claims-only space skips the episode lane's full-text queries. Without it, a
        # claims recall that found nothing asked the GIN index for every record holding
        # its words and dropped them on their kind (190 ms at 700k claims).
        return bool(self._cached(("no turns", space), lambda: self._one(
            "SELECT 1 FROM memories WHERE space = %s AND turn IS NOT NULL LIMIT 1", (space,)) is None))

    def names_speaker(self, space: str, word: str) -> bool:
        if self._without_episodes(space):
            return False
        # As the SQLite store: the word's newest SPEAKER_SCAN index hits (any space and
        # column); of those naming a speaker, the newest 16; whether one is an episode of
        # this space.
        rows = self._planned("SELECT key, space, kind, lexemes @@ %s::tsquery FROM memory_index"
                             " WHERE lexemes @@ %s::tsquery ORDER BY key DESC LIMIT %s",
                             (q_alias(word), q_anywhere([word]), SPEAKER_SCAN))
        return any(s == space and k == "episode" for _, s, k, _ in [r for r in rows if r[3]][:16])

    def episode_matches(self, space: str, words: Sequence[tuple[str, bool]], cap: int,
                        skip_retired: bool = False) -> list[EpisodeTurn]:
        phrases = list(dict.fromkeys(words))
        if not phrases or self._without_episodes(space):
            return []
        rows = self._planned(
            f"SELECT {_TURN_COLUMNS} FROM memory_index i JOIN memories m ON m.key = i.key"
            " WHERE i.space = %s AND i.kind = 'episode' AND i.lexemes @@ %s::tsquery"
            + (" AND m.status <> 'retired'" if skip_retired else ""), (space, q_content(phrases)))
        if not rows:
            return []
        hits = [self._content_hits(w, p) for w, p in phrases]
        # FTS5's default rank weighs every column 1.0; the query names the content column.
        scored = self._ranked(rows, phrases, hits, True, 0.0, texts=(4, 5))
        return [_episode_turn(row) for _, row in scored[:cap]]

    def episode_match_keys(self, space: str, words: Sequence[tuple[str, bool]], cap: int,
                           skip_retired: bool = False) -> list[Key]:
        # The ranking is done here in Python over the matching rows (episode_matches):
        # the keys are its keys. A caller loads only the turns it has not kept.
        return [t.key for t in self.episode_matches(space, words, cap, skip_retired)]

    def episode_match_set(self, space: str, words: Sequence[tuple[str, bool]], limit: int,
                          skip_retired: bool = False) -> list[Key]:
        # The matches are ranked here in Python anyway: the best ``limit`` of them (every
        # one when no more match), in key order.
        return sorted(self.episode_match_keys(space, words, limit, skip_retired))  # type: ignore[type-var]

    def content_postings(self, term: str, limit: int) -> list[Key]:
        # The term's range of term_postings walked newest first (content or aliases), each
        # record kept when its content holds the term: a content lexeme is the term itself
        # (an alias lexeme carries the ALIAS mark). Asked of the GIN index, a common word's
        # every holder was matched before sorting, or the whole table walked newest first
        # filtering (117 ms for "cluster" at 1M records; 25 ms this way).
        return self._kept(("content postings", term, limit), lambda: [r[0] for r in self._planned(
            "SELECT p.key FROM term_postings p JOIN memory_index i ON i.key = p.key"
            " WHERE p.term = %s AND i.lexemes @@ %s::tsquery ORDER BY p.key DESC LIMIT %s",
            (term, _lexeme(term), limit))])

    def episode_turns(self, space: str, keys: Sequence[Key], limit: int,
                      skip_retired: bool = False) -> list[EpisodeTurn]:
        out: list[EpisodeTurn] = []
        if not keys or self._without_episodes(space):
            return out  # else a claims-only space's keys were read in chunks, to find none
        step = max(limit * 2, 1)
        for start in range(0, len(keys), step):
            if len(out) >= limit:
                break
            chunk = list(keys[start : start + step])
            found = {row[0]: row for row in self._rows(
                f"SELECT {_TURN_COLUMNS} FROM memories m JOIN memory_index i ON i.key = m.key"
                " WHERE m.key = ANY(%s) AND m.space = %s AND m.kind = 'episode'"
                + (" AND m.status <> 'retired'" if skip_retired else ""), (chunk, space))}
            out += [_episode_turn(found[k]) for k in chunk if k in found][: limit - len(out)]
        return out

    def speaker_turns(self, space: str, word: str, cap: int, skip_retired: bool = False) -> list[EpisodeTurn]:
        if self._without_episodes(space):
            return []
        rows = self._planned(
            f"SELECT {_TURN_COLUMNS} FROM memory_index i JOIN memories m ON m.key = i.key"
            " WHERE i.space = %s AND i.kind = 'episode' AND i.lexemes @@ %s::tsquery"
            + (" AND m.status <> 'retired'" if skip_retired else "") + " ORDER BY i.key DESC LIMIT %s",
            (space, q_alias(word), cap))
        return [_episode_turn(r) for r in rows]

    def count_matching(self, words: Sequence[tuple[str, bool]], bound: int) -> int:
        if not words:
            return 0
        row = self._planned("SELECT count(*) FROM (SELECT 1 FROM memory_index WHERE lexemes @@ %s::tsquery LIMIT %s) AS hits",
                            (q_content(words), bound))[0]
        return int(row[0]) if row else 0

    def neighbour_turns(self, space: str, positions: Sequence[tuple[str, int]]) -> list[EpisodeTurn]:
        if not positions:
            return []
        origins = [o for o, _ in positions]
        turns = [t for _, t in positions]
        rows = self._rows(
            f"SELECT {_TURN_COLUMNS} FROM memories m JOIN memory_index i ON i.key = m.key"
            " JOIN unnest(%s::text[], %s::int[]) AS p(origin, turn) ON p.origin = m.origin AND p.turn = m.turn"
            " WHERE m.space = %s AND m.kind = 'episode' ORDER BY m.key", (origins, turns, space))
        return [_episode_turn(r) for r in rows]

    def episode_source_ids(self, space: str, origin: str) -> set[str]:
        rows = self._rows("SELECT data FROM memories WHERE space = %s AND origin = %s AND kind = 'episode'", (space, origin))
        out = set()
        for (data,) in rows:
            try:
                found = json.loads(data).get("evidence", {}).get("source_id")
            except (ValueError, AttributeError):
                continue
            if isinstance(found, str):
                out.add(found)
        return out


@_guarded
class PgTx(_Reads):
    """An open write transaction (holding the write lock). Obtain one from :meth:`PgStore.write`."""

    def __init__(self, conn: psycopg.Connection, path: str, thread: int) -> None:
        self.conn = conn
        self.path = path
        self._thread = thread
        # Counters and statistics this transaction changes, applied by _flush (see .schema).
        self._counters: dict[str, int] = {}
        # space -> term -> records gained holding it anywhere, and in the content (a
        # Counter's update counts a record's terms in C: once per term and record here
        # cost about as much as the rest of the record's index entry).
        self._anywhere: dict[str, Counter[str]] = {}
        self._in_content: dict[str, Counter[str]] = {}
        self._sizes: dict[str, list[int]] = {}  # space -> [records, terms]
        self._copied = 0  # records this transaction wrote through COPY
        self._deferred: list[str] = []  # CREATE INDEX statements defer_indexes dropped, run again by _finish

    def _counter(self, name: str) -> int:
        """The counter's current value in this transaction (read once: the write lock
        keeps every other writer out until commit)."""
        if name not in self._counters:
            row = self._one("SELECT value FROM cairn_counters WHERE name = %s", (name,))
            self._counters[name] = int(row[0]) if row else 0
        return self._counters[name]

    def _count(self, space: str, content: list[str], aliases: list[str], sign: int) -> None:
        in_content = set(content)
        anywhere = in_content | set(aliases) if aliases else in_content
        if space not in self._anywhere:
            self._anywhere[space], self._in_content[space] = Counter(), Counter()
        if sign > 0:
            self._anywhere[space].update(anywhere)
            self._in_content[space].update(in_content)
        else:
            self._anywhere[space].subtract(anywhere)
            self._in_content[space].subtract(in_content)
        size = self._sizes.setdefault(space, [0, 0])
        size[0] += sign
        size[1] += sign * (len(content) + len(aliases))

    # The secondary indexes an import into an empty table leaves out until just before
    # COMMIT: one build over the finished table (a sort; for the GIN index of lexemes, one
    # pass instead of a pending list merged again and again) rather than an update a row.
    # memories_by_turn stays (the import reads it: the next turn of each conversation);
    # the primary key and UNIQUE constraint of memories and events stay (they are what
    # finds a duplicate).
    _DEFERRABLE = {"memories": ("memories_by_status", "memories_by_hash", "memories_by_id", "memories_by_created"),
                   "memory_index": ("memory_index_lexemes",),
                   "events": ("events_by_space",)}
    # Constraints left out the same way, added again after the indexes, in this order:
    # keys this transaction assigns itself (a record's index entry and its postings, each
    # term once a record), which no read of the import needs. Added again, each is one
    # sort of the table (the primary keys) or one join of it (the record an index entry
    # names: per row, the check read and locked that record, about half the entry's
    # insert); should one fail, the error rolls the whole import back.
    _DEFERRABLE_CONSTRAINTS = {"memory_index": ("memory_index_pkey", "memory_index_key_fkey"),
                               "term_postings": ("term_postings_pkey",)}
    _CONSTRAINT_ORDER = ("memory_index_pkey", "term_postings_pkey", "memory_index_key_fkey")

    def defer_indexes(self) -> bool:
        """Drop the secondary indexes of the records and events tables that are empty now
        (the whole table: an index spans every space), and the constraints of
        :attr:`_DEFERRABLE_CONSTRAINTS` of the index tables when the records table is
        empty, to be built again by :meth:`_finish` before commit. DDL is part of the
        transaction: a rollback leaves them as they were. The drop locks those tables
        until commit, so a reader of the empty store on another connection waits for the
        import rather than reading nothing. True when any was dropped. Not part of the
        store protocol (a bulk shape for a one-shot import)."""
        empty = {table for table in ("memories", "events")
                 if self._one(f"SELECT 1 FROM {table} LIMIT 1") is None}
        if "memories" in empty:
            empty |= {"memory_index", "term_postings"}  # entries per record
        names = [name for table in sorted(empty) for name in self._DEFERRABLE.get(table, ())]
        if not names:
            return False
        found = self._rows("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()"
                           " AND indexname = ANY(%s) ORDER BY indexname", (names,))
        for name, definition in found:
            self._execute(f"DROP INDEX {name}")
            self._deferred.append(str(definition))
        constraints = [name for table in sorted(empty) for name in self._DEFERRABLE_CONSTRAINTS.get(table, ())]
        kept = self._rows("SELECT conname, conrelid::regclass::text, pg_get_constraintdef(oid) FROM pg_constraint"
                          " WHERE connamespace = current_schema()::regnamespace AND conname = ANY(%s)",
                          (constraints,))
        order = {name: place for place, name in enumerate(self._CONSTRAINT_ORDER)}
        for name, table, _ in sorted(kept, key=lambda row: -order[row[0]]):  # the foreign key first
            self._execute(f"ALTER TABLE {table} DROP CONSTRAINT {name}")
        for name, table, definition in sorted(kept, key=lambda row: order[row[0]]):
            self._deferred.append(f"ALTER TABLE {table} ADD CONSTRAINT {name} {definition}")
        return bool(self._deferred)

    def _finish(self) -> None:
        """Before commit: the statistics, and the planner's statistics after a batch that
        grew the store by a tenth or more. Autovacuum would gather them within a minute or
        so; until then a store filled by one import is planned as an empty one (recall
        right after a 40,000-record import: p95 308 ms before ANALYZE, 92 ms after)."""
        while self._deferred:
            self._execute(self._deferred.pop(0))
        self._flush()
        if self._copied >= ANALYZE_MIN and self._copied * 10 >= self._counter("memory"):
            self._execute("ANALYZE memories, memory_index, term_postings")

    def _flush(self) -> None:
        """Apply the counters and statistics changed so far (sorted: no two writers
        could deadlock, though the write lock already keeps them apart)."""
        for name, value in sorted(self._counters.items()):
            self._execute("UPDATE cairn_counters SET value = %s WHERE name = %s AND value <> %s", (value, name, value))
        changed = sorted(((term, space), [n, self._in_content[space][term]])
                         for space, counts in self._anywhere.items() for term, n in counts.items()
                         if n or self._in_content[space][term])
        if changed:
            self._execute(
                "INSERT INTO term_df (space, term, anywhere, in_content)"
                " SELECT * FROM unnest(%s::text[], %s::text[], %s::bigint[], %s::bigint[])"
                " ON CONFLICT (term, space) DO UPDATE SET anywhere = term_df.anywhere + excluded.anywhere,"
                " in_content = term_df.in_content + excluded.in_content",
                ([s for (_, s), _ in changed], [t for (t, _), _ in changed], [v[0] for _, v in changed],
                 [v[1] for _, v in changed]))
        for space, (records, terms) in sorted(self._sizes.items()):
            if records or terms:
                self._execute("INSERT INTO index_totals (space, rows, terms) VALUES (%s, %s, %s) ON CONFLICT (space)"
                              " DO UPDATE SET rows = index_totals.rows + excluded.rows,"
                              " terms = index_totals.terms + excluded.terms", (space, records, terms))
        self._anywhere.clear()
        self._in_content.clear()
        self._sizes.clear()

    # Reads of the counters and statistics see this transaction's changes.
    def document_count(self) -> int:
        return self._counter("memory")

    def document_frequency(self, term: str) -> int:
        self._flush()
        return super().document_frequency(term)

    def terms_with_prefix(self, prefix: str, limit: int) -> list[str]:
        self._flush()
        return super().terms_with_prefix(prefix, limit)

    def space_document_count(self, space: str) -> int:
        self._flush()
        return super().space_document_count(space)

    def space_document_frequencies(self, space: str, terms: Sequence[str]) -> dict[str, int]:
        self._flush()
        return super().space_document_frequencies(space, terms)

    def _totals(self) -> tuple[int, float]:
        self._flush()
        return super()._totals()

    def _content_hits(self, word: str, prefix: bool) -> int:
        self._flush()
        return super()._content_hits(word, prefix)

    def _execute(self, sql: str, args: Sequence[object] = ()) -> None:
        with self.conn.cursor() as cur:
            cur.execute(sql, args)

    def put_lifecycle(self, memory: Memory) -> None:
        self.put_memory(memory)  # the full write; a lighter one is to come

    def put_memories(self, memories: Sequence[Memory]) -> None:
        """Write many records as :meth:`put_memory` would, one after the other (see
        :meth:`put_stored`)."""
        self.put_stored([(memory, dumps(memory_to_dict(memory))) for memory in memories])

    def put_stored(self, rows: Sequence[tuple[Memory, str]], *, absent: bool = False,
                   digests: Sequence[str | None] | None = None) -> None:
        """:meth:`put_memories` for records whose stored form (the JSON text of
        ``memory_to_dict``) the caller already holds, as the SQLite store's method of this
        name (an import line is not encoded twice). The records new to the store (the bulk
        of an import or an ingest) go in through ``COPY``, one per table; a record already
        stored, or one given twice, takes the one-by-one path, in its place in the order.
        ``absent`` and ``digests``: as for the SQLite store's (no lookup of ids the caller
        has just minted; a ``content_hash`` already computed is not computed again)."""
        if absent and len(rows) >= BULK_MIN:
            hashes = digests if digests is not None else [None] * len(rows)
            self._copy_fresh([_Row.of(memory, data, digest)
                              for (memory, data), digest in zip(rows, hashes, strict=True)])
            return
        if len(rows) < BULK_MIN:
            for memory, _ in rows:
                self.put_memory(memory)
            return
        by_space: dict[str, list[str]] = defaultdict(list)
        for memory, _ in rows:
            by_space[memory.space].append(memory.id)
        stored: set[tuple[str, str]] = set()
        for space, ids in by_space.items():
            # %b: the ids travel as a binary array (the text form escapes each element).
            found = self._rows("SELECT id FROM memories WHERE space = %s AND id = ANY(%b::text[])", (space, ids))
            stored.update((space, i) for (i,) in found)
        seen: set[tuple[str, str]] = set()
        fresh: list[_Row] = []
        for memory, data in rows:
            key = (memory.space, memory.id)
            if key in stored or key in seen:
                self._copy_fresh(fresh)  # keep the order: what came before is written first
                fresh = []
                self.put_memory(memory)
            else:
                fresh.append(_Row.of(memory, data))
            seen.add(key)
        self._copy_fresh(fresh)

    def put_docs(self, rows: Sequence[tuple[dict[str, Any], str]], *, absent: bool = False) -> None:
        """:meth:`put_stored` for records given as their stored dict and its JSON text, as
        the SQLite store's method of this name: an import line already in stored form goes
        in without the model (its round trip cost about as much as the rest of the
        record's write). ``absent``: the caller has just found that none of them is stored
        and none is given twice, so a batch goes straight to ``COPY``; otherwise, or for a
        batch too small for it, they take :meth:`put_stored`."""
        if absent and len(rows) >= BULK_MIN:
            self._copy_fresh([_Row.of_doc(doc, data) for doc, data in rows])
        else:
            self.put_stored([(memory_from_dict(doc), data) for doc, data in rows])

    def _copy_fresh(self, rows: list[_Row]) -> None:
        """Insert records none of which is stored yet: one ``COPY`` per table. Keys come
        from the counter as :meth:`put_memory` takes them (one after the other, in order),
        an episode's turn continues its origin's, and the term statistics are counted
        here and applied by :meth:`_flush`, all inside the write transaction."""
        if not rows:
            return
        turns: dict[tuple[str, str], int] = {}
        for space, origin in dict.fromkeys((r.space, r.origin) for r in rows if r.kind == "episode"):
            row = self._one("SELECT COALESCE(max(turn), 0) FROM memories"
                            " WHERE space = %s AND origin = %s AND turn IS NOT NULL", (space, origin))
            turns[(space, origin)] = int(row[0]) if row else 0
        first = self._counter("memory") + 1
        index: list[tuple] = []
        # term -> the rest of each of its posting rows ("key\tspace\n"), in key order as
        # the records come: sorting the distinct terms then gives the rows in (term, key)
        # order, where sorting every row's tuple cost as much as making them.
        postings: dict[str, list[str]] = {}
        spaces: dict[str, str] = {}  # a space as COPY writes it
        with self.conn.cursor() as cur:
            # Each record's row goes to the server as soon as it is made, with the Python
            # work of its index entry done in between: the server inserts the rows (and
            # updates their indexes) on the other core while the next ones are made, where
            # making them all first left it idle until the COPY began.
            with cur.copy("COPY memories (key, space, id, origin, kind, status, created_at, updated_at,"
                          " content_hash, data, turn) FROM STDIN") as copy:
                for offset, r in enumerate(rows):
                    key = first + offset
                    turn = None
                    if r.kind == "episode":
                        turn = turns[(r.space, r.origin)] = turns[(r.space, r.origin)] + 1
                    copy.write_row((key, r.space, r.id, r.origin, r.kind, r.status, r.created_at, r.updated_at,
                                    r.digest or content_hash(r.content), r.data, turn))
                    if r.indexed:
                        content = index_text(r.content)
                        aliases = index_text(" ".join(r.aliases)) if r.aliases else ""  # most records have none
                        terms, names = content.split(), aliases.split()
                        found = lexemes(terms, names)
                        index.append((key, r.space, r.kind, content, aliases, len(terms) + len(names),
                                      tsvector_text(found)))
                        if r.space not in spaces:
                            spaces[r.space] = copy_field(r.space)
                        rest = f"\t{key}\t{spaces[r.space]}\n"  # a posting row after its term
                        for term in posting_terms(found, bool(names)):
                            if term in postings:
                                postings[term].append(rest)
                            else:
                                postings[term] = [rest]
                        self._count(r.space, terms, names, +1)
            self._copy(cur, "memory_index (key, space, kind, content, aliases, length, lexemes)", index)
            # In key order within each term: every term's new entries land at the right end of
            # its range of the index, a few pages, not one random page per entry. Sent about
            # POSTINGS_SLICE rows at a time, so the server inserts one slice while the next is
            # written.
            with cur.copy("COPY term_postings (term, key, space) FROM STDIN") as copy:
                for text in posting_slices(postings):
                    copy.write(text)
        self._counters["memory"] = first + len(rows) - 1
        self._copied += len(rows)

    @staticmethod
    def _copy(cur: psycopg.Cursor, target: str, rows: Iterable[tuple]) -> None:
        with cur.copy(f"COPY {target} FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    def append_events(self, events: Sequence[Event]) -> None:
        """Append events as :meth:`append_event` would, each under the next sequence
        number (gap-free and in order: the counter is taken under the write lock and
        written back by :meth:`_flush`), through one ``COPY`` per table."""
        if len(events) < BULK_MIN:
            for event in events:
                self.append_event(event)
            return
        first = self._counter("event") + 1
        rows: list[tuple] = []
        links: list[tuple] = []
        for offset, event in enumerate(events):
            seq = first + offset
            rows.append((seq, event.space, event.id, format_time(event.at), event.actor.value, event.reason,
                         dumps(event_to_dict(event))))
            # ON CONFLICT DO NOTHING of the one-by-one path: the sequence number is new,
            # so only a record named twice by one event could repeat a link.
            links += [(event.space, record, seq) for record in dict.fromkeys(event.history_ids)]
        with self.conn.cursor() as cur:
            self._copy(cur, "events (seq, space, id, at, actor, reason, data)", rows)
            self._copy(cur, "event_records (space, record_id, event_seq)", links)
        self._counters["event"] = first + len(events) - 1

    def put_memory(self, memory: Memory) -> None:
        # One round trip (cairn_put_memory, see .schema): the row, its key and turn, its
        # index entry; the term statistics are adjusted here and applied by _flush.
        content, aliases = index_text(memory.content), index_text(" ".join(memory.aliases))
        terms, names = content.split(), aliases.split()
        indexed = memory.purged_at is None
        new_key = self._counter("memory") + 1
        row = self._one(
            "SELECT r_created, r_old_content, r_old_aliases FROM cairn_put_memory("
            "%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::text[], %s, %s)",
            (memory.space, memory.id, memory.origin, memory.kind.value, memory.status.value,
             format_time(memory.created_at), format_time(memory.updated_at), content_hash(memory.content),
             dumps(memory_to_dict(memory)), indexed, content, aliases, lexemes(terms, names), len(terms) + len(names),
             new_key))
        assert row is not None
        created, old_content, old_aliases = row
        if created:
            self._counters["memory"] = new_key
        if old_content is not None:
            self._count(memory.space, old_content.split(), old_aliases.split(), -1)
        if indexed:
            self._count(memory.space, terms, names, +1)

    def append_event(self, event: Event) -> None:
        self.append_encoded(event, {})

    def append_encoded(self, event: Event, texts: Mapping[int, str]) -> None:
        """:meth:`append_event` for an event some of whose snapshots the caller has already
        encoded (``texts``, as for the SQLite store's method of this name): a bulk write's
        event repeats every record it wrote, and those records' stored JSON is spliced in
        rather than encoded a second time. Not part of the store protocol."""
        ids = event.history_ids
        # One statement: the event under the next sequence number (gap-free: taken under
        # the write lock, written back before commit, rolled back with the transaction)
        # and its record links.
        seq = self._counter("event") + 1
        self._execute(
            "WITH e AS (INSERT INTO events (seq, space, id, at, actor, reason, data)"
            "           VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING seq)"
            " INSERT INTO event_records (space, record_id, event_seq)"
            " SELECT %s, r, e.seq FROM e, unnest(%s::text[]) AS r ON CONFLICT DO NOTHING",
            (seq, event.space, event.id, format_time(event.at), event.actor.value, event.reason,
             event_text(event, texts), event.space, ids))
        self._counters["event"] = seq

    def rewrite_event(self, event: Event) -> None:
        """Replace an event's stored body in place: only for ``forget --purge``."""
        self._execute("UPDATE events SET reason = %s, data = %s WHERE space = %s AND id = %s",
                      (event.reason, dumps(event_to_dict(event)), event.space, event.id))

    _PUT_RELATION = (
        "INSERT INTO relations (space, id, from_id, role, to_id, status, created_at, data)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
        " ON CONFLICT (space, id) DO UPDATE SET status = excluded.status, data = excluded.data")

    @staticmethod
    def _relation_row(relation: Relation) -> tuple:
        return (relation.space, relation.id, relation.from_id, relation.role.value, relation.to_id,
                relation.status.value, format_time(relation.created_at), dumps(relation_to_dict(relation)))

    def put_relation(self, relation: Relation) -> None:
        self._execute(self._PUT_RELATION, self._relation_row(relation))

    def put_relations(self, relations: Sequence[Relation]) -> None:
        """:meth:`put_relation` for each of ``relations``, in order: psycopg's
        ``executemany`` sends them pipelined, so a batch waits for the server about once,
        not once a relation (the one-by-one path cost an import of 20,000 relations
        minutes of round trips). The same statement keeps the upsert's meaning for a
        relation named twice."""
        if not relations:
            return
        with self.conn.cursor() as cur:
            cur.executemany(self._PUT_RELATION, [self._relation_row(r) for r in relations])

    def put_receipt(self, space: str, source_id: str, memory_id: str, verdict: str, at: datetime) -> None:
        self._execute(
            "INSERT INTO feedback_receipts (space, source_id, memory_id, verdict, at) VALUES (%s, %s, %s, %s, %s)"
            " ON CONFLICT (space, source_id, memory_id) DO UPDATE SET verdict = excluded.verdict, at = excluded.at",
            (space, source_id, memory_id, verdict, format_time(at)))

    def put_source(self, space: str, source: dict) -> None:
        self._execute(
            "INSERT INTO sources (space, id, kind, sha256, at, data) VALUES (%s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (space, id) DO UPDATE SET kind = excluded.kind, sha256 = excluded.sha256,"
            " at = excluded.at, data = excluded.data",
            (space, source["id"], source["kind"], source["sha256"], source["at"], dumps(source)))

    def put_trace(self, space: str, trace_id: str, at: str, doc: Mapping[str, object]) -> None:
        self._execute("INSERT INTO traces (space, id, at, data) VALUES (%s, %s, %s, %s)", (space, trace_id, at, dumps(doc)))

    def prune_traces(self, space: str, before: str, expired: Callable[[str, str, str], bool]) -> int:
        rows = self._rows("SELECT id, at, data FROM traces WHERE space = %s AND at < %s", (space, before))
        doomed = [trace_id for trace_id, at, data in rows if expired(trace_id, at, data)]
        if doomed:
            self._execute("DELETE FROM traces WHERE space = %s AND id = ANY(%s)", (space, doomed))
        return len(doomed)


@_guarded
class PgStore(_Reads):
    """One Cairn database on a PostgreSQL server. Open with :meth:`PgStore.open`."""

    def __init__(self, conn: psycopg.Connection, path: str, read_only: bool, lock_timeout: float) -> None:
        self.conn = conn
        self.path = path
        self.read_only = read_only
        self._thread = threading.get_ident()
        self._lock_timeout = lock_timeout
        # state_memo(): the values kept, and the snapshot (pg_current_snapshot()) of the
        # data they were derived from; _snapshot_state is the open snapshot's.
        self._memo: dict = {}
        self._memo_state: str | None = None
        self._snapshot_state: str | None = None

    @classmethod
    def open(cls, url: str, *, read_only: bool = False, create: bool = True, busy_timeout: float | None = None,
             now: datetime | None = None) -> PgStore:
        """Connect to ``url`` and verify the database before changing anything: Cairn's
        schema of a version this code knows, or no tables at all (then created only when
        ``create`` and not ``read_only``). Another program's tables are refused."""
        if not isinstance(url, str) or not url.strip():
            raise InvalidInput("database URL", "empty")
        if "\x00" in url:
            raise InvalidInput("database URL", "contains a NUL character")
        timeout = DEFAULT_BUSY_TIMEOUT if busy_timeout is None else float(busy_timeout)
        if not 0 <= timeout <= 86_400:
            raise InvalidInput("busy_timeout", "must be a number of seconds from 0 to 86400")
        shown = shown_url(url)
        try:
            conn = psycopg.connect(url, autocommit=True, connect_timeout=10)
        except psycopg.Error as err:
            raise _translate(shown, err) from None
        except Exception as err:  # a URL the driver cannot parse
            raise InvalidInput("database URL", " ".join(str(err).split())[:200]) from None
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT set_config('lock_timeout', %s, false)", (f"{int(timeout * 1000)}ms",))
                done = check_version(cur)
                if not done:
                    cur.execute("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = ANY(%s)",
                                (list(TABLES),))
                    row = cur.fetchone()
                    if row and row[0]:
                        raise StoreUnavailable(shown, "the database holds another program's tables, not Cairn's;"
                                                      " nothing was changed")
                    if read_only or not create:
                        raise NoSuchDatabase(shown)
            if not read_only:
                migrate(conn, format_time(now or datetime.now().astimezone()))
            if read_only:
                with conn.cursor() as cur:
                    cur.execute("SET default_transaction_read_only = on")
        except StoreError:
            conn.close()
            raise
        except psycopg.Error as err:
            conn.close()
            raise _translate(shown, err) from None
        return cls(conn, shown, read_only, timeout)

    def close(self) -> None:
        self.conn.close()

    def schema_version(self) -> int:
        with self.conn.cursor() as cur:
            return len(check_version(cur))

    def checkpoint(self) -> None:
        return None  # the server manages its write-ahead log

    @contextmanager
    def write(self, *, durable: bool = True) -> Iterator[PgTx]:
        """One atomic write under the write lock: commits together or not at all.
        ``durable=False`` commits without waiting for the WAL flush (diagnostics only)."""
        if self.read_only:
            raise StoreUnavailable(self.path, "the database was opened read-only")
        try:
            tx = self.conn.transaction()
            tx.__enter__()
        except psycopg.Error as err:
            raise _translate(self.path, err) from None
        try:
            with self.conn.cursor() as cur:
                if not durable:
                    cur.execute("SET LOCAL synchronous_commit = off")
                cur.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            handle = PgTx(self.conn, self.path, self._thread)
            yield handle
            handle._finish()
        except BaseException as err:
            try:
                tx.__exit__(type(err), err, err.__traceback__)
            except psycopg.Error:
                pass
            if isinstance(err, psycopg.Error):
                raise _translate(self.path, err) from None
            raise
        try:
            tx.__exit__(None, None, None)
        except psycopg.Error as err:
            raise _translate(self.path, err) from None

    @contextmanager
    def snapshot(self) -> Iterator[_Reads]:
        """One consistent read view (a REPEATABLE READ, read-only transaction), begun in
        one statement, its answers kept until it ends (see ``_Reads._cache``)."""
        if self.conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE or self._cache is not None:
            with self._nested_snapshot() as view:
                yield view
            return
        try:
            with self.conn.cursor() as cur:
                # One round trip: the transaction, and the snapshot it reads (its first
                # statement takes it), which tells state_memo whether the data changed.
                cur.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY; SELECT pg_current_snapshot()::text")
                cur.nextset()
                row = cur.fetchone()
        except psycopg.Error as err:
            raise _translate(self.path, err) from None
        self._cache = {}
        self._snapshot_state = str(row[0]) if row else None
        try:
            yield self
        except BaseException:
            self._cache = None
            self._snapshot_state = None
            try:
                with self.conn.cursor() as cur:
                    cur.execute("ROLLBACK")
            except psycopg.Error:
                pass
            raise
        self._cache = None
        self._snapshot_state = None
        try:
            with self.conn.cursor() as cur:
                cur.execute("COMMIT")
        except psycopg.Error as err:
            raise _translate(self.path, err) from None

    def state_memo(self) -> dict | None:
        """Values derived from the data, kept while it is unchanged; only inside
        :meth:`snapshot` (None elsewhere: each statement its own snapshot, or a write).
        Two snapshots with the same ``pg_current_snapshot()`` (the oldest transaction
        still running, the next one to be numbered, those in progress between) see the
        same rows: any transaction that wrote and ended in between, here or elsewhere on
        the server, moves it. A change in another database of the server moves it too,
        which only empties the memo for nothing."""
        state = self._snapshot_state
        if state is None or self._cache is None:
            return None
        if state != self._memo_state:
            self._memo = {}
            self._memo_state = state
        return self._memo

    @contextmanager
    def _nested_snapshot(self) -> Iterator[_Reads]:
        """A snapshot opened inside another transaction: a savepoint of it."""
        try:
            tx = self.conn.transaction()
            tx.__enter__()
        except psycopg.Error as err:
            raise _translate(self.path, err) from None
        try:
            yield self
        except BaseException as err:
            try:
                tx.__exit__(type(err), err, err.__traceback__)
            except psycopg.Error:
                pass
            raise
        try:
            tx.__exit__(None, None, None)
        except psycopg.Error as err:
            raise _translate(self.path, err) from None

    def problems(self) -> list[dict]:
        found: list[dict] = []
        checks: tuple[tuple[str, Callable[[Any], object]], ...] = (
            ("memories", memory_from_dict), ("events", event_from_dict), ("relations", relation_from_dict))
        for table, parse in checks:
            for space, rid, data in self._stream(f"SELECT space, id, data FROM {table}", ()):
                value, problem = read_row(data, parse)
                if value is not None and (getattr(value, "id", rid) != rid or getattr(value, "space", space) != space):
                    problem = "row key does not match its body"
                if problem:
                    found.append({"table": table, "space": _shown(space), "id": _shown(rid), "problem": problem})
        return found

    def integrity(self) -> str:
        """"ok" when the index statistics agree with the index (the server checks its own pages)."""
        row = self._one("SELECT (SELECT count(*) FROM memory_index), (SELECT COALESCE(sum(rows), 0) FROM index_totals)")
        if row and int(row[0]) != int(row[1]):
            return f"index totals disagree: {row[0]} indexed records, totals say {row[1]}"
        return "ok"
