"""The embedded SQLite store: connection, pragmas, reads and one-transaction writes.

Contract:

* WAL journal, ``synchronous=FULL``, a busy timeout so that several processes can share
  one file without "database is locked" errors; the file is created 0600 and a folder
  Cairn creates for it 0700.
* Nothing is changed before a path is verified (:func:`_verify_file`, on a read-only
  connection): a regular file, empty or a SQLite database with a sane header and a
  schema this code knows. Folders, text files, damaged files, other programs' databases
  and newer schemas are refused as they are. The owner-only mode and the WAL journal are
  applied (:meth:`Store._claim`) when Cairn creates or migrates the file or first writes
  to it — never by an open that only reads. A missing file is created only when asked
  (``create``); otherwise :class:`~cairn.errors.NoSuchDatabase`.
* :meth:`Store.write` is the only way to change anything: ``BEGIN IMMEDIATE`` … ``COMMIT``,
  rolled back on any exception. The engine writes the new state and its event inside one.
* Every read is scoped to one space. A row whose body is not readable — invalid UTF-8
  (the connection's text factory hands it over as :class:`BadText` instead of failing the
  query), a BLOB, a number, bad JSON, or JSON not of the model's shape — is skipped by
  reads, counted in :data:`SKIPPED` and reported by :meth:`Store.problems`; it never
  disables the rest. SQL that reads inside a JSON body guards it (:func:`_json`).
* Every ``sqlite3.Error``, on a read as on a write, leaves as a
  :class:`~cairn.errors.StoreError` (see :func:`_translate`).
* The connection keeps SQLite's default thread check: another thread gets a
  ``StoreUnavailable`` naming the cause (the threading model is in
  :mod:`cairn.store.protocol`).
* Implements :class:`cairn.store.protocol.Backend` (``Store``), ``ReadView`` and
  ``WriteTx`` (``Tx``). ``memories.rowid`` is the record key and the insertion order;
  ``memories.turn`` the episode's position in its origin.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from functools import wraps
from inspect import isgeneratorfunction
from pathlib import Path
from sys import intern
from typing import Any, NamedTuple, TypeVar

from ...errors import InvalidInput, NoSuchDatabase, StoreError, StoreUnavailable
from ...model import (
    Event,
    MalformedRecord,
    Memory,
    Relation,
    event_from_dict,
    event_to_dict,
    format_time,
    memory_from_dict,
    memory_to_dict,
    parse_time,
    relation_from_dict,
    relation_to_dict,
)
from ...text import index_text, normalize
from ..migrations import MIGRATIONS, check_version, migrate
from ..protocol import SPEAKER_SCAN, EpisodeTurn, Key, RecordFacts, facts_of
from . import fts, vectors

T = TypeVar("T")

DEFAULT_BUSY_TIMEOUT = 30.0
MENTION_CHUNK = 200  # terms per OR query: long sources stay within FTS5's expression limits
BULK_CHECKPOINT_PAGES = 10_000  # WAL pages (of 4 KiB) a bulk write's commit leaves unfolded (Tx.defer_checkpoint)


def content_hash(text: str) -> str:
    """Hash of the normalised content: the dedup key within one origin. Case, width,
    whitespace and trailing punctuation (". ! ? 。 …") do not make a different claim."""
    canonical = " ".join(normalize(text).split())
    while canonical and (canonical[-1].isspace() or unicodedata.category(canonical[-1]) == "Po"):
        canonical = canonical[:-1]
    import hashlib  # here, not at import: a process that only reads never loads OpenSSL's hashes

    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


class BadText(bytes):
    """A TEXT value whose bytes are not valid UTF-8, as reads receive it (see :func:`_text`)."""


def _text(raw: bytes) -> str | BadText:
    """The connection's text factory: invalid UTF-8 arrives as :class:`BadText` instead of
    aborting the whole query, so one damaged row is skipped rather than blinding reads."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return BadText(raw)


# Everything a JSON body that is not the model's shape may raise while being parsed.
_UNREADABLE = (ValueError, TypeError, KeyError, AttributeError, IndexError, OverflowError, RecursionError, MalformedRecord)


def read_row(data: object, parse: Callable[[Any], T]) -> tuple[T | None, str]:
    """A stored JSON body parsed into the model, or None with the reason it cannot be."""
    if isinstance(data, BadText):
        return None, "not valid UTF-8"
    if isinstance(data, bytes):
        return None, "a BLOB, not JSON text"
    if not isinstance(data, str):
        return None, f"wrong type ({'NULL' if data is None else type(data).__name__}), not JSON text"
    try:
        value = json.loads(data)
    except json.JSONDecodeError as err:
        return None, f"bad JSON: {err.msg}"
    except RecursionError:
        return None, "bad JSON: nested too deeply"
    try:
        return parse(value), ""
    except MalformedRecord as err:
        return None, str(err)
    except _UNREADABLE as err:
        return None, f"unreadable body ({type(err).__name__})"


def _decoded(data: object, parse: Callable[[Any], T]) -> T | None:
    """The value a stored JSON row holds, or None when the row is malformed (not text,
    not UTF-8, not JSON, not the model's shape): such rows are counted in
    :data:`SKIPPED`, reported by ``problems()`` and never fatal to a reader."""
    if isinstance(data, str):
        try:
            return parse(json.loads(data))
        except _UNREADABLE:
            pass
    SKIPPED[0] += 1
    return None


# Malformed rows skipped by reads in this process (every store); interfaces report it.
SKIPPED = [0]


_DECODED: dict[str, Memory] = {}
DECODED_MAX = 4096  # records kept decoded per process (bounded: memory stays flat in N)
LOADED_KEPT = 4096  # load_ranked outcomes kept per (space, filter) while the data is unchanged


def _memory(data: object) -> Memory | None:
    """The record a stored JSON row holds (None when malformed), decoded once per process
    for the recently read rows: decoding is a pure function of the row's text, and
    parsing JSON into the model is the largest cost of loading recall's candidates. A
    malformed row is never kept, so every read that skips it counts it."""
    # Safe when two threads share the cache (a server's warm hook thread beside its own
    # requests): every step is one dict operation, and a lost race only costs a decode.
    if isinstance(data, str):
        kept = _DECODED.get(data)
        if kept is not None:
            return kept
    memory = _decoded(data, memory_from_dict)
    if memory is not None and isinstance(data, str):
        if len(_DECODED) >= DECODED_MAX:
            try:
                del _DECODED[next(iter(_DECODED))]  # the oldest entry
            except (KeyError, RuntimeError, StopIteration):
                pass  # another thread evicted it first
        _DECODED[data] = memory
    return memory


EVENT_CHANGES_MAX = 20_000  # changes held by the events a store keeps decoded (bounded)


