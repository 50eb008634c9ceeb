"""Embedders: text to vectors, behind one protocol, keyed on the stored content hash.

An embedder is a plug-in of the entry point group ``cairn.embedders``
(:mod:`cairn.plugins`). It has a ``name`` (stored beside its vectors: vectors of two
embedders are never compared), a ``dimension`` (the length of every vector it returns)
and one method, :meth:`Embedder.embed_batch`, which embeds many texts in one call —
models and services are much faster per text in batches.

Vectors are keyed on the content hash the store already keeps for every record
(:func:`cairn.store.sqlite.content_hash`: the normalised content), so text that did not
change is never embedded again. :func:`embed_missing` does that bookkeeping for any
embedder: it is given the hashes that already have a vector and embeds only the others.
Storing the vectors, and the lane that reads them, are the caller's.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Sequence
from typing import Protocol, runtime_checkable

from .. import plugins

GROUP = plugins.EMBEDDER_GROUP
BATCH_SIZE = 64  # texts per embed_batch call

Vector = list[float]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors of ``dimension`` floats."""

    name: str
    dimension: int

    def embed_batch(self, texts: Sequence[str]) -> list[Vector]:
        """One vector per text, in the order given."""
        ...


def embedder(name: str) -> Embedder:
    """The installed embedder called ``name`` (a :class:`~cairn.errors.PluginError` if none)."""
    found: Embedder = plugins.load(GROUP, name, Embedder)
    return found


def embedder_names() -> tuple[str, ...]:
    """The installed embedders' names. Reads metadata, imports no embedder."""
    return plugins.names(GROUP)


def embed_missing(
    model: Embedder, items: Iterable[tuple[str, str]], stored: Container[str], *, batch_size: int = BATCH_SIZE
) -> dict[str, Vector]:
    """Embed the texts whose content hash has no stored vector yet.

    ``items`` are ``(content_hash, text)`` pairs, the hash as the store computes it;
    ``stored`` holds the hashes that already have a vector from this embedder. Returns
    ``{content_hash: vector}`` for the newly embedded texts only, in the order first
    seen; a hash given twice is embedded once. A vector of the wrong count or length is
    a :class:`~cairn.errors.PluginError` naming the embedder: nothing is returned for
    a batch that cannot be trusted.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, not {batch_size}")
    pending: dict[str, str] = {}
    for digest, text in items:
        if digest not in stored and digest not in pending:
            pending[digest] = text
    keys = list(pending)
    vectors: dict[str, Vector] = {}
    for start in range(0, len(keys), batch_size):
        batch = keys[start : start + batch_size]
        vectors.update(zip(batch, _checked(model, model.embed_batch([pending[k] for k in batch]), len(batch)), strict=True))
    return vectors


def _checked(model: Embedder, vectors: list[Vector], count: int) -> list[Vector]:
    if len(vectors) != count:
        raise plugins.PluginError(GROUP, model.name, f"embed_batch returned {len(vectors)} vectors for {count} texts")
    for vector in vectors:
        if len(vector) != model.dimension:
            problem = f"returned a vector of length {len(vector)}, not its dimension {model.dimension}"
            raise plugins.PluginError(GROUP, model.name, problem)
    return [list(vector) for vector in vectors]
