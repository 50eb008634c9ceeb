"""The archive of raw sources, as the engine offers it: add, verify, show, remove, and
ingest with archiving.

* **add** copies a source byte for byte into the space's private raw store (see
  :mod:`cairn.archive.raw`) and appends one metadata-only catalog entry. The same bytes
  added twice are one entry (the second add returns it, ``deduplicated``); a tombstoned
  source added again is preserved again under its old entry. A source that does not read
  as its type is refused before anything is written.
* **verify** runs every check of :mod:`cairn.archive.verify`; the links from episodes are
  read from the event log (the ``archive`` note of the ingest events).
* **show** verifies the one entry first and refuses (:class:`~cairn.errors.ArchiveFailed`)
  on any failure, so a tampered source is never rehydrated; then it returns the smallest
  turn range asked for (``turns`` or ``around`` an episode).
* **remove** deletes the preserved copy, keeps a ``removed`` tombstone in the catalog and
  writes an event carrying the source's hash — never automatic, never undone by ``undo``
  (the bytes are gone); adding the original file again revives the entry.
* **ingest** archives a conversation file first, then stores its turns as episodes; the
  ingest event notes ``{"archive": {"source_id", "sha256", "turns": [first, last]}}`` so
  that any episode it wrote can be followed back to its raw lines. Archiving is opt-in
  (``--archive``): raw transcripts hold text a user may not want kept twice.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..archive import formats
from ..archive.catalog import SOURCE_ID_RE, Entry
from ..archive.formats import FormatError, Reading
from ..archive.raw import ContainmentError, RawStore, space_root
from ..archive.rehydrate import RangeError, Rehydrated, around, parse_range, turn_range
from ..archive.verify import Verified, check_entry, check_file, verify
from ..errors import ArchiveFailed, InvalidInput, NotFound, Refused
from ..model import Actor, Event, Kind, format_time
from .ingesting import Ingested, Ingesting
from .mutation import new_id
from .scope import Part

EVENT_KEY = "archive"  # the event data key linking an ingest to its archived source
# The archive's source type for each format ``cairn learn`` reads.
LEARN_TYPES = {"claude-code": "claude-code-jsonl", "openai": "openai-chat-json", "jsonl": "conversation-jsonl"}


@dataclass(frozen=True, slots=True)
class Added:
    entry: Entry
    deduplicated: bool  # the same bytes were already archived: nothing was written


@dataclass(frozen=True, slots=True)
class Removed:
    entry: Entry  # the tombstone
    event: Event


class Archiving(Part):
    def raw_store(self, *, writing: bool = False) -> RawStore:
        if writing and self.store.read_only:
            raise Refused("the store is open read-only; the archive is not changed")
        root = space_root(self.scope.path, self.space)
        if root is None:
            raise Refused("the archive lives beside a database file; this store has no file path")
        return RawStore(root)

    # -- add ---------------------------------------------------------------------------

    def add(self, path: str | os.PathLike[str], *, source_type: str | None = None,
            source_id: str | None = None) -> Added:
        original = Path(path)
        data = _read_original(original)
        kind = source_type or formats.detect(data)
        try:
            reading = formats.read(data, kind)
        except FormatError as err:
            raise InvalidInput(f"archive source {str(original)!r}", str(err)) from None
        digest = hashlib.sha256(data).hexdigest()
        sid = self._source_id(source_id, reading, digest)
        store = self.raw_store(writing=True)
        with store.locked():
            entries = store.entries()
            same = next((e for e in entries if e.sha256 == digest), None)
            if same is not None and same.live:
                return Added(same, True)
            clash = next((e for e in entries if e.source_id == sid and e.sha256 != digest), None)
            if clash is not None:
                raise Refused(f"archive source id {sid!r} already names other bytes (sha256 {clash.sha256[:16]}…)")
            entry = same or Entry(
                source_type=kind, source_id=sid, started_at=_iso(reading.started_at), ended_at=_iso(reading.ended_at),
                original_path=str(original.absolute()), byte_size=len(data), sha256=digest,
                record_count=len(reading.records),
                preserved_path=store.preserved_path_for(kind, _iso(reading.started_at), digest, original.name),
            )
            target = store.preserve(data, entry.preserved_path)
            try:
                # The copy is checked against the original's size and hash (it was parsed
                # already, from the same bytes in memory).
                failures, _ = check_file(store, store.revive(entry))
                if failures:
                    raise ArchiveFailed(sid, [str(f) for f in failures])
            except BaseException:
                os.chmod(target, 0o600)
                os.unlink(target)
                raise
            entry = store.revive(entry)
            store.write_catalog([entry if e.sha256 == digest else e for e in entries] + ([] if same else [entry]))
        return Added(entry, False)

    @staticmethod
    def _source_id(given: str | None, reading: Reading, digest: str) -> str:
        if given is not None:
            if not SOURCE_ID_RE.match(given):
                raise InvalidInput("source id", f"{given!r} (1-128 letters, digits, '.', '_', ':' or '-')")
            if reading.session is not None and reading.session != given:
                raise InvalidInput("source id", f"{given!r}, but the source's records name session {reading.session!r}")
            return given
        if reading.session is not None and SOURCE_ID_RE.match(reading.session):
            return reading.session
        return digest[:16]

    # -- catalog reads -----------------------------------------------------------------

    def entries(self) -> list[Entry]:
        return self.raw_store().entries()

    def entry(self, ref: str) -> Entry:
        """The catalog entry whose source id is ``ref`` or starts with it (unique)."""
        entries = self.entries()
        exact = [e for e in entries if e.source_id == ref]
        found = exact or [e for e in entries if len(ref) >= 6 and e.source_id.startswith(ref)]
        if not found:
            raise NotFound("archived source", ref)
        if len(exact) > 1:
            raise ArchiveFailed(ref, [f"{ref}: duplicate-id: {len(exact)} catalog entries share this source id"])
        if len(found) > 1:
            raise Refused(f"archive id prefix {ref!r} is ambiguous: matches {', '.join(e.source_id for e in found)}")
        return found[0]

    # -- verify and show ---------------------------------------------------------------

    def verify(self, ref: str | None = None) -> Verified:
        store = self.raw_store()
        only = None if ref is None else self.entry(ref).source_id
        return verify(store, only, self.linked_turns())

    def show(self, ref: str, *, turns: str | None = None, around_episode: str | None = None,
             context: int = 0) -> tuple[Entry, Rehydrated | None]:
        """The entry, and (with ``turns`` or ``around_episode``) the rehydrated range."""
        if turns is not None and around_episode is not None:
            raise InvalidInput("show", "give --turns or --around, not both")
        if context < 0:
            raise InvalidInput("context", "must not be negative")
        turn_id = None
        if around_episode is not None:
            link_id, turn_id = self.episode_link(around_episode)
            if ref in ("", "-"):
                ref = link_id
            elif self.entry(ref).source_id != link_id:
                raise Refused(f"episode {around_episode} was ingested from archive {link_id}, not {ref}")
        entry = self.entry(ref)
        if turns is None and turn_id is None:
            return entry, None
        if not entry.live:
            raise Refused(f"archive {entry.source_id} was removed; its tombstone keeps only its metadata")
        store = self.raw_store()
        if store.root.exists() and stat.S_IMODE(os.lstat(store.root).st_mode) != 0o700:
            raise ArchiveFailed(entry.source_id, [f"{entry.source_id}: store-mode: the raw store is not private"])
        failures, reading = check_entry(store, entry, self.linked_turns().get(entry.source_id, set()))
        if failures or reading is None:
            raise ArchiveFailed(entry.source_id, [str(f) for f in failures])
        try:
            first, last = parse_range(turns) if turns is not None else around(reading, str(turn_id), context)
            records = turn_range(reading, first, last)
        except RangeError as err:
            raise InvalidInput("turns", str(err)) from None
        return entry, Rehydrated(entry.source_id, entry.sha256, records[0].turn, records[-1].turn, records,
                                 entry.source_type)

    # -- links -------------------------------------------------------------------------

    def linked_turns(self) -> dict[str, set[str]]:
        """For each archived source id, the turn ids of the episodes linked to it."""
        links: dict[str, set[str]] = {}
        for event in self.store.events(self.space, newest_first=False):
            note = event.data.get(EVENT_KEY) if isinstance(event.data, dict) else None
            if not isinstance(note, dict) or not isinstance(note.get("source_id"), str):
                continue
            turns = links.setdefault(note["source_id"], set())
            for change in event.changes:
                after = change.after or {}
                source = (after.get("evidence") or {}).get("source_id")
                if change.table == "memory" and after.get("kind") == Kind.EPISODE.value and isinstance(source, str):
                    turns.add(source)
        return links

    def episode_link(self, ref: str) -> tuple[str, str]:
        """(archived source id, turn id) of an episode written by an archived ingest."""
        memory = self.scope.get(ref)
        if memory.kind is not Kind.EPISODE or not memory.evidence.source_id:
            raise Refused(f"{memory.id} is not an episode with a turn id; only episodes link to raw sources")
        for event in self.store.events(self.space, record_id=memory.id, newest_first=False):
            note = event.data.get(EVENT_KEY) if isinstance(event.data, dict) else None
            created = any(c.id == memory.id and c.before is None for c in event.changes)
            if created and isinstance(note, dict) and isinstance(note.get("source_id"), str):
                return note["source_id"], memory.evidence.source_id
        raise Refused(f"episode {memory.id} was not ingested from an archived source (ingest with --archive)")

    # -- remove ------------------------------------------------------------------------

    def remove(self, ref: str, *, actor: Actor = Actor.MANUAL) -> Removed:
        store = self.raw_store(writing=True)
        with store.locked():
            entry = self.entry(ref)
            if not entry.live:
                raise Refused(f"archive {entry.source_id} is already removed")
            event = Event(id=new_id(), space=self.space, at=self.now(), actor=actor,
                          reason=f"archive remove {entry.source_id}",
                          data={EVENT_KEY + "_removed": {"source_id": entry.source_id, "sha256": entry.sha256,
                                                         "byte_size": entry.byte_size,
                                                         "preserved_path": entry.preserved_path}})
            with self.store.write() as tx:
                tx.append_event(event)
                try:
                    tombstone = store.delete(entry)
                except ContainmentError as err:
                    raise ArchiveFailed(entry.source_id, [f"{entry.source_id}: containment: {err}"]) from None
                store.write_catalog([tombstone if e.source_id == entry.source_id else e for e in store.entries()])
        return Removed(tombstone, event)

    # -- ingest with archiving ---------------------------------------------------------

    def ingest(self, ingesting: Ingesting, path: str | os.PathLike[str], format: str = "jsonl",
               origin: str | None = None, **options) -> tuple[Added, Ingested]:
        """Archive ``path`` (as conversation JSONL), then ingest it linked to the entry.
        When the ingest is refused, an entry this call created is taken back out, so
        that a refused ingest leaves the archive as it found it too."""
        if format != "jsonl":
            raise InvalidInput("archive", "only JSONL conversations are archived on ingest")
        added = self.add(path, source_type="conversation-jsonl")
        note = {"source_id": added.entry.source_id, "sha256": added.entry.sha256, "turns": [1, added.entry.record_count]}
        try:
            ingested = ingesting.ingest(str(path), format, origin, data={EVENT_KEY: note}, **options)
        except BaseException:
            if not added.deduplicated:
                self._take_back(added.entry)
            raise
        return added, ingested

    def learn(self, capturing, path: str | os.PathLike[str], format: str = "auto",
              **options) -> tuple[Added, Any]:
        """Archive a transcript (as the type ``cairn learn`` reads it as), then learn from
        it; the episodes' event links them to the entry. A refused learn takes a new entry
        back out, as for :meth:`ingest`. A dry run archives nothing."""
        if options.get("dry_run"):
            raise InvalidInput("archive", "a dry run writes nothing, so it archives nothing")
        from ..learn.transcripts import detect  # noqa: PLC0415 - the readers load when learn runs

        if format == "auto":
            try:
                format = detect(Path(path).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as err:
                raise InvalidInput("file", f"cannot read {str(path)!r}: {getattr(err, 'strerror', None) or err}") from None
        kind = LEARN_TYPES.get(format)
        if kind is None:
            raise InvalidInput("format", f"{format!r} (one of: auto, {', '.join(LEARN_TYPES)})")
        added = self.add(path, source_type=kind)
        note = {"source_id": added.entry.source_id, "sha256": added.entry.sha256, "turns": [1, added.entry.record_count]}
        try:
            learned = capturing.learn(path, format=format, data={EVENT_KEY: note}, **options)
        except BaseException:
            if not added.deduplicated:
                self._take_back(added.entry)
            raise
        return added, learned

    def _take_back(self, entry: Entry) -> None:
        """Undo an add that nothing links to yet: delete the copy and its catalog line."""
        store = self.raw_store(writing=True)
        with store.locked():
            store.delete(entry)
            store.write_catalog([e for e in store.entries() if e.sha256 != entry.sha256])


def _read_original(path: Path) -> bytes:
    try:
        info = os.lstat(path)
    except OSError as err:
        raise InvalidInput("archive source", f"cannot read {str(path)!r}: {err.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise InvalidInput("archive source", f"{str(path)!r} is a symbolic link; archive the file it points to")
    if not stat.S_ISREG(info.st_mode):
        raise InvalidInput("archive source", f"{str(path)!r} is not a regular file")
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def _iso(value: datetime | None) -> str | None:
    return None if value is None else format_time(value)

