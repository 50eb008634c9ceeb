"""The :class:`Cairn` facade: composes store + policy + recall. The only thing
interfaces (CLI, MCP, bench) call.

Each concern lives in its own mixin module so that the facade stays one class while
no file grows past a few hundred lines:

* ``base``       clock, space, id resolution, validation, the mutation context
* ``records``    remember, show, list, forget/purge, pin, history, status
* ``undo``       compensating events
* ``transfer``   export / import (JSONL)
* ``learning``   apply, correct, feedback (evidence and authority)
* ``recalling``  recall, search, explain, ingest, traces
* ``relations``  relate, valid time, known-at, timeline
* ``ingesting``  ingest conversations as episodes
"""

from __future__ import annotations

from .base import LIMITS, default_db_path
from .ingesting import IngestMixin
from .learning import LearningMixin
from .records import Page, RecordsMixin, Remembered
from .recalling import RecallMixin
from .relations import RelationsMixin
from .transfer import TransferMixin
from .undo import UndoMixin


class Cairn(RecordsMixin, UndoMixin, TransferMixin, LearningMixin, RecallMixin, RelationsMixin, IngestMixin):
    """A memory store for one space of one database file.

    ``Cairn(path, space="default", now=None)``; ``now`` fixes the clock (a datetime, an
    ISO-8601 string or a callable), which tests and ``--now`` use.
    """


__all__ = ["LIMITS", "Cairn", "Page", "Remembered", "default_db_path"]
