"""Named, forward-only schema migrations.

Each migration runs in one transaction together with its bookkeeping row, so a crash
leaves the schema either before or after it, never between. A database that records a
migration this code does not know (written by a newer Cairn) is refused before any DDL.
Append new migrations at the end; never edit or reorder a released one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from ..errors import SchemaTooNew, StoreError

Migration = tuple[str, Callable[[sqlite3.Connection], None]]


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    """Run statements one by one: ``executescript`` would COMMIT the open transaction."""
    pending = ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--"):
            continue
        pending += line
        if sqlite3.complete_statement(pending):
            conn.execute(pending)
            pending = ""
    if pending.strip():
        raise ValueError(f"incomplete SQL statement in migration: {pending.strip()[:60]}")


def _initial(conn: sqlite3.Connection) -> None:
    _run_script(
        conn,
        """
        CREATE TABLE memories (
            rowid        INTEGER PRIMARY KEY,
            space        TEXT NOT NULL,
            id           TEXT NOT NULL,
            origin       TEXT NOT NULL,
            kind         TEXT NOT NULL,
            status       TEXT NOT NULL,
            created_at   TEXT NOT NULL,
            updated_at   TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            data         TEXT NOT NULL,
            UNIQUE (space, id)
        );
        CREATE INDEX memories_by_status ON memories (space, status, kind);
        CREATE INDEX memories_by_hash ON memories (space, origin, content_hash);
        CREATE INDEX memories_by_id ON memories (id);

        -- Terms are Cairn's own (cairn.text), space-joined, rowid = memories.rowid.
        CREATE VIRTUAL TABLE memories_fts USING fts5 (
            content, aliases, tokenize = 'unicode61 remove_diacritics 0'
        );

        CREATE TABLE events (
            seq    INTEGER PRIMARY KEY AUTOINCREMENT,
            space  TEXT NOT NULL,
            id     TEXT NOT NULL,
            at     TEXT NOT NULL,
            actor  TEXT NOT NULL,
            reason TEXT NOT NULL,
            data   TEXT NOT NULL,
            UNIQUE (space, id)
        );
        CREATE INDEX events_by_id ON events (id);
        CREATE TABLE event_records (
            space     TEXT NOT NULL,
            record_id TEXT NOT NULL,
            event_seq INTEGER NOT NULL,
            PRIMARY KEY (space, record_id, event_seq)
        );

        CREATE TABLE relations (
            rowid      INTEGER PRIMARY KEY,
            space      TEXT NOT NULL,
            id         TEXT NOT NULL,
            from_id    TEXT NOT NULL,
            role       TEXT NOT NULL,
            to_id      TEXT NOT NULL,
            status     TEXT NOT NULL,
            created_at TEXT NOT NULL,
            data       TEXT NOT NULL,
            UNIQUE (space, id)
        );
        CREATE INDEX relations_from ON relations (space, from_id);
        CREATE INDEX relations_to ON relations (space, to_id);

        CREATE TABLE feedback_receipts (
            space     TEXT NOT NULL,
            source_id TEXT NOT NULL,
            memory_id TEXT NOT NULL,
            verdict   TEXT NOT NULL,
            at        TEXT NOT NULL,
            PRIMARY KEY (space, source_id, memory_id)
        );

        CREATE TABLE sources (
            space  TEXT NOT NULL,
            id     TEXT NOT NULL,
            kind   TEXT NOT NULL,
            sha256 TEXT NOT NULL,
            at     TEXT NOT NULL,
            data   TEXT NOT NULL,
            PRIMARY KEY (space, id)
        );

        CREATE TABLE traces (
            space TEXT NOT NULL,
            id    TEXT NOT NULL,
            at    TEXT NOT NULL,
            data  TEXT NOT NULL,
            PRIMARY KEY (space, id)
        );
        CREATE INDEX traces_by_time ON traces (space, at);
        """
    )


def _episode_turns(conn: sqlite3.Connection) -> None:
    """Each episode's position in its origin's conversation, so that the turn before or
    after is found by position rather than by row adjacency. Existing episodes are
    numbered in insertion (rowid) order within their space and origin."""
    _run_script(
        conn,
        """
        ALTER TABLE memories ADD COLUMN turn INTEGER;
        CREATE INDEX memories_by_turn ON memories (space, origin, turn) WHERE turn IS NOT NULL;
        CREATE TEMP TABLE cairn_turns (r INTEGER PRIMARY KEY, n INTEGER NOT NULL);
        INSERT INTO cairn_turns (r, n)
            SELECT rowid, ROW_NUMBER() OVER (PARTITION BY space, origin ORDER BY rowid)
            FROM memories WHERE kind = 'episode';
        UPDATE memories SET turn = (SELECT n FROM cairn_turns WHERE r = memories.rowid) WHERE kind = 'episode';
        DROP TABLE temp.cairn_turns;
        """,
    )


def _fold_index_terms(conn: sqlite3.Connection) -> None:
    """Re-index every record with the current normalisation of :mod:`cairn.text`
    (accents folded, inflections sharing one term), so that a word stored before the
    change is found by the same word typed today. The index is rebuilt from each
    record's own content and aliases; a purged record has none and stays out."""
    import json

    from ..text import index_text

    rows = conn.execute(
        "SELECT m.rowid, m.data FROM memories m WHERE m.rowid IN (SELECT rowid FROM memories_fts)"
    ).fetchall()
    conn.execute("DELETE FROM memories_fts")
    for rowid, data in rows:
        try:
            doc = json.loads(data)
            content, aliases = str(doc.get("content") or ""), [str(a) for a in doc.get("aliases") or []]
        except (ValueError, AttributeError, TypeError):
            continue  # an unreadable row is skipped by every read already (see problems)
        conn.execute(
            "INSERT INTO memories_fts (rowid, content, aliases) VALUES (?, ?, ?)",
            (rowid, index_text(content), index_text(" ".join(aliases))),
        )


