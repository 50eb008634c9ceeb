"""The embedded SQLite backend: connection and pragmas (:mod:`.backend`) and the FTS5
query syntax (:mod:`.fts`)."""

from .backend import Store, Tx, content_hash, dumps
from .fts import sqlite_version

__all__ = ["Store", "Tx", "content_hash", "dumps", "sqlite_version"]
