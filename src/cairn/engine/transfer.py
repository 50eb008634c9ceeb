"""Export and import as JSONL: one object per line, ``{"type": ..., "data": {...}}``.

Order: memories (by creation, id), relations (by creation, id), events (in log order),
so that export → import into an empty store → export is byte-identical. Import is
all-or-nothing (one transaction: a bad line anywhere rolls back what came before it) and
idempotent: a record already present with the same id is left as it stands. Imported
records land in the importing space. Import restores history verbatim and adds no event
of its own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import IO

from .. import wire
from ..errors import BadImportLine
from ..model import (
    Basis,
    Certainty,
    Kind,
    Layer,
    MalformedRecord,
    Memory,
    Method,
    Status,
    Verdict,
    event_to_dict,
    memory_to_dict,
    relation_from_dict,
    relation_to_dict,
)
from ..model.codec import evidence_problem, imported_event_from_dict, imported_memory_from_dict
from ..store import dumps
from .bulk import bulk
from .labelling import memory_labels, require
from .scope import Part

_ORDER = ("memory", "relation", "event")


def _line(kind: str, data: dict) -> str:
    return json.dumps({"type": kind, "data": data}, ensure_ascii=False, separators=(",", ":")) + "\n"


# Export lines parsed and written at a time: a line in stored form is held as its decoded
# dict and its text until written (about 3 KB a record), so 5,000 keep a chunk near 15 MB;
# 20,000 measured 82 MB more peak for an import of 100k lines, and no less CPU.
IMPORT_CHUNK = 5_000


def _chunks(items: Iterable[tuple[int, object]], size: int) -> Iterator[list[tuple[int, object]]]:
    chunk: list[tuple[int, object]] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _lines(lines: Iterable[str]) -> Iterable[tuple[int, object]]:
    """Numbered export lines, from JSONL or from the one document ``cairn --json export``
    prints (``{"records", "relations", "events", "lines": [{"type", "data"}, ...]}``),
    whose items are numbered as the lines they stand for."""
    for number, raw in enumerate(lines, 1):
        if raw.startswith('{"type"'):  # an export line (nearly all of them): no copy of it made
            yield number, raw
            continue
        stripped = raw.strip()
        if stripped.startswith("{") and '"lines"' in stripped[:4096] and not stripped.startswith('{"type"'):
            try:
                doc = json.loads(stripped)
            except ValueError:
                doc = None
            if isinstance(doc, dict) and isinstance(doc.get("lines"), list) and "type" not in doc:
                yield from enumerate(doc["lines"], 1)
                continue
        yield number, raw


def _respace(snapshot: dict | None, space: str) -> dict | None:
    return None if snapshot is None else {**snapshot, "space": space}


@dataclass(slots=True)
class Transferred:
    """How many lines of each type an export wrote or an import took (``skipped``: already
    present, left as they stood)."""

    records: int = 0
    events: int = 0
    relations: int = 0
    skipped: int = 0

    def to_dict(self) -> wire.ImportDoc:
        """The wire form (``import --json``; ``export --json`` prints the same counts
        without ``skipped``)."""
        return wire.imported(self)


_MEMORY_LINE = '{"type":"memory","data":'


def _stored_line(raw: object, item: dict, space: str) -> tuple[dict, str] | None:
    """The record's body and the line's own text of it when the line is already in
    stored form — the JSON of ``memory_to_dict`` of a well-formed record, as export
    writes it, in this space — so that import neither parses it into the model nor
    encodes it again; None otherwise (the line then goes through the model).

    The check is on values, not bytes (:func:`_in_stored_form`: exactly what
    ``memory_to_dict(imported_memory_from_dict(body)) == body`` would say, without the
    round trip); only the spelling of the same JSON (key order, spacing, escapes) may
    differ."""
    if not isinstance(raw, str) or len(item) != 2:
        return None
    data = item["data"]
    if data.get("space") != space:
        return None
    line = raw.strip()
    if not line.startswith(_MEMORY_LINE) or not _in_stored_form(data):
        return None
    return data, line[len(_MEMORY_LINE) : -1]


_KEYS = frozenset(("id", "space", "origin", "kind", "content", "aliases", "status", "layer", "evidence", "certainty",
                   "valid_from", "valid_to", "created_at", "updated_at", "reinforced_at", "feedback", "revision",
                   "expected_resolution_at", "last_confirmed_at", "purged_at"))
_LABELS = frozenset(("topics", "entities"))  # present only when not empty
_OPTIONAL_TIMES = ("valid_from", "valid_to", "reinforced_at", "expected_resolution_at", "last_confirmed_at", "purged_at")
_EVIDENCE_KEYS = frozenset(("basis", "method", "source_id", "at"))
_SLOT_KEYS = frozenset(("verdict", "source_id", "at"))
_FEEDBACK_KEYS = frozenset(("utility", "accuracy"))
# format_time's text: UTC, seconds, six digits of microseconds only when there are some.
_TIME_TEXT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{6})?Z\Z")


def _values(cls: type[Enum]) -> frozenset[str]:
    return frozenset(member.value for member in cls)


_KINDS, _STATUSES, _LAYERS, _CERTAINTIES = _values(Kind), _values(Status), _values(Layer), _values(Certainty)
# The (basis, method) pairs an imported record may carry (evidence_problem finds none).
_EVIDENCE = frozenset((b.value, m.value) for b in Basis for m in Method if not evidence_problem(b, m))
_SLOTS = {slot: frozenset(v.value for v in Verdict if v.slot == slot) for slot in _FEEDBACK_KEYS}


def _stored_time(value: object) -> datetime | None:
    """The moment ``value`` spells when it is exactly format_time's text of it, else None."""
    if type(value) is not str or _TIME_TEXT.match(value) is None:
        return None
    try:
        moment = datetime.fromisoformat(value[:-1])
    except ValueError:  # an impossible date
        return None
    return moment if len(value) == 20 or moment.microsecond else None


