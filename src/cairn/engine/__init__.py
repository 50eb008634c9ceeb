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
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .facade import Cairn
from .recalling import Recalled
from .records import Page, Quality, Remembered, Shown
from .relations import Timeline
from .scope import Scope, default_db_path
from .transfer import Transferred
from .validate import LIMITS, Limits

if TYPE_CHECKING:
    from .ingesting import Ingested
    from .learning import Applied, Corrected, FeedbackResult

# Results of the parts built on first use (see Cairn._learning): imported when named.
_LAZY = {"Ingested": "ingesting", "Applied": "learning", "Corrected": "learning", "FeedbackResult": "learning"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "LIMITS",
    "Applied",
    "Cairn",
    "Corrected",
    "FeedbackResult",
    "Ingested",
    "Limits",
    "Page",
    "Quality",
    "Recalled",
    "Remembered",
    "Scope",
    "Shown",
    "Timeline",
    "Transferred",
    "default_db_path",
]
