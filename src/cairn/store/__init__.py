"""Storage: the protocols every layer above reads and writes through
(:mod:`.protocol`), the embedded SQLite backend (:mod:`.sqlite`), its migrations and
record-time reconstruction (:mod:`.timetravel`).

Imports only ``cairn.model``, ``cairn.errors`` and the leaf ``cairn.text`` (the
tokeniser, so the index and the queries share one definition of a term).
"""

from __future__ import annotations

import os
from datetime import datetime

from .migrations import MIGRATIONS, SCHEMA_VERSION
from .protocol import Backend, EpisodeTurn, ReadView, WriteTx
from .sqlite import Store, Tx, content_hash, sqlite_version


def open_store(
    path: str | os.PathLike,
    *,
    read_only: bool = False,
    busy_timeout: float | None = None,
    now: datetime | None = None,
) -> Backend:
    """Open the store at ``path``: today always the embedded SQLite file (created and
    migrated unless ``read_only``). The one place that chooses a backend for a path."""
    return Store.open(path, read_only=read_only, busy_timeout=busy_timeout, now=now)


__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Backend",
    "EpisodeTurn",
    "ReadView",
    "Store",
    "Tx",
    "WriteTx",
    "content_hash",
    "open_store",
    "sqlite_version",
]
