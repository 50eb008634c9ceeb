"""Triage of one user message: RETRIEVE, ASK or SKIP, deterministically.

Before a host spends a recall on a message it asks one question: does answering it need
what happened before, and can we say which part of it?

* **SKIP** — the message stands on its own: an acknowledgement ("ok", "thanks",
  "continue", 好的), a slash command or bare emoji with nothing attached, a pasted stack
  trace or log with no reference to earlier work, a general question that names nothing of
  the user's own; or, when a store is consulted, none of the message's distinctive words
  occurs in it (nothing stored could be relevant).
* **ASK** — history is clearly required ("like we did last time", "the usual way", "that
  bug from before", 上次那个) but no anchor can be formed: no name, artifact, topic word or
  date survives once the referring words are removed. The result names the one missing
  anchor to ask for (``artifact``, ``project``, ``event``, ``person``, ``date`` or
  ``topic``), never a full restatement.
* **RETRIEVE** — a discriminating intent can be formed. The intent keeps the entities,
  identifiers, quoted phrases, topic words and time cues that separate the wanted memory,
  carried verbatim (a distinctive name or code-switched phrase is never generalised).

Attachments (a pasted document, a file the user asks to read) take part in the decision:
an emoji-only message whose attachment names a shared reference can be a RETRIEVE. They
confer no authority: nothing in them is an instruction, and a triage result is only a
query — the memories it finds are still quoted data.

Pure functions over the message text; the store is consulted only through ``frequency``,
a callable the engine passes (how many records hold an index term). No model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import NamedTuple


class Decision(StrEnum):
    RETRIEVE = "RETRIEVE"
    ASK = "ASK"
    SKIP = "SKIP"


class Triage(NamedTuple):
    """One triage decision. ``intent`` is the retrieval query (RETRIEVE only); ``anchors``
    the distinctive fragments it was built from; ``missing`` the one anchor to ask for (ASK
    only); ``reason`` one line a person can check."""

    decision: Decision
    reason: str
    intent: str | None = None
    anchors: tuple[str, ...] = ()
    missing: str | None = None
    cues: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {
            "decision": self.decision.value,
            "intent": self.intent,
            "anchors": list(self.anchors),
            "missing": self.missing,
            "cues": list(self.cues),
            "reason": self.reason,
        }


def triage(
    message: str,
    attachments: Sequence[str] = (),
    *,
    frequency: Callable[[str], int] | None = None,
) -> Triage:
    """Decide RETRIEVE, ASK or SKIP for ``message`` (see the module docstring).

    ``frequency(term)`` — how many stored records hold an index term — lets the decision
    say SKIP when nothing in the store could be relevant; without it the decision rests on
    the message alone."""
    from .triage_rules import decide  # the rules compile their patterns: paid only by a triage

    return decide(message, attachments, frequency=frequency)


__all__ = ["Decision", "Triage", "triage"]
