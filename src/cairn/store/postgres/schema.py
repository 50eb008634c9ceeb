"""The PostgreSQL schema and its named, forward-only migrations.

Each migration runs in one transaction with its bookkeeping row in
``cairn_schema_migrations``, under a transaction-level advisory lock, so that two
processes opening a new database at once migrate it once. A database recording a
migration this code does not know (written by a newer Cairn) is refused before any DDL.
Append new migrations at the end; never edit or reorder a released one.

Layout (every table carries ``space``; every query names it):

* ``memories``: one row per record, ``key`` the record key and insertion order (assigned
  from ``cairn_counters`` under the write lock: gap-free, so the counter bounds the
  record count like SQLite's highest rowid), ``turn`` an episode's position in its origin;
* ``memory_index``: the lexical index of every unpurged record. ``content`` and
  ``aliases`` hold Cairn's index terms space-joined (the same text SQLite's FTS5 table
  holds); ``lexemes`` is a ``tsvector`` built with ``array_to_tsvector`` from those terms
  (no PostgreSQL parser, stemmer or dictionary touches them), alias terms marked with a
  leading ``_`` (a character no Cairn term contains) so that one GIN index answers
  "in the content", "in the aliases" and "anywhere", including prefixes;
* ``term_postings``: per indexed record and term (content or aliases), one row, under a
  primary key ``(term, key)``: "the newest records holding a term" is the backward walk
  of one index range, where the GIN index, which keeps no order, would have to find
  every match before sorting (or walk every record of the table newest first,
  filtering); written beside ``memory_index``, in the same statements' transaction;
* ``term_df``: per space and term, how many indexed records hold the term anywhere and
  in their content, kept exact in the transaction that changes the index (the write
  transaction sums its changes and applies them once, before any read of them and
  before commit: a row updated once per record in a 20,000-record transaction would
  leave 20,000 row versions for every later update to walk);
  ``index_totals`` the indexed record and term counts per space (BM25's N and average
  length), kept the same way;
* ``events`` (``seq`` gap-free, from ``cairn_counters`` under the write lock),
  ``event_records``, ``relations``, ``feedback_receipts``, ``sources``, ``traces``.

Text columns that are sorted or compared use the "C" collation: byte order, as SQLite
compares, whatever the database's default locale.
"""

from __future__ import annotations

from collections.abc import Callable

from ...errors import SchemaTooNew, StoreError

# pg_advisory_xact_lock keys: one for schema changes, one serialising writers.
MIGRATE_LOCK = 0x6361_6972_6E00_0001
WRITE_LOCK = 0x6361_6972_6E00_0002

