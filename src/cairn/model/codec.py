"""The JSON wire form of the domain values, and strict parsing back.

``*_to_dict`` produce plain JSON-ready dicts with a stable key order (the export
format and the event snapshots rely on it). ``*_from_dict`` validate every field and
raise :class:`MalformedRecord` with the offending field, so a bad stored row can be
reported and skipped instead of taking the whole store down.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from .enums import (
    Actor,
    Basis,
    Certainty,
    E,
    Kind,
    Layer,
    Method,
    RelationStatus,
    Role,
    SourceKind,
    Status,
    UnknownValue,
    Verdict,
    parse_enum,
)
from .values import Change, Event, Evidence, Feedback, Memory, Relation, Source, VerdictSlot


class MalformedRecord(ValueError):
    """A stored or imported value does not have the shape of the model."""

    def __init__(self, what: str, detail: str) -> None:
        super().__init__(f"{what}: {detail}")
        self.what = what
        self.detail = detail


# -- time ------------------------------------------------------------------------------


class BadTime(ValueError):
    def __init__(self, text: str) -> None:
        super().__init__(f"not an ISO-8601 time: {_shown(text)}")
        self.text = text


def parse_time(text: str) -> datetime:
    """Parse ISO-8601 (date, or date-time with optional zone; ``Z`` allowed) into UTC.

    A time without a zone is taken as UTC. Impossible dates raise :class:`BadTime`.
    """
    if not isinstance(text, str) or not text.strip():
        raise BadTime(str(text))
    return _parse_time(text)


@lru_cache(maxsize=4096)  # pure; a record holds the same time in several fields
def _parse_time(text: str) -> datetime:
    raw = text.strip()
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"
    try:
        value = datetime.fromisoformat(raw)
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC)
    except (ValueError, OverflowError):
        # OverflowError: a zone offset pushing the time past year 1 or 9999 in UTC.
        raise BadTime(text) from None


def format_time(value: datetime) -> str:
    """UTC, microseconds kept only when present, always with a ``Z`` suffix."""
    if value.tzinfo is UTC:
        return _format_utc(value)
    value = value.astimezone(UTC)
    spec = "microseconds" if value.microsecond else "seconds"
    return value.replace(tzinfo=None).isoformat(timespec=spec) + "Z"


@lru_cache(maxsize=4096)  # pure; a record holds the same time in several fields
def _format_utc(value: datetime) -> str:
    spec = "microseconds" if value.microsecond else "seconds"
    return value.replace(tzinfo=None).isoformat(timespec=spec) + "Z"


def _time(value: datetime | None) -> str | None:
    return None if value is None else format_time(value)


def days_between(start: datetime, end: datetime) -> float:
    return (end - start) / timedelta(days=1)


# -- to dict ---------------------------------------------------------------------------


def evidence_to_dict(e: Evidence) -> dict[str, Any]:
    return {"basis": e.basis.value, "method": e.method.value, "source_id": e.source_id, "at": _time(e.at)}


def _slot_to_dict(s: VerdictSlot | None) -> dict[str, Any] | None:
    return None if s is None else {"verdict": s.verdict.value, "source_id": s.source_id, "at": _time(s.at)}


def memory_to_dict(m: Memory) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": m.id,
        "space": m.space,
        "origin": m.origin,
        "kind": m.kind.value,
        "content": m.content,
        "aliases": list(m.aliases),
        "status": m.status.value,
        "layer": m.layer.value,
        "evidence": evidence_to_dict(m.evidence),
        "certainty": None if m.certainty is None else m.certainty.value,
        "valid_from": _time(m.valid_from),
        "valid_to": _time(m.valid_to),
        "created_at": _time(m.created_at),
        "updated_at": _time(m.updated_at),
        "reinforced_at": _time(m.reinforced_at),
        "feedback": {"utility": _slot_to_dict(m.feedback.utility), "accuracy": _slot_to_dict(m.feedback.accuracy)},
        "revision": m.revision,
        "expected_resolution_at": _time(m.expected_resolution_at),
        "last_confirmed_at": _time(m.last_confirmed_at),
        "purged_at": _time(m.purged_at),
    }
    # Labels appear only when a record has them, so unlabelled records keep their form.
    if m.topics:
        doc["topics"] = list(m.topics)
    if m.entities:
        doc["entities"] = list(m.entities)
    return doc


def relation_to_dict(r: Relation) -> dict[str, Any]:
    return {
        "id": r.id,
        "space": r.space,
        "from": r.from_id,
        "role": r.role.value,
        "to": r.to_id,
        "created_at": _time(r.created_at),
        "status": r.status.value,
    }


def change_to_dict(c: Change) -> dict[str, Any]:
    return {"table": c.table, "id": c.id, "before": c.before, "after": c.after}


def event_to_dict(e: Event) -> dict[str, Any]:
    return {
        "id": e.id,
        "space": e.space,
        "at": _time(e.at),
        "actor": e.actor.value,
        "reason": e.reason,
        "changes": [change_to_dict(c) for c in e.changes],
        "data": e.data,
    }


def source_to_dict(s: Source) -> dict[str, Any]:
    return {
        "id": s.id,
        "space": s.space,
        "kind": s.kind.value,
        "sha256": s.sha256,
        "at": _time(s.at),
        "origin": s.origin,
        "basis": s.basis.value,
        "method": s.method.value,
    }


# -- from dict -------------------------------------------------------------------------


def _shown(value: object, limit: int = 80) -> str:
    """A value as a decoding error quotes it: its repr, at most ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def _req(d: Any, key: str, what: str) -> Any:
    if not isinstance(d, dict):
        raise MalformedRecord(what, "not an object")
    if key not in d:
        raise MalformedRecord(what, f"missing field {key!r}")
    return d[key]


