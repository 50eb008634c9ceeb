"""Cairn: a local-first long-term memory engine for AI agents.

The facade is :class:`Cairn`; errors are in :mod:`cairn.errors`; values in
:mod:`cairn.model`.
"""

from .engine import Cairn
from .errors import (
    AmbiguousId,
    CairnError,
    InvalidInput,
    NotFound,
    Refused,
    SchemaTooNew,
    StoreUnavailable,
    UndoRefused,
)

__all__ = [
    "AmbiguousId",
    "Cairn",
    "CairnError",
    "InvalidInput",
    "NotFound",
    "Refused",
    "SchemaTooNew",
    "StoreUnavailable",
    "UndoRefused",
]

__version__ = "0.1.0"
