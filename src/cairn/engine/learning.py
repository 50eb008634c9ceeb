"""Consolidation batches, literal corrections and explicit feedback (issue 3).

Placeholder mixin: filled in by the evidence/authority work.
"""

from __future__ import annotations

from .base import EngineBase


class LearningMixin(EngineBase):
    pass
