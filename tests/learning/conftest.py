"""Fixtures for the evidence/authority tests."""

from __future__ import annotations

from datetime import datetime

import pytest

from testkit.batches import day


@pytest.fixture
def at(clock):
    """``at(n)`` sets the engine clock to T0 + n days and returns that time."""

    def set_to(n: float) -> datetime:
        clock.at = day(n)
        return clock.at

    set_to(0)
    return set_to
