"""Fixtures of the semantic tests: the store read directly, an embedder that counts.

These tests need the semantic extra (``make test`` installs it); without it they are
skipped with the reason, except those that check the behaviour without it."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest

from cairn.embed import vectors
from cairn.embed.minilm import available

needs_extra = pytest.mark.skipif(not available(), reason="the semantic extra is not installed")


class Counting:
    """The active embedder, counting the texts it is asked to embed."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimension = inner.dimension
        self.texts: list[str] = []

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts += list(texts)
        return self.inner.embed_batch(texts)

    def embed_array(self, texts: Sequence[str]):
        self.texts += list(texts)
        return self.inner.embed_array(texts)


@pytest.fixture
def counting(monkeypatch):
    """Every embedding made through the store hook, the lanes and the back-fill, counted."""
    monkeypatch.delenv(vectors.SWITCH, raising=False)
    model = Counting(vectors.embedder(vectors.DEFAULT_EMBEDDER))
    monkeypatch.setattr(vectors, "active", lambda: model if vectors.enabled() else None)
    return model


@pytest.fixture
def semantic_off(monkeypatch):
    """The extra switched off, as if it were not installed."""
    monkeypatch.setenv(vectors.SWITCH, "off")


def vector_rows(path: Path) -> list[tuple[str, str, int]]:
    """(space, content hash, episode) of every stored vector, read from the file itself."""
    conn = sqlite3.connect(path)
    try:
        return [tuple(r) for r in conn.execute("SELECT space, content_hash, episode FROM vectors ORDER BY rowid")]
    finally:
        conn.close()


def hash_of(path: Path, memory_id: str) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("SELECT content_hash FROM memories WHERE id = ?", (memory_id,)).fetchone()[0])
    finally:
        conn.close()
