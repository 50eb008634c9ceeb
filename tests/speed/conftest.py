"""Fixtures shared by the speed tests."""

from __future__ import annotations

from itertools import chain, islice

import pytest

from cairn import Cairn
from cairn.bench import scale


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    """The scale ladder's 1k store, imported as the ladder imports it, and its questions
    (needles first, then background queries)."""
    gen = scale.Generator(1000, 7)
    path = tmp_path_factory.mktemp("ladder") / "cairn.db"
    with Cairn(path, now=scale.NOW) as cairn:
        lines = gen.lines()
        while (first := next(lines, None)) is not None:
            cairn.import_(chain((first,), islice(lines, scale.BATCH - 1)))
    return path, [q for _, q in gen.needles] + gen.background_queries(scale.BACKGROUND_QUERIES)
