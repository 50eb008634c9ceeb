"""A third-party embedder, found through its entry point, embeds only what has no vector
for its content hash yet."""

from __future__ import annotations

import pytest

from cairn import plugins
from cairn.embed import Embedder, embed_missing, embedder, embedder_names
from cairn.store.sqlite import content_hash

EMBEDDERS = {"cairn.embedders": {"counting": "toy_embedders:CountingEmbedder", "short": "toy_embedders:ShortEmbedder"}}


@pytest.fixture
def model(install) -> Embedder:
    install("toy-embedders", EMBEDDERS, ("toy_embedders",))
    return embedder("counting")


def items(*texts: str) -> list[tuple[str, str]]:
    return [(content_hash(t), t) for t in texts]


def test_the_embedder_is_discovered(model):
    assert embedder_names() == ("minilm", "counting", "short")  # the built-in first
    assert isinstance(model, Embedder) and model.dimension == 3


def test_unchanged_text_is_never_embedded_again(model):
    stored = embed_missing(model, items("The office is in Lisbon", "The API runs on Docker"), set())
    assert len(stored) == 2 and model.calls == [["The office is in Lisbon", "The API runs on Docker"]]
    # Same text, and text the store hashes the same (case and spacing): nothing to do.
    again = embed_missing(model, items("The office is in Lisbon", "the  API runs on docker"), stored)
    assert again == {} and len(model.calls) == 1


def test_changed_text_is_embedded_again(model):
    stored = embed_missing(model, items("The office is in Lisbon"), set())
    changed = embed_missing(model, items("The office is in Porto"), stored)
    assert list(changed) == [content_hash("The office is in Porto")]
    assert model.calls[-1] == ["The office is in Porto"]


def test_one_hash_is_embedded_once_and_batches_are_bounded(model):
    texts = [f"note number {i}" for i in range(5)]
    vectors = embed_missing(model, items(*texts, texts[0]), set(), batch_size=2)
    assert list(vectors) == [content_hash(t) for t in texts]
    assert [len(call) for call in model.calls] == [2, 2, 1]
    assert all(len(v) == model.dimension for v in vectors.values())


def test_an_embedder_registered_under_another_name_is_refused(install):
    install("toy-embedders", {"cairn.embedders": {"other": "toy_embedders:CountingEmbedder"}}, ("toy_embedders",))
    with pytest.raises(plugins.PluginError, match="embedder plug-in 'other'.*calls itself 'counting'"):
        embedder("other")


def test_a_vector_of_the_wrong_length_is_refused(install):
    install("toy-embedders", EMBEDDERS, ("toy_embedders",))
    with pytest.raises(plugins.PluginError, match="embedder plug-in 'short'.*length 1, not its dimension 3"):
        embed_missing(embedder("short"), items("The office is in Lisbon"), set())
    assert embed_missing(embedder("counting"), items("The office is in Lisbon"), set())  # negative control