def _is_str_list(value: object) -> bool:
    return type(value) is list and all(type(v) is str for v in value)


def _in_stored_form(d: dict) -> bool:
    """Whether ``d`` is exactly ``memory_to_dict`` of the record ``imported_memory_from_dict``
    reads from it (no error, nothing defaulted, every time and enum in its canonical
    text). Sound, not complete: a False only sends the line through the model."""
    try:
        return _checked(d)
    except TypeError:  # an unhashable value where an enum's text belongs
        return False


def _checked(d: dict) -> bool:
    # type() rather than isinstance: JSON gives exact types, and a bool is no revision.
    keys = d.keys()
    if keys != _KEYS:
        if not _KEYS <= keys or not keys - _KEYS <= _LABELS:
            return False
        if any(not _is_str_list(d[key]) or not d[key] for key in keys - _KEYS):
            return False
    if not (type(d["id"]) is str and type(d["space"]) is str and type(d["origin"]) is str
            and type(d["content"]) is str and _is_str_list(d["aliases"])):
        return False
    if d["kind"] not in _KINDS or d["status"] not in _STATUSES or d["layer"] not in _LAYERS:
        return False
    revision = d["revision"]
    if type(revision) is not int or revision < 1 or (d["certainty"] is not None and d["certainty"] not in _CERTAINTIES):
        return False
    # A time equal to one already found good is good: created_at and updated_at (and the
    # evidence's at) are mostly the same text, and the check of a time is a third of the whole.
    created = d["created_at"]
    if _stored_time(created) is None or (d["updated_at"] != created and _stored_time(d["updated_at"]) is None):
        return False
    for key in _OPTIONAL_TIMES:
        if d[key] is not None and _stored_time(d[key]) is None:
            return False
    if d["valid_from"] is not None and d["valid_to"] is not None and (
            _stored_time(d["valid_to"]) < _stored_time(d["valid_from"])):  # type: ignore[operator]
        return False
    evidence = d["evidence"]
    if type(evidence) is not dict or evidence.keys() != _EVIDENCE_KEYS:
        return False
    source, at = evidence["source_id"], evidence["at"]
    if (evidence["basis"], evidence["method"]) not in _EVIDENCE or not (source is None or type(source) is str):
        return False
    if at is not None and at != created and _stored_time(at) is None:
        return False
    feedback = d["feedback"]
    if type(feedback) is not dict or feedback.keys() != _FEEDBACK_KEYS:
        return False
    for slot, given in feedback.items():
        if given is None:
            continue
        if type(given) is not dict or given.keys() != _SLOT_KEYS or type(given["source_id"]) is not str:
            return False
        if given["verdict"] not in _SLOTS[slot] or _stored_time(given["at"]) is None:
            return False
    return True


