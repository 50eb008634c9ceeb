"""Fixtures of the recall tests: quick record creation at a given age."""

from __future__ import annotations

from datetime import timedelta

import pytest


@pytest.fixture
def mem(cairn, clock):
    """``mem(text, kind="fact", days_ago=0, **remember_options) -> id``."""

    def make(text: str, kind: str = "fact", days_ago: float = 0, **options) -> str:
        saved = clock.at
        clock.at = saved - timedelta(days=days_ago)
        try:
            return cairn.remember(text, kind=kind, **options).memory.id
        finally:
            clock.at = saved

    return make
