"""Maintenance recommendations from reinforcement summaries: pure rules, no writes.

The rules (each a golden test in tests/trust/test_maintenance.py):

====================================================  ==========================================
condition                                             recommendation
====================================================  ==========================================
``explicit_correction >= 1``                          ``review_memory`` + ``decrease_stability``
``explicit_correction >= 2``                          also ``mark_contested_suggestion``
``explicit_reinforcement >= 2``, no corrections       ``increase_stability`` (up to ``stable``)
``implicit_success >= 5``, no corrections             ``flag_for_review``, capped at ``semi-stable``
``neutral_exposure`` only                             nothing
overdue for review                                    ``review_due`` + ``confidence_decay``
====================================================  ==========================================

Stability is ``low`` / ``semi-stable`` / ``stable``; each level has a review cadence and a
confidence decay per overdue cycle. ``decrease_stability`` and ``mark_contested_suggestion``
always need review; only ``confidence_decay`` and an ``increase_stability`` from explicit
reinforcement are low risk, which is all ``--auto`` applies.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import NamedTuple

STABILITIES = ("low", "semi-stable", "stable")
DEFAULT_STABILITY = "semi-stable"
CADENCE_DAYS = {"low": 30, "semi-stable": 90, "stable": 180}
DECAY = {"low": 0.15, "semi-stable": 0.15, "stable": 0.05}
CADENCE = {name: timedelta(days=days) for name, days in CADENCE_DAYS.items()}
LOW_RISK = frozenset({"confidence_decay", "increase_stability"})


class RecordState(NamedTuple):
    """What the rules read about one record."""

    id: str
    stability: str  # one of STABILITIES
    anchor: datetime  # the last review (or creation/confirmation): the cadence counts from here
    outcomes: tuple[str, ...]  # its reinforcement outcomes, undone ones left out


class Op(NamedTuple):
    """One recommended operation; ``risk`` is ``low`` or ``review``."""

    op: str
    id: str
    reason: str
    risk: str
    stability_from: str | None = None
    stability_to: str | None = None
    decay: float = 0.0

    def to_dict(self) -> dict:
        doc: dict = {"op": self.op, "id": self.id, "reason": self.reason, "risk": self.risk}
        if self.stability_to is not None:
            doc["from"], doc["to"] = self.stability_from, self.stability_to
        if self.decay:
            doc["decay"] = self.decay
        return doc


_NONE: Counter[str] = Counter()  # read only


def _step(stability: str, by: int, cap: str = "stable") -> str:
    i = max(0, min(STABILITIES.index(cap), STABILITIES.index(stability) + by))
    return STABILITIES[i]


def overdue_cycles(state: RecordState, now: datetime) -> int:
    cadence = CADENCE[state.stability]
    if now <= state.anchor + cadence:
        return 0
    return int((now - state.anchor) / cadence)


def recommend(state: RecordState, now: datetime) -> list[Op]:
    """The recommendations for one record, in table order."""
    if not state.outcomes and now <= state.anchor + CADENCE[state.stability]:
        return []  # the common case, decided without counting anything
    n: Counter[str] = Counter(state.outcomes) if state.outcomes else _NONE
    ops: list[Op] = []
    corrections = n["explicit_correction"]
    if corrections >= 1:
        ops.append(Op("review_memory", state.id, f"{corrections} explicit correction(s)", "review"))
        lower = _step(state.stability, -1)
        if lower != state.stability:
            ops.append(Op("decrease_stability", state.id, "explicit correction", "review", state.stability, lower))
    if corrections >= 2:
        ops.append(Op("mark_contested_suggestion", state.id, f"{corrections} explicit corrections", "review"))
    if not corrections and n["explicit_reinforcement"] >= 2:
        higher = _step(state.stability, +1)
        if higher != state.stability:
            ops.append(Op("increase_stability", state.id, f"{n['explicit_reinforcement']} explicit reinforcements",
                          "low", state.stability, higher))
    if not corrections and n["implicit_success"] >= 5:
        capped = _step(state.stability, +1, cap="semi-stable")
        ops.append(Op("flag_for_review", state.id, f"{n['implicit_success']} implicit successes", "review",
                      state.stability, capped if capped != state.stability else None))
    cycles = overdue_cycles(state, now)
    if cycles:
        ops.append(Op("review_due", state.id, f"{cycles} review cycle(s) overdue ({state.stability})", "review"))
        ops.append(Op("confidence_decay", state.id, f"{cycles} overdue cycle(s) at {state.stability}", "low",
                      decay=round(cycles * DECAY[state.stability], 4)))
    return ops


def plan(states: Iterable[RecordState], now: datetime) -> list[Op]:
    return [op for s in states for op in recommend(s, now)]


def auto_applicable(op: Op) -> bool:
    """``--auto`` applies decay and stability increases only: never a decrease or a contest."""
    return op.op in LOW_RISK
