"""The embedded SQLite store: connection, pragmas, reads and one-transaction writes.

Contract:

* WAL journal, ``synchronous=FULL``, a busy timeout so that several processes can share
  one file without "database is locked" errors; the file is created 0600 and a folder
  Cairn creates for it 0700.
* :meth:`Store.write` is the only way to change anything: ``BEGIN IMMEDIATE`` … ``COMMIT``,
  rolled back on any exception. The engine writes the new state and its event inside one.
* Every read is scoped to one space. A row whose JSON does not parse into the model is
  skipped by reads and reported by :meth:`Store.problems`; it never disables the rest.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from ..errors import StoreError, StoreUnavailable
from ..model import (
    Event,
    MalformedRecord,
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
from ..text import index_text, normalize
from .migrations import SCHEMA_VERSION, check_version, migrate

DEFAULT_BUSY_TIMEOUT = 30.0


def content_hash(text: str) -> str:
    """Hash of the normalised content: the dedup key within one origin."""
    canonical = " ".join(normalize(text).split())
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False)


def _translate(path: str, err: sqlite3.Error) -> StoreError:
    text = str(err)
    if "readonly" in text or "read-only" in text:
        return StoreUnavailable(path, "the database is read-only")
    if "locked" in text or "busy" in text:
        return StoreUnavailable(path, "the database is locked by another process (timed out waiting)")
    if "not a database" in text or "malformed" in text:
        return StoreUnavailable(path, f"the file is not a usable Cairn database ({text})")
    return StoreUnavailable(path, text)


class _Reads:
    """Read queries shared by the store and an open write transaction."""

    conn: sqlite3.Connection
    path: str

    # -- memories ----------------------------------------------------------------------

    def _memory_row(self, row) -> Memory | None:
        try:
            return memory_from_dict(json.loads(row[0]))
        except (ValueError, MalformedRecord):
            return None  # reported by problems(); never fatal to the reader

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

    def count_memories(self, space: str, *, statuses=None, kinds=None) -> int:
        sql, args = self._filter(space, statuses, kinds)
        return int(self.conn.execute(f"SELECT COUNT(*) FROM memories WHERE {sql}", args).fetchone()[0])

    @staticmethod
    def _filter(space, statuses, kinds) -> tuple[str, list]:
        clauses, args = ["space = ?"], [space]
        if statuses:
            clauses.append(f"status IN ({','.join('?' * len(statuses))})")
            args += list(statuses)
        if kinds:
            clauses.append(f"kind IN ({','.join('?' * len(kinds))})")
            args += list(kinds)
        return " AND ".join(clauses), args

    def memories_with_hash(self, space: str, origin: str, digest: str) -> list[Memory]:
        rows = self.conn.execute(
            "SELECT data FROM memories WHERE space = ? AND origin = ? AND content_hash = ? ORDER BY created_at, id",
            (space, origin, digest),
        )
        return [m for m in map(self._memory_row, rows) if m is not None]

    def fts_match(self, space: str, match: str, limit: int) -> list[tuple[str, float]]:
        """Candidate ids for an FTS5 MATCH expression with their bm25 (lower is better).

        Column weights follow DESIGN §5.4: content 1, aliases 0.8.
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
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.conn.execute(
            f"SELECT id FROM {table} WHERE space = ? AND id LIKE ? ESCAPE '\\' ORDER BY id LIMIT ?",
            (space, escaped + "%", limit),
        )
        return [str(r[0]) for r in rows]

    # -- events ------------------------------------------------------------------------

    def get_event(self, space: str, event_id: str) -> Event | None:
        row = self.conn.execute("SELECT data FROM events WHERE space = ? AND id = ?", (space, event_id)).fetchone()
        if row is None:
            return None
        try:
            return event_from_dict(json.loads(row[0]))
        except (ValueError, MalformedRecord):
            return None

    def events(self, space: str, *, record_id: str | None = None, limit: int | None = None, newest_first: bool = True) -> list[Event]:
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
        out: list[Event] = []
        for (data,) in self.conn.execute(sql, args):
            try:
                out.append(event_from_dict(json.loads(data)))
            except (ValueError, MalformedRecord):
                continue
        return out

    def count_events(self, space: str) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM events WHERE space = ?", (space,)).fetchone()[0])

    def events_touching_after(self, space: str, record_id: str, event_id: str) -> int:
        """How many events touched ``record_id`` after ``event_id``."""
        row = self.conn.execute(
            "SELECT COUNT(*) FROM event_records r WHERE r.space = ? AND r.record_id = ?"
            " AND r.event_seq > (SELECT seq FROM events WHERE space = ? AND id = ?)",
            (space, record_id, space, event_id),
        ).fetchone()
        return int(row[0])

    # -- relations ---------------------------------------------------------------------

    def get_relation(self, space: str, relation_id: str) -> Relation | None:
        row = self.conn.execute("SELECT data FROM relations WHERE space = ? AND id = ?", (space, relation_id)).fetchone()
        if row is None:
            return None
        try:
            return relation_from_dict(json.loads(row[0]))
        except (ValueError, MalformedRecord):
            return None

    def relations(self, space: str, *, record_id: str | None = None, active_only: bool = True) -> list[Relation]:
        sql, args = "SELECT data FROM relations WHERE space = ?", [space]
        if record_id is not None:
            sql += " AND (from_id = ? OR to_id = ?)"
            args += [record_id, record_id]
        if active_only:
            sql += " AND status = 'active'"
        out = []
        for (data,) in self.conn.execute(sql + " ORDER BY created_at, id", args):
            try:
                out.append(relation_from_dict(json.loads(data)))
            except (ValueError, MalformedRecord):
                continue
        return out

    # -- receipts and sources ----------------------------------------------------------

    def get_receipt(self, space: str, source_id: str, memory_id: str) -> tuple[str, str] | None:
        row = self.conn.execute(
            "SELECT verdict, at FROM feedback_receipts WHERE space = ? AND source_id = ? AND memory_id = ?",
            (space, source_id, memory_id),
        ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def get_source(self, space: str, source_id: str) -> dict | None:
        row = self.conn.execute("SELECT data FROM sources WHERE space = ? AND id = ?", (space, source_id)).fetchone()
        try:
            return None if row is None else json.loads(row[0])
        except ValueError:
            return None


class Tx(_Reads):
    """An open write transaction. Obtain one from :meth:`Store.write`."""

    def __init__(self, conn: sqlite3.Connection, path: str) -> None:
        self.conn = conn
        self.path = path

    def put_memory(self, memory: Memory) -> None:
        data = memory_to_dict(memory)
        row = self.conn.execute("SELECT rowid FROM memories WHERE space = ? AND id = ?", (memory.space, memory.id)).fetchone()
        values = (
            memory.origin,
            memory.kind.value,
            memory.status.value,
            format_time(memory.created_at),
            format_time(memory.updated_at),
            content_hash(memory.content),
            dumps(data),
        )
        if row is None:
            cur = self.conn.execute(
                "INSERT INTO memories (space, id, origin, kind, status, created_at, updated_at, content_hash, data)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (memory.space, memory.id, *values),
            )
            rowid = cur.lastrowid
        else:
            rowid = row[0]
            self.conn.execute(
                "UPDATE memories SET origin = ?, kind = ?, status = ?, created_at = ?, updated_at = ?,"
                " content_hash = ?, data = ? WHERE rowid = ?",
                (*values, rowid),
            )
            self.conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (rowid,))
        if memory.purged_at is None:
            self.conn.execute(
                "INSERT INTO memories_fts (rowid, content, aliases) VALUES (?, ?, ?)",
                (rowid, index_text(memory.content), index_text(" ".join(memory.aliases))),
            )

    def append_event(self, event: Event) -> None:
        cur = self.conn.execute(
            "INSERT INTO events (space, id, at, actor, reason, data) VALUES (?, ?, ?, ?, ?, ?)",
            (event.space, event.id, format_time(event.at), event.actor.value, event.reason, dumps(event_to_dict(event))),
        )
        touched = list(event.changed_ids)
        for change in event.changes:
            if change.table == "relation":
                # A relation event belongs to the history of both records it links.
                for snap in (change.before, change.after):
                    if snap:
                        touched += [snap.get("from"), snap.get("to")]
        for record_id in dict.fromkeys(t for t in touched if isinstance(t, str)):
            self.conn.execute(
                "INSERT OR IGNORE INTO event_records (space, record_id, event_seq) VALUES (?, ?, ?)",
                (event.space, record_id, cur.lastrowid),
            )

    def rewrite_event(self, event: Event) -> None:
        """Replace an event's stored body in place: only for ``forget --purge``."""
        self.conn.execute(
            "UPDATE events SET reason = ?, data = ? WHERE space = ? AND id = ?",
            (event.reason, dumps(event_to_dict(event)), event.space, event.id),
        )

    def put_relation(self, relation: Relation) -> None:
        self.conn.execute(
            "INSERT INTO relations (space, id, from_id, role, to_id, status, created_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (space, id) DO UPDATE SET status = excluded.status, data = excluded.data",
            (
                relation.space,
                relation.id,
                relation.from_id,
                relation.role.value,
                relation.to_id,
                relation.status.value,
                format_time(relation.created_at),
                dumps(relation_to_dict(relation)),
            ),
        )

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


