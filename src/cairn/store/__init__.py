"""Storage: the protocols every layer above reads and writes through
(:mod:`.protocol`), the embedded SQLite backend (:mod:`.sqlite`), its migrations and
record-time reconstruction (:mod:`.timetravel`).

Imports only ``cairn.model``, ``cairn.errors`` and the leaf ``cairn.text`` (the
tokeniser, so the index and the queries share one definition of a term).
"""

from .migrations import MIGRATIONS, SCHEMA_VERSION
from .protocol import Backend, EpisodeTurn, ReadView, WriteTx
from .sqlite import Store, Tx, content_hash, sqlite_version

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
    "sqlite_version",
]
