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

from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
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
        RememberedMany,
        Shown,
        TextChange,
        Timeline,
        Transferred,
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

# Imported on first use: `import cairn.errors` (as the command line does first) must not
# pay for the engine, the store, the batch parser or even the domain values (a host hook
# that stays silent needs none of them).
_LAZY = {
    **dict.fromkeys(("Actor", "Basis", "Certainty", "Event", "Evidence", "Kind", "Layer", "Marker", "Memory", "Method",
                     "Relation", "Role", "Status", "Verdict"), "model"),
    "Applied": "engine",
    "Cairn": "engine",
    "Confirmed": "engine",
    "Corrected": "engine",
    "FeedbackResult": "engine",
    "Ingested": "engine",
    "Learned": "engine",
    "Page": "engine",
    "Quality": "engine",
    "Recalled": "engine",
    "Reinforcement": "engine",
    "ReinforceResult": "engine",
    "Remembered": "engine",
    "RememberedMany": "engine",
    "Shown": "engine",
    "TextChange": "engine",
    "Timeline": "engine",
    "Transferred": "engine",
    "Batch": "learn.batch",
    "Backend": "store",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    if not name.startswith("_"):
        # `cairn.engine` and the other subpackages, as when this module imported them.
        from importlib import import_module

        try:
            return import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    "RememberedMany",
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