def _vectors(conn: sqlite3.Connection) -> None:
    """Sentence vectors keyed on the content hash (the semantic lane, cairn.store.sqlite.vectors).
    Empty until an embedder writes; a store without the semantic extra never fills it."""
    from .sqlite.vectors import SCHEMA

    _run_script(conn, SCHEMA)


def _normalised_dedup_key(conn: sqlite3.Connection) -> None:
    """Recompute every record's dedup key: it now ignores trailing punctuation, so that
    "Prefer X." and "prefer X" are one claim in one origin."""
    import json

    from .sqlite.backend import content_hash  # the one definition of the key

    rows = conn.execute("SELECT rowid, data FROM memories").fetchall()
    for rowid, data in rows:
        try:
            content = json.loads(data).get("content", "")
        except (ValueError, AttributeError):
            continue  # a malformed row stays as it is; `cairn status` reports it
        conn.execute("UPDATE memories SET content_hash = ? WHERE rowid = ?", (content_hash(str(content)), rowid))


def _space_term_stats(conn: sqlite3.Connection) -> None:
    """Document frequencies per space: ``term_stats`` holds, for each space and indexed
    term, how many records of the space hold it (content or aliases), ``space_stats`` how
    many records of the space are indexed. The store keeps both exact in every write
    transaction; here they are counted once from the index as it stands. Also an index
    of events by time, so that ``known_at`` reads only the events after its moment."""
    _run_script(
        conn,
        """
        CREATE TABLE IF NOT EXISTS term_stats (
            space TEXT NOT NULL,
            term  TEXT NOT NULL,
            df    INTEGER NOT NULL,
            PRIMARY KEY (space, term)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS space_stats (
            space TEXT PRIMARY KEY,
            docs  INTEGER NOT NULL
        ) WITHOUT ROWID;
        DELETE FROM term_stats;
        DELETE FROM space_stats;
        CREATE INDEX IF NOT EXISTS events_by_time ON events (space, at);
        """,
    )
    # Idempotent (tables kept, counts redone), so that re-running it recounts.
    # Counted the way the write path counts (the distinct space-separated terms of the
    # indexed content and aliases), so the two can never disagree.
    df: dict[tuple[str, str], int] = {}
    docs: dict[str, int] = {}
    rows = conn.execute("SELECT m.space, f.content, f.aliases FROM memories_fts f CROSS JOIN memories m ON m.rowid = f.rowid")
    for space, content, aliases in rows:
        docs[space] = docs.get(space, 0) + 1
        for term in {*(content or "").split(), *(aliases or "").split()}:
            df[(space, term)] = df.get((space, term), 0) + 1
    conn.executemany("INSERT INTO term_stats (space, term, df) VALUES (?, ?, ?)", ((s, t, n) for (s, t), n in df.items()))
    conn.executemany("INSERT INTO space_stats (space, docs) VALUES (?, ?)", docs.items())


def _term_stats_by_term(conn: sqlite3.Connection) -> None:
    """An index of the per-space term counts by term, so that the terms starting with a
    prefix (word variants, the episode lane's stem families) are a range of an index
    instead of FTS5's vocabulary table, which reads every posting of each term it
    lists (milliseconds per common prefix at a million records)."""
    _run_script(conn, "CREATE INDEX IF NOT EXISTS term_stats_by_term ON term_stats (term);")


