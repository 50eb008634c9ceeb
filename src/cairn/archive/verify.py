"""Checking the raw store before anything is read from it.

:func:`verify` checks, for the whole catalog or one entry, and names every failure
(a :class:`Failure` with a code from :data:`CODES`):

* ``schema`` — a catalog line that is not an entry of the current schema;
* ``duplicate-id`` / ``duplicate-hash`` — two live entries with one source id or one hash;
* ``store-mode`` — the store's directory is not private (0700);
* ``containment`` — a preserved path that is absolute, climbs out, or passes a symlink;
* ``missing`` — no file at the preserved path;
* ``not-regular`` — the preserved path is a symbolic link or not a regular file;
* ``writable`` — the preserved file is not read-only (0400);
* ``size`` / ``hash`` — byte size or SHA-256 differ from the catalog's;
* ``format`` / ``record-count`` — the file does not read as its type, or holds another
  number of records;
* ``identity`` / ``time-range`` — the session the records embed, or their first and last
  times, differ from the catalog's;
* ``linked-records`` — an episode linked to the source names a turn the file lacks.

A tombstone (``removed``) is checked for schema and uniqueness only: its file is gone on
purpose. Size and hash are checked before the file is parsed, so a tampered file is
never read as records.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from ..model import format_time
from .catalog import CatalogError, Entry, parse_entry
from .formats import FormatError, Reading, read
from .raw import DIR_MODE, FILE_MODE, ContainmentError, RawStore

CODES = (
    "schema", "duplicate-id", "duplicate-hash", "store-mode", "containment", "missing", "not-regular", "writable",
    "size", "hash", "format", "record-count", "identity", "time-range", "linked-records",
)


@dataclass(frozen=True, slots=True)
class Failure:
    source_id: str  # the entry's id, or "catalog line N" for an unreadable line
    code: str
    detail: str

    def __str__(self) -> str:
        return f"{self.source_id}: {self.code}: {self.detail}"


@dataclass(frozen=True, slots=True)
class Verified:
    checked: tuple[str, ...]  # source ids checked
    failures: tuple[Failure, ...]

    @property
    def ok(self) -> bool:
        return not self.failures


def verify(store: RawStore, only: str | None = None, linked: Mapping[str, set[str]] | None = None) -> Verified:
    """Check the catalog and every live entry (or only the entry ``only``).
    ``linked`` maps a source id to the turn ids that stored episodes link to it."""
    failures: list[Failure] = []
    entries: list[Entry] = []
    for number, doc in store.lines():
        try:
            if isinstance(doc, CatalogError):
                raise doc
            entries.append(parse_entry(doc))
        except CatalogError as err:
            if only is None:
                failures.append(Failure(f"catalog line {number}", "schema", str(err)))
    live = [e for e in entries if e.live]
    for code, key in (("duplicate-id", "source_id"), ("duplicate-hash", "sha256")):
        counts = Counter(getattr(e, key) for e in entries if key == "source_id" or e.live)
        for value, n in sorted(counts.items()):
            hit = next(e.source_id for e in entries if getattr(e, key) == value)
            if n > 1 and only in (None, hit):
                failures.append(Failure(hit, code, f"{n} catalog entries share {key} {value}"))
    if store.root.exists() and stat.S_IMODE(os.lstat(store.root).st_mode) != DIR_MODE:
        failures.append(Failure(only or "store", "store-mode",
                                f"{store.root} is {oct(stat.S_IMODE(os.lstat(store.root).st_mode))}, not 0o700"))
    chosen = [e for e in live if only is None or e.source_id == only]
    for entry in chosen:
        failures.extend(check_entry(store, entry, (linked or {}).get(entry.source_id, set()))[0])
    return Verified(tuple(e.source_id for e in chosen), tuple(failures))


def check_entry(store: RawStore, entry: Entry, linked: set[str] | None = None) -> tuple[list[Failure], Reading | None]:
    """The failures of one live entry, and its reading when the file could be read."""
    failures, data = check_file(store, entry)
    if data is None:
        return failures, None
    sid = entry.source_id
    try:
        reading = read(data, entry.source_type)
    except FormatError as err:
        return failures + [Failure(sid, "format", str(err))], None
    if len(reading.records) != entry.record_count:
        failures.append(Failure(sid, "record-count", f"{len(reading.records)} records, catalog says {entry.record_count}"))
    if reading.session is not None and reading.session != entry.source_id:
        failures.append(Failure(sid, "identity", f"records name session {reading.session!r}"))
    times = tuple(None if t is None else format_time(t) for t in (reading.started_at, reading.ended_at))
    if times != (entry.started_at, entry.ended_at):
        failures.append(Failure(sid, "time-range", f"records span {times[0]} .. {times[1]}, catalog says "
                                                   f"{entry.started_at} .. {entry.ended_at}"))
    ids = {r.id for r in reading.records}
    absent = sorted(t for t in (linked or set()) if t not in ids)
    if absent:
        failures.append(Failure(sid, "linked-records", f"{len(absent)} linked turn(s) absent from the file, e.g. {absent[0]!r}"))
    return failures, reading


def check_file(store: RawStore, entry: Entry) -> tuple[list[Failure], bytes | None]:
    """Containment, file type, mode, size and hash of one entry's preserved copy; its
    bytes when they are the catalogued ones (a tampered file is never returned)."""
    sid = entry.source_id
    try:
        path = store.resolve(entry.preserved_path)
    except ContainmentError as err:
        return [Failure(sid, "containment", str(err))], None
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return [Failure(sid, "missing", f"no file at {entry.preserved_path}")], None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
        what = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a regular file"
        return [Failure(sid, "not-regular", f"{entry.preserved_path} is {what}")], None
    failures: list[Failure] = []
    if stat.S_IMODE(info.st_mode) != FILE_MODE:
        failures.append(Failure(sid, "writable", f"mode {oct(stat.S_IMODE(info.st_mode))}, expected 0o400"))
    if info.st_size != entry.byte_size:
        return failures + [Failure(sid, "size", f"{info.st_size} bytes, catalog says {entry.byte_size}")], None
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read()
    if len(data) != entry.byte_size:
        return failures + [Failure(sid, "size", f"{len(data)} bytes read, catalog says {entry.byte_size}")], None
    digest = hashlib.sha256(data).hexdigest()
    if digest != entry.sha256:
        return failures + [Failure(sid, "hash", f"sha256 {digest[:16]}…, catalog says {entry.sha256[:16]}…")], None
    return failures, data