def _str(d: dict, key: str, what: str) -> str:
    value = _req(d, key, what)
    if not isinstance(value, str):
        raise MalformedRecord(what, f"field {key!r} is not a string")
    return value


def _opt_str(d: dict, key: str, what: str) -> str | None:
    return None if d.get(key) is None else _str(d, key, what)


def _enum(cls: type[E], d: dict, key: str, what: str) -> E:
    value = _req(d, key, what)
    try:
        return parse_enum(cls, value, key)
    except UnknownValue:
        raise MalformedRecord(what, f"unknown {key} {_shown(value)}") from None


def _opt_enum(cls: type[E], d: dict, key: str, what: str) -> E | None:
    return None if d.get(key) is None else _enum(cls, d, key, what)


def _at(d: dict, key: str, what: str) -> datetime:
    """A required time."""
    value = _req(d, key, what)
    if value is None:
        raise MalformedRecord(what, f"field {key!r} is empty")
    try:
        return parse_time(value)
    except BadTime:
        raise MalformedRecord(what, f"impossible time in {key!r}: {_shown(value)}") from None


def _when(d: dict, key: str, what: str) -> datetime | None:
    """An optional time: absent or null is ``None``."""
    return None if d.get(key) is None else _at(d, key, what)


def evidence_from_dict(d: Any) -> Evidence:
    if d is None:
        return Evidence()
    what = "evidence"
    if not isinstance(d, dict):
        raise MalformedRecord(what, "not an object")
    return Evidence(
        basis=_opt_enum(Basis, d, "basis", what) or Basis.UNKNOWN,
        method=_opt_enum(Method, d, "method", what) or Method.UNKNOWN,
        source_id=_opt_str(d, "source_id", what),
        at=_when(d, "at", what),
    )


def _slot_from_dict(d: Any, slot: str) -> VerdictSlot | None:
    if d is None:
        return None
    what = f"feedback.{slot}"
    verdict = _enum(Verdict, d, "verdict", what)
    if verdict.slot != slot:
        raise MalformedRecord(what, f"verdict {verdict.value!r} does not belong in {slot}")
    return VerdictSlot(verdict=verdict, source_id=_str(d, "source_id", what) or "", at=_at(d, "at", what))


def memory_from_dict(d: Any) -> Memory:
    what = f"memory {_shown(d.get('id'))}" if isinstance(d, dict) else "memory"
    fb = d.get("feedback") if isinstance(d, dict) else None
    if fb is not None and not isinstance(fb, dict):
        raise MalformedRecord(what, "feedback is not an object")
    aliases = d.get("aliases", []) if isinstance(d, dict) else None
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise MalformedRecord(what, "aliases is not a list of strings")
    labels = {}
    for key in ("topics", "entities"):
        value = d.get(key) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise MalformedRecord(what, f"{key} is not a list of strings")
        labels[key] = tuple(value)
    revision = _req(d, "revision", what)
    if not isinstance(revision, int) or isinstance(revision, bool) or revision < 1:
        raise MalformedRecord(what, f"bad revision {_shown(revision)}")
    memory = Memory(
        id=_str(d, "id", what),
        space=_str(d, "space", what),
        origin=_str(d, "origin", what) or "",
        kind=_enum(Kind, d, "kind", what),
        content=_str(d, "content", what),
        aliases=tuple(aliases),
        status=_enum(Status, d, "status", what),
        layer=_enum(Layer, d, "layer", what),
        evidence=evidence_from_dict(d.get("evidence")),
        certainty=_opt_enum(Certainty, d, "certainty", what),
        valid_from=_when(d, "valid_from", what),
        valid_to=_when(d, "valid_to", what),
        created_at=_at(d, "created_at", what),
        updated_at=_at(d, "updated_at", what),
        reinforced_at=_when(d, "reinforced_at", what),
        feedback=Feedback(
            utility=_slot_from_dict((fb or {}).get("utility"), "utility"),
            accuracy=_slot_from_dict((fb or {}).get("accuracy"), "accuracy"),
        ),
        revision=revision,
        expected_resolution_at=_when(d, "expected_resolution_at", what),
        last_confirmed_at=_when(d, "last_confirmed_at", what),
        purged_at=_when(d, "purged_at", what),
        topics=labels["topics"],
        entities=labels["entities"],
    )
    if memory.valid_from and memory.valid_to and memory.valid_to < memory.valid_from:
        raise MalformedRecord(what, "valid_to lies before valid_from")
    return memory


