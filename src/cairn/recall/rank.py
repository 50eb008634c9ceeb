"""Ordering of the candidates that passed the gates (docs/recall.md, stage 6).

    rankScore = relevance × freshness × (1 + 0.04 · sourcePriority) × utility × accuracy

with utility 1.05 (useful) / 0.90 (unhelpful) and accuracy 1.05 (accurate) / 0.50
(incorrect; those are already excluded, the factor is defensive). Equal rank scores are
ordered by pin, then the newer confirmation anchor, then id. Records without evidence get
the neutral evidence factor (priority 0), never invented authority. Confidence is not a
factor: it is reported beside relevance and never re-orders anything.

Pure: a function of the record, its raw relevance and ``now``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from ..model import Memory, Verdict
from ..policy.aging import Freshness, freshness
from ..policy.priority import evidence_priority


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class RankProfile:
    """The factors that re-order relevant matches: evidence and feedback."""

    evidence_step: float = 0.04
    useful: float = 1.05
    unhelpful: float = 0.90
    accurate: float = 1.05
    incorrect: float = 0.50


RANK = RankProfile()


class RankFactors(NamedTuple):
    relevance: float
    freshness: float
    aging: bool
    dormant: bool
    priority: int
    evidence_weight: float
    utility: float
    accuracy: float
    rank_score: float
    pinned: bool
    anchor: datetime

    def to_dict(self) -> dict:
        return {
            "freshness": round(self.freshness, 4),
            "priority": self.priority,
            "evidence_weight": round(self.evidence_weight, 4),
            "utility": self.utility,
            "accuracy": self.accuracy,
            "aging": self.aging,
            "dormant": self.dormant,
            "pinned": self.pinned,
        }


def utility_factor(memory: Memory, profile: RankProfile = RANK) -> float:
    slot = memory.feedback.utility
    if slot is None:
        return 1.0
    return {Verdict.USEFUL: profile.useful, Verdict.UNHELPFUL: profile.unhelpful}.get(slot.verdict, 1.0)


def accuracy_factor(memory: Memory, profile: RankProfile = RANK) -> float:
    slot = memory.feedback.accuracy
    if slot is None:
        return 1.0
    return {Verdict.ACCURATE: profile.accurate, Verdict.INCORRECT: profile.incorrect}.get(slot.verdict, 1.0)


def rank_factors(memory: Memory, relevance: float, now: datetime, profile: RankProfile = RANK, *,
                 fresh: Freshness | None = None) -> RankFactors:
    """``fresh``: ``freshness(memory, now)`` when the caller has it already (exclusion
    computed it to judge dormancy)."""
    if fresh is None:
        fresh = freshness(memory, now)
    # The source priority of the evidence, not the replacement protection of a confirmed
    # record: feedback must not raise evidence weight.
    priority = evidence_priority(memory.kind, memory.evidence)
    weight = 1 + profile.evidence_step * priority
    utility, accuracy = utility_factor(memory, profile), accuracy_factor(memory, profile)
    return RankFactors(
        relevance=relevance,
        freshness=fresh.freshness,
        aging=fresh.aging,
        dormant=fresh.dormant,
        priority=priority,
        evidence_weight=weight,
        utility=utility,
        accuracy=accuracy,
        rank_score=relevance * fresh.freshness * weight * utility * accuracy,
        pinned=memory.pinned,
        anchor=fresh.anchor,
    )


def order_key(memory_id: str, factors: RankFactors) -> tuple:
    """Sort key: higher rank score, then pinned, then newer anchor, then id."""
    return (-round(factors.rank_score, 12), not factors.pinned, -factors.anchor.timestamp(), memory_id)
