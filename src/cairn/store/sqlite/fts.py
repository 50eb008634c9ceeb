"""FTS5 query syntax: the one place Cairn assembles a MATCH expression or a LIKE pattern.

Terms arrive in Cairn's own index form (:mod:`cairn.text`), which is also the form the
index stores (:func:`fts_form`); the functions here quote them (:func:`quote_fts`) and
join them. Nothing above the store sees this syntax.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence


def fts_form(term: str) -> str:
    """The form a term is stored in. Terms are already in Cairn's one normalisation
    (:func:`cairn.text.normalize`: accents folded where they are accents), and the
    index keeps them exactly as given (``remove_diacritics 0``), so lookup and index
    cannot disagree; marks that carry meaning (Japanese voicing marks) are kept."""
    return term


def quote_fts(text: str) -> str:
    """One FTS5 string literal: double quotes doubled, the whole wrapped in quotes."""
    return '"' + text.replace('"', '""') + '"'


def escape_like(text: str) -> str:
    """``text`` as a literal inside a LIKE pattern written with ``ESCAPE '\\'``."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def term(word: str) -> str:
    """One indexed term, folded and quoted."""
    return quote_fts(fts_form(word))


def any_of(words: Iterable[str], *, fold: bool = True) -> str:
    """Records holding at least one of ``words``."""
    return " OR ".join(quote_fts(fts_form(w) if fold else w) for w in words)


def every(words: Iterable[str]) -> str:
    """Records holding all of ``words`` (implicit AND), each unfolded as given."""
    return " ".join(quote_fts(w) for w in words)


def phrase(words: Sequence[str]) -> str:
    """Records holding ``words`` adjacent and in order."""
    return quote_fts(" ".join(fts_form(w) for w in words))


def in_column(column: str, expression: str) -> str:
    return f"{column} : ({expression})"


def words_or_prefixes(words: Sequence[tuple[str, bool]]) -> str:
    """OR of ``(text, prefix)`` pairs in the given order, duplicates dropped; a prefix
    pair matches every term starting with its text."""
    parts = [quote_fts(text) + (" *" if prefix else "") for text, prefix in words]
    return " OR ".join(dict.fromkeys(parts))


class BaselineIndex:
    """An in-memory FTS5 table with the porter tokenizer: the LoCoMo baseline ranker."""

    def __init__(self, rows: Iterable[tuple[str, str]]) -> None:
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute("CREATE VIRTUAL TABLE turns USING fts5(key UNINDEXED, body, tokenize='porter')")
        self.conn.executemany("INSERT INTO turns (key, body) VALUES (?, ?)", list(rows))

    def rank(self, words: Sequence[str], k: int) -> list[str]:
        if not words:
            return []
        rows = self.conn.execute(
            "SELECT key FROM turns WHERE turns MATCH ? ORDER BY bm25(turns) LIMIT ?", (any_of(words, fold=False), k)
        )
        return [str(r[0]) for r in rows]

    def close(self) -> None:
        self.conn.close()


def sqlite_version() -> str:
    """The SQLite library version in use (for benchmark reports)."""
    return sqlite3.sqlite_version