class EventCache:
    """Decoded events of one open store by sequence number, for the reads of a record's
    history. An ingest writes one event holding every turn it stored, and each recalled
    episode's confidence reads its history: without this, every recall read and decoded
    that whole event once per result.

    Valid only for committed events: it is filled by reads outside a write transaction,
    emptied when another connection has committed (``PRAGMA data_version`` moved) and
    after a write that rewrote an event (``forget --purge``). Bounded by the changes the
    kept events hold, so memory stays flat in N."""

    def __init__(self) -> None:
        self.events: dict[int, Event] = {}
        self.changes = 0
        self.version: object = None

    def check(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self.version:
            self.clear()
            self.version = version

    def clear(self) -> None:
        self.events.clear()
        self.changes = 0

    def keep(self, seq: int, event: Event) -> None:
        size = len(event.changes) or 1
        if size > EVENT_CHANGES_MAX:
            return
        while self.events and self.changes + size > EVENT_CHANGES_MAX:
            oldest = self.events.pop(next(iter(self.events)))
            self.changes -= len(oldest.changes) or 1
        self.events[seq] = event
        self.changes += size


def _as_stored(value: Any) -> Any:
    """A row kept as the JSON it was written as (sources, traces): no model to parse into."""
    return value


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


_string = json.encoder.encode_basestring  # a str as dumps writes it (non-ASCII kept), in C


def dumps(value: object) -> str:
    """The stored JSON form: compact, non-ASCII kept (one encoder for the process: building
    one per call, as ``json.dumps`` with options does, is a fifth of a record's encoding)."""
    return _ENCODER.encode(value)


_MEMORY_KEYS = ("id", "space", "origin", "kind", "content", "aliases", "status", "layer", "evidence", "certainty",
                "valid_from", "valid_to", "created_at", "updated_at", "reinforced_at", "feedback", "revision",
                "expected_resolution_at", "last_confirmed_at", "purged_at")
_LABEL_KEYS = {(): (), ("topics",): ("topics",), ("entities",): ("entities",),
               ("topics", "entities"): ("topics", "entities")}
_EVIDENCE_KEYS = ("basis", "method", "source_id", "at")
_NO_FEEDBACK = {"utility": None, "accuracy": None}


def _text_or_null(value: Any) -> str:
    return "null" if value is None else _string(value)  # a value of another type: TypeError


def _strings(values: object) -> str:
    if type(values) is not list:
        raise TypeError("not a list")
    return "[" + ",".join(map(_string, values)) + "]"


def memory_json(doc: dict[str, Any]) -> str:
    """``dumps(doc)`` for the stored dict of a record (``memory_to_dict``'s shape), byte
    for byte, written field by field: the generic encoder walks the dict and its three
    nested ones for 5 µs, this takes about 2, and a bulk write encodes every record.
    Anything outside the shape it spells out (keys in another order, a number or a list
    where a text belongs, a given verdict) goes to ``dumps``, which writes it as it is."""
    try:
        keys = tuple(doc)
        labels = _LABEL_KEYS.get(keys[20:]) if keys[:20] == _MEMORY_KEYS else None
        evidence, revision = doc["evidence"], doc["revision"]
        if (labels is None or type(revision) is not int or type(evidence) is not dict
                or tuple(evidence) != _EVIDENCE_KEYS or doc["feedback"] != _NO_FEEDBACK
                or tuple(doc["feedback"]) != ("utility", "accuracy")):
            return dumps(doc)
        # The fields that are mostly null are tested here, not by a call each (a call a
        # field was a fifth of the cost); a value of another type still raises TypeError.
        source_id, at, certainty = evidence["source_id"], evidence["at"], doc["certainty"]
        valid_from, valid_to, reinforced_at = doc["valid_from"], doc["valid_to"], doc["reinforced_at"]
        expected, confirmed, purged_at = doc["expected_resolution_at"], doc["last_confirmed_at"], doc["purged_at"]
        text = (f'{{"id":{_string(doc["id"])},"space":{_string(doc["space"])},"origin":{_string(doc["origin"])},'
                f'"kind":{_string(doc["kind"])},"content":{_string(doc["content"])},'
                f'"aliases":{_strings(doc["aliases"])},"status":{_string(doc["status"])},'
                f'"layer":{_string(doc["layer"])},"evidence":{{"basis":{_string(evidence["basis"])},'
                f'"method":{_string(evidence["method"])},'
                f'"source_id":{"null" if source_id is None else _string(source_id)},'
                f'"at":{"null" if at is None else _string(at)}}},'
                f'"certainty":{"null" if certainty is None else _string(certainty)},'
                f'"valid_from":{"null" if valid_from is None else _string(valid_from)},'
                f'"valid_to":{"null" if valid_to is None else _string(valid_to)},'
                f'"created_at":{_string(doc["created_at"])},"updated_at":{_string(doc["updated_at"])},'
                f'"reinforced_at":{"null" if reinforced_at is None else _string(reinforced_at)},'
                f'"feedback":{{"utility":null,"accuracy":null}},"revision":{int.__repr__(revision)},'
                f'"expected_resolution_at":{"null" if expected is None else _string(expected)},'
                f'"last_confirmed_at":{"null" if confirmed is None else _string(confirmed)},'
                f'"purged_at":{"null" if purged_at is None else _string(purged_at)}')
        for key in labels:
            text += f',{_string(key)}:{_strings(doc[key])}'
        return text + "}"
    except TypeError:
        return dumps(doc)


def event_text(event: Event, texts: Mapping[int, str]) -> str:
    """``dumps(event_to_dict(event))``, with each change's ``after`` snapshot whose text
    ``texts`` holds (by ``id()`` of the snapshot dict) spliced in instead of encoded: a
    bulk write's event repeats every record it wrote, and encoding them twice was a
    tenth of a record's cost. Byte for byte what ``dumps`` writes (the encoder has no
    indentation, so a nested value is encoded exactly as it is on its own)."""
    doc = event_to_dict(event)
    if not texts:
        return dumps(doc)
    parts = []
    for change in doc["changes"]:
        after = change["after"]
        text = texts.get(id(after)) if after is not None else None
        if text is None:
            parts.append(dumps(change))
        elif change["before"] is None and type(change["table"]) is str and type(change["id"]) is str:
            # A creation (every change of a bulk write): its head written out, the two
            # strings through the encoder's own string form, with no dict to encode.
            parts.append(f'{{"table":{_string(change["table"])},"id":{_string(change["id"])},'
                         f'"before":null,"after":{text}}}')
        else:
            parts.append(dumps({**change, "after": None})[: -len("null}")] + text + "}")
    head = dumps({key: doc[key] for key in ("id", "space", "at", "actor", "reason")})
    return f'{head[:-1]},"changes":[{",".join(parts)}],"data":{dumps(doc["data"])}}}'


def _translate(path: str, err: sqlite3.Error) -> StoreError:
    text = str(err)
    if "thread" in text:
        return StoreUnavailable(path, "this store was opened in another thread; open one engine per thread")
    if "readonly" in text or "read-only" in text:
        return StoreUnavailable(path, "the database is read-only")
    if "locked" in text or "busy" in text:
        return StoreUnavailable(path, "the database is locked by another process (timed out waiting)")
    if "not a database" in text or "malformed" in text:
        return StoreUnavailable(path, f"the file is not a usable Cairn database ({text})")
    return StoreUnavailable(path, text)


def _guarded(cls):
    """Translate ``sqlite3.Error`` into the StoreError family in every public method."""
    for name, fn in list(vars(cls).items()):
        if name.startswith("_") or not callable(fn) or isinstance(fn, (classmethod, staticmethod)):
            continue
        setattr(cls, name, _guard_generator(fn) if isgeneratorfunction(fn) else _guard(fn))
    return cls


def _guard(fn):
    @wraps(fn)
    def call(self, *args, **kwargs):
        try:
            return fn(self, *args, **kwargs)
        except sqlite3.Error as err:
            raise _translate(self.path, err) from None

    return call


def _guard_generator(fn):
    @wraps(fn)
    def call(self, *args, **kwargs):
        try:
            yield from fn(self, *args, **kwargs)
        except sqlite3.Error as err:
            raise _translate(self.path, err) from None

    return call


_guarded(vectors.VectorReads)
_guarded(vectors.VectorWrites)


def _json(column: str, path: str) -> str:
    """SQL reading ``path`` from a JSON column, NULL for a malformed body (json_extract
    alone would abort the whole query on the first row that is not JSON text)."""
    return f"CASE WHEN typeof({column}) = 'text' AND json_valid({column}) THEN json_extract({column}, '{path}') END"


def _shown(value: object) -> str:
    """A key column as a report shows it: text as it is, anything else by its repr."""
    return value if isinstance(value, str) else repr(value)


def _time_or_none(value: object) -> datetime | None:
    """A stored time, or None (counted as skipped) when the column does not hold one."""
    try:
        if isinstance(value, str):
            return parse_time(value)
    except ValueError:
        pass
    SKIPPED[0] += 1
    return None


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _aliases(value: object) -> list[str]:
    try:
        found = json.loads(value) if isinstance(value, str) else []
    except ValueError:
        return []
    return [a for a in found if isinstance(a, str)] if isinstance(found, list) else []


def _episode_turn(row) -> EpisodeTurn:
    # _str inlined: the episode lane builds a few hundred of these per question. The
    # origin and the speaker are interned: the lane keeps thousands of turns read, and
    # a conversation's hundreds of turns name the same origin and the same two speakers.
    key, memory_id, origin, turn, content, aliases, at = row
    return EpisodeTurn(
        key, memory_id if isinstance(memory_id, str) else "", intern(origin) if isinstance(origin, str) else "",
        turn if isinstance(turn, int) else 0, content if isinstance(content, str) else "",
        intern(aliases) if isinstance(aliases, str) else "", at if isinstance(at, str) else "")


@_guarded
class _Reads(vectors.VectorReads):
    """Read queries shared by the store and an open write transaction."""

    conn: sqlite3.Connection
    path: str
    _vocab: bool = False

    # -- memories ----------------------------------------------------------------------

    def _memory_row(self, row: tuple[str]) -> Memory | None:
        return _memory(row[0])

    def _texts(self, sql: str, args: Sequence[object]) -> list:
        """Every row of ``sql``, texts converted by SQLite itself (no Python call per
        value); if one is not UTF-8, read again the careful way (see :func:`_text`)."""
        self.conn.text_factory = str
        try:
            return self.conn.execute(sql, args).fetchall()
        except sqlite3.OperationalError:
            self.conn.text_factory = _text
            return self.conn.execute(sql, args).fetchall()
        finally:
            self.conn.text_factory = _text

    def get_memory(self, space: str, memory_id: str) -> Memory | None:
        row = self.conn.execute("SELECT data FROM memories WHERE space = ? AND id = ?", (space, memory_id)).fetchone()
        return None if row is None else self._memory_row(row)

    def get_memories(self, space: str, ids: list[str]) -> dict[str, Memory]:
        found: dict[str, Memory] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.conn.execute(f"SELECT data FROM memories WHERE space = ? AND id IN ({marks})", (space, *chunk)):
                memory = self._memory_row(row)
                if memory is not None:
                    found[memory.id] = memory
        return found

    def iter_memories(
        self,
        space: str,
        *,
        statuses: tuple[str, ...] | None = None,
        kinds: tuple[str, ...] | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> Iterator[Memory]:
        sql, args = self._filter(space, statuses, kinds)
        sql = f"SELECT data FROM memories WHERE {sql} ORDER BY created_at, id"
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            args += [limit, offset]
        for row in self.conn.execute(sql, args):
            memory = self._memory_row(row)
            if memory is not None:
                yield memory

    def count_memories(
        self, space: str, *, statuses: tuple[str, ...] | None = None, kinds: tuple[str, ...] | None = None
    ) -> int:
        sql, args = self._filter(space, statuses, kinds)
        return int(self.conn.execute(f"SELECT COUNT(*) FROM memories WHERE {sql}", args).fetchone()[0])

    @staticmethod
    def _filter(space: str, statuses: tuple[str, ...] | None, kinds: tuple[str, ...] | None) -> tuple[str, list]:
        clauses, args = ["space = ?"], [space]
        if statuses:
            clauses.append(f"status IN ({','.join('?' * len(statuses))})")
            args += list(statuses)
        if kinds:
            clauses.append(f"kind IN ({','.join('?' * len(kinds))})")
            args += list(kinds)
        return " AND ".join(clauses), args

    def record_facts(self, space: str, *, kinds: tuple[str, ...] | None = None,
                     statuses: tuple[str, ...] | None = None) -> list[RecordFacts]:
        # Every column read is in the partial index memories_by_trust (migration
        # 0015): the planner answers from the index alone, without the JSON bodies.
        # A file opened read-only before that migration has no such index: decode.
        sql, args = self._filter(space, statuses, kinds)
        if not self._has_trust_index():
            out_of_policy = ("retired", "forgotten")
            return sorted((facts_of(m) for m in self.iter_memories(space, statuses=statuses, kinds=kinds)
                           if m.status.value not in out_of_policy), key=lambda f: (f.kind, f.status, f.id))
        # Flags and times are computed in SQL (unixepoch: whole seconds, NULL when not a
        # time), so Python converts three short texts per row and nothing else; those
        # are columns Cairn writes, read as str unless one is not UTF-8.
        sql = ("SELECT id, kind, status, revision, layer = 'pinned', purged_at IS NOT NULL, 1.0 * unixepoch(created_at),"
               " 1.0 * unixepoch(evidence_at), 1.0 * unixepoch(reinforced_at), 1.0 * unixepoch(last_confirmed_at)"
               f" FROM memories INDEXED BY memories_by_trust WHERE {sql} AND status NOT IN ('retired', 'forgotten')"
               " ORDER BY space, kind, status, id")
        self.conn.text_factory = str
        try:
            rows = self.conn.execute(sql, args).fetchall()
        except sqlite3.OperationalError:
            self.conn.text_factory = _text  # a column that is not UTF-8: read it the careful way
            rows = self.conn.execute(sql, args).fetchall()
        finally:
            self.conn.text_factory = _text
        out = []
        for memory_id, kind, status, revision, pinned, purged, created, at, reinforced, confirmed in rows:
            if not isinstance(revision, int):
                SKIPPED[0] += 1  # a body that is not JSON (or has no revision): every read skips it
                continue
            out.append(RecordFacts(_str(memory_id), kind, status, revision, pinned == 1, purged == 1,
                                   created, at, reinforced, confirmed))
        return out

    def _has_trust_index(self) -> bool:
        return self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'memories_by_trust'").fetchone() is not None

    def memories_with_hash(self, space: str, origin: str, digest: str) -> list[Memory]:
        rows = self.conn.execute(
            "SELECT data FROM memories WHERE space = ? AND origin = ? AND content_hash = ? ORDER BY created_at, id",
            (space, origin, digest),
        )
        return [m for m in map(self._memory_row, rows) if m is not None]

    def memories_with_hashes(self, space: str, keys: Sequence[tuple[str, str]]) -> list[Memory]:
        # By hash alone (the memories_by_content index), origins sifted here: SQLite plans a
        # row-value IN list over (origin, content_hash) as a scan of the whole space.
        wanted = set(keys)
        digests = sorted({digest for _, digest in wanted})
        found: list[Memory] = []
        for start in range(0, len(digests), 500):
            chunk = digests[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                f"SELECT origin, content_hash, data FROM memories WHERE space = ? AND content_hash IN ({marks})", (space, *chunk))
            found += [m for m in (self._memory_row((data,)) for origin, digest, data in rows if (origin, digest) in wanted)
                      if m is not None]
        return found

    def fts_match(self, space: str, match: str, limit: int) -> list[tuple[str, float]]:
        """Candidate ids for an FTS5 MATCH expression with their bm25 (lower is better).

        Column weights: content 1, aliases 0.8.
        """
        rows = self.conn.execute(
            # CROSS JOIN pins FTS5 as the outer loop: with a plain JOIN the planner may walk
            # every record of the space and probe the index per row (seconds at 10k records).
            "SELECT m.id, bm25(memories_fts, 1.0, 0.8) AS score FROM memories_fts"
            " CROSS JOIN memories m ON m.rowid = memories_fts.rowid"
            " WHERE memories_fts MATCH ? AND m.space = ? ORDER BY score LIMIT ?",
            (match, space, limit),
        )
        return [(str(i), float(s)) for i, s in rows]

    # -- ids ---------------------------------------------------------------------------

    def ids_with_prefix(self, table: str, space: str, prefix: str, limit: int = 20) -> list[str]:
        if table not in ("memories", "events", "relations"):
            raise ValueError(table)
        rows = self.conn.execute(
            f"SELECT id FROM {table} WHERE space = ? AND id LIKE ? ESCAPE '\\' ORDER BY id LIMIT ?",
            (space, fts.escape_like(prefix) + "%", limit),
        )
        return [str(r[0]) for r in rows]

    def present_ids(self, table: str, space: str, ids: Sequence[str]) -> set[str]:
        if table not in ("memories", "events", "relations"):
            raise ValueError(table)
        found: set[str] = set()
        for start in range(0, len(ids), 500):  # the UNIQUE (space, id) index of each table, 500 ids a statement
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(str(r[0]) for r in self.conn.execute(
                f"SELECT id FROM {table} WHERE space = ? AND id IN ({marks})", (space, *chunk)))
        return found

    def spaces_holding(self, prefix: str, *, besides: str, limit: int = 5) -> list[str]:
        rows = self.conn.execute(
            "SELECT DISTINCT space FROM memories WHERE id LIKE ? ESCAPE '\\' AND space != ? ORDER BY space LIMIT ?",
            (fts.escape_like(prefix) + "%", besides, limit),
        )
        return [str(r[0]) for r in rows]

    # -- events ------------------------------------------------------------------------

    def get_event(self, space: str, event_id: str) -> Event | None:
        row = self.conn.execute("SELECT data FROM events WHERE space = ? AND id = ?", (space, event_id)).fetchone()
        return None if row is None else _decoded(row[0], event_from_dict)

    def events(
        self, space: str, *, record_id: str | None = None, limit: int | None = None, newest_first: bool = True
    ) -> list[Event]:
        order = "DESC" if newest_first else "ASC"
        if record_id is None:
            sql = f"SELECT data FROM events WHERE space = ? ORDER BY seq {order}"
            args: list = [space]
        else:
            sql = (
                "SELECT e.data FROM event_records r JOIN events e ON e.seq = r.event_seq"
                f" WHERE r.space = ? AND r.record_id = ? ORDER BY e.seq {order}"
            )
            args = [space, record_id]
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        cache = self._event_cache()
        if record_id is not None and cache is not None:
            return self._cached_events(cache, sql.replace("SELECT e.data", "SELECT e.seq", 1), args)
        found = (_decoded(data, event_from_dict) for (data,) in self.conn.execute(sql, args))
        return [event for event in found if event is not None]

    def _event_cache(self) -> EventCache | None:
        return None  # a write transaction reads what it may roll back: never cached

    def _cached_events(self, cache: EventCache, seqs_sql: str, args: list) -> list[Event]:
        """The events ``seqs_sql`` lists, decoded once per store (see :class:`EventCache`)."""
        cache.check(self.conn)
        seqs = [int(r[0]) for r in self.conn.execute(seqs_sql, args)]
        missing = [seq for seq in seqs if seq not in cache.events]
        found: dict[int, Event] = {}
        for start in range(0, len(missing), 500):
            chunk = missing[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for seq, data in self.conn.execute(f"SELECT seq, data FROM events WHERE seq IN ({marks})", chunk):
                event = _decoded(data, event_from_dict)  # a malformed row is counted on every read
                if event is not None:
                    found[seq] = event
                    cache.keep(seq, event)
        return [event for seq in seqs if (event := cache.events.get(seq) or found.get(seq)) is not None]

    def events_after(self, space: str, at: datetime) -> list[Event]:
        # Stored times are ISO-8601 UTC with or without a fraction, which do not sort as
        # strings within one second ("…:05.5Z" < "…:05Z"): select from the start of the
        # second, then compare the parsed times.
        floor = format_time(at.replace(microsecond=0))[:-1]
        rows = self.conn.execute("SELECT data FROM events WHERE space = ? AND at >= ? ORDER BY seq", (space, floor))
        found = (_decoded(data, event_from_dict) for (data,) in rows)
        return [event for event in found if event is not None and event.at > at]

    def events_by_reason(self, space: str, prefixes: Sequence[str]) -> list[Event]:
        if not prefixes:
            return []
        # substr compares exactly (LIKE would fold case and read % and _ as wildcards);
        # the reason column comes before data, so a row that does not match is not decoded.
        clauses = " OR ".join("substr(reason, 1, ?) = ?" for _ in prefixes)
        args: list = [space]
        for prefix in prefixes:
            args += [len(prefix), prefix]
        rows = self.conn.execute(f"SELECT data FROM events WHERE space = ? AND ({clauses}) ORDER BY seq", args)
        found = (_decoded(data, event_from_dict) for (data,) in rows)
        return [event for event in found if event is not None]

    def history_by_reason(self, space: str, record_ids: Sequence[str],
                          prefixes: Sequence[str]) -> dict[str, list[Event]]:
        ids = list(dict.fromkeys(record_ids))
        if not ids or not prefixes:
            return {}
        # As in events_by_reason: the reason is read before the body, so an event whose
        # reason does not match (a conversation's ingest) is neither read whole nor decoded.
        clauses = " OR ".join("substr(e.reason, 1, ?) = ?" for _ in prefixes)
        tail: list = []
        for prefix in prefixes:
            tail += [len(prefix), prefix]
        decoded: dict[int, Event | None] = {}  # an event in several histories is decoded once
        found: dict[str, list[Event]] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            sql = ("SELECT r.record_id, e.seq, e.data FROM event_records r JOIN events e ON e.seq = r.event_seq"
                   f" WHERE r.space = ? AND r.record_id IN ({','.join('?' * len(chunk))}) AND ({clauses})"
                   " ORDER BY e.seq")
            for record_id, seq, data in self.conn.execute(sql, [space, *chunk, *tail]):
                if seq not in decoded:
                    decoded[seq] = _decoded(data, event_from_dict)
                event = decoded[seq]
                if event is not None:
                    found.setdefault(record_id, []).append(event)
        return found

    def count_events(self, space: str) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM events WHERE space = ?", (space,)).fetchone()[0])

    # -- relations ---------------------------------------------------------------------

    def get_relation(self, space: str, relation_id: str) -> Relation | None:
        row = self.conn.execute("SELECT data FROM relations WHERE space = ? AND id = ?", (space, relation_id)).fetchone()
        return None if row is None else _decoded(row[0], relation_from_dict)

    def relations(self, space: str, *, record_id: str | None = None, active_only: bool = True) -> list[Relation]:
        active = " AND status = 'active'" if active_only else ""
        if record_id is None:
            sql, args = f"SELECT data FROM relations WHERE space = ?{active} ORDER BY created_at, id", [space]
        else:
            # One indexed search per side, not ``from_id = ? OR to_id = ?``: with the OR the
            # planner walks every relation of the space, and recall's resolution asks this
            # for each hit. A relation of a record to itself is read once, from its from side.
            sql = (f"SELECT data FROM (SELECT data, created_at, id FROM relations WHERE space = ?1 AND from_id = ?2{active}"
                   f" UNION ALL SELECT data, created_at, id FROM relations WHERE space = ?1 AND to_id = ?2"
                   f" AND from_id != ?2{active}) ORDER BY created_at, id")
            args = [space, record_id]
        found = (_decoded(data, relation_from_dict) for (data,) in self.conn.execute(sql, args))
        return [relation for relation in found if relation is not None]

    # -- receipts and sources ----------------------------------------------------------

    def get_receipt(self, space: str, source_id: str, memory_id: str) -> tuple[str, str] | None:
        row = self.conn.execute(
            "SELECT verdict, at FROM feedback_receipts WHERE space = ? AND source_id = ? AND memory_id = ?",
            (space, source_id, memory_id),
        ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def get_source(self, space: str, source_id: str) -> dict | None:
        row = self.conn.execute("SELECT data FROM sources WHERE space = ? AND id = ?", (space, source_id)).fetchone()
        return None if row is None else _decoded(row[0], _as_stored)

    def latest_receipt(self, space: str, memory_id: str, verdicts: Sequence[str]) -> datetime | None:
        if not verdicts:
            return None
        marks = ",".join("?" * len(verdicts))
        rows = self.conn.execute(
            f"SELECT at FROM feedback_receipts WHERE space = ? AND memory_id = ? AND verdict IN ({marks})",
            (space, memory_id, *verdicts),
        ).fetchall()
        return max((at for at in (_time_or_none(r[0]) for r in rows) if at is not None), default=None)

    # -- traces ------------------------------------------------------------------------

    def recent_traces(self, space: str, limit: int) -> list[dict]:
        rows = self.conn.execute("SELECT data FROM traces WHERE space = ? ORDER BY at DESC, id LIMIT ?", (space, limit))
        found = (_decoded(data, _as_stored) for (data,) in rows)
        return [trace for trace in found if trace is not None]

    def get_trace(self, space: str, trace_id: str) -> dict | None:
        row = self.conn.execute("SELECT data FROM traces WHERE space = ? AND id = ?", (space, trace_id)).fetchone()
        return None if row is None else _decoded(row[0], _as_stored)

    # -- values kept while the data is unchanged ----------------------------------------

    def state_memo(self) -> dict | None:
        return None  # inside a write transaction the data is changing: nothing is kept

    # -- lexical index: statistics -----------------------------------------------------

    def document_count(self) -> int:
        # Rows are never deleted, so the highest rowid bounds the record count in O(1).
        return int(self.conn.execute("SELECT COALESCE(MAX(rowid), 0) FROM memories").fetchone()[0])

    def _ensure_vocab(self) -> None:
        if not self._vocab:
            # A TEMP fts5vocab table lives in the connection's temp schema: the database
            # file is never touched.
            self.conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.cairn_fts_vocab USING fts5vocab(main, memories_fts, row)"
            )
            self._vocab = True

    def document_frequency(self, term: str) -> int:
        self._ensure_vocab()
        row = self.conn.execute("SELECT doc FROM temp.cairn_fts_vocab WHERE term = ?", (fts.fts_form(term),)).fetchone()
        return int(row[0]) if row else 0

    def space_document_count(self, space: str) -> int:
        row = self.conn.execute("SELECT docs FROM space_stats WHERE space = ?", (space,)).fetchone()
        return int(row[0]) if row else 0

    def space_document_frequencies(self, space: str, terms: Sequence[str]) -> dict[str, int]:
        found = dict.fromkeys(terms, 0)
        wanted = list(found)
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(f"SELECT term, df FROM term_stats WHERE space = ? AND term IN ({marks})", (space, *chunk))
            found.update((str(t), int(df)) for t, df in rows)
        return found

    def terms_with_prefix(self, prefix: str, limit: int) -> list[str]:
        # The per-space counts hold every indexed term of every space (kept exact in each
        # write, rows at zero deleted): a range of their index by term, whatever the
        # postings of the terms listed.
        rows = self.conn.execute(
            "SELECT DISTINCT term FROM term_stats WHERE term > ? AND term < ? ORDER BY term LIMIT ?",
            (fts.fts_form(prefix), fts.fts_form(prefix) + "\U0010ffff", limit),
        ).fetchall()
        return [str(r[0]) for r in rows]

    def _vocab_terms_with_prefix(self, prefix: str, limit: int) -> list[str]:
        self._ensure_vocab()
        rows = self.conn.execute(
            "SELECT term FROM temp.cairn_fts_vocab WHERE term > ? AND term < ? ORDER BY term LIMIT ?",
            (fts.fts_form(prefix), fts.fts_form(prefix) + "\U0010ffff", limit),
        ).fetchall()
        return [str(r[0]) for r in rows]

    # -- lexical index: candidates -----------------------------------------------------

    def term_postings(self, term: str, limit: int) -> list[Key]:
        # The rowids come back as one JSON array built inside SQLite: a result row per
        # posting costs Python a tuple and a call each, twice the index's own read.
        # Sorted here, newest first, since an aggregate promises no order of its input.
        row = self.conn.execute(
            "SELECT json_group_array(rowid) FROM (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?"
            " ORDER BY rowid DESC LIMIT ?)",
            (fts.term(term), limit),
        ).fetchone()
        return sorted(json.loads(row[0]), reverse=True) if row and isinstance(row[0], str) else []

    def terms_postings(self, terms: Sequence[str], limit: int) -> dict[str, list[Key]]:
        # In-process: one index read per term costs no round trip.
        return {term: self.term_postings(term, limit) for term in dict.fromkeys(terms)}

    def load_ranked(self, space: str, keys: Sequence[Key], *, claims_only: bool, limit: int,
                    skip_retired: bool = False) -> list[Memory]:
        out: list[Memory] = []
        if limit < 1:
            return out
        # Filter space, kind and status in the select list, not in the WHERE clause: there
        # the planner may scan the space's index instead of looking the rowids up. A row
        # that fails them comes back without its body (NULL), so Python converts one text
        # per kept row, and a retired row is skipped before its data is decoded.
        kept = "space = ?" + (" AND kind != 'episode'" if claims_only else "") + (
            " AND status != 'retired'" if skip_retired else "")
        # Each key's outcome (its record, or None when the row is missing or filtered out)
        # is kept while the data is unchanged (state_memo): the next recall's candidates
        # are mostly the same records. A malformed row is never kept, so every read that
        # skips it counts it.
        memo = self.state_memo()
        known: dict | None = None
        if memo is not None:
            known = memo.get(("load_ranked", space, claims_only, skip_retired))
            if known is None or len(known) >= LOADED_KEPT:
                known = memo[("load_ranked", space, claims_only, skip_retired)] = {}
        start = 0
        while start < len(keys):
            # The first read asks for as many rows as wanted (most keys pass); the next ones,
            # after rows were left out, for twice as many.
            step = limit if start == 0 else limit * 2
            chunk = list(keys[start : start + step])
            start += step
            wanted = chunk if known is None else [key for key in chunk if key not in known]
            marks = ",".join("?" * len(wanted))
            rows = dict(self._texts(
                f"SELECT rowid, CASE WHEN {kept} THEN data END FROM memories WHERE rowid IN ({marks})", (space, *wanted)
            )) if wanted else {}
            for key in chunk:
                if known is not None and key in known:
                    memory = known[key]
                else:
                    data = rows.get(key)
                    memory = None if data is None else _memory(data)
                    if known is not None and (memory is not None or data is None):
                        known[key] = memory
                if memory is not None:
                    out.append(memory)
                    if len(out) >= limit:
                        return out
        return out

    def phrase_texts(self, space: str, words: Sequence[str], limit: int) -> list[tuple[str, list[str]]]:
        rows = self.conn.execute(
            # CROSS JOIN pins FTS5 as the outer loop: with a plain JOIN the planner may walk
            # every record of the space and probe the index per row. In the index's own
            # order (no sort), so that a shorter read is a prefix of a longer one.
            f"SELECT {_json('m.data', '$.content')}, {_json('m.data', '$.aliases')}"
            " FROM memories_fts CROSS JOIN memories m ON m.rowid = memories_fts.rowid"
            " WHERE memories_fts MATCH ? AND m.space = ? ORDER BY memories_fts.rowid LIMIT ?",
            (fts.phrase(words), space, limit),
        )
        return [(content, _aliases(aliases)) for content, aliases in rows if isinstance(content, str)]

    def search_all(self, space: str, words: Sequence[str], limit: int) -> list[tuple[str, float]]:
        return self.fts_match(space, fts.every(dict.fromkeys(words)), limit)

    def search_any(self, space: str, words: Sequence[str], limit: int) -> list[tuple[str, float]]:
        if not words:
            return []
        return self.fts_match(space, fts.in_column("content", fts.words_or_prefixes([(w, False) for w in words])), limit)

    def mentioning(self, space: str, origin: str, words: Sequence[str]) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for start in range(0, len(words), MENTION_CHUNK):
            # The MATCH runs first as a subquery: joined, the planner may probe the index
            # once per row. Its matches are then looked up by rowid (the ``+`` keeps the
            # planner off the status index, which would walk every live record of the space).
            rows = self.conn.execute(
                "SELECT m.id, f.content FROM memories m JOIN memories_fts f ON f.rowid = m.rowid"
                " WHERE m.rowid IN (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?)"
                " AND +m.space = ? AND +m.origin = ? AND +m.status IN ('provisional', 'confirmed')",
                (fts.any_of(words[start : start + MENTION_CHUNK], fold=False), space, origin),
            )
            out += [(str(i), str(c)) for i, c in rows]
        return out

    # -- lexical index: the episode lane ---------------------------------------------

    def holds_episodes(self, space: str) -> bool:
        """Whether ``space`` holds an episode, of any status (every episode row has a
        turn): recall skips asking the episode lane of a claims-only space."""
        return not self._without_episodes(space)

    def _without_episodes(self, space: str) -> bool:
        # One probe of the partial index on turn (only episodes have one): a claims-only
        # space skips the episode lane's full-text queries, which rank every match.
        return self.conn.execute(
            "SELECT 1 FROM memories WHERE space = ? AND turn IS NOT NULL LIMIT 1", (space,)
        ).fetchone() is None

    def names_speaker(self, space: str, word: str) -> bool:
        if self._without_episodes(space):
            return False
        # Small queries rather than one join: FTS5 first, then the rows it found, so the
        # planner never walks the memories table. A column filter alone would walk every
        # posting of a common word that no speaker is named: the speaker hits are looked
        # for among the word's newest SPEAKER_SCAN postings only: a rowid range that FTS5
        # seeks in ascending order (in descending order it walks the whole doclist).
        rows = [r[0] for r in self.conn.execute(
            "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?1 AND rowid >= (SELECT min(rowid) FROM"
            " (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?2 ORDER BY rowid DESC LIMIT ?3)) ORDER BY rowid",
            (fts.in_column("aliases", fts.quote_fts(word)), fts.quote_fts(word), SPEAKER_SCAN))][-16:]
        if not rows:
            return False
        marks = ",".join("?" * len(rows))
        return self.conn.execute(
            f"SELECT 1 FROM memories WHERE rowid IN ({marks}) AND +space = ? AND +kind = 'episode' LIMIT 1", (*rows, space)
        ).fetchone() is not None

    def episode_matches(self, space: str, words: Sequence[tuple[str, bool]], cap: int,
                        skip_retired: bool = False) -> list[EpisodeTurn]:
        return self._turns_by_key(self.episode_match_keys(space, words, cap, skip_retired))

    def episode_match_keys(self, space: str, words: Sequence[tuple[str, bool]], cap: int,
                           skip_retired: bool = False) -> list[Key]:
        if not words or self._without_episodes(space):
            return []
        live = " AND m.status <> 'retired'" if skip_retired else ""
        # Only the rowids are ranked: SQLite's sorter would otherwise read every match's
        # text and time before keeping the best ``cap``; those are read for the kept ones.
        return [r[0] for r in self.conn.execute(
            "SELECT f.rowid FROM memories_fts f JOIN memories m ON m.rowid = f.rowid"
            f" WHERE memories_fts MATCH ? AND m.space = ? AND m.kind = 'episode'{live} ORDER BY f.rank LIMIT ?",
            (fts.in_column("content", fts.words_or_prefixes(words)), space, cap),
        )]

    def episode_match_set(self, space: str, words: Sequence[tuple[str, bool]], limit: int,
                          skip_retired: bool = False) -> list[Key]:
        if not words or limit < 1 or self._without_episodes(space):
            return []
        live = " AND m.status <> 'retired'" if skip_retired else ""
        # The match of episode_match_keys without its ORDER BY rank: FTS5 computes bm25()
        # for no row (about two thirds of that query's time on a LoCoMo conversation).
        # CROSS JOIN keeps FTS5 the outer loop: without the ORDER BY the planner would walk
        # the space's records and match each (a hundred times slower).
        keys = [r for (r,) in self.conn.execute(
            "SELECT f.rowid FROM memories_fts f CROSS JOIN memories m ON m.rowid = f.rowid"
            f" WHERE memories_fts MATCH ? AND m.space = ? AND m.kind = 'episode'{live} LIMIT ?",
            (fts.in_column("content", fts.words_or_prefixes(words)), space, limit),
        )]
        keys.sort()
        return keys

    def _turn_rows(self, sql: str, args: Sequence[object], data: str = "data") -> list:
        """Every row of ``sql``, its ``{at}`` the evidence time of the ``data`` column.
        Read first without checking that each body is JSON (checking parses every body
        twice, the larger part of reading a turn); a body that is not makes SQLite abort
        the query, and it is read again the careful way (NULL for that row's time)."""
        try:
            at = f"CASE WHEN typeof({data}) = 'text' THEN json_extract({data}, '$.evidence.at') END"
            return self._texts(sql.format(at=at), args)
        except sqlite3.OperationalError:
            return self._texts(sql.format(at=_json(data, "$.evidence.at")), args)

    def _turns_by_key(self, keys: Sequence[Key], kept: str = "1", args: Sequence[object] = (),
                      limit: int | None = None) -> list[EpisodeTurn]:
        """The episode rows of ``keys`` that pass the SQL condition ``kept`` (on the
        memories row, with ``args``), in the order of ``keys``, at most ``limit``."""
        if not keys:
            return []
        # Two lookups by rowid: a join would let the planner walk the FTS5 table. The
        # condition sits in a CASE so that the rowids are looked up, not an index scanned.
        found = {row[0]: row for row in self._turn_rows(
            f"SELECT rowid, id, origin, turn, {{at}} FROM memories"
            f" WHERE rowid IN ({','.join('?' * len(keys))}) AND CASE WHEN {kept} THEN 1 ELSE 0 END", (*keys, *args))}
        wanted = [k for k in keys if k in found][:limit]
        if not wanted:
            return []
        texts = {r: (c, a) for r, c, a in self._texts(
            f"SELECT rowid, content, aliases FROM memories_fts WHERE rowid IN ({','.join('?' * len(wanted))})",
            tuple(wanted))}
        return [_episode_turn((*found[k][:4], *texts[k], found[k][4])) for k in wanted if k in texts]

    def content_postings(self, term: str, limit: int) -> list[Key]:
        # As term_postings, in the content column only: one JSON array built in SQLite.
        row = self.conn.execute(
            "SELECT json_group_array(rowid) FROM (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?"
            " ORDER BY rowid DESC LIMIT ?)",
            (fts.in_column("content", fts.term(term)), limit),
        ).fetchone()
        return sorted(json.loads(row[0]), reverse=True) if row and isinstance(row[0], str) else []

    def episode_turns(self, space: str, keys: Sequence[Key], limit: int,
                      skip_retired: bool = False) -> list[EpisodeTurn]:
        out: list[EpisodeTurn] = []
        kept = "space = ? AND kind = 'episode'" + (" AND status <> 'retired'" if skip_retired else "")
        start = 0
        while start < len(keys) and len(out) < limit:
            # As load_ranked: the first read asks for as many rows as wanted, later ones
            # (after rows were left out) for twice as many.
            step = limit if start == 0 else limit * 2
            chunk = list(keys[start : start + step])
            start += step
            out += self._turns_by_key(chunk, kept, (space,), limit - len(out))
        return out

    def speaker_turns(self, space: str, word: str, cap: int, skip_retired: bool = False) -> list[EpisodeTurn]:
        live = " AND m.status <> 'retired'" if skip_retired else ""
        rows = self._turn_rows(
            "SELECT f.rowid, m.id, m.origin, m.turn, f.content, f.aliases, {at}"
            " FROM memories_fts f JOIN memories m ON m.rowid = f.rowid"
            f" WHERE memories_fts MATCH ? AND m.space = ? AND m.kind = 'episode'{live} ORDER BY f.rowid DESC LIMIT ?",
            (fts.in_column("aliases", fts.quote_fts(word)), space, cap), "m.data",
        )
        return [_episode_turn(r) for r in rows]

    def count_matching(self, words: Sequence[tuple[str, bool]], bound: int) -> int:
        if not words:
            return 0
        row = self.conn.execute(
            "SELECT count(*) FROM (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)",
            (fts.in_column("content", fts.words_or_prefixes(words)), bound),
        ).fetchone()
        return int(row[0])

    def neighbour_turns(self, space: str, positions: Sequence[tuple[str, int]]) -> list[EpisodeTurn]:
        by_origin: dict[str, list[int]] = {}
        for origin, turn in positions:
            by_origin.setdefault(origin, []).append(turn)
        found = {}
        for origin, turns in by_origin.items():
            # Two lookups: the turns by position (index), then their indexed text by rowid;
            # a join would let the planner walk the whole FTS5 table.
            marks = ",".join("?" * len(turns))
            for row in self._turn_rows(
                f"SELECT rowid, id, origin, turn, {{at}} FROM memories"
                f" WHERE space = ? AND origin = ? AND turn IN ({marks}) AND kind = 'episode'", (space, origin, *turns)):
                found[row[0]] = row
        if not found:
            return []
        texts = self._texts(
            f"SELECT rowid, content, aliases FROM memories_fts WHERE rowid IN ({','.join('?' * len(found))})", tuple(found))
        return [_episode_turn((*found[r][:4], c, a, found[r][4])) for r, c, a in texts]

    def episode_source_ids(self, space: str, origin: str) -> set[str]:
        rows = self.conn.execute(
            f"SELECT {_json('data', '$.evidence.source_id')} FROM memories"
            # Every episode has a turn: the condition lets the partial index on turn find them.
            " WHERE space = ? AND origin = ? AND kind = 'episode' AND turn IS NOT NULL",
            (space, origin),
        )
        return {str(r[0]) for r in rows if r[0] is not None}


class _Row(NamedTuple):
    """What the bulk insert reads of a record: its columns as stored, its text and aliases
    (to index), whether it is indexed (not purged), and its stored JSON."""

    space: str
    id: str
    origin: str
    kind: str
    status: str
    created_at: str
    updated_at: str
    content: str
    aliases: Sequence[str]
    indexed: bool
    data: str
    digest: str | None = None  # content_hash of content, when the caller already holds it

    @classmethod
    def of(cls, memory: Memory, data: str, digest: str | None = None) -> _Row:
        return cls(memory.space, memory.id, memory.origin, memory.kind.value, memory.status.value,
                   format_time(memory.created_at), format_time(memory.updated_at), memory.content, memory.aliases,
                   memory.purged_at is None, data, digest)

    @classmethod
    def of_doc(cls, doc: dict[str, Any], data: str) -> _Row:
        # The stored form's times are already format_time's text, its enums their values.
        return cls(doc["space"], doc["id"], doc["origin"], doc["kind"], doc["status"], doc["created_at"],
                   doc["updated_at"], doc["content"], doc["aliases"], doc["purged_at"] is None, data)


@_guarded
class Tx(_Reads, vectors.VectorWrites):
    """An open write transaction. Obtain one from :meth:`Store.write`."""

    def __init__(self, conn: sqlite3.Connection, path: str) -> None:
        self.conn = conn
        self.path = path
        # Changes to the per-space document frequencies, summed over the transaction and
        # written by _flush_stats just before COMMIT: a bulk import touches each
        # (space, term) row once per transaction, not once per record.
        self._df: dict[str, Counter[str]] = {}  # by space
        self._docs: dict[str, int] = {}
        self.written: list[tuple[str, str, bool, str]] = []  # (space, content hash, is episode, content) put live
        # Kept only for a hook that reads them before COMMIT (the semantic extra's vectors),
        # and only up to the most it reads (``written_cap``; one more says "more than"):
        # otherwise a bulk import would hold every record's text to the end for nothing.
        self.keep_written = True
        self.written_cap: int | None = None
        self.rewrote = False  # an event body was rewritten (the store's event cache is then emptied)
        self.trace_changes = 0  # rows changed in the traces table (which no kept value is derived from)
        self._deferred: list[str] = []  # CREATE INDEX statements defer_indexes dropped, run again before COMMIT
        self.checkpoint_deferred = False  # set by defer_checkpoint: see Store.write

    # dumps() of a record's stored dict, faster (see memory_json). Not part of the store
    # protocol: a bulk write that encodes every record asks for it where a store has it.
    memory_json = staticmethod(memory_json)

    def defer_checkpoint(self) -> None:
        """Let this transaction's COMMIT leave the WAL unfolded until it holds
        :data:`BULK_CHECKPOINT_PAGES` pages (SQLite's automatic checkpoint otherwise folds
        it into the database file past 1,000). A bulk write of a few hundred records
        rewrites a page of each random-keyed index (the record's id, its content hash, the
        event's links by record) for most of its records, about 1,800 pages for a
        600-turn ingest: folded after every such commit, each page was copied again and
        again. Folded every few commits, a page rewritten by several is copied once.
        Durability does not change: the COMMIT still syncs the WAL. Not part of the store
        protocol (a bulk shape)."""
        self.checkpoint_deferred = True

    # The secondary indexes an import into an empty table leaves out until just before
    # COMMIT. Building one over the finished table (a sort) cost 6.5 µs a row for all of
    # these together; keeping them up to date row by row, 12.7 µs. memories_by_turn stays:
    # the import itself reads it (the next turn of each conversation, per chunk).
    _DEFERRABLE = {"memories": ("memories_by_status", "memories_by_content", "memories_by_trust"),
                   "events": ("events_by_id", "events_by_time")}

    def defer_indexes(self) -> bool:
        """Drop the secondary indexes of the records and events tables that are empty now
        (the whole table, every space: an index spans them all), to be built again just
        before this transaction commits (:meth:`Store.write`). DDL is part of the
        transaction: a rollback leaves them as they were. True when any was dropped.
        Not part of the store protocol (a bulk shape for a one-shot import)."""
        for table, names in self._DEFERRABLE.items():
            if self.conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() is not None:
                continue
            marks = ",".join("?" * len(names))
            found = self.conn.execute(f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?"
                                      f" AND name IN ({marks}) ORDER BY name", (table, *names)).fetchall()
            for name, sql in found:
                self.conn.execute(f"DROP INDEX {name}")
                self._deferred.append(sql)
        return bool(self._deferred)

    def _restore_indexes(self) -> None:
        while self._deferred:
            self.conn.execute(self._deferred.pop(0))

    def _keeps_written(self) -> bool:
        return self.keep_written and (self.written_cap is None or len(self.written) <= self.written_cap)

    def _count_terms(self, space: str, content: str, aliases: str, sign: int) -> None:
        self._docs[space] = self._docs.get(space, 0) + sign
        counts = self._df.get(space)
        if counts is None:
            counts = self._df[space] = Counter()
        distinct = {*content.split(), *aliases.split()}
        if sign > 0:
            counts.update(distinct)  # counted in C, not a Python loop a term
        else:
            counts.subtract(distinct)

    def _flush_stats(self) -> None:
        changed = [(space, term, n) for space, counts in self._df.items() for term, n in counts.items() if n]
        self.conn.executemany(
            "INSERT INTO term_stats (space, term, df) VALUES (?, ?, ?)"
            " ON CONFLICT (space, term) DO UPDATE SET df = df + excluded.df",
            changed,
        )
        if any(n < 0 for *_, n in changed):
            self.conn.execute("DELETE FROM term_stats WHERE df <= 0")
        self.conn.executemany(
            "INSERT INTO space_stats (space, docs) VALUES (?, ?) ON CONFLICT (space) DO UPDATE SET docs = docs + excluded.docs",
            [(space, n) for space, n in self._docs.items() if n],
        )
        self._df.clear()
        self._docs.clear()

    def space_document_count(self, space: str) -> int:
        return super().space_document_count(space) + self._docs.get(space, 0)

    def terms_with_prefix(self, prefix: str, limit: int) -> list[str]:
        # Inside a write the per-space counts lag until commit: the index's own vocabulary.
        return self._vocab_terms_with_prefix(prefix, limit)

    def space_document_frequencies(self, space: str, terms: Sequence[str]) -> dict[str, int]:
        found = super().space_document_frequencies(space, terms)
        pending = self._df.get(space)
        return found if pending is None else {term: df + pending[term] for term, df in found.items()}

    def put_memory(self, memory: Memory) -> None:
        self._put_one(memory, dumps(memory_to_dict(memory)))

    def _put_one(self, memory: Memory, data: str) -> None:
        row = self.conn.execute(
            "SELECT rowid, content_hash FROM memories WHERE space = ? AND id = ?", (memory.space, memory.id)).fetchone()
        values = (
            memory.origin,
            memory.kind.value,
            memory.status.value,
            format_time(memory.created_at),
            format_time(memory.updated_at),
            content_hash(memory.content),
            data,
        )
        if row is None:
            turn = None
            if memory.kind.value == "episode":
                # The next position in its origin's conversation (append order).
                turn = self.conn.execute(
                    "SELECT COALESCE(MAX(turn), 0) + 1 FROM memories WHERE space = ? AND origin = ? AND turn IS NOT NULL",
                    (memory.space, memory.origin),
                ).fetchone()[0]
            cur = self.conn.execute(
                "INSERT INTO memories (space, id, origin, kind, status, created_at, updated_at, content_hash, data, turn)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (memory.space, memory.id, *values, turn),
            )
            rowid = cur.lastrowid
        else:
            rowid = row[0]
            self.conn.execute(
                "UPDATE memories SET origin = ?, kind = ?, status = ?, created_at = ?, updated_at = ?,"
                " content_hash = ?, data = ? WHERE rowid = ?",
                (*values, rowid),
            )
            old = self.conn.execute("SELECT content, aliases FROM memories_fts WHERE rowid = ?", (rowid,)).fetchone()
            if old is not None:
                self._count_terms(memory.space, old[0] or "", old[1] or "", -1)
                self.conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (rowid,))
        if memory.purged_at is None:
            content, aliases = index_text(memory.content), index_text(" ".join(memory.aliases))
            self.conn.execute("INSERT INTO memories_fts (rowid, content, aliases) VALUES (?, ?, ?)", (rowid, content, aliases))
            self._count_terms(memory.space, content, aliases, +1)
        live = memory.purged_at is None and memory.status.value != "forgotten"
        if row is not None and (row[1] != values[5] or not live):
            vectors.drop_unheld(self.conn, memory.space, (row[1], values[5]))  # a vector outlives no record's text
        if live and self._keeps_written():
            self.written.append((memory.space, values[5], memory.kind.value == "episode", vectors.vector_text(memory)))

    def put_lifecycle(self, memory: Memory) -> None:
        # Retiring 16k records of a 100k store spent most of its time deleting and
        # re-adding their unchanged text in the full-text index; the row alone changes.
        cur = self.conn.execute(
            "UPDATE memories SET status = ?, updated_at = ?, data = ? WHERE space = ? AND id = ? AND content_hash = ?"
            " AND kind = ? AND origin = ? AND json_extract(data, '$.aliases') = json(?)",
            (memory.status.value, format_time(memory.updated_at), dumps(memory_to_dict(memory)), memory.space, memory.id,
             content_hash(memory.content), memory.kind.value, memory.origin, dumps(list(memory.aliases))))
        if cur.rowcount != 1 or memory.purged_at is not None or memory.status.value == "forgotten":
            self.put_memory(memory)  # its text changed (or it leaves the index): the full write

    def put_memories(self, memories: Sequence[Memory]) -> None:
        """:meth:`put_memory` for each of ``memories``, in order, as a few ``executemany``."""
        self.put_stored([(memory, dumps(memory_to_dict(memory))) for memory in memories])

    def put_stored(self, rows: Sequence[tuple[Memory, str]], *, absent: bool = False,
                   digests: Sequence[str | None] | None = None) -> None:
        """:meth:`put_memories` for records whose stored form (the JSON text of
        ``memory_to_dict``) the caller already holds — an import line written by export —
        so that nothing is encoded twice. Not part of the store protocol (a SQLite bulk
        shape): the text must be exactly ``dumps(memory_to_dict(memory))``.

        New records (absent from the store and not repeated in ``rows``) are inserted with
        explicit rowids from ``MAX(rowid) + 1`` — the rowids SQLite would have chosen,
        since rows are never deleted and the write lock is held — so that the records,
        their index rows and their turn positions go in one ``executemany`` each. A record
        already stored, or met a second time, goes through :meth:`put_memory` in its place
        in the order, after everything before it.

        ``absent``: as for :meth:`put_docs` (a bulk call that has just minted these ids,
        ``new_id``'s 96 random bits, knows none is stored). ``digests``: the records'
        ``content_hash``, in order, where the caller has computed it already (``None`` in
        place of one it has not), so that it is not computed twice."""
        if digests is None:
            self._put_rows([(_Row.of(memory, data), memory) for memory, data in rows], absent)
        else:
            self._put_rows([(_Row.of(memory, data, digest), memory)
                            for (memory, data), digest in zip(rows, digests, strict=True)], absent)

    def put_docs(self, rows: Sequence[tuple[dict[str, Any], str]], *, absent: bool = False) -> None:
        """:meth:`put_stored` for records given as their stored dict and its JSON text,
        without the model: an import line already in stored form is written as it
        stands. Not part of the store protocol (a SQLite bulk shape): each dict must be
        exactly ``memory_to_dict`` of a well-formed record (the caller checks it).
        ``absent``: the caller has just found that none of these records is stored and
        none is given twice (import does), so they are not looked up again."""
        self._put_rows([(_Row.of_doc(doc, data), doc) for doc, data in rows], absent)

    def _put_rows(self, rows: Sequence[tuple[_Row, Memory | dict[str, Any]]], absent: bool = False) -> None:
        if absent:
            self._insert_new([row for row, _ in rows])
            return
        pending: list[_Row] = []
        present = self._present_ids([row for row, _ in rows])
        seen: set[tuple[str, str]] = set()
        for row, record in rows:
            key = (row.space, row.id)
            if key in present or key in seen:
                self._insert_new(pending)
                pending = []
                self._put_one(record if isinstance(record, Memory) else memory_from_dict(record), row.data)
            else:
                pending.append(row)
            seen.add(key)
        self._insert_new(pending)

    def _present_ids(self, rows: Sequence[_Row]) -> set[tuple[str, str]]:
        by_space: dict[str, list[str]] = {}
        for row in rows:
            by_space.setdefault(row.space, []).append(row.id)
        found: set[tuple[str, str]] = set()
        for space, ids in by_space.items():
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ",".join("?" * len(chunk))
                found.update((space, str(r[0])) for r in self.conn.execute(
                    f"SELECT id FROM memories WHERE space = ? AND id IN ({marks})", (space, *chunk)))
        return found

    def put_docs_if_new(self, rows: Sequence[tuple[dict[str, Any], str]]) -> bool:
        """:meth:`put_docs` with ``absent=True`` for records that are probably all new (an
        import's chunk, whose ids repeat none among themselves): written in one go, with no
        look-up before, when none of their ids is stored; when one is, nothing is left
        written and False says so (the caller then looks them up and writes what is new). The
        insert's own unique key is the look-up: a probe of the ids before it fetched the
        same random index pages a second time (4 µs a record at 1M). Not part of the store
        protocol (a SQLite bulk shape)."""
        return self._insert_new([_Row.of_doc(doc, data) for doc, data in rows], if_new=True)

    def _insert_new(self, rows: Sequence[_Row], *, if_new: bool = False) -> bool:
        """Insert ``rows`` (none stored, none repeated). ``if_new``: that is not known, so
        the records go in under ``OR IGNORE``; if any row was ignored, the rows that went in
        are deleted again (nothing written) and the answer is False."""
        if not rows:
            return True
        rowid = int(self.conn.execute("SELECT COALESCE(MAX(rowid), 0) FROM memories").fetchone()[0])
        turns: dict[tuple[str, str], int] = {}
        # An ingest's episodes carry their speaker as alias: a few distinct alias lists
        # among many records, each tokenised once.
        alias_texts: dict[tuple[str, ...], str] = {}
        records, index, indexed = [], [], []
        for row in rows:
            rowid += 1
            turn = None
            if row.kind == "episode":
                place = (row.space, row.origin)
                if place not in turns:
                    turns[place] = int(self.conn.execute(
                        "SELECT COALESCE(MAX(turn), 0) FROM memories WHERE space = ? AND origin = ? AND turn IS NOT NULL",
                        place).fetchone()[0])
                turns[place] += 1
                turn = turns[place]
            digest = row.digest or content_hash(row.content)
            records.append((rowid, row.space, row.id, row.origin, row.kind, row.status, row.created_at, row.updated_at,
                            digest, row.data, turn))
            if row.indexed:
                content = index_text(row.content)
                aliases = ""  # most records have none
                if row.aliases:
                    key = tuple(row.aliases)
                    known = alias_texts.get(key)
                    aliases = known if known is not None else alias_texts.setdefault(key, index_text(" ".join(key)))
                index.append((rowid, content, aliases))
                indexed.append((row, digest))
        if if_new:
            before = self.conn.total_changes
            self.conn.executemany(
                "INSERT OR IGNORE INTO memories (rowid, space, id, origin, kind, status, created_at, updated_at,"
                " content_hash, data, turn) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", records)
            if self.conn.total_changes - before != len(records):
                # Undone by rowid (every rowid past the first of these was free), not by a
                # savepoint: a savepoint copies each page it changes aside first, which
                # cost more than the look-up it saves.
                self.conn.execute("DELETE FROM memories WHERE rowid >= ?", (records[0][0],))
                return False
        else:
            self.conn.executemany(
                "INSERT INTO memories (rowid, space, id, origin, kind, status, created_at, updated_at, content_hash,"
                " data, turn) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", records)
        self.conn.executemany("INSERT INTO memories_fts (rowid, content, aliases) VALUES (?, ?, ?)", index)
        for (row, digest), (_, content, aliases) in zip(indexed, index, strict=True):
            # _count_terms(row.space, content, aliases, +1), without a call a record.
            space = row.space
            self._docs[space] = self._docs.get(space, 0) + 1
            counts = self._df.get(space)
            if counts is None:
                counts = self._df[space] = Counter()
            counts.update({*content.split(), *aliases.split()} if aliases else set(content.split()))
            if row.status != "forgotten" and self.keep_written and self._keeps_written():
                episode = row.kind == "episode"
                self.written.append((row.space, digest, episode, vectors.text_of(episode, row.content, row.aliases)))
        return True

    def append_events(self, events: Sequence[Event]) -> None:
        """:meth:`append_event` for each of ``events``, in order, as two ``executemany``:
        sequence numbers are given explicitly from the AUTOINCREMENT counter (what SQLite
        would have chosen), so the links by record need no read-back."""
        if not events:
            return
        row = self.conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()
        top = self.conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
        seq = max(int(row[0]) if row else 0, int(top))
        rows, links = [], []
        for event in events:
            seq += 1
            rows.append((seq, event.space, event.id, format_time(event.at), event.actor.value, event.reason,
                         dumps(event_to_dict(event))))
            links += [(event.space, record_id, seq) for record_id in event.history_ids]
        self.conn.executemany("INSERT INTO events (seq, space, id, at, actor, reason, data) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        self.conn.executemany("INSERT OR IGNORE INTO event_records (space, record_id, event_seq) VALUES (?, ?, ?)", links)

    def append_event(self, event: Event) -> None:
        self.append_encoded(event, {})

    def append_encoded(self, event: Event, texts: Mapping[int, str]) -> None:
        """:meth:`append_event` for an event some of whose snapshots the caller has
        already encoded (``texts``: the stored JSON of a snapshot dict, by ``id()`` of
        that dict, as the record's own row holds it): those are spliced in rather than
        encoded a second time. Not part of the store protocol (a SQLite bulk shape)."""
        cur = self.conn.execute(
            "INSERT INTO events (space, id, at, actor, reason, data) VALUES (?, ?, ?, ?, ?, ?)",
            (event.space, event.id, format_time(event.at), event.actor.value, event.reason, event_text(event, texts)),
        )
        self.conn.executemany("INSERT OR IGNORE INTO event_records (space, record_id, event_seq) VALUES (?, ?, ?)",
                              [(event.space, record_id, cur.lastrowid) for record_id in event.history_ids])

    def rewrite_event(self, event: Event) -> None:
        """Replace an event's stored body in place: only for ``forget --purge``."""
        self.rewrote = True
        self.conn.execute(
            "UPDATE events SET reason = ?, data = ? WHERE space = ? AND id = ?",
            (event.reason, dumps(event_to_dict(event)), event.space, event.id),
        )

    _PUT_RELATION = (
        "INSERT INTO relations (space, id, from_id, role, to_id, status, created_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (space, id) DO UPDATE SET status = excluded.status, data = excluded.data")

    @staticmethod
    def _relation_row(relation: Relation) -> tuple:
        return (relation.space, relation.id, relation.from_id, relation.role.value, relation.to_id,
                relation.status.value, format_time(relation.created_at), dumps(relation_to_dict(relation)))

    def put_relation(self, relation: Relation) -> None:
        self.conn.execute(self._PUT_RELATION, self._relation_row(relation))

    def put_relations(self, relations: Sequence[Relation]) -> None:
        """:meth:`put_relation` for each of ``relations``, in order, as one ``executemany``."""
        self.conn.executemany(self._PUT_RELATION, [self._relation_row(r) for r in relations])

    def put_receipt(self, space: str, source_id: str, memory_id: str, verdict: str, at: datetime) -> None:
        self.conn.execute(
            "INSERT INTO feedback_receipts (space, source_id, memory_id, verdict, at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (space, source_id, memory_id) DO UPDATE SET verdict = excluded.verdict, at = excluded.at",
            (space, source_id, memory_id, verdict, format_time(at)),
        )

    def put_source(self, space: str, source: dict) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO sources (space, id, kind, sha256, at, data) VALUES (?, ?, ?, ?, ?, ?)",
            (space, source["id"], source["kind"], source["sha256"], source["at"], dumps(source)),
        )

    def put_trace(self, space: str, trace_id: str, at: str, doc: Mapping[str, object]) -> None:
        start = self.conn.total_changes
        self.conn.execute(
            "INSERT INTO traces (space, id, at, data) VALUES (?, ?, ?, ?)",
            (space, trace_id, at, dumps(doc)),
        )
        self.trace_changes += self.conn.total_changes - start

    def prune_traces(self, space: str, before: str, expired: Callable[[str, str, str], bool]) -> int:
        start = self.conn.total_changes
        rows = self.conn.execute("SELECT id, at, data FROM traces WHERE space = ? AND at < ?", (space, before)).fetchall()
        doomed = [trace_id for trace_id, at, data in rows if expired(trace_id, at, data)]
        for trace_id in doomed:
            self.conn.execute("DELETE FROM traces WHERE space = ? AND id = ?", (space, trace_id))
        self.trace_changes += self.conn.total_changes - start
        return len(doomed)


@_guarded
class Store(_Reads):
    """One SQLite database file. Open with :meth:`Store.open`; close with :meth:`close`."""

    def __init__(self, conn: sqlite3.Connection, path: str, read_only: bool) -> None:
        self.conn = conn
        self.path = path
        self.read_only = read_only
        # Called with the open transaction just before it commits (the semantic extra
        # embeds the texts it wrote there, see cairn.embed.writer); None: nothing runs.
        self.before_commit: Callable[[Tx], None] | None = None
        self.written_cap: int | None = None  # the most written texts before_commit reads (Tx.written)
        self._claimed = False
        self._events = EventCache()
        self._writing = False
        # state_memo(): kept values and the data version they were derived from
        # (PRAGMA data_version, which moves when another connection commits, and this
        # connection's own count of changed rows); checked once per read snapshot.
        self._memo: dict = {}
        self._memo_version: tuple[int, int] | None = None
        self._memo_checked = False
        self._reading = False

    def _event_cache(self) -> EventCache | None:
        return None if self._writing else self._events

    def state_memo(self) -> dict | None:
        """Values derived from this database's data, kept while no commit (of this
        connection or another) has changed it. Only inside :meth:`snapshot`: the check
        runs on the snapshot's own read transaction, so what is kept and what the
        snapshot reads are the same data. Outside one (each statement its own snapshot)
        and while writing: None."""
        if not self._reading or self._writing or not self.conn.in_transaction:
            return None
        if not self._memo_checked:
            version = (int(self.conn.execute("PRAGMA data_version").fetchone()[0]), self.conn.total_changes)
            if version != self._memo_version:
                self._memo = {}
                self._memo_version = version
            self._memo_checked = True
        return self._memo

    @classmethod
    def open(
        cls,
        path: str | os.PathLike,
        *,
        read_only: bool = False,
        create: bool = True,
        busy_timeout: float | None = None,
        now: datetime | None = None,
    ) -> Store:
        """Open the database at ``path``.

        Nothing is changed before the file is known to be Cairn's: an existing path must be
        a regular file holding an empty or a SQLite database whose schema this code knows
        (checked on a read-only connection), else the open is refused and the file, its
        mode and its journal mode stay as they were. A missing file is created (0600, its
        missing folders 0700) only when ``create``; otherwise :class:`NoSuchDatabase`.
        The file's mode and WAL journal are set when Cairn creates it, migrates it, or
        first writes to it (:meth:`write`), never by an open that only reads.
        """
        path = os.fspath(path)
        if not isinstance(path, str) or not path.strip():
            raise InvalidInput("database path", "empty")
        if "\x00" in path:
            raise InvalidInput("database path", "contains a NUL character")
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidInput("database path", "not valid UTF-8") from None
        timeout = _busy_timeout(busy_timeout)
        created = False
        if path != ":memory:":
            target = Path(path)
            found = _verify_file(target, path)
            if found == "empty" and (read_only or not create):
                raise StoreUnavailable(path, "an empty file, not yet a Cairn database; nothing was changed")
            if found == "missing":
                if read_only or not create:
                    raise NoSuchDatabase(path)
                created = _create_file(target, path)
        sides = _side_files(path) if path != ":memory:" else set()
        try:
            if read_only:
                conn = sqlite3.connect(f"file:{_uri_path(path)}?mode=ro", uri=True, timeout=timeout, isolation_level=None)
            else:
                conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
        except sqlite3.Error as err:
            raise _translate(path, err) from None
        conn.text_factory = _text
        store = cls(conn, path, read_only)
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = FULL")
            done = check_version(conn)
            if not read_only and (created or len(done) < len(MIGRATIONS) or path == ":memory:"):
                # A file Cairn just made, or one it verified and must migrate to read.
                store._claim()
                migrate(conn, format_time(now or datetime.now().astimezone()))
        except StoreError:
            conn.close()
            _drop_new_side_files(path, sides)
            raise
        except sqlite3.Error as err:
            conn.close()
            _drop_new_side_files(path, sides)
            raise _translate(path, err) from None
        return store

    def _claim(self) -> None:
        """Make a verified (or new) database Cairn's working file: owner-only mode and the
        WAL journal. Runs once per open store, before its first change."""
        if self._claimed or self.read_only:
            return
        if self.path != ":memory:":
            _tighten_mode(Path(self.path))
        timeout = self.conn.execute("PRAGMA busy_timeout").fetchone()[0] / 1000
        _retry_busy(lambda: self.conn.execute("PRAGMA journal_mode = WAL"), timeout)
        self._claimed = True

    def close(self) -> None:
        self.conn.close()

    def schema_version(self) -> int:
        """The migrations this database holds (written by this or an older Cairn)."""
        return len(check_version(self.conn))

    def checkpoint(self) -> None:
        """Fold the WAL into the database file and truncate it."""
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    @contextmanager
    def write(self, *, durable: bool = True) -> Iterator[Tx]:
        """One atomic write: everything inside commits together or not at all.

        ``durable=False`` commits without syncing the WAL (``synchronous=NORMAL`` for this
        one transaction): still atomic and never corrupting, but a power cut may lose it.
        Only for diagnostics such as recall traces, never for records or events; the next
        durable commit syncs it along with its own.
        """
        if self.read_only:
            raise StoreUnavailable(self.path, "the database was opened read-only")
        try:
            self._claim()
        except sqlite3.Error as err:
            raise _translate(self.path, err) from None
        if not durable:
            self.conn.execute("PRAGMA synchronous = NORMAL")
        tx: Tx | None = None
        folds_at: int | None = None  # the automatic checkpoint's own threshold, while a bulk commit raises it
        start = self.conn.total_changes
        try:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as err:
                raise _translate(self.path, err) from None
            tx = Tx(self.conn, self.path)
            tx.keep_written = self.before_commit is not None
            tx.written_cap = self.written_cap
            self._writing = True
            try:
                yield tx
                try:
                    tx._restore_indexes()
                    tx._flush_stats()
                except sqlite3.Error as err:
                    raise _translate(self.path, err) from None
                if self.before_commit is not None and tx.written:
                    self.before_commit(tx)
                if tx.checkpoint_deferred:
                    # Read by the WAL hook when COMMIT ends; put back in the finally below.
                    try:
                        folds_at = int(self.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])
                        self.conn.execute(f"PRAGMA wal_autocheckpoint = {BULK_CHECKPOINT_PAGES}")
                    except sqlite3.Error as err:
                        raise _translate(self.path, err) from None
            except BaseException:
                _rollback(self.conn)
                raise
            try:
                self.conn.execute("COMMIT")
            except sqlite3.Error as err:
                _rollback(self.conn)
                raise _translate(self.path, err) from None
            if self._memo_version is not None and self._memo_version[1] == start and (
                    self.conn.total_changes - start == tx.trace_changes):
                # Only trace rows changed (a traced recall): nothing kept is derived from
                # them, so the kept values stay. Another connection's commit still moves
                # data_version, checked at the next snapshot.
                self._memo_version = (self._memo_version[0], self.conn.total_changes)
        finally:
            self._writing = False
            if folds_at is not None:
                self.conn.execute(f"PRAGMA wal_autocheckpoint = {folds_at}")
            if tx is not None and tx.rewrote:
                self._events.clear()  # an event body changed in place (purge), committed or not
            if not durable:
                self.conn.execute("PRAGMA synchronous = FULL")

    @contextmanager
    def snapshot(self) -> Iterator[_Reads]:
        """A consistent read view across several queries (one read transaction)."""
        try:
            self.conn.execute("BEGIN")
        except sqlite3.Error as err:
            raise _translate(self.path, err) from None
        self._reading, self._memo_checked = True, False
        try:
            yield self
        finally:
            self._reading, self._memo_checked = False, False
            try:
                if self.conn.in_transaction:  # see _rollback: SQLite may have ended it already
                    self.conn.execute("COMMIT")
            except sqlite3.Error as err:
                raise _translate(self.path, err) from None

    def problems(self) -> list[dict]:
        """Every row that reads would skip, with the reason (for ``cairn status``)."""
        found: list[dict] = []
        checks = (
            ("memories", "SELECT space, id, data FROM memories", memory_from_dict),
            ("events", "SELECT space, id, data FROM events", event_from_dict),
            ("relations", "SELECT space, id, data FROM relations", relation_from_dict),
        )
        for table, sql, parse in checks:
            for space, rid, data in self.conn.execute(sql):
                value, problem = read_row(data, parse)
                if value is not None and (getattr(value, "id", rid) != rid or getattr(value, "space", space) != space):
                    problem = "row key does not match its body"
                if problem:
                    found.append({"table": table, "space": _shown(space), "id": _shown(rid), "problem": problem})
        return found

    def integrity(self) -> str:
        return str(self.conn.execute("PRAGMA quick_check").fetchone()[0])



def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back the open transaction unless SQLite already has: on a full disk, an I/O
    error or an interrupt it rolls back by itself, and a second ROLLBACK would fail with
    a raw ``sqlite3.Error`` that hides the error being raised."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")


