"""The PostgreSQL backend (``pip install 'cairn-memory[postgres]'``, psycopg 3): the
store (:mod:`.backend`), its schema and migrations (:mod:`.schema`) and the BM25 that
orders its lexical candidates as FTS5 orders SQLite's (:mod:`.rank`).

Importing this package imports psycopg; :func:`cairn.store.open_store` imports it only
for a ``postgresql://`` URL, so the SQLite default never needs the driver."""

from .backend import PgStore, PgTx, is_url, shown_url

__all__ = ["PgStore", "PgTx", "is_url", "shown_url"]
