"""Confidence: how far to trust one record, composed deterministically from named grounds.

A pure function of the record, the relations pointing at it, its reinforcement events,
the confidence decay maintenance has applied to it, and ``now``. It returns a level
(``low`` / ``medium`` / ``high``) with every ground that moved it, each named with its
contribution, never a bare number. Confidence is a separate value from relevance: recall
attaches it to results after ranking and nothing reads it back to order them.

Independent corroboration: a positive reinforcement event counts as a corroboration only
when both its source and its day are new (the record's own evidence source and day count
as seen). Repetition of one source, or several sources on one day, earns nothing as
corroboration; such events still count as plain reinforcement, at a lower weight.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from ..model import Basis, Certainty, Memory, Method, Relation, Role, Status, Verdict


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class ConfidenceProfile:
    """Every constant of the composition, in one place (docs/trust.md quotes it)."""

    base: float = 0.5
    high_at: float = 0.7  # score >= high_at: high
    medium_at: float = 0.4  # score >= medium_at: medium; below: low
    certainty: tuple[tuple[str, float], ...] = (("high", 0.15), ("medium", 0.0), ("low", -0.15))
    basis: tuple[tuple[str, float], ...] = (
        ("manual_correction", 0.2), ("user_statement", 0.1), ("tool_observation", 0.1),
        ("transcript", 0.0), ("summary", -0.05), ("unknown", -0.1),
    )
    model_method: float = -0.05  # a claim a model extracted
    corroboration: float = 0.1  # per independent corroboration
    corroboration_cap: float = 0.3
    reinforcement_unit: float = 0.05  # times the summed weight of non-corroborating events
    reinforcement_cap: float = 0.15
    corrected: float = -0.4  # a newer record corrects or supersedes it
    contradicted: float = -0.2
    conflicted: float = -0.4
    ended: float = -0.2  # valid_to has passed
    not_yet_valid: float = -0.1
    accurate: float = 0.2
    incorrect: float = -0.5


CONFIDENCE = ConfidenceProfile()


class Support(NamedTuple):
    """One reinforcement event as confidence reads it."""

    outcome: str
    weight: float
    at: datetime
    source: str | None = None


class Ground(NamedTuple):
    name: str
    contribution: float
    detail: str


class Confidence(NamedTuple):
    level: str
    score: float
    grounds: tuple[Ground, ...]

    def to_dict(self) -> dict:
        return {"level": self.level, "score": round(self.score, 3),
                "grounds": [{"name": g.name, "contribution": round(g.contribution, 3), "detail": g.detail}
                            for g in self.grounds]}


def corroborations(memory: Memory, supports: Iterable[Support]) -> tuple[int, float]:
    """(independent corroborations, summed weight of the other reinforcement events)."""
    sources = {memory.evidence.source_id} if memory.evidence.source_id else set()
    first = memory.evidence.at or memory.created_at
    days = {first.date()}
    count, rest = 0, 0.0
    for s in sorted(supports, key=lambda s: s.at):
        if s.weight > 0 and s.source and s.source not in sources and s.at.date() not in days:
            sources.add(s.source)
            days.add(s.at.date())
            count += 1
        else:
            rest += s.weight
    return count, rest


def compose(
    memory: Memory,
    *,
    now: datetime,
    incoming: Sequence[Relation] = (),
    supports: Sequence[Support] = (),
    decay: float = 0.0,
    profile: ConfidenceProfile = CONFIDENCE,
) -> Confidence:
    """The confidence of ``memory`` at ``now``. ``incoming``: active relations whose
    ``to_id`` is this record; ``decay``: the confidence maintenance has taken off (>= 0)."""
    grounds: list[Ground] = [Ground("base", profile.base, "every record starts here")]
    add = grounds.append
    if memory.certainty is not None:
        add(Ground("asserted-certainty", dict(profile.certainty)[Certainty(memory.certainty).value],
                   f"the source said {memory.certainty.value}"))
    basis = Basis(memory.evidence.basis).value
    add(Ground("evidence-basis", dict(profile.basis).get(basis, 0.0), basis))
    if memory.evidence.method is Method.MODEL:
        add(Ground("evidence-method", profile.model_method, "extracted by a model"))
    count, rest = corroborations(memory, supports)
    if count:
        add(Ground("corroborations", min(profile.corroboration_cap, count * profile.corroboration),
                   f"{count} independent (distinct source, distinct day)"))
    if rest:
        value = max(-profile.reinforcement_cap, min(profile.reinforcement_cap, rest * profile.reinforcement_unit))
        add(Ground("reinforcement", value, f"summed weight {rest:+.1f}"))
    roles = {r.role for r in incoming if r.to_id == memory.id}
    if roles & {Role.CORRECTS, Role.SUPERSEDES}:
        add(Ground("corrected", profile.corrected, "a newer record corrects or supersedes it"))
    if Role.CONTRADICTS in roles:
        add(Ground("contradicted", profile.contradicted, "a record contradicts it"))
    if memory.status is Status.CONFLICTED:
        add(Ground("conflicted", profile.conflicted, "quarantined"))
    if memory.valid_to is not None and memory.valid_to <= now:
        add(Ground("validity-ended", profile.ended, f"stopped holding {memory.valid_to.date().isoformat()}"))
    elif memory.valid_from is not None and memory.valid_from > now:
        add(Ground("not-yet-valid", profile.not_yet_valid, f"holds from {memory.valid_from.date().isoformat()}"))
    accuracy = memory.feedback.accuracy
    if accuracy is not None:
        value = profile.accurate if accuracy.verdict is Verdict.ACCURATE else profile.incorrect
        add(Ground(f"verdict-{accuracy.verdict.value}", value, f"from {accuracy.source_id}"))
    if decay > 0:
        add(Ground("overdue-decay", -decay, "applied by maintenance for overdue reviews"))
    score = max(0.0, min(1.0, sum(g.contribution for g in grounds)))
    level = "high" if score >= profile.high_at else "medium" if score >= profile.medium_at else "low"
    return Confidence(level, score, tuple(grounds))
