"""Helpers of the relations tests: short record creation on the shared `cairn` fixture."""

from __future__ import annotations

import pytest


@pytest.fixture
def mem(cairn):
    """``mem(text, kind="fact", **remember_options) -> id``."""

    def make(text: str, kind: str = "fact", **options) -> str:
        return cairn.remember(text, kind=kind, **options).memory.id

    return make


@pytest.fixture
def judge_incorrect(cairn):
    """Record an explicit ``incorrect`` accuracy verdict on a memory."""

    def judge(memory_id: str, source: str = "review") -> None:
        cairn.feedback(memory_id, "incorrect", source=source)

    return judge
