"""Source priority for replacement authority (the table: docs/evidence.md, "Source priority").

An ordinal of source *appropriateness*, not a truth probability. Unknown evidence (legacy
or imported records) is priority 0: never invented authority. Malformed evidence — a
``manual_correction`` not made by the literal correction act — is refused on every write
path; a stored record that still carries it (written before that check) defends itself
with 0, not 4: the rule fails closed.
"""

from __future__ import annotations

from ..model import Basis, Evidence, Kind, Memory, Status, Verdict
from ..model.codec import evidence_problem

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


def evidence_priority(kind: Kind, evidence: Evidence) -> int:
    """:func:`source_priority` of a whole evidence value: malformed evidence counts as unknown."""
    if evidence_problem(evidence.basis, evidence.method):
        return 0
    return source_priority(kind, evidence.basis)


def record_priority(memory: Memory) -> int:
    """Priority an existing record defends itself with against replacement."""
    base = evidence_priority(memory.kind, memory.evidence)
    accuracy = memory.feedback.accuracy
    if memory.status is Status.CONFIRMED or (accuracy is not None and accuracy.verdict is Verdict.ACCURATE):
        return max(base, PROTECTED_PRIORITY)
    return base