INITIAL = """
CREATE TABLE cairn_counters (name text COLLATE "C" PRIMARY KEY, value bigint NOT NULL);
INSERT INTO cairn_counters (name, value) VALUES ('memory', 0), ('event', 0);

CREATE TABLE memories (
    key          bigint PRIMARY KEY,
    space        text COLLATE "C" NOT NULL,
    id           text COLLATE "C" NOT NULL,
    origin       text COLLATE "C" NOT NULL,
    kind         text COLLATE "C" NOT NULL,
    status       text COLLATE "C" NOT NULL,
    created_at   text COLLATE "C" NOT NULL,
    updated_at   text COLLATE "C" NOT NULL,
    content_hash text COLLATE "C" NOT NULL,
    turn         integer,
    data         text NOT NULL,
    UNIQUE (space, id)
);
CREATE INDEX memories_by_status ON memories (space, status, kind);
CREATE INDEX memories_by_hash ON memories (space, origin, content_hash);
CREATE INDEX memories_by_id ON memories (id text_pattern_ops);
CREATE INDEX memories_by_turn ON memories (space, origin, turn) WHERE turn IS NOT NULL;
CREATE INDEX memories_by_created ON memories (space, created_at, id);

CREATE TABLE memory_index (
    key     bigint PRIMARY KEY REFERENCES memories (key),
    space   text COLLATE "C" NOT NULL,
    kind    text COLLATE "C" NOT NULL,
    content text NOT NULL,
    aliases text NOT NULL,
    length  integer NOT NULL,
    lexemes tsvector NOT NULL
);
CREATE INDEX memory_index_lexemes ON memory_index USING gin (lexemes);

CREATE TABLE term_df (
    space      text COLLATE "C" NOT NULL,
    term       text COLLATE "C" NOT NULL,
    anywhere   bigint NOT NULL,
    in_content bigint NOT NULL,
    PRIMARY KEY (term, space)
);

CREATE TABLE index_totals (
    space  text COLLATE "C" PRIMARY KEY,
    rows   bigint NOT NULL,
    terms  bigint NOT NULL
);

CREATE TABLE events (
    seq    bigint PRIMARY KEY,
    space  text COLLATE "C" NOT NULL,
    id     text COLLATE "C" NOT NULL,
    at     text COLLATE "C" NOT NULL,
    actor  text COLLATE "C" NOT NULL,
    reason text NOT NULL,
    data   text NOT NULL,
    UNIQUE (space, id)
);
CREATE INDEX events_by_space ON events (space, seq);
CREATE TABLE event_records (
    space     text COLLATE "C" NOT NULL,
    record_id text COLLATE "C" NOT NULL,
    event_seq bigint NOT NULL,
    PRIMARY KEY (space, record_id, event_seq)
);

CREATE TABLE relations (
    space      text COLLATE "C" NOT NULL,
    id         text COLLATE "C" NOT NULL,
    from_id    text COLLATE "C" NOT NULL,
    role       text COLLATE "C" NOT NULL,
    to_id      text COLLATE "C" NOT NULL,
    status     text COLLATE "C" NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    data       text NOT NULL,
    PRIMARY KEY (space, id)
);
CREATE INDEX relations_from ON relations (space, from_id);
CREATE INDEX relations_to ON relations (space, to_id);

CREATE TABLE feedback_receipts (
    space     text COLLATE "C" NOT NULL,
    source_id text COLLATE "C" NOT NULL,
    memory_id text COLLATE "C" NOT NULL,
    verdict   text COLLATE "C" NOT NULL,
    at        text COLLATE "C" NOT NULL,
    PRIMARY KEY (space, source_id, memory_id)
);

CREATE TABLE sources (
    space  text COLLATE "C" NOT NULL,
    id     text COLLATE "C" NOT NULL,
    kind   text COLLATE "C" NOT NULL,
    sha256 text COLLATE "C" NOT NULL,
    at     text COLLATE "C" NOT NULL,
    data   text NOT NULL,
    PRIMARY KEY (space, id)
);

CREATE TABLE traces (
    space text COLLATE "C" NOT NULL,
    id    text COLLATE "C" NOT NULL,
    at    text COLLATE "C" NOT NULL,
    data  text NOT NULL,
    PRIMARY KEY (space, id)
);
CREATE INDEX traces_by_time ON traces (space, at);

-- One record written in one round trip: inserted under ``p_new_key`` (the caller's next
-- counter value, used only when the record is new; an episode gets the next turn of its
-- origin) or updated, its index entry replaced. Returns the key, whether it was new, and
-- the index text it replaced, from which the caller adjusts the term statistics.
CREATE FUNCTION cairn_put_memory(p_space text, p_id text, p_origin text, p_kind text, p_status text,
        p_created text, p_updated text, p_hash text, p_data text, p_indexed boolean,
        p_content text, p_aliases text, p_lexemes text[], p_length integer, p_new_key bigint,
        OUT r_key bigint, OUT r_created boolean, OUT r_old_content text, OUT r_old_aliases text)
LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    SELECT key INTO r_key FROM memories WHERE space = p_space AND id = p_id;
    r_created := r_key IS NULL;
    IF r_created THEN
        r_key := p_new_key;
        IF p_kind = 'episode' THEN
            SELECT COALESCE(max(turn), 0) + 1 INTO n FROM memories
                WHERE space = p_space AND origin = p_origin AND turn IS NOT NULL;
        END IF;
        INSERT INTO memories (key, space, id, origin, kind, status, created_at, updated_at, content_hash, data, turn)
            VALUES (r_key, p_space, p_id, p_origin, p_kind, p_status, p_created, p_updated, p_hash, p_data, n);
    ELSE
        UPDATE memories SET origin = p_origin, kind = p_kind, status = p_status, created_at = p_created,
            updated_at = p_updated, content_hash = p_hash, data = p_data WHERE key = r_key;
        DELETE FROM memory_index WHERE key = r_key RETURNING content, aliases INTO r_old_content, r_old_aliases;
    END IF;
    IF p_indexed THEN
        INSERT INTO memory_index (key, space, kind, content, aliases, length, lexemes)
            VALUES (r_key, p_space, p_kind, p_content, p_aliases, p_length, array_to_tsvector(p_lexemes));
    END IF;
END $$;
"""

TABLES = ("memories", "memory_index", "term_postings", "term_df", "index_totals", "events", "event_records",
          "relations", "feedback_receipts", "sources", "traces")

Migration = tuple[str, Callable[[object], None]]


def _initial(cur) -> None:
    cur.execute(INITIAL)


