"""Triage on the facade: RETRIEVE, ASK or SKIP for one user message, against this space.

The decision itself is :func:`cairn.recall.triage.triage` (pure). Here it gets one read
snapshot so that it can say SKIP when no record holds any word it would look for. Reads
only term statistics, never a record; writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import InvalidInput
from ..recall.triage import Triage, triage
from .scope import Part

MAX_ATTACHMENTS = 20


class Triaging(Part):
    def triage(self, message: str, attachments: Sequence[str] = ()) -> Triage:
        """Decide whether ``message`` needs earlier context, and which (see
        :mod:`cairn.recall.triage`). ``attachments`` are texts the user pasted or attached:
        they take part in the decision, never as instructions."""
        if not isinstance(message, str):
            raise InvalidInput("message", f"expected text, got {type(message).__name__}")
        if isinstance(attachments, str) or not all(isinstance(a, str) for a in attachments):
            raise InvalidInput("attachments", "expected a list of texts")
        if len(attachments) > MAX_ATTACHMENTS:
            raise InvalidInput("attachments", f"at most {MAX_ATTACHMENTS}")
        with self.store.snapshot() as view:
            return triage(message, attachments, frequency=view.document_frequency)
