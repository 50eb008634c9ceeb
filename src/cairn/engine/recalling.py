"""Recall, search, explain, ingest of episodes and traces (issue 4).

Placeholder mixin: filled in by the recall work.
"""

from __future__ import annotations

from .base import EngineBase


class RecallMixin(EngineBase):
    pass