def relation_from_dict(d: Any) -> Relation:
    what = f"relation {_shown(d.get('id'))}" if isinstance(d, dict) else "relation"
    return Relation(
        id=_str(d, "id", what),
        space=_str(d, "space", what),
        from_id=_str(d, "from", what),
        role=_enum(Role, d, "role", what),
        to_id=_str(d, "to", what),
        created_at=_at(d, "created_at", what),
        status=_opt_enum(RelationStatus, d, "status", what) or RelationStatus.ACTIVE,
    )


def change_from_dict(d: Any) -> Change:
    what = "event change"
    table = _str(d, "table", what)
    if table not in ("memory", "relation"):
        raise MalformedRecord(what, f"unknown table {table!r}")
    before, after = d.get("before"), d.get("after")
    for snap in (before, after):
        if snap is not None and not isinstance(snap, dict):
            raise MalformedRecord(what, "snapshot is not an object")
    return Change(table=table, id=_str(d, "id", what), before=before, after=after)


def event_from_dict(d: Any) -> Event:
    what = f"event {_shown(d.get('id'))}" if isinstance(d, dict) else "event"
    changes = _req(d, "changes", what)
    if not isinstance(changes, list):
        raise MalformedRecord(what, "changes is not a list")
    data = d.get("data") or {}
    if not isinstance(data, dict):
        raise MalformedRecord(what, "data is not an object")
    return Event(
        id=_str(d, "id", what),
        space=_str(d, "space", what),
        at=_at(d, "at", what),
        actor=_enum(Actor, d, "actor", what),
        reason=_str(d, "reason", what),
        changes=tuple(change_from_dict(c) for c in changes),
        data=data,
    )


def source_from_dict(d: Any) -> Source:
    what = f"source {_shown(d.get('id'))}" if isinstance(d, dict) else "source"
    return Source(
        id=_str(d, "id", what),
        space=_str(d, "space", what),
        kind=_enum(SourceKind, d, "kind", what),
        sha256=_str(d, "sha256", what),
        at=_at(d, "at", what),
        origin=_opt_str(d, "origin", what) or "",
        basis=_opt_enum(Basis, d, "basis", what) or Basis.UNKNOWN,
        method=_opt_enum(Method, d, "method", what) or Method.UNKNOWN,
    )


# -- evidence coming from outside the engine ----------------------------------------------


def evidence_problem(basis: Basis, method: Method) -> str | None:
    """Why this basis/method pair is malformed, or ``None`` when it may be written.

    ``manual_correction`` carries the highest replacement authority, and only the literal
    correction act (a person typing the correction: method ``manual``) may claim it. Any
    other method with that basis is a forgery or a mislabelling, refused on every write
    path (remember, apply, import) rather than downgraded, so nothing is stored that the
    caller did not mean.
    """
    if basis is Basis.MANUAL_CORRECTION and method is not Method.MANUAL:
        return f"basis manual_correction is the literal correction act: its method must be manual, not {method.value}"
    return None


def imported_memory_from_dict(d: Any) -> Memory:
    """:func:`memory_from_dict` for a record arriving from outside the store (import):
    the stored form is read leniently, an imported one must also carry well-formed evidence."""
    memory = memory_from_dict(d)
    problem = evidence_problem(memory.evidence.basis, memory.evidence.method)
    if problem:
        raise MalformedRecord(f"memory {memory.id!r}", problem)
    return memory


def imported_event_from_dict(d: Any) -> Event:
    """:func:`event_from_dict` for an imported event: its memory snapshots are what undo
    restores, so they too must carry well-formed evidence."""
    event = event_from_dict(d)
    for change in event.changes:
        for snapshot in (change.before, change.after):
            if change.table == "memory" and isinstance(snapshot, dict) and isinstance(snapshot.get("evidence"), dict):
                evidence = evidence_from_dict(snapshot["evidence"])
                problem = evidence_problem(evidence.basis, evidence.method)
                if problem:
                    raise MalformedRecord(f"event {event.id!r}", f"snapshot of {change.id}: {problem}")
    return event
