"""The packaged embedder: registered like a third-party plug-in, loaded from the package
(nothing downloaded), unit vectors of its declared dimension, meaning over wording."""

from __future__ import annotations

import numpy as np

from cairn import plugins
from cairn.embed import Embedder, embed_missing, embedder, embedder_names
from cairn.embed.minilm import DIMENSION, VOCAB, MiniLM

from .conftest import needs_extra


def test_minilm_is_registered_as_an_entry_point_and_a_builtin():
    assert "minilm" in embedder_names()
    assert plugins.registered(plugins.EMBEDDER_GROUP)["minilm"].value == plugins.BUILTINS[plugins.EMBEDDER_GROUP]["minilm"]
    assert VOCAB.is_file() and sum(1 for _ in VOCAB.open(encoding="utf-8")) == 30522


@needs_extra
def test_minilm_loads_and_embeds_unit_vectors():
    model = embedder("minilm")
    assert isinstance(model, Embedder) and model.dimension == DIMENSION
    vectors = embed_missing(model, [("a", "We finally adopted a tabby named Miso"), ("b", "what pet do we have")], ())
    a, b = (np.asarray(vectors[k]) for k in "ab")
    assert abs(np.linalg.norm(a) - 1) < 1e-4 and len(a) == DIMENSION
    unrelated = np.asarray(model.embed_batch(["The production database is PostgreSQL 16"])[0])
    assert a @ b > unrelated @ b + 0.15  # the paraphrase is nearer than an unrelated sentence


@needs_extra
def test_minilm_is_deterministic_and_batch_independent():
    model = MiniLM()
    alone = model.embed_array(["Backups run nightly"])[0]
    batched = model.embed_array(["Backups run nightly", "a much longer sentence that pads the batch with more tokens"])[0]
    assert np.abs(alone - batched).max() < 1e-4
    assert model.embed_array([]).shape == (0, DIMENSION)
