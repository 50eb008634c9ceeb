"""Storage: SQLite connection and pragmas, migrations, records, events, FTS.

Imports only ``cairn.model`` and the leaf ``cairn.text`` (the tokeniser, so the index
and the queries share one definition of a term).
"""

from .migrations import MIGRATIONS, SCHEMA_VERSION
from .sqlite import Store, Tx, content_hash

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "Store", "Tx", "content_hash"]
