"""Declared relations, valid time, known-at reconstruction and timelines (issue 5).

Placeholder mixin: filled in by the corrections-and-time work.
"""

from __future__ import annotations

from .base import EngineBase


class RelationsMixin(EngineBase):
    pass
