"""Ingest of conversations as verbatim ``episode`` records (issue 4 item 7 / issue 6).

Placeholder mixin: filled in by the benchmark/ingest work.
"""

from __future__ import annotations

from .base import EngineBase


class IngestMixin(EngineBase):
    pass
