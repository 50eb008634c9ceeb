"""Valid time and checkpoints at read time (DESIGN §6).

Owned by the corrections-and-time work (issue 5), called by the recall pipeline (issue 4)
for every candidate. The contract:

    temporal_status(memory, *, now, as_of) -> TemporalStatus

``exclusion`` is ``"not-valid-at"`` when ``as_of`` lies outside the record's validity
interval, else ``None``. ``markers`` may hold ``past-state`` (validity ended before the
reference time: offered as history, never as current) and ``checkpoint-passed``.
A record without an interval and without a checkpoint gets ``(None, ())``: it behaves
exactly as before. Pure: no I/O, no clock reads.

This first version never excludes and never marks.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..model import Memory


@dataclass(frozen=True, slots=True)
class TemporalStatus:
    exclusion: str | None = None
    markers: tuple[str, ...] = ()


def temporal_status(memory: Memory, *, now: datetime, as_of: datetime | None) -> TemporalStatus:
    return TemporalStatus()
