"""Replacement authority: may incoming evidence overwrite a record? (docs/evidence.md)

Pure: every function takes the old record, the incoming evidence (with its source kind)
and ``now``, and returns a decision from a small closed union; the engine applies it.

    Replace(reason, old_priority, new_priority)   the new content overwrites the record
    Reaffirm(refresh, reason)                     same content: refresh the evidence date or not
    Withhold(reason, old_priority, new_priority)  the old record stands; the variant is quarantined
    Refuse(reason)                                 the proposal is invalid (a kind change)

Order of the checks, and why it is the order:

1. a kind change is refused outright: changing kind would escape the evidence policy;
2. identical content is a reaffirmation, never a conflict;
3. a pinned record is never replaced by a batch (nothing overrides pinning);
4. an older source never replaces a newer record (nothing overrides source-time order);
5. the incoming source priority must reach the record's (ties replace: that is how a
   summary updates a summary);
6. two exceptions, which can only lift a withhold of step 5:
   a current explicit user statement may supersede earlier testimony, and a fresh tool
   observation from a progress source may update project state after a manual correction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from ..model import Basis, Evidence, Kind, Memory, SourceKind
from .priority import evidence_priority, record_priority

# Testimony: evidence that is the user's own word. A current explicit user statement may
# supersede it even where confirmation or an `accurate` verdict lifted it to 4.
TESTIMONY = frozenset({Basis.USER_STATEMENT, Basis.MANUAL_CORRECTION})

# "Fresh" progress: observed no longer ago than one project_state half-life.
FRESH_PROGRESS = timedelta(days=3)

WithholdReason = Literal["pinned", "older-source", "weaker"]
ReplaceReason = Literal["priority", "user-correction", "fresh-progress"]


@dataclass(frozen=True, slots=True)
class Incoming:
    """What a proposed claim stands on: host-assigned evidence and the source's kind."""

    evidence: Evidence
    source_kind: SourceKind

    @property
    def at(self) -> datetime:
        assert self.evidence.at is not None, "incoming evidence always carries its time"
        return self.evidence.at


@dataclass(frozen=True, slots=True)
class Replace:
    reason: ReplaceReason
    old_priority: int
    new_priority: int


@dataclass(frozen=True, slots=True)
class Reaffirm:
    refresh: bool  # move the evidence (and updated_at) to the incoming source
    reason: str  # why (not) refreshed: refreshed | summary | pinned | older-source | weaker


@dataclass(frozen=True, slots=True)
class Withhold:
    reason: WithholdReason
    old_priority: int
    new_priority: int


@dataclass(frozen=True, slots=True)
class Refuse:
    reason: str


Decision = Replace | Reaffirm | Withhold | Refuse


def decide(old: Memory, claim_kind: Kind, same_content: bool, incoming: Incoming, now: datetime) -> Decision:
    """Decide what a claim that names ``old`` in ``replaces`` may do to it."""
    if claim_kind is not old.kind:
        return Refuse(f"a replacement may not change kind ({old.kind.value} -> {claim_kind.value})")
    outcome = authority(old, claim_kind, incoming, now)
    if same_content:
        # Re-stating the same claim is an explicit "this still holds". It refreshes the
        # evidence date only when the source could have replaced the record anyway, and
        # never for a summary: repeated summaries may share one root observation.
        if incoming.source_kind is SourceKind.SUMMARY:
            return Reaffirm(False, "summary")
        if isinstance(outcome, Withhold):
            return Reaffirm(False, outcome.reason)
        return Reaffirm(True, "refreshed")
    return outcome


def authority(old: Memory, kind: Kind, incoming: Incoming, now: datetime) -> Replace | Withhold:
    """May ``incoming`` overwrite ``old`` (content aside)? Steps 3-6 of the module order."""
    old_p = record_priority(old)
    new_p = evidence_priority(kind, incoming.evidence)
    if old.pinned:
        return Withhold("pinned", old_p, new_p)
    if incoming.at < old.updated_at:
        return Withhold("older-source", old_p, new_p)
    if new_p >= old_p:
        return Replace("priority", old_p, new_p)
    if _user_correction(old, incoming):
        return Replace("user-correction", old_p, new_p)
    if _fresh_progress(old, incoming, now):
        return Replace("fresh-progress", old_p, new_p)
    return Withhold("weaker", old_p, new_p)


def _user_correction(old: Memory, incoming: Incoming) -> bool:
    """A current explicit user statement (from a conversation) supersedes earlier testimony.

    Triggered only when the record itself stands on the user's word; a tool observation
    or a summary is not testimony and keeps its protection against this path.
    """
    return (
        incoming.source_kind is SourceKind.CONVERSATION
        and incoming.evidence.basis is Basis.USER_STATEMENT
        and old.evidence.basis in TESTIMONY
    )


def _fresh_progress(old: Memory, incoming: Incoming, now: datetime) -> bool:
    """A fresh tool observation from a progress source may update project state even after
    a manual correction: correcting "pending" must not freeze progress forever."""
    return (
        old.kind is Kind.PROJECT_STATE
        and incoming.source_kind is SourceKind.PROGRESS
        and incoming.evidence.basis is Basis.TOOL_OBSERVATION
        and old.evidence.basis is Basis.MANUAL_CORRECTION
        and now - incoming.at <= FRESH_PROGRESS
    )


def may_correct(old: Memory, now: datetime) -> str | None:
    """A literal manual correction (priority 4, now) may change any record except one whose
    evidence is newer than now (source-time order). Returns the refusal reason or None."""
    if old.updated_at > now:
        return f"its evidence ({old.updated_at.isoformat()}) is newer than now"
    return None
