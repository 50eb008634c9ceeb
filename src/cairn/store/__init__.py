"""Storage: the protocols every layer above reads and writes through
(:mod:`.protocol`), the embedded SQLite backend (:mod:`.sqlite`), its migrations and
record-time reconstruction (:mod:`.timetravel`).

Imports only ``cairn.model``, ``cairn.errors`` and the leaf ``cairn.text`` (the
tokeniser, so the index and the queries share one definition of a term).
"""

from __future__ import annotations

import os
from datetime import datetime

from ..errors import StoreUnavailable
from .migrations import MIGRATIONS, SCHEMA_VERSION
from .protocol import Backend, EpisodeTurn, ReadView, RecordFacts, WriteTx
from .sqlite import Store, Tx, content_hash, dumps, sqlite_version
from .sqlite.backend import SKIPPED, discard_if_empty


def is_database_url(path: object) -> bool:
    """Whether ``path`` names a PostgreSQL database (``postgresql://`` or ``postgres://``)."""
    return isinstance(path, str) and path.lower().startswith(("postgresql://", "postgres://"))


def skipped_rows() -> int:
    """Malformed stored rows that reads in this process have skipped so far (any store)."""
    return SKIPPED[0]


def open_store(
    path: str | os.PathLike,
    *,
    read_only: bool = False,
    create: bool = True,
    busy_timeout: float | None = None,
    now: datetime | None = None,
) -> Backend:
    """Open the store at ``path``: a ``postgresql://`` URL opens the PostgreSQL backend
    (:mod:`cairn.store.postgres`, which needs the ``postgres`` extra), anything else the
    embedded SQLite file. The one place that chooses a backend for a path.

    An existing file is verified (a SQLite database of a schema this code knows) before
    anything is changed; a missing one is created (and migrated) only when ``create`` and
    not ``read_only``, else :class:`~cairn.errors.NoSuchDatabase`. An empty path is
    :class:`~cairn.errors.InvalidInput`."""
    if is_database_url(path):
        try:
            from .postgres import PgStore
        except ImportError:
            raise StoreUnavailable(
                "postgresql://", "the PostgreSQL backend needs psycopg: pip install 'cairn-memory[postgres]'"
            ) from None
        return PgStore.open(str(path), read_only=read_only, create=create, busy_timeout=busy_timeout, now=now)
    return Store.open(path, read_only=read_only, create=create, busy_timeout=busy_timeout, now=now)


__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Backend",
    "EpisodeTurn",
    "RecordFacts",
    "ReadView",
    "Store",
    "Tx",
    "WriteTx",
    "content_hash",
    "discard_if_empty",
    "dumps",
    "is_database_url",
    "open_store",
    "skipped_rows",
    "sqlite_version",
]
