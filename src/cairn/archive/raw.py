"""The private raw store of one space: preserved sources and their catalog on disk.

Layout, beside the database ``cairn.db``::

    cairn.db.archive/                 0700
      <space>/                        0700
        catalog.jsonl                 0600, one metadata-only entry a line
        .lock                         serialises add and remove
        raw/<source type>/<YYYY>/<MM>/<DD>/<sha256[:16]>/<original file name>   0400

A source is copied without rewriting, normalising, compressing or renaming (its file name
is kept; the hash directory keeps two sources of the same name apart), written to a
temporary name, synced, made read-only and only then renamed into place; the copy is
re-read and its hash compared with the original's before the catalog entry is appended.
No path inside the store is followed through a symbolic link: every component is checked
with ``lstat`` (:meth:`RawStore.resolve`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import stat
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from .catalog import REMOVED, VERIFIED, CatalogError, Entry, parse_entry

DIR_MODE = 0o700
FILE_MODE = 0o400
CATALOG_MODE = 0o600
CHUNK = 1 << 20


class ContainmentError(ValueError):
    """A preserved path that leaves the store or passes through a symbolic link."""


def archive_root(db_path: str) -> Path:
    """The raw store's root for the database at ``db_path``."""
    return Path(db_path).with_name(Path(db_path).name + ".archive")


def space_root(db_path: str, space: str) -> Path | None:
    """The private directory of ``space`` beside the database file at ``db_path``, or None
    when the store is not a file (a server URL, an in-memory store): such a store has no
    place beside it to keep raw sources in."""
    if not db_path or "://" in db_path or not os.path.isfile(db_path):
        return None
    return archive_root(db_path) / space


def sha256_file(path: Path) -> tuple[str, int]:
    """(hex digest, byte size) of a regular file, read without following a final symlink."""
    digest = hashlib.sha256()
    size = 0
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


class RawStore:
    """The raw store of one space (``root`` is ``<db>.archive/<space>``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.catalog_path = root / "catalog.jsonl"

    # -- catalog -----------------------------------------------------------------------

    def lines(self) -> list[tuple[int, object]]:
        """(line number, decoded JSON or the CatalogError) of every catalog line."""
        if not self.catalog_path.exists():
            return []
        found: list[tuple[int, object]] = []
        with open(self.catalog_path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    found.append((number, json.loads(line)))
                except ValueError as err:
                    found.append((number, CatalogError(f"not JSON ({err})")))
        return found

    def entries(self) -> list[Entry]:
        """The readable entries, in catalog order (verify reports the unreadable ones)."""
        out = []
        for _, doc in self.lines():
            with contextlib.suppress(CatalogError):
                out.append(parse_entry(doc))
        return out

    def write_catalog(self, entries: list[Entry]) -> None:
        """Replace the catalog atomically (temporary file, sync, rename)."""
        self.ensure_dirs(self.root)
        temp = self.root / ".catalog.jsonl.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, CATALOG_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            for entry in entries:
                handle.write(json.dumps(entry.to_dict(), ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, CATALOG_MODE)
        os.replace(temp, self.catalog_path)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the store's lock: one add or remove at a time across processes."""
        self.ensure_dirs(self.root)
        fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, CATALOG_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    # -- paths -------------------------------------------------------------------------

    def ensure_dirs(self, path: Path) -> None:
        """Create ``path`` and its parents up to the store's parent as 0700 directories."""
        missing = []
        probe = path
        while not probe.exists():
            missing.append(probe)
            probe = probe.parent
        for directory in reversed(missing):
            os.mkdir(directory, DIR_MODE)
            os.chmod(directory, DIR_MODE)

    def resolve(self, preserved_path: str) -> Path:
        """The absolute path of a preserved file, refusing one that is absolute, climbs
        out with ``..``, or passes through a symbolic link anywhere inside the store."""
        rel = Path(preserved_path)
        if rel.is_absolute() or not rel.parts or any(p in ("..", ".", "") for p in rel.parts):
            raise ContainmentError(f"preserved_path {preserved_path!r} is not a plain path inside the store")
        probe = self.root
        for part in rel.parts[:-1]:
            probe = probe / part
            try:
                mode = os.lstat(probe).st_mode
            except FileNotFoundError:
                return self.root / rel  # reported as missing by the caller
            if stat.S_ISLNK(mode):
                raise ContainmentError(f"{probe.relative_to(self.root)} is a symbolic link")
            if not stat.S_ISDIR(mode):
                raise ContainmentError(f"{probe.relative_to(self.root)} is not a directory")
        target = self.root / rel
        real_root = os.path.realpath(self.root)
        if os.path.commonpath([real_root, os.path.realpath(target.parent)]) != real_root:
            raise ContainmentError(f"preserved_path {preserved_path!r} leaves the store")
        return target

    def preserved_path_for(self, source_type: str, started_at: str | None, sha256: str, name: str) -> str:
        day = (started_at or "0000-00-00")[:10].split("-")
        return "/".join(("raw", source_type, *day, sha256[:16], name))

    # -- writes ------------------------------------------------------------------------

    def preserve(self, data: bytes, preserved_path: str) -> Path:
        """Write ``data`` at ``preserved_path`` read-only (0400), atomically."""
        target = self.resolve(preserved_path)
        self.ensure_dirs(target.parent)
        temp = target.with_name(f".{target.name}.tmp")
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temp, 0o600)
            os.unlink(temp)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, FILE_MODE)
        os.replace(temp, target)
        return target

    def delete(self, entry: Entry) -> Entry:
        """Delete a preserved copy (the store's only deletion) and return its tombstone.
        Only a regular file at the entry's contained path is unlinked, never a link."""
        target = self.resolve(entry.preserved_path)
        with contextlib.suppress(FileNotFoundError):
            if stat.S_ISREG(os.lstat(target).st_mode):
                os.unlink(target)
        return replace(entry, status=REMOVED)

    def revive(self, entry: Entry) -> Entry:
        return replace(entry, status=VERIFIED)