# Columns generated from a record's JSON body (NULL when the body is not JSON), read by
# retention and maintenance through one covering index instead of decoding every record.
_TRUST_COLUMNS = {
    "evidence_at": "$.evidence.at",
    "layer": "$.layer",
    "revision": "$.revision",
    "purged_at": "$.purged_at",
    "reinforced_at": "$.reinforced_at",
    "last_confirmed_at": "$.last_confirmed_at",
}


def _trust_index(conn: sqlite3.Connection) -> None:
    """What retention policies and maintenance rules read of a record (its kind, status,
    revision, layer, evidence time and confirmation clocks) in one covering index over
    the records they can touch (not retired, not forgotten): planning over 100k records
    reads the index, not 100k JSON bodies. The columns are virtual (computed from
    ``data``), so no write path changes; the index keeps their values."""
    have = {row[1] for row in conn.execute("PRAGMA table_xinfo(memories)")}
    for name, path in _TRUST_COLUMNS.items():
        if name not in have:  # idempotent, as the other migrations
            conn.execute(
                f"ALTER TABLE memories ADD COLUMN {name} GENERATED ALWAYS AS (CASE WHEN typeof(data) = 'text'"
                f" AND json_valid(data) THEN json_extract(data, '{path}') END) VIRTUAL"
            )
    conn.execute(
        "CREATE INDEX IF NOT EXISTS memories_by_trust ON memories (space, kind, status, id, created_at, "
        + ", ".join(_TRUST_COLUMNS) + ") WHERE status NOT IN ('retired', 'forgotten')"
    )


def _leaner_record_indexes(conn: sqlite3.Connection) -> None:
    """Two fewer indexes on ``memories``: every record written updates each of them,
    and on a bulk write they were a third of the row's cost. ``memories_by_id`` (id
    alone) served no query: every read by id names its space (the UNIQUE index), and
    SQLite's case-insensitive LIKE cannot use it for prefixes. ``memories_by_hash``
    (space, origin, content hash) is covered by ``memories_by_content`` (space, content
    hash), whose few rows of one hash are then sifted by origin; the reads by origin
    alone are of episodes, which the partial index on turn holds."""
    _run_script(
        conn,
        """
        DROP INDEX IF EXISTS memories_by_id;
        DROP INDEX IF EXISTS memories_by_hash;
        CREATE INDEX IF NOT EXISTS memories_by_content ON memories (space, content_hash);
        """,
    )


MIGRATIONS: list[Migration] = [
    ("0001_initial", _initial),
    ("0002_episode_turns", _episode_turns),
    ("0003_fold_index_terms", _fold_index_terms),
    ("0004_vectors", _vectors),
    ("0008_normalised_dedup_key", _normalised_dedup_key),
    ("0010_space_term_stats", _space_term_stats),
    ("0014_term_stats_by_term", _term_stats_by_term),
    ("0015_trust_index", _trust_index),
    ("0016_leaner_record_indexes", _leaner_record_indexes),
]

SCHEMA_VERSION = len(MIGRATIONS)


def applied(conn: sqlite3.Connection) -> list[tuple[int, str]]:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if not exists:
        return []
    return [(int(s), str(n)) for s, n in conn.execute("SELECT seq, name FROM schema_migrations ORDER BY seq")]


def check_version(conn: sqlite3.Connection) -> list[tuple[int, str]]:
    """Raise :class:`SchemaTooNew` if the database is ahead of this code; no DDL is run."""
    done = applied(conn)
    known = [name for name, _ in MIGRATIONS]
    for seq, name in done:
        if seq > len(known):
            raise SchemaTooNew(max(s for s, _ in done), len(known))
        if known[seq - 1] != name:
            raise StoreError(f"database migration {seq} is {name!r}, expected {known[seq - 1]!r}; refusing to continue")
    return done


def migrate(conn: sqlite3.Connection, now_iso: str) -> int:
    """Bring the schema up to date. Returns the number of migrations applied."""
    done = check_version(conn)
    count = 0
    for seq in range(len(done) + 1, len(MIGRATIONS) + 1):
        name, step = MIGRATIONS[seq - 1]
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-check under the write lock: another process may have migrated meanwhile.
            if len(check_version(conn)) >= seq:
                conn.execute("ROLLBACK")
                continue
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " seq INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, applied_at TEXT NOT NULL)"
            )
            step(conn)
            conn.execute("INSERT INTO schema_migrations (seq, name, applied_at) VALUES (?, ?, ?)", (seq, name, now_iso))
            conn.execute("COMMIT")
            count += 1
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return count
