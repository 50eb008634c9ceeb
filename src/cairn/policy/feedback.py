"""Explicit verdicts: what a verdict does, and the whole-message parser (docs/evidence.md).

Pure. :func:`decide` returns one of

    Apply(slot, quarantine)   write the verdict into its slot (and quarantine on `incorrect`)
    Repeat()                  same verdict as the slot holds: a receipt, no weight, no revision
    Ignore(reason)            nothing is written; ``reason`` from :data:`IGNORE_REASONS`

Quarantine: `incorrect` writes the accuracy slot *and*
sets status ``conflicted`` on the judged record and on its exact duplicates (same origin,
same kind, same normalised text). The slot says why (recall reports ``disputed``); the
status keeps it quarantined: no positive verdict revives a conflicted record, so the ways
out are undo, a literal correction, or an explicit resolution. No verdict moves the
evidence clock (``updated_at``, ``evidence``) or the confirmation clock (``reinforced_at``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ..model import Memory, Status, Verdict, VerdictSlot

IGNORE_REASONS = ("replayed", "inactive", "quarantined", "stale", "superseded")
POSITIVE = frozenset({Verdict.USEFUL, Verdict.ACCURATE})



@dataclass(frozen=True, slots=True)
class Apply:
    slot: VerdictSlot
    quarantine: bool


@dataclass(frozen=True, slots=True)
class Repeat:
    pass


@dataclass(frozen=True, slots=True)
class Ignore:
    reason: str  # one of IGNORE_REASONS


FeedbackDecision = Apply | Repeat | Ignore


def decide(
    memory: Memory,
    verdict: Verdict,
    *,
    source_id: str,
    at: datetime,
    replayed: bool,
    latest_receipt_at: datetime | None,
) -> FeedbackDecision:
    """What one verdict from ``source_id`` at time ``at`` does to ``memory``.

    ``replayed``: a receipt for (source, memory) already exists. ``latest_receipt_at``:
    the newest receipt time of any source for this memory in the verdict's slot.
    """
    if replayed:
        return Ignore("replayed")  # the same act seen twice (restart, retry, after undo)
    if memory.status in (Status.FORGOTTEN, Status.RETIRED) or memory.purged_at is not None:
        return Ignore("inactive")
    if verdict in POSITIVE and memory.status is Status.CONFLICTED:
        return Ignore("quarantined")  # positive feedback never revives a quarantined record
    if at < memory.updated_at:
        return Ignore("stale")  # judged an older content than the one standing now
    current = getattr(memory.feedback, verdict.slot)
    newest = max((t for t in (latest_receipt_at, current.at if current else None) if t is not None), default=None)
    if newest is not None and at < newest:
        return Ignore("superseded")  # a newer verdict in this slot already spoke
    if current is not None and current.verdict is verdict:
        return Repeat()  # last verdict wins, not frequency: repeating adds no weight
    return Apply(VerdictSlot(verdict, source_id, at), quarantine=verdict is Verdict.INCORRECT)


# -- the whole-message parser -------------------------------------------------------------

ZH_VERDICTS = {"有用": Verdict.USEFUL, "没用": Verdict.UNHELPFUL, "正确": Verdict.ACCURATE, "错误": Verdict.INCORRECT}

_ID = r"([0-9a-f]{24})"
_EN = re.compile(rf"memory {_ID} is (useful|unhelpful|accurate|incorrect)\.?", re.IGNORECASE)
_ZH = re.compile(rf"记忆 ?{_ID} ?(有用|没用|正确|错误)[。.]?")


@dataclass(frozen=True, slots=True)
class FeedbackMessage:
    memory_id: str
    verdict: Verdict


def parse_message(text: str) -> FeedbackMessage | None:
    """A whole user message of exactly ``memory <24-hex-id> is <verdict>.`` or
    ``记忆 <24-hex-id> 有用。`` (有用/没用/正确/错误), else ``None``.

    Conservative on purpose: the message must be nothing but that one statement, so a
    quote, an example, a question, a second sentence or vague wording ("wrong") is not a
    verdict. Only surrounding whitespace is forgiven; inner whitespace must be single
    spaces (or none around the Chinese id).
    """
    if not isinstance(text, str):
        return None
    flat = text.strip()
    if "\n" in flat or "\r" in flat:
        return None  # several statements
    english = _EN.fullmatch(flat)
    if english:
        return FeedbackMessage(english.group(1).lower(), Verdict(english.group(2).lower()))
    chinese = _ZH.fullmatch(flat)
    if chinese:
        return FeedbackMessage(chinese.group(1), ZH_VERDICTS[chinese.group(2)])
    return None
