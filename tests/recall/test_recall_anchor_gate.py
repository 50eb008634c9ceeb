"""The coverage gate is lower for a record holding a phrase anchor of the query: word order
is evidence. A task prompt whose other words are stored nowhere still reaches the one record
that holds its phrase; the same words out of order, or one shared word, do not."""

from __future__ import annotations

import json

import pytest

DEPLOY = "The staging deploy runs from the deploy-staging GitHub Actions workflow"
EGGS = "Omar likes his eggs poached"


@pytest.fixture
def store(cli):
    ids = {}
    for text in (DEPLOY, EGGS):
        result = cli("--json", "remember", text, "--kind", "fact")
        assert result.code == 0, result.err
        ids[text] = result.json()["id"]
    return ids


def recalled(cli, query: str) -> list[str]:
    result = cli("--json", "recall", query)
    assert result.code == 0, result.err
    return [r["id"] for r in result.json()["results"]]


def test_a_task_prompt_reaches_the_record_holding_its_phrase(cli, store):
    assert recalled(cli, "Set up the staging deploy for the new API endpoint") == [store[DEPLOY]]


@pytest.mark.parametrize("prompt", [
    "Set up the deploy for the new staging API endpoint",  # the words, but not as a phrase
    "Set up a new staging server for the API endpoint",  # one shared word
])
def test_without_the_phrase_the_usual_coverage_holds(cli, store, prompt):
    assert recalled(cli, prompt) == []


def test_explain_names_the_phrase_that_lowered_the_gate(cli, store):
    result = cli("--json", "explain", "Set up the staging deploy for the new API endpoint")
    [candidate] = [c for c in result.json()["candidates"] if c["id"] == store[DEPLOY]]
    assert candidate["reason"] == "selected"
    assert candidate["factors"]["phrase"]["span"] == "staging deploy"
    assert json.dumps(candidate).count(DEPLOY) == 0  # numbers only, never the body
