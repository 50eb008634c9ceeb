"""The PostgreSQL store keeps no vectors yet (the optional VectorView of the storage
seam), so recall on it defaults to the claims lane; with the semantic extra installed,
SQLite would default to the hybrid lane. The parity tests compare the lexical paths both
implement, so they switch the semantic extra off for both sides."""

from __future__ import annotations

import pytest

from cairn.embed.vectors import SWITCH


@pytest.fixture(autouse=True, scope="module")
def _lexical_only():
    patch = pytest.MonkeyPatch()
    patch.setenv(SWITCH, "off")
    yield
    patch.undo()