TERM_POSTINGS = """
CREATE TABLE term_postings (
    term  text COLLATE "C" NOT NULL,
    key   bigint NOT NULL,
    space text COLLATE "C" NOT NULL,
    PRIMARY KEY (term, key) INCLUDE (space)
);
INSERT INTO term_postings (term, key, space)
    SELECT DISTINCT CASE WHEN starts_with(l, '_') THEN substr(l, 2) ELSE l END, i.key, i.space
    FROM memory_index i, unnest(tsvector_to_array(i.lexemes)) AS l;

-- As 0001's, and keeping term_postings beside memory_index: the old entry's terms are
-- read from the index text it replaces, the new ones are its lexemes less the alias mark.
CREATE OR REPLACE FUNCTION cairn_put_memory(p_space text, p_id text, p_origin text, p_kind text, p_status text,
        p_created text, p_updated text, p_hash text, p_data text, p_indexed boolean,
        p_content text, p_aliases text, p_lexemes text[], p_length integer, p_new_key bigint,
        OUT r_key bigint, OUT r_created boolean, OUT r_old_content text, OUT r_old_aliases text)
LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    SELECT key INTO r_key FROM memories WHERE space = p_space AND id = p_id;
    r_created := r_key IS NULL;
    IF r_created THEN
        r_key := p_new_key;
        IF p_kind = 'episode' THEN
            SELECT COALESCE(max(turn), 0) + 1 INTO n FROM memories
                WHERE space = p_space AND origin = p_origin AND turn IS NOT NULL;
        END IF;
        INSERT INTO memories (key, space, id, origin, kind, status, created_at, updated_at, content_hash, data, turn)
            VALUES (r_key, p_space, p_id, p_origin, p_kind, p_status, p_created, p_updated, p_hash, p_data, n);
    ELSE
        UPDATE memories SET origin = p_origin, kind = p_kind, status = p_status, created_at = p_created,
            updated_at = p_updated, content_hash = p_hash, data = p_data WHERE key = r_key;
        DELETE FROM memory_index WHERE key = r_key RETURNING content, aliases INTO r_old_content, r_old_aliases;
        IF r_old_content IS NOT NULL THEN
            DELETE FROM term_postings WHERE key = r_key
                AND term = ANY(string_to_array(r_old_content || ' ' || r_old_aliases, ' '));
        END IF;
    END IF;
    IF p_indexed THEN
        INSERT INTO memory_index (key, space, kind, content, aliases, length, lexemes)
            VALUES (r_key, p_space, p_kind, p_content, p_aliases, p_length, array_to_tsvector(p_lexemes));
        INSERT INTO term_postings (term, key, space)
            SELECT DISTINCT CASE WHEN starts_with(l, '_') THEN substr(l, 2) ELSE l END, r_key, p_space
            FROM unnest(p_lexemes) AS l;
    END IF;
END $$;
"""


def _term_postings(cur) -> None:
    cur.execute(TERM_POSTINGS)


MIGRATIONS: list[Migration] = [
    ("0001_initial", _initial),
    ("0002_term_postings", _term_postings),
]

SCHEMA_VERSION = len(MIGRATIONS)


def applied(cur) -> list[tuple[int, str]]:
    cur.execute("SELECT to_regclass('cairn_schema_migrations') IS NOT NULL")
    if not cur.fetchone()[0]:
        return []
    cur.execute("SELECT seq, name FROM cairn_schema_migrations ORDER BY seq")
    return [(int(s), str(n)) for s, n in cur.fetchall()]


def check_version(cur) -> list[tuple[int, str]]:
    """Raise :class:`SchemaTooNew` if the database is ahead of this code; no DDL is run."""
    done = applied(cur)
    known = [name for name, _ in MIGRATIONS]
    for seq, name in done:
        if seq > len(known):
            raise SchemaTooNew(max(s for s, _ in done), len(known))
        if known[seq - 1] != name:
            raise StoreError(f"database migration {seq} is {name!r}, expected {known[seq - 1]!r}; refusing to continue")
    return done


def migrate(conn, now_iso: str) -> int:
    """Bring the schema up to date (each step in its own transaction). Returns how many ran."""
    count = 0
    for seq in range(1, len(MIGRATIONS) + 1):
        with conn.transaction(), conn.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATE_LOCK,))
            # Re-checked under the lock: another process may have migrated meanwhile.
            if len(check_version(cur)) >= seq:
                continue
            cur.execute(
                "CREATE TABLE IF NOT EXISTS cairn_schema_migrations ("
                " seq integer PRIMARY KEY, name text NOT NULL UNIQUE, applied_at text NOT NULL)"
            )
            name, step = MIGRATIONS[seq - 1]
            step(cur)
            cur.execute("INSERT INTO cairn_schema_migrations (seq, name, applied_at) VALUES (%s, %s, %s)",
                        (seq, name, now_iso))
            count += 1
    return count
