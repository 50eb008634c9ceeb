"""Vectors in the SQLite store: one row per (space, embedder, content hash, kind group).

A vector belongs to a *text*, not to a record: it is keyed on the content hash the
``memories`` table already keeps, so an unchanged text is never embedded again and two
records with the same text share one vector. Claims and episodes keep separate rows
(``episode`` 0 or 1) because the lanes search them separately: a space holding
thousands of conversation turns must not crowd its few claims out of a claims search.

The vector itself is opaque here: ``data`` is the bytes the embedding side wrote
(:mod:`cairn.embed.vectors`: int8, unit length × 127); this module imports no numpy.

Lifetime. A vector lives while a record of its space and kind group that is not
forgotten holds its text. :func:`drop_unheld` runs inside the record's own transaction
whenever a record's text changes or it is forgotten or purged (a purge erases the
content, so its old hash is released), so no vector outlives the last record that held
its text. ``vector_groups`` counts the writes to each group (and holds a random token
made when the group first got a vector): ``(token, changes)`` is the signature an
in-process cache compares, one primary-key lookup instead of counting 100k rows (which
cost about 11 ms a recall).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from ...model import Kind, Memory

# Schema (created by migration 0004_vectors, see cairn.store.migrations).
SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    rowid        INTEGER PRIMARY KEY AUTOINCREMENT,
    space        TEXT NOT NULL,
    embedder     TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    episode      INTEGER NOT NULL,
    data         BLOB NOT NULL,
    UNIQUE (space, embedder, episode, content_hash)
);
CREATE TABLE IF NOT EXISTS vector_groups (
    space    TEXT NOT NULL,
    embedder TEXT NOT NULL,
    episode  INTEGER NOT NULL,
    token    BLOB NOT NULL,
    changes  INTEGER NOT NULL,
    PRIMARY KEY (space, embedder, episode)
);
CREATE INDEX IF NOT EXISTS memories_by_content ON memories (space, content_hash);
"""

# A record holds its text's vector while it is not forgotten (a purged record is
# forgotten and has no content left).
_HELD = (
    "EXISTS (SELECT 1 FROM memories m WHERE m.space = vectors.space AND m.content_hash = vectors.content_hash"
    " AND (m.kind = 'episode') = vectors.episode AND m.status != 'forgotten')"
)
CHUNK = 400  # parameters per IN (...) list, well inside SQLite's limit
# The text embedded for a record, in SQL over a memories row ``m`` (see vector_text).
_TEXT_SQL = (
    "CASE WHEN m.kind = 'episode' AND json_extract(m.data, '$.aliases[0]') IS NOT NULL"
    " THEN json_extract(m.data, '$.aliases[0]') || ': ' || json_extract(m.data, '$.content')"
    " ELSE json_extract(m.data, '$.content') END"
)


def vector_text(memory: Memory) -> str:
    """The text embedded for ``memory``: its content, after the speaker for an episode.

    Questions about a conversation name its speakers ("When did Caroline go to the
    support group?"); with the speaker in the text, plain cosine ranking of LoCoMo's dev
    turns finds an evidence turn in the top 5 for 0.48 of the questions instead of 0.24.
    The vector is still keyed on the content hash: the same words said by two speakers
    share the vector of the first one embedded (a rare, harmless approximation)."""
    return text_of(memory.kind is Kind.EPISODE, memory.content, memory.aliases)


def text_of(episode: bool, content: str, aliases: Sequence[str]) -> str:
    """:func:`vector_text` from a record's parts (a bulk write may hold no model)."""
    return f"{aliases[0]}: {content}" if episode and aliases else content


def _chunks(items: Sequence[str]) -> Iterable[Sequence[str]]:
    for start in range(0, len(items), CHUNK):
        yield items[start : start + CHUNK]


