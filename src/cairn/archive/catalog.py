"""The archive catalog: one metadata-only entry per preserved source.

The catalog is a JSONL file in the space's private raw store. An entry holds exactly
:data:`FIELDS` and nothing else — no title, summary, keyword, message, tool output or any
other text of the source: the catalog locates and checks a source, it is never a content
index. :func:`parse_entry` refuses any other key, so content cannot creep in through a
hand-edited line either.

``status`` is ``verified`` for a preserved source (it passed the post-copy check when it
was added) and ``removed`` for a tombstone: the preserved copy was deleted on an explicit
``archive remove`` and the entry stays, with its hash, as the record that it existed.

Pure: dicts in, :class:`Entry` values out; reading and writing the file is
:mod:`cairn.archive.raw`'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .formats import SOURCE_TYPES

SCHEMA_VERSION = 1
FIELDS = (
    "schema_version", "source_type", "source_id", "started_at", "ended_at", "original_path",
    "preserved_path", "byte_size", "sha256", "record_count", "copy_mode", "status",
)
COPY_MODE = "read-only"
VERIFIED, REMOVED = "verified", "removed"
STATUSES = (VERIFIED, REMOVED)
SOURCE_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class CatalogError(ValueError):
    """A catalog line that does not have the entry's shape."""


@dataclass(frozen=True, slots=True)
class Entry:
    source_type: str
    source_id: str
    started_at: str | None  # ISO-8601 UTC of the earliest record, None when no record has a time
    ended_at: str | None
    original_path: str  # where the source was read from: provenance, it may disappear
    preserved_path: str  # relative to the space's raw store
    byte_size: int
    sha256: str
    record_count: int
    copy_mode: str = COPY_MODE
    status: str = VERIFIED
    schema_version: int = SCHEMA_VERSION

    @property
    def live(self) -> bool:
        return self.status == VERIFIED

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in FIELDS}


def parse_entry(doc: object) -> Entry:
    """An entry from its JSON form; raises :class:`CatalogError` naming the defect."""
    if not isinstance(doc, dict):
        raise CatalogError("not a JSON object")
    extra = sorted(set(doc) - set(FIELDS))
    if extra:
        raise CatalogError(f"field(s) not allowed in a metadata-only catalog: {', '.join(extra)}")
    missing = [name for name in FIELDS if name not in doc]
    if missing:
        raise CatalogError(f"missing field(s): {', '.join(missing)}")
    if doc["schema_version"] != SCHEMA_VERSION:
        raise CatalogError(f"schema_version {doc['schema_version']!r} (expected {SCHEMA_VERSION})")
    if doc["source_type"] not in SOURCE_TYPES:
        raise CatalogError(f"unknown source_type {doc['source_type']!r}")
    if not isinstance(doc["source_id"], str) or not SOURCE_ID_RE.match(doc["source_id"]):
        raise CatalogError(f"bad source_id {doc['source_id']!r}")
    for name in ("started_at", "ended_at"):
        if doc[name] is not None and not isinstance(doc[name], str):
            raise CatalogError(f"{name} is not a time")
    for name in ("original_path", "preserved_path"):
        if not isinstance(doc[name], str) or not doc[name]:
            raise CatalogError(f"{name} is not a path")
    for name in ("byte_size", "record_count"):
        if not isinstance(doc[name], int) or isinstance(doc[name], bool) or doc[name] < 0:
            raise CatalogError(f"{name} is not a count")
    if not isinstance(doc["sha256"], str) or not _HEX64.match(doc["sha256"]):
        raise CatalogError("sha256 is not 64 lowercase hex digits")
    if doc["copy_mode"] != COPY_MODE:
        raise CatalogError(f"copy_mode {doc['copy_mode']!r} (expected {COPY_MODE})")
    if doc["status"] not in STATUSES:
        raise CatalogError(f"status {doc['status']!r} (one of: {', '.join(STATUSES)})")
    return Entry(**{name: doc[name] for name in FIELDS})
