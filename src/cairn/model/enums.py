"""Closed vocabularies of the domain model, and the one way to read a value into them.

Every enum is a ``StrEnum`` so its value is exactly the wire/CLI spelling.
:func:`parse_enum` turns a spelling (or a member) into a member and raises
:class:`UnknownValue`, carrying the accepted spellings, for anything else; each layer
translates that into its own error (``MalformedRecord`` for stored data, ``InvalidInput``
for a caller's argument).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import TypeVar

E = TypeVar("E", bound=StrEnum)


class UnknownValue(ValueError):
    """A value outside a closed vocabulary. ``str(err)`` reads
    ``unknown <field> '<value>' (one of: a, b, c)``."""

    def __init__(self, field: str, value: object, allowed: tuple[str, ...]) -> None:
        super().__init__(f"unknown {field} {value!r} (one of: {', '.join(allowed)})")
        self.field = field
        self.value = value
        self.allowed = allowed


def parse_enum(cls: type[E], value: object, field: str, *, allowed: Iterable[E] | None = None) -> E:
    """``value`` as a member of ``cls``: a member passes through, a spelling is looked up by
    value. ``allowed`` narrows the members accepted (default: all of them); ``field`` names
    the value in the error."""
    member: E | None = None
    if isinstance(value, str):  # members are strings too; no other type spells a value
        # The value map directly: calling the class costs several frames per decoded field.
        member = cls._value2member_map_.get(value)  # type: ignore[assignment]
    # Stored records are decoded through here, so the common case (a known value, every
    # member allowed) returns without building the list of choices.
    if member is not None and allowed is None:
        return member
    choices = tuple(cls) if allowed is None else tuple(allowed)
    if member is None or member not in choices:
        raise UnknownValue(field, value, tuple(c.value for c in choices))
    return member


class Kind(StrEnum):
    FACT = "fact"
    PREFERENCE = "preference"
    DECISION = "decision"
    PROJECT_STATE = "project_state"
    EPISODE = "episode"  # a verbatim excerpt of a source, e.g. one conversation turn


class Status(StrEnum):
    PROVISIONAL = "provisional"
    CONFIRMED = "confirmed"
    CONFLICTED = "conflicted"  # quarantined
    RETIRED = "retired"  # by an applied retention policy
    FORGOTTEN = "forgotten"


class Layer(StrEnum):
    DURABLE = "durable"
    PINNED = "pinned"


class Basis(StrEnum):
    UNKNOWN = "unknown"
    SUMMARY = "summary"
    USER_STATEMENT = "user_statement"
    TOOL_OBSERVATION = "tool_observation"
    MANUAL_CORRECTION = "manual_correction"
    TRANSCRIPT = "transcript"


class Method(StrEnum):
    UNKNOWN = "unknown"
    LOCAL = "local"
    MODEL = "model"
    AGENT = "agent"
    MANUAL = "manual"


class Certainty(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class Actor(StrEnum):
    MANUAL = "manual"
    AGENT = "agent"
    MODEL = "model"
    POLICY = "policy"
    SYSTEM = "system"


class Role(StrEnum):
    """Relation roles, always declared from the newer record to the older one."""

    CORRECTS = "corrects"
    SUPERSEDES = "supersedes"
    CONTRADICTS = "contradicts"
    QUALIFIES = "qualifies"


class RelationStatus(StrEnum):
    ACTIVE = "active"
    REMOVED = "removed"  # by undo of its declaration


class Verdict(StrEnum):
    USEFUL = "useful"
    UNHELPFUL = "unhelpful"
    ACCURATE = "accurate"
    INCORRECT = "incorrect"

    @property
    def slot(self) -> str:
        """Which of the two last-verdict slots this verdict occupies."""
        return "utility" if self in (Verdict.USEFUL, Verdict.UNHELPFUL) else "accuracy"


class SourceKind(StrEnum):
    SUMMARY = "summary"
    CONVERSATION = "conversation"
    PROGRESS = "progress"
    MANUAL = "manual"


class Marker(StrEnum):
    """Markers a recall result may carry (a closed set; docs/recall.md explains each)."""

    CORRECTED = "corrected"
    CONTRADICTED = "contradicted"
    PAST_STATE = "past-state"
    AGING = "aging"
    DORMANT = "dormant"
    CHECKPOINT_PASSED = "checkpoint-passed"
    HISTORICAL_RATIONALE = "historical-rationale"
    FUTURE = "future"  # validity starts after the reference time (shown only under include_history)
