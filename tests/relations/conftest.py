"""Helpers of the relations tests: short record creation on the shared `cairn` fixture."""

from __future__ import annotations

import pytest


@pytest.fixture
def mem(cairn):
    """``mem(text, kind="fact", **remember_options) -> id``."""

    def make(text: str, kind: str = "fact", **options) -> str:
        return cairn.remember(text, kind=kind, **options).memory.id

    return make