def _id(record: Memory | dict) -> str:
    """The id of an import line's record: a model value, or a body in stored form."""
    return record.id if isinstance(record, Memory) else record["id"]


def _docs(lines: list) -> list[tuple[dict, str]]:
    """Import lines as stored bodies with their JSON text: a line in stored form as it
    stands, one read through the model encoded once."""
    return [(m, s) if s is not None else (doc := memory_to_dict(m), dumps(doc)) for m, s in lines]


def _labels(record: Memory | dict) -> dict[str, tuple[str, ...]]:
    if isinstance(record, Memory):
        return memory_labels(record)
    return {"topics": tuple(record.get("topics", ())), "entities": tuple(record.get("entities", ()))}


class Transfer(Part):
    """export and import of a space as JSONL."""

    def export(self, out: IO[str]) -> Transferred:
        counts = Transferred()
        with self.store.snapshot() as view:
            for memory in view.iter_memories(self.space):
                out.write(_line("memory", memory_to_dict(memory)))
                counts.records += 1
            for relation in view.relations(self.space, active_only=False):
                out.write(_line("relation", relation_to_dict(relation)))
                counts.relations += 1
            for event in view.events(self.space, newest_first=False):
                out.write(_line("event", event_to_dict(event)))
                counts.events += 1
        return counts

    @bulk
    def import_(self, lines: Iterable[str]) -> Transferred:
        """Restore export lines into the space, all or nothing. The lines are read, checked
        and written :data:`IMPORT_CHUNK` at a time inside one write transaction, so memory
        stays flat however long the file (a bad line further on rolls every chunk back: the
        store is left as it was)."""
        counts = Transferred()
        with self.store.write() as tx:
            # Into an empty store, the secondary indexes are built once over the finished
            # table before COMMIT rather than kept up to date row by row (a store that can).
            defer = getattr(tx, "defer_indexes", None)
            if defer is not None:
                defer()
            for chunk in _chunks(_lines(lines), IMPORT_CHUNK):
                numbered = [(n, item) for n, raw in chunk if (item := self._parse_line(n, raw))]
                # A body in stored form without topics or entities has no label to check.
                require(self.scope, ((f"import line {n} record {_id(item[1])}", _labels(item[1]))
                                     for n, item in numbered if item[0] == "memory"
                                     and (isinstance(item[1], Memory) or not _LABELS.isdisjoint(item[1]))))
                self._write_chunk(tx, numbered, counts)
                del chunk, numbered  # not alive while the next chunk is read: one chunk at a time
        return counts

    def _write_memories(self, tx, memories: list, counts: Transferred) -> None:
        """The records of one chunk: one already stored is left as it stands, one repeated
        in the file is written once (the first line stands)."""
        ids = [_id(m) for m, _ in memories]
        put_if_new = getattr(tx, "put_docs_if_new", None)  # the SQLite store's bulk shape (see there)
        if put_if_new is not None and ids and len(set(ids)) == len(ids) and put_if_new(_docs(memories)):
            # Nearly every chunk of an export is new records, each once: written without
            # looking the ids up first. Had one been stored, nothing was written, and the
            # chunk goes the way below.
            counts.records += len(memories)
            return
        present = tx.present_ids("memories", self.space, ids)
        fresh = []
        for record_id, line in zip(ids, memories, strict=True):
            if record_id in present:
                counts.skipped += 1
                continue
            present.add(record_id)  # a record twice in the file: the first line stands
            fresh.append(line)
        if fresh:
            put_docs = getattr(tx, "put_docs", None)  # both stores' bulk shape for stored bodies: no model needed
            put_stored = getattr(tx, "put_stored", None)  # a store's bulk shape for model values
            if put_docs is not None:
                # absent: checked just above, so the store need not look every id up again.
                put_docs(_docs(fresh), absent=True)
            else:
                models = [(m if isinstance(m, Memory) else imported_memory_from_dict(m), s) for m, s in fresh]
                if put_stored is not None:
                    put_stored([(m, s if s is not None else dumps(memory_to_dict(m))) for m, s in models])
                else:
                    tx.put_memories([m for m, _ in models])
        counts.records += len(fresh)

    def _write_chunk(self, tx, numbered: list, counts: Transferred) -> None:
        """Write one chunk of parsed lines. What earlier chunks wrote is in the store (the
        same transaction reads it), so a record or event repeated across chunks is found
        there as one repeated within a chunk is found in the chunk: the first line stands."""
        memories = [(value, stored) for _, (kind, value, stored) in numbered if kind == "memory"]
        relations = [value for _, (kind, value, _) in numbered if kind == "relation"]
        events = [value for _, (kind, value, _) in numbered if kind == "event"]
        # Each table in its own order, in bulk: memories, relations and events never
        # depend on one another here (import restores rows, it checks no links).
        self._write_memories(tx, memories, counts)
        # One look-up and one batched write per table, not a round trip per line (on
        # PostgreSQL two per relation cost an import of 20,000 relations minutes).
        new_relations = self._fresh(tx, "relations", relations, counts)
        if new_relations:
            tx.put_relations(new_relations)
        counts.relations += len(new_relations)
        new_events = self._fresh(tx, "events", events, counts)
        if new_events:
            tx.append_events(new_events)
        counts.events += len(new_events)

    def _fresh(self, tx, table: str, items: list, counts: Transferred) -> list:
        """``items`` (relations or events) whose id ``table`` of the space lacks, each id
        once (a line repeated in the file: the first stands); the rest are counted as
        skipped."""
        present = tx.present_ids(table, self.space, list(dict.fromkeys(item.id for item in items)))
        fresh = []
        for item in items:
            if item.id in present:
                counts.skipped += 1
                continue
            present.add(item.id)
            fresh.append(item)
        return fresh

    def _parse_line(self, number: int, raw: object):
        if isinstance(raw, str):
            if not raw or raw.isspace():  # a blank line (as `not raw.strip()`, without copying the line)
                return None
            try:
                item = json.loads(raw)
            except json.JSONDecodeError as err:
                raise BadImportLine(number, f"not JSON ({err.msg})") from None
            except RecursionError:
                raise BadImportLine(number, "nested too deeply") from None
        else:
            item = raw  # an item of a --json export document, already decoded
        if not isinstance(item, dict) or item.get("type") not in _ORDER or not isinstance(item.get("data"), dict):
            raise BadImportLine(number, 'expected {"type": "memory"|"relation"|"event", "data": {...}}')
        if item["type"] == "memory" and (stored := _stored_line(raw, item, self.space)) is not None:
            return "memory", *stored
        data = {**item["data"], "space": self.space}
        try:
            if item["type"] == "memory":
                return "memory", imported_memory_from_dict(data), None
            if item["type"] == "relation":
                return "relation", relation_from_dict(data), None
            data["changes"] = [
                {**c, "before": _respace(c.get("before"), self.space), "after": _respace(c.get("after"), self.space)}
                if isinstance(c, dict)
                else c
                for c in data.get("changes", [])
            ]
            return "event", imported_event_from_dict(data), None
        except MalformedRecord as err:
            raise BadImportLine(number, str(err)) from None
