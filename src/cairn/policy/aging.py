"""Read-time aging and dormancy, per kind (:data:`AGING`); docs/evidence.md, "Confirmation".

``freshness = floor + (1 - floor) * 2 ** (-age_days / half_life)`` from the confirmation
anchor ``max(updated_at, reinforced_at)``; negative ages clamp to zero. ``aging`` means
past half the dormancy horizon; ``dormant`` past the horizon. Pinned records have
freshness 1 and never age. Nothing here writes: time never deletes or rewrites a record.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import NamedTuple

from ..model import Kind, Memory, days_between


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class AgingProfile:
    """How fast one kind of record ages: half-life, freshness floor, when it turns dormant."""

    half_life_days: float
    floor: float
    dormant_after_days: float | None  # None: never dormant


AGING = MappingProxyType(
    {
        Kind.PROJECT_STATE: AgingProfile(3, 0.50, 7),
        Kind.FACT: AgingProfile(60, 0.50, 180),
        Kind.DECISION: AgingProfile(120, 0.60, 365),
        Kind.PREFERENCE: AgingProfile(240, 0.70, 730),
        Kind.EPISODE: AgingProfile(90, 0.60, None),  # verbatim turns are history: never dormant
    }
)


class Freshness(NamedTuple):
    anchor: datetime  # the confirmation anchor the clock runs from
    age_days: float
    freshness: float
    aging: bool
    dormant: bool


def confirmation_anchor(memory: Memory) -> datetime:
    """Decay runs from the last confirmation, never moved back by it."""
    if memory.reinforced_at is not None and memory.reinforced_at > memory.updated_at:
        return memory.reinforced_at
    return memory.updated_at


def freshness(memory: Memory, now: datetime) -> Freshness:
    profile = AGING[memory.kind]
    anchor = confirmation_anchor(memory)
    age = max(0.0, days_between(anchor, now))
    if memory.pinned:
        return Freshness(anchor, age, 1.0, aging=False, dormant=False)
    value = profile.floor + (1 - profile.floor) * 2 ** (-age / profile.half_life_days)
    horizon = profile.dormant_after_days
    return Freshness(
        anchor,
        age,
        value,
        aging=horizon is not None and age > horizon / 2,
        dormant=horizon is not None and age > horizon,
    )
