"""Triage before any store is opened: the decisions that no store could change.

A host hook runs one process per user prompt, and most prompts ("ok", "continue", a pasted
trace) are SKIP whatever is stored. :func:`without_store` runs the same rules as
:meth:`cairn.Cairn.triage` with a term-statistics callable that refuses to answer: when
the rules decide without asking it, the decision is exactly the one the engine would
return on any store, and the caller need not import the engine or open the database;
when they ask (a RETRIEVE is only formed once a stored record holds one of its words, a
Chinese topic word is looked up), the answer is None and the caller asks the engine.
Stdlib and the pure triage rules only: cheap to import.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..recall.triage import Triage, triage


class _StoreNeeded(Exception):
    """The rules asked how many stored records hold a term."""


def _no_store(term: str) -> int:
    raise _StoreNeeded(term)


def without_store(message: str, attachments: Sequence[str] = ()) -> Triage | None:
    """The triage of ``message`` when it cannot depend on the store, else None (also for
    text the engine would refuse, so that the refusal is reported where it always was)."""
    try:
        message.encode("utf-8")
        for attachment in attachments:
            attachment.encode("utf-8")
    except UnicodeEncodeError:
        return None
    try:
        return triage(message, attachments, frequency=_no_store)
    except _StoreNeeded:
        return None