class VectorReads:
    """Vector reads shared by the store and a write transaction."""

    conn: sqlite3.Connection

    def vector_signature(self, space: str, embedder: str, episodes: bool) -> tuple:
        """A value that changes on every write to one group's vectors: (token, changes)."""
        row = self.conn.execute(
            "SELECT token, changes FROM vector_groups WHERE space = ? AND embedder = ? AND episode = ?",
            (space, embedder, int(episodes)),
        ).fetchone()
        return (b"", 0) if row is None else (bytes(row[0]), int(row[1]))

    def vector_rows(self, space: str, embedder: str, episodes: bool) -> list[tuple[str, bytes]]:
        """Every (content hash, vector bytes) of one group, in insertion order."""
        # The rows as SQLite returns them (TEXT as str, BLOB as bytes): at 100k vectors a
        # conversion per row was a third of the cost of a process's first semantic recall.
        # The group's rowids come from the unique index (covering), and the rows are then
        # read in rowid order: asked directly, SQLite sorts the rows, vectors included, in
        # a temporary B-tree (300 ms at 100k vectors against 135).
        rows: list[tuple[str, bytes]] = self.conn.execute(
            "SELECT content_hash, data FROM vectors WHERE rowid IN"
            " (SELECT rowid FROM vectors WHERE space = ? AND embedder = ? AND episode = ?) ORDER BY rowid",
            (space, embedder, int(episodes)),
        ).fetchall()
        return rows

    def vector_keys(self, space: str, embedder: str, hashes: Sequence[str]) -> set[tuple[str, bool]]:
        """Which (content hash, is episode) pairs among ``hashes`` have a vector of ``embedder``."""
        found: set[tuple[str, bool]] = set()
        for chunk in _chunks(list(dict.fromkeys(hashes))):
            marks = ",".join("?" * len(chunk))
            found.update(
                (str(h), bool(e)) for h, e in self.conn.execute(
                    f"SELECT content_hash, episode FROM vectors WHERE space = ? AND embedder = ? AND content_hash IN ({marks})",
                    (space, embedder, *chunk),
                )
            )
        return found

    def ids_by_hash(self, space: str, hashes: Sequence[str], episodes: bool) -> dict[str, list[str]]:
        """The ids of the not-forgotten records of one group holding each hash, oldest first."""
        out: dict[str, list[str]] = {}
        kind_test = "kind = 'episode'" if episodes else "kind != 'episode'"
        for chunk in _chunks(list(dict.fromkeys(hashes))):
            marks = ",".join("?" * len(chunk))
            for digest, memory_id in self.conn.execute(
                f"SELECT content_hash, id FROM memories WHERE space = ? AND content_hash IN ({marks})"
                f" AND {kind_test} AND status != 'forgotten' ORDER BY rowid",
                (space, *chunk),
            ):
                out.setdefault(str(digest), []).append(str(memory_id))
        return out

    def missing_vectors(self, space: str, embedder: str, limit: int) -> list[tuple[str, bool, str]]:
        """Up to ``limit`` (content hash, is episode, content) of not-forgotten records of
        ``space`` whose text has no vector of ``embedder`` in their group, oldest first."""
        rows = self.conn.execute(
            f"SELECT m.content_hash, m.kind = 'episode', {_TEXT_SQL} FROM memories m"
            " WHERE m.space = ? AND m.status != 'forgotten' AND NOT EXISTS (SELECT 1 FROM vectors v"
            "  WHERE v.space = m.space AND v.embedder = ? AND v.content_hash = m.content_hash"
            "  AND v.episode = (m.kind = 'episode'))"
            " GROUP BY m.content_hash, m.kind = 'episode' ORDER BY MIN(m.rowid) LIMIT ?",
            (space, embedder, limit),
        )
        return [(str(h), bool(e), str(c or "")) for h, e, c in rows]

    def episode_places(self, space: str, ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        """The (origin, turn) of each episode of ``space`` among ``ids``."""
        out: dict[str, tuple[str, int]] = {}
        for chunk in _chunks(list(dict.fromkeys(ids))):
            marks = ",".join("?" * len(chunk))
            for memory_id, origin, turn in self.conn.execute(
                f"SELECT id, origin, turn FROM memories WHERE space = ? AND id IN ({marks})"
                " AND kind = 'episode' AND turn IS NOT NULL",
                (space, *chunk),
            ):
                out[str(memory_id)] = (str(origin), int(turn))
        return out

    def count_missing_vectors(self, space: str, embedder: str) -> int:
        """How many distinct texts :meth:`missing_vectors` would return with no limit."""
        row = self.conn.execute(
            "SELECT COUNT(*) FROM (SELECT 1 FROM memories m WHERE m.space = ? AND m.status != 'forgotten'"
            " AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.space = m.space AND v.embedder = ?"
            "  AND v.content_hash = m.content_hash AND v.episode = (m.kind = 'episode'))"
            " GROUP BY m.content_hash, m.kind = 'episode')",
            (space, embedder),
        ).fetchone()
        return int(row[0])

    def count_vectors(self, space: str, embedder: str | None = None) -> int:
        """Vectors stored for ``space`` (of one embedder, or of any)."""
        if embedder is None:
            return int(self.conn.execute("SELECT COUNT(*) FROM vectors WHERE space = ?", (space,)).fetchone()[0])
        return int(self.conn.execute(
            "SELECT COUNT(*) FROM vectors WHERE space = ? AND embedder = ?", (space, embedder)).fetchone()[0])


class VectorWrites:
    """Vector writes of one open transaction."""

    conn: sqlite3.Connection

    def put_vectors(self, space: str, embedder: str, rows: Sequence[tuple[str, bool, bytes]]) -> None:
        """Store (content hash, is episode, vector bytes) rows; an existing row is kept."""
        self.conn.executemany(
            "INSERT OR IGNORE INTO vectors (space, embedder, content_hash, episode, data) VALUES (?, ?, ?, ?, ?)",
            [(space, embedder, digest, int(episode), data) for digest, episode, data in rows],
        )
        for episode in {bool(e) for _, e, _ in rows}:
            self.conn.execute(
                "INSERT INTO vector_groups (space, embedder, episode, token, changes) VALUES (?, ?, ?, randomblob(8), 1)"
                " ON CONFLICT (space, embedder, episode) DO UPDATE SET changes = changes + 1",
                (space, embedder, int(episode)),
            )


def drop_unheld(conn: sqlite3.Connection, space: str, hashes: Iterable[str]) -> None:
    """Delete the vectors of ``hashes`` in ``space`` that no live record holds any more."""
    dropped = 0
    for digest in dict.fromkeys(hashes):
        dropped += conn.execute(f"DELETE FROM vectors WHERE space = ? AND content_hash = ? AND NOT {_HELD}",
                                (space, digest)).rowcount
    if dropped:
        conn.execute("UPDATE vector_groups SET changes = changes + 1 WHERE space = ?", (space,))
