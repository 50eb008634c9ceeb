"""End-to-end smoke of the recall pipeline: relevant in, unrelated out, nothing for filler."""

from __future__ import annotations


def test_relevant_memory_is_recalled_and_unrelated_one_is_not(cairn, mem):
    api = mem("The API service is deployed with Docker Compose on the staging host", aliases=["deployment"])
    pytest_pref = mem("Prefer pytest fixtures over setUp methods in new tests", kind="preference")
    recalled = cairn.recall("how is the API deployed")
    assert recalled.ids == [api]
    assert pytest_pref not in recalled.ids
    assert "Docker Compose" in recalled.digest


def test_context_free_query_returns_nothing_and_says_so(cairn, mem):
    mem("The API service is deployed with Docker Compose on the staging host")
    for query in ("ok", "continue", "thanks", "ok, thanks!"):
        recalled = cairn.recall(query)
        assert recalled.results == [] and recalled.digest == ""
        assert "context-free" in recalled.note