SQLITE_HEADER = b"SQLite format 3\x00"


def _busy_timeout(value: object) -> float:
    """Seconds to wait for another writer: a finite number from 0 to a day."""
    if value is None:
        return DEFAULT_BUSY_TIMEOUT
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInput("busy_timeout", "not a number of seconds")
    if not 0 <= value <= 86_400:  # also refuses NaN and infinities
        raise InvalidInput("busy_timeout", "must be a number of seconds from 0 to 86400")
    return float(value)


def _uri_path(path: str) -> str:
    return path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")


def _verify_file(target: Path, path: str) -> str:
    """``missing``, ``empty`` or ``database``: what ``target`` is, after checking, without changing anything, that it is a
    file Cairn may open: a regular file, empty or a SQLite database whose schema this
    code knows (newer schemas are refused here, before any pragma or DDL)."""
    try:
        info = target.stat()
    except FileNotFoundError:
        return "missing"
    except OSError as err:
        raise StoreUnavailable(path, err.strerror or "cannot read the path") from None
    if not stat.S_ISREG(info.st_mode):
        raise StoreUnavailable(path, "not a file (a folder or a device); give the path of a database file")
    if info.st_size == 0:
        return "empty"  # SQLite's initial state, and Cairn's between creating and migrating
    try:
        with open(target, "rb") as handle:
            header = handle.read(100)
    except OSError as err:
        raise StoreUnavailable(path, err.strerror or "cannot read the file") from None
    if not header.startswith(SQLITE_HEADER):
        raise StoreUnavailable(path, "not a SQLite database; nothing was changed")
    if not _sane_header(header):
        raise StoreUnavailable(path, "a damaged SQLite database (its header is not valid); nothing was changed")
    try:
        probe = sqlite3.connect(f"file:{_uri_path(path)}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as err:
        raise _translate(path, err) from None
    try:
        tables = {str(r[0]) for r in probe.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and "schema_migrations" not in tables:
            raise StoreUnavailable(path, "a SQLite database of another program, not Cairn's; nothing was changed")
        if tables:
            check_version(probe)
        elif str(probe.execute("PRAGMA quick_check(1)").fetchone()[0]) != "ok":
            # No tables: either a fresh empty database or pages SQLite cannot read as one.
            raise StoreUnavailable(path, "a damaged SQLite database; nothing was changed")
    except sqlite3.Error as err:
        raise _translate(path, err) from None
    finally:
        probe.close()
    return "database"


def _sane_header(header: bytes) -> bool:
    """The fixed fields of a SQLite header (file format 1.8.1): page size a power of two
    from 512 to 65536, read/write versions 1 (rollback) or 2 (WAL), payload fractions
    64/32/32. A file failing this is damaged: opening it could leave WAL files behind."""
    if len(header) < 100:
        return False
    size = int.from_bytes(header[16:18], "big")
    size = 65536 if size == 1 else size
    return (
        size >= 512 and size & (size - 1) == 0
        and header[18] in (1, 2) and header[19] in (1, 2)
        and header[21:24] == b"\x40\x20\x20"
    )


def _side_files(path: str) -> set[str]:
    return {path + s for s in ("-wal", "-shm", "-journal") if os.path.exists(path + s)}


def _drop_new_side_files(path: str, before: set[str]) -> None:
    """After an open that failed, remove the WAL files it created (none existed before,
    so no other connection uses them): a refused open leaves the folder as it was."""
    for side in _side_files(path) - before:
        try:
            os.remove(side)
        except OSError:
            pass


def _create_file(target: Path, path: str) -> bool:
    """Create the file 0600 (and its missing folders 0700). False when another process
    created it first (it is then verified as any existing file)."""
    folder = target.parent
    try:
        if not folder.exists():
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(folder, 0o700)
        fd = os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        _verify_file(target, path)
        return False
    except OSError as err:
        raise StoreUnavailable(path, err.strerror or "cannot create the file") from None
    os.close(fd)
    return True


def discard_if_empty(path: str) -> bool:
    """Delete the database at ``path`` (with its WAL files) if it holds no record, event
    or relation: for a caller that created it and was then refused, so that nothing is
    left behind. True when it was deleted."""
    try:
        conn = sqlite3.connect(f"file:{_uri_path(path)}?mode=ro", uri=True, isolation_level=None)
        try:
            rows = sum(int(conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]) for t in ("memories", "events", "relations"))
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    if rows:
        return False
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.remove(path + suffix)
        except FileNotFoundError:
            pass
        except OSError:
            return False
    return True


def _tighten_mode(target: Path) -> None:
    """Owner-only access on Cairn's own database file (it holds what agents remembered)."""
    try:
        mode = target.stat().st_mode & 0o777
        if mode & 0o077 and os.access(target, os.W_OK):
            os.chmod(target, 0o600)
    except OSError:
        pass  # a mode Cairn cannot change is not a reason to refuse the write


def _retry_busy(step, timeout: float):
    deadline = time.monotonic() + timeout
    while True:
        try:
            return step()
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
