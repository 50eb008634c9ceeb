"""A third-party extractor, found through its entry point, proposes a Batch the engine
applies; it may propose claims, never restate the source's evidence."""

from __future__ import annotations

import pytest

from cairn import plugins
from cairn.learn.batch import Batch, parse_source
from cairn.learn.extractors import Extractor, extract, extractor, extractor_names
from cairn.model import Basis, Kind

EXTRACTORS = {
    "cairn.extractors": {
        "prefers": "toy_extractors:PreferenceExtractor",
        "forging": "toy_extractors:ForgingExtractor",
        "episodic": "toy_extractors:EpisodeExtractor",
    }
}
TEXT = "We talked about the trip. I prefer window seats on trains. The weather was fine."


@pytest.fixture
def source():
    return parse_source({"id": "chat-1", "text": TEXT, "kind": "conversation"})


def test_an_installed_extractor_proposes_a_batch_the_engine_applies(install, cairn, source):
    install("toy-extractors", EXTRACTORS, ("toy_extractors",))
    assert extractor_names() == ("rules", "model", "episodic", "forging", "prefers")  # built-ins first
    model = extractor("prefers")
    assert isinstance(model, Extractor)
    batch = extract(model, source)
    assert isinstance(batch, Batch) and [(c.kind, c.content) for c in batch.claims] == [
        (Kind.PREFERENCE, "I prefer window seats on trains")
    ]
    applied = cairn.apply(batch)
    memory = cairn.get(applied.outcomes[0].id)
    # The evidence is the source's, as the caller stated it: the engine's decision.
    assert memory.kind is Kind.PREFERENCE and memory.evidence.basis is Basis.USER_STATEMENT


def test_an_extractor_may_not_restate_the_source(install, source):
    install("toy-extractors", EXTRACTORS, ("toy_extractors",))
    with pytest.raises(plugins.PluginError, match="extractor plug-in 'forging': changed the source"):
        extract(extractor("forging"), source)


def test_an_extractor_may_not_propose_an_episode(install, source):
    install("toy-extractors", EXTRACTORS, ("toy_extractors",))
    with pytest.raises(plugins.PluginError, match="extractor plug-in 'episodic'.*may not propose"):
        extract(extractor("episodic"), source)
