"""The engine: the :class:`Cairn` facade and the parts it composes.

* ``facade``     :class:`Cairn`, the one object interfaces call
* ``scope``      one store, one space, one clock: id resolution and the mutation context
* ``paths``      the default database path (stdlib only: cheap to import)
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

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..learn.signals import prompt_key
    from .capturing import Learned, Reinforcement, ReinforceResult
    from .facade import Cairn
    from .ingesting import Ingested
    from .learning import Applied, Corrected, FeedbackResult
    from .recalling import Recalled
    from .records import (
        Confirmed,
        Page,
        Quality,
        Remembered,
        RememberedMany,
        Shown,
        TextChange,
    )
    from .relations import Timeline
    from .scope import Scope
    from .transfer import Transferred
    from .validate import LIMITS, Limits

from .paths import default_db_path

# Name -> the module defining it (relative to this package), imported on first use: a
# process that needs only a path (the hook, help) or only recall does not pay for
# learning, ingest and archiving.
_LAZY = {
    "prompt_key": "..learn.signals",  # a host's ledger key of a prompt (cheaper than .capturing)
    "Learned": ".capturing",
    "Reinforcement": ".capturing",
    "ReinforceResult": ".capturing",
    "Cairn": ".facade",
    "Ingested": ".ingesting",
    "Applied": ".learning",
    "Corrected": ".learning",
    "FeedbackResult": ".learning",
    "Recalled": ".recalling",
    "Confirmed": ".records",
    "Page": ".records",
    "Quality": ".records",
    "Remembered": ".records",
    "RememberedMany": ".records",
    "Shown": ".records",
    "TextChange": ".records",
    "Timeline": ".relations",
    "Scope": ".scope",
    "Transferred": ".transfer",
    "LIMITS": ".validate",
    "Limits": ".validate",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


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
    "prompt_key",
]
