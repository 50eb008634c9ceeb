"""The engine: the :class:`Cairn` facade and the parts it composes.

* ``facade``     :class:`Cairn`, the one object interfaces call
* ``scope``      one store, one space, one clock: id resolution and the mutation context
* ``validate``   limits and the cleaning (redaction) of text about to be stored
* ``mutation``   one change, one transaction, one event
* ``records``    remember, show, list, forget/purge, pin, history, status
* ``relations``  relate, timeline
* ``undo``       compensating events
* ``transfer``   export / import (JSONL)
* ``learning``   apply, correct, feedback (evidence and authority)
* ``recalling``  recall, search, explain, traces
* ``ingesting``  conversations as episodes
* ``capturing``  learn from transcripts (episodes and explicit statements); reinforcement events
"""

from __future__ import annotations

from .capturing import Learned, Reinforcement, ReinforceResult
from .facade import Cairn
from .ingesting import Ingested
from .learning import Applied, Corrected, FeedbackResult
from .recalling import Recalled
from .records import Confirmed, Page, Quality, Remembered, RememberedMany, Shown, TextChange
from .relations import Timeline
from .scope import Scope, default_db_path
from .transfer import Transferred
from .validate import LIMITS, Limits

__all__ = [
    "LIMITS",
    "Applied",
    "Cairn",
    "Confirmed",
    "Corrected",
    "FeedbackResult",
    "Ingested",
    "Learned",
    "Limits",
    "Page",
    "Quality",
    "Recalled",
    "ReinforceResult",
    "Reinforcement",
    "Remembered",
    "RememberedMany",
    "Scope",
    "Shown",
    "TextChange",
    "Timeline",
    "Transferred",
    "default_db_path",
]
