"""Cairn: a local-first long-term memory engine for AI agents.

Everything a Python caller needs is importable from here:

* :class:`Cairn`, the facade (``Cairn(path)``, or ``Cairn(store=backend)``);
* the typed results its methods return (:class:`Remembered`, :class:`Recalled`,
  :class:`Shown`, …) — :mod:`cairn.wire` turns each into its JSON form;
* the domain values (:class:`Memory`, :class:`Event`, :class:`Relation`, …) and their
  closed vocabularies (:class:`Kind`, :class:`Status`, :class:`Basis`, …);
* every error, rooted at :class:`CairnError` (the tree is drawn in :mod:`cairn.errors`);
* :class:`Backend`, the store protocol a second backend implements, and :class:`Batch`,
  what an extractor produces.

See docs/api.md for a worked session.
"""

from .engine import (
    Applied,
    Cairn,
    Confirmed,
    Corrected,
    FeedbackResult,
    Ingested,
    Learned,
    Page,
    Quality,
    Recalled,
    Reinforcement,
    ReinforceResult,
    Remembered,
    Shown,
    TextChange,
    Timeline,
    Transferred,
)
from .errors import (
    AmbiguousId,
    ArchiveFailed,
    BadImportLine,
    BenchDataMissing,
    CairnError,
    InvalidInput,
    NoSuchDatabase,
    NotFound,
    PluginError,
    Refused,
    RelationRefused,
    SchemaTooNew,
    StoreError,
    StoreUnavailable,
    UndoRefused,
    UnknownLabel,
)
from .learn.batch import Batch
from .model import (
    Actor,
    Basis,
    Certainty,
    Event,
    Evidence,
    Kind,
    Layer,
    Marker,
    Memory,
    Method,
    Relation,
    Role,
    Status,
    Verdict,
)
from .store import Backend

__all__ = [
    "Actor",
    "AmbiguousId",
    "Applied",
    "ArchiveFailed",
    "Backend",
    "BadImportLine",
    "Basis",
    "Batch",
    "BenchDataMissing",
    "Cairn",
    "CairnError",
    "Certainty",
    "Confirmed",
    "Corrected",
    "Event",
    "Evidence",
    "FeedbackResult",
    "Ingested",
    "InvalidInput",
    "Kind",
    "Layer",
    "Learned",
    "Marker",
    "Memory",
    "Method",
    "NoSuchDatabase",
    "NotFound",
    "Page",
    "PluginError",
    "Quality",
    "Recalled",
    "Refused",
    "ReinforceResult",
    "Reinforcement",
    "Relation",
    "RelationRefused",
    "Remembered",
    "Role",
    "SchemaTooNew",
    "Shown",
    "Status",
    "StoreError",
    "StoreUnavailable",
    "TextChange",
    "Timeline",
    "Transferred",
    "UndoRefused",
    "UnknownLabel",
    "Verdict",
]

__version__ = "0.1.0"
