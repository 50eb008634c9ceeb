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
    event_to_dict,
    memory_to_dict,
    relation_from_dict,
    relation_to_dict,
)
from ..model.codec import imported_event_from_dict, imported_memory_from_dict
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
        parsed = [item for _, item in numbered]
        require(self.scope, ((f"import line {n} record {item[1].id}", memory_labels(item[1]))
                             for n, item in numbered if item[0] == "memory"))
        counts = Transferred()
        with self.store.write() as tx:
            for kind, value in parsed:
                if kind == "memory":
                    if tx.get_memory(self.space, value.id) is not None:
                        counts.skipped += 1
                        continue
                    tx.put_memory(value)
                    counts.records += 1
                elif kind == "relation":
                    if tx.get_relation(self.space, value.id) is not None:
                        counts.skipped += 1
                        continue
                    tx.put_relation(value)
                    counts.relations += 1
                else:
                    if tx.ids_with_prefix("events", self.space, value.id, limit=1) == [value.id]:
                        counts.skipped += 1
                        continue
                    tx.append_event(value)
                    counts.events += 1
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
                return "memory", imported_memory_from_dict(data)
            if item["type"] == "relation":
                return "relation", relation_from_dict(data)
            data["changes"] = [
                {**c, "before": _respace(c.get("before"), self.space), "after": _respace(c.get("after"), self.space)}
                if isinstance(c, dict)
                else c
                for c in data.get("changes", [])
            ]
            return "event", imported_event_from_dict(data)
        except MalformedRecord as err:
            raise BadImportLine(number, str(err)) from None
