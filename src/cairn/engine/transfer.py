"""Export and import as JSONL: one object per line, ``{"type": ..., "data": {...}}``.

Order: memories (by creation, id), relations (by creation, id), events (in log order),
so that export → import into an empty store → export is byte-identical. Import is
all-or-nothing (every line is validated before anything is written) and idempotent: a
record already present with the same id is left as it stands. Imported records land in
the importing space. Import restores history verbatim and adds no event of its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO

from .. import wire
from ..errors import BadImportLine
from ..model import (
    MalformedRecord,
    Memory,
    event_to_dict,
    memory_to_dict,
    relation_from_dict,
    relation_to_dict,
)
from ..model.codec import imported_event_from_dict, imported_memory_from_dict
from ..store import ReadView, dumps
from .labelling import memory_labels, require
from .scope import Part

_ORDER = ("memory", "relation", "event")


def _line(kind: str, data: dict) -> str:
    return json.dumps({"type": kind, "data": data}, ensure_ascii=False, separators=(",", ":")) + "\n"


def _lines(lines: Iterable[str]) -> Iterable[tuple[int, object]]:
    """Numbered export lines, from JSONL or from the one document ``cairn --json export``
    prints (``{"records", "relations", "events", "lines": [{"type", "data"}, ...]}``),
    whose items are numbered as the lines they stand for."""
    for number, raw in enumerate(lines, 1):
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


def _stored_text(raw: object, item: dict, data: dict, memory: Memory) -> str | None:
    """The line's own text of the record when it is already in stored form — the JSON
    of ``memory_to_dict(memory)``, as export writes it, in this space — so that import
    does not encode it again; None otherwise (the record is then encoded from the model).

    The check is on values, not bytes: the decoded body must equal the model's form of
    the record it parsed into (so times, defaults and fields are the canonical ones);
    only the spelling of the same JSON (key order, spacing, escapes) may differ."""
    if not isinstance(raw, str) or len(item) != 2 or item["data"].get("space") != data["space"]:
        return None
    line = raw.strip()
    if not line.startswith(_MEMORY_LINE) or memory_to_dict(memory) != data:
        return None
    return line[len(_MEMORY_LINE) : -1]


def _present_memories(view: ReadView, space: str, ids: list[str]) -> set[str]:
    """The ids among ``ids`` that already have a record in ``space`` (read in chunks)."""
    found: set[str] = set()
    for start in range(0, len(ids), 500):
        found.update(view.get_memories(space, ids[start : start + 500]))
    return found


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

    def import_(self, lines: Iterable[str]) -> Transferred:
        numbered = [(n, item) for n, raw in _lines(lines) if (item := self._parse_line(n, raw))]
        require(self.scope, ((f"import line {n} record {item[1].id}", memory_labels(item[1]))
                             for n, item in numbered if item[0] == "memory"))
        memories = [(value, stored) for _, (kind, value, stored) in numbered if kind == "memory"]
        relations = [value for _, (kind, value, _) in numbered if kind == "relation"]
        events = [value for _, (kind, value, _) in numbered if kind == "event"]
        counts = Transferred()
        with self.store.write() as tx:
            # Each table in its own order, in bulk: memories, relations and events never
            # depend on one another here (import restores rows, it checks no links).
            present = set(_present_memories(tx, self.space, [m.id for m, _ in memories]))
            fresh = []
            for memory, stored in memories:
                if memory.id in present:
                    counts.skipped += 1
                    continue
                present.add(memory.id)  # a record twice in the file: the first line stands
                fresh.append((memory, stored))
            put_stored = getattr(tx, "put_stored", None)  # the SQLite store's bulk shape
            if put_stored is not None:
                put_stored([(m, s if s is not None else dumps(memory_to_dict(m))) for m, s in fresh])
            else:
                tx.put_memories([m for m, _ in fresh])
            counts.records = len(fresh)
            for relation in relations:
                if tx.get_relation(self.space, relation.id) is not None:
                    counts.skipped += 1
                    continue
                tx.put_relation(relation)
                counts.relations += 1
            new_events, seen = [], set()
            for event in events:
                if event.id in seen or tx.ids_with_prefix("events", self.space, event.id, limit=1) == [event.id]:
                    counts.skipped += 1
                    continue
                seen.add(event.id)
                new_events.append(event)
            tx.append_events(new_events)
            counts.events = len(new_events)
        return counts

    def _parse_line(self, number: int, raw: object):
        if isinstance(raw, str):
            if not raw.strip():
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
        data = {**item["data"], "space": self.space}
        try:
            if item["type"] == "memory":
                memory = imported_memory_from_dict(data)
                return "memory", memory, _stored_text(raw, item, data, memory)
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
