"""Valid time and checkpoints at read time (docs/time.md).

Called by the recall pipeline for every candidate. The contract:

    temporal_status(memory, *, now, as_of, include_future=False) -> TemporalStatus

* ``exclusion`` is ``"not-valid-at"`` when ``as_of`` is given and lies outside the
  record's closed validity interval ``[valid_from, valid_to]`` (an absent end is open).
* Without ``as_of``, ``exclusion`` is ``"not-yet-valid"`` when the validity starts after
  ``now``: a claim about the future is not current. With ``include_future`` (the caller
  asked for history) it is kept instead, marked ``future``.
* ``markers`` may hold ``past-state`` — the validity ended before the reference time
  (``as_of`` when given, else ``now``): the record is offered as history, never as
  current — and ``checkpoint-passed`` — the reference time passed
  ``expected_resolution_at`` and no confirmation (``last_confirmed_at``) came at or after
  the checkpoint. A checkpoint only adds a note: it never excludes, removes, rewrites or
  re-ranks anything (the same candidate keeps its base rank across reference times).
* A record without an interval and without a checkpoint gets ``(None, ())``: it behaves
  exactly as a record did before valid time existed (the fields are optional enhancements).

Pure: no I/O, no clock reads.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from ..model import Marker, Memory

NOT_VALID_AT = "not-valid-at"
NOT_YET_VALID = "not-yet-valid"


class TemporalStatus(NamedTuple):
    exclusion: str | None = None
    markers: tuple[str, ...] = ()


NEUTRAL = TemporalStatus()


def holds_at(memory: Memory, at: datetime) -> bool:
    """Whether ``at`` lies inside the closed interval ``[valid_from, valid_to]``."""
    if memory.valid_from is not None and at < memory.valid_from:
        return False
    return memory.valid_to is None or at <= memory.valid_to


def has_started(memory: Memory, at: datetime) -> bool:
    """Whether the record's validity has begun by ``at`` (no start: always)."""
    return memory.valid_from is None or memory.valid_from <= at


def checkpoint_passed(memory: Memory, at: datetime) -> bool:
    """The reference time passed the checkpoint with no confirmation at or after it."""
    checkpoint = memory.expected_resolution_at
    if checkpoint is None or at <= checkpoint:
        return False
    confirmed = memory.last_confirmed_at
    return confirmed is None or confirmed < checkpoint


def temporal_status(
    memory: Memory, *, now: datetime, as_of: datetime | None, include_future: bool = False
) -> TemporalStatus:
    """Exclusion and markers of one record at the reference time (see module docstring)."""
    if memory.valid_from is None and memory.valid_to is None and memory.expected_resolution_at is None:
        return NEUTRAL  # no interval, no checkpoint: exactly as before
    reference = now if as_of is None else as_of
    if as_of is not None and not holds_at(memory, as_of):
        # Asked about a time the claim did not hold: it is not an answer for that time.
        return TemporalStatus(NOT_VALID_AT)
    markers: list[str] = []
    if as_of is None and not has_started(memory, now):
        # "The team works from Lisbon from September": true later, not now. Offered as
        # current it would be wrong today; asked for history, it comes marked future.
        if not include_future:
            return TemporalStatus(NOT_YET_VALID)
        markers.append(Marker.FUTURE.value)
    if memory.valid_to is not None and memory.valid_to < reference:
        # Validity ended before the reference time: history, never the present.
        markers.append(Marker.PAST_STATE.value)
    if checkpoint_passed(memory, reference):
        markers.append(Marker.CHECKPOINT_PASSED.value)
    return TemporalStatus(None, tuple(markers))