class Store(_Reads):
    """One SQLite database file. Open with :meth:`Store.open`; close with :meth:`close`."""

    def __init__(self, conn: sqlite3.Connection, path: str, read_only: bool) -> None:
        self.conn = conn
        self.path = path
        self.read_only = read_only

    @classmethod
    def open(
        cls,
        path: str | os.PathLike,
        *,
        read_only: bool = False,
        busy_timeout: float | None = None,
        now: datetime | None = None,
    ) -> Store:
        path = str(path)
        timeout = DEFAULT_BUSY_TIMEOUT if busy_timeout is None else busy_timeout
        if path != ":memory:":
            target = Path(path)
            if read_only and not target.exists():
                raise StoreUnavailable(path, "the database does not exist")
            if not read_only:
                _prepare_file(target)
        try:
            if read_only:
                conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=timeout, isolation_level=None)
            else:
                conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
        except sqlite3.Error as err:
            raise _translate(path, err) from None
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            conn.execute("PRAGMA foreign_keys = ON")
            if not read_only:
                _retry_busy(lambda: conn.execute("PRAGMA journal_mode = WAL"), timeout)
            conn.execute("PRAGMA synchronous = FULL")
            if read_only:
                check_version(conn)
            else:
                migrate(conn, format_time(now or datetime.now().astimezone()))
        except StoreError:
            conn.close()
            raise
        except sqlite3.Error as err:
            conn.close()
            raise _translate(path, err) from None
        return cls(conn, path, read_only)

    def close(self) -> None:
        self.conn.close()

    @property
    def schema_version(self) -> int:
        return len(check_version(self.conn))

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
        if not durable:
            self.conn.execute("PRAGMA synchronous = NORMAL")
        try:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as err:
                raise _translate(self.path, err) from None
            try:
                yield Tx(self.conn, self.path)
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            try:
                self.conn.execute("COMMIT")
            except sqlite3.Error as err:
                self.conn.execute("ROLLBACK")
                raise _translate(self.path, err) from None
        finally:
            if not durable:
                self.conn.execute("PRAGMA synchronous = FULL")

    @contextmanager
    def snapshot(self) -> Iterator[_Reads]:
        """A consistent read view across several queries (one read transaction)."""
        self.conn.execute("BEGIN")
        try:
            yield self
        finally:
            self.conn.execute("COMMIT")

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
                try:
                    value = parse(json.loads(data))
                except json.JSONDecodeError as err:
                    found.append({"table": table, "space": space, "id": rid, "problem": f"bad JSON: {err.msg}"})
                    continue
                except MalformedRecord as err:
                    found.append({"table": table, "space": space, "id": rid, "problem": str(err)})
                    continue
                if getattr(value, "id", rid) != rid or getattr(value, "space", space) != space:
                    found.append({"table": table, "space": space, "id": rid, "problem": "row key does not match its body"})
        return found

    def integrity(self) -> str:
        return str(self.conn.execute("PRAGMA quick_check").fetchone()[0])


SCHEMA = SCHEMA_VERSION


def _prepare_file(target: Path) -> None:
    """Create the folder 0700 (only folders Cairn creates) and the file 0600."""
    folder = target.parent
    if not folder.exists():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(folder, 0o700)
    if not target.exists():
        fd = os.open(target, os.O_CREAT | os.O_WRONLY, 0o600)
        os.close(fd)
    elif os.access(target, os.W_OK):
        mode = target.stat().st_mode & 0o777
        if mode & 0o077:
            os.chmod(target, 0o600)


def _retry_busy(step, timeout: float):
    deadline = time.monotonic() + timeout
    while True:
        try:
            return step()
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
