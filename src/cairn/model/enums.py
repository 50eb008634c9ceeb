"""Closed vocabularies of the domain model (DESIGN §2).

Every enum is a ``StrEnum`` so its value is exactly the wire/CLI spelling.
"""

from __future__ import annotations

from enum import StrEnum


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
    """Markers a recall result may carry (DESIGN §11, closed set)."""

    CORRECTED = "corrected"
    CONTRADICTED = "contradicted"
    PAST_STATE = "past-state"
    AGING = "aging"
    DORMANT = "dormant"
    CHECKPOINT_PASSED = "checkpoint-passed"
    HISTORICAL_RATIONALE = "historical-rationale"
