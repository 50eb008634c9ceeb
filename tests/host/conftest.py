"""Fixtures of the host loop: a store holding the triage set's memories."""

from __future__ import annotations

import pytest

from cairn import Cairn
from testkit.host import load


@pytest.fixture(scope="module")
def populated(tmp_path_factory):
    """A database holding a coding project's, a person's and a support team's memories
    (English and Chinese), written once per module."""
    path = tmp_path_factory.mktemp("host") / "cairn.db"
    with Cairn(path, now="2026-06-01T00:00:00Z") as cairn:
        for memory in load("triage_store.json"):
            cairn.remember(memory["content"], kind=memory["kind"])
    return path
