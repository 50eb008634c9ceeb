"""Source priority for replacement authority (the table: docs/evidence.md, "Source priority").

An ordinal of source *appropriateness*, not a truth probability. Unknown evidence (legacy
or imported records) is priority 0: never invented authority.
"""

from __future__ import annotations

from ..model import Basis, Kind, Memory, Status, Verdict

PROTECTED_PRIORITY = 4  # confirmed records and `accurate` verdicts


def source_priority(kind: Kind, basis: Basis) -> int:
    match basis:
        case Basis.SUMMARY:
            return 1
        case Basis.USER_STATEMENT:
            return 3 if kind in (Kind.PREFERENCE, Kind.DECISION) else 2
        case Basis.TOOL_OBSERVATION:
            # Only observations about project state carry authority; elsewhere a tool
            # output is no better than an unknown source.
            return 3 if kind is Kind.PROJECT_STATE else 0
        case Basis.MANUAL_CORRECTION:
            return 4
        case _:
            return 0


def record_priority(memory: Memory) -> int:
    """Priority an existing record defends itself with against replacement."""
    base = source_priority(memory.kind, memory.evidence.basis)
    accuracy = memory.feedback.accuracy
    if memory.status is Status.CONFIRMED or (accuracy is not None and accuracy.verdict is Verdict.ACCURATE):
        return max(base, PROTECTED_PRIORITY)
    return base
