"""Pure domain values: Memory, Evidence, Feedback, Relation, Event, Source.

Frozen, slotted dataclasses with no storage concerns. Times are timezone-aware UTC
``datetime`` objects; ``None`` means "absent" (for ``valid_to``: open-ended).
Use :func:`dataclasses.replace` to derive a changed value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from .enums import (
    Actor,
    Basis,
    Certainty,
    Kind,
    Layer,
    Method,
    RelationStatus,
    Role,
    SourceKind,
    Status,
    Verdict,
)


@dataclass(frozen=True, slots=True)
class Evidence:
    """On what a record stands. Assigned by the host, never by proposed claim content."""

    basis: Basis = Basis.UNKNOWN
    method: Method = Method.UNKNOWN
    source_id: str | None = None
    at: datetime | None = None


UNKNOWN_EVIDENCE = Evidence()


@dataclass(frozen=True, slots=True)
class VerdictSlot:
    """The last explicit verdict of one slot (utility or accuracy)."""

    verdict: Verdict
    source_id: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Feedback:
    """The last explicit verdicts on a record: whether it was useful, whether it was accurate."""

    utility: VerdictSlot | None = None  # useful / unhelpful
    accuracy: VerdictSlot | None = None  # accurate / incorrect


NO_FEEDBACK = Feedback()


@dataclass(frozen=True, slots=True)
class Memory:
    """One stored record (a claim or an episode) with its evidence, state and clocks."""

    id: str
    space: str
    origin: str
    kind: Kind
    content: str
    created_at: datetime
    updated_at: datetime
    aliases: tuple[str, ...] = ()
    status: Status = Status.PROVISIONAL
    layer: Layer = Layer.DURABLE
    evidence: Evidence = UNKNOWN_EVIDENCE
    certainty: Certainty | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    reinforced_at: datetime | None = None
    feedback: Feedback = NO_FEEDBACK
    revision: int = 1
    expected_resolution_at: datetime | None = None
    last_confirmed_at: datetime | None = None
    purged_at: datetime | None = None  # set by forget --purge: content erased everywhere
    # Canonical topic/entity labels of the space's vocabulary (validated before any write).
    topics: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()

    @property
    def pinned(self) -> bool:
        return self.layer is Layer.PINNED

    @property
    def active(self) -> bool:
        return self.status in (Status.PROVISIONAL, Status.CONFIRMED)


@dataclass(frozen=True, slots=True)
class Relation:
    """A declared relation from a newer record (``from_id``) to an older one (``to_id``)."""

    id: str
    space: str
    from_id: str
    role: Role
    to_id: str
    created_at: datetime
    status: RelationStatus = RelationStatus.ACTIVE


@dataclass(frozen=True, slots=True)
class Change:
    """One record changed by an event: its state before and after, as wire dicts.

    ``table`` is ``"memory"`` or ``"relation"``; ``before`` is ``None`` for a creation.
    Snapshots are kept as plain dicts so that an event can always be read back, even
    when a later code version would interpret the record differently.
    """

    table: str
    id: str
    before: dict | None
    after: dict | None


@dataclass(frozen=True, slots=True)
class Event:
    """One change to a space, with who made it, why, and the records it changed."""

    id: str
    space: str
    at: datetime
    actor: Actor
    reason: str
    changes: tuple[Change, ...] = ()
    data: dict = field(default_factory=dict)  # structured extras, e.g. {"withheld": 2}

    @property
    def changed_ids(self) -> list[str]:
        return [c.id for c in self.changes]

    @property
    def history_ids(self) -> list[str]:
        """The records whose history this event belongs to: those it changed and, for a
        relation, both records the relation links (each once, in order)."""
        touched: list[object] = list(self.changed_ids)
        for change in self.changes:
            if change.table == "relation":
                for snap in (change.before, change.after):
                    if snap:
                        touched += [snap.get("from"), snap.get("to")]
        return list(dict.fromkeys(t for t in touched if isinstance(t, str)))


@dataclass(frozen=True, slots=True)
class Source:
    """An ingested item (a conversation, an observation, a summary) and its hash."""

    id: str
    space: str
    kind: SourceKind
    sha256: str
    at: datetime
    origin: str = ""
    basis: Basis = Basis.UNKNOWN
    method: Method = Method.UNKNOWN
