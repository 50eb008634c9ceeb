"""Meaning in context for conversation turns (``hybrid-episodes``): a reply that means
little alone is found through the question before it, by the episode ranker's context
rules; a forgotten turn lends nothing; the rules one at a time on made-up turns."""

from __future__ import annotations

import json

import pytest

from cairn.recall.fusion import SEMANTIC, _context_scores
from cairn.recall.pipeline import Candidate
from cairn.store import EpisodeTurn

from .conftest import needs_extra

TURNS = [
    ("Ana", "Work has been so hectic lately, I barely sleep."),
    ("Ana", "What do you do to unwind after a long week?"),
    ("Ben", "Mostly that, yes. Every Sunday without fail."),  # the reply: no meaning of its own
    ("Ana", "The train to Porto was late again this morning."),
    ("Ben", "I finally fixed the leak in the kitchen sink."),
    ("Ana", "My sister is moving to Lisbon next spring."),
    ("Ben", "We should book the tickets for the concert soon."),
    ("Ana", "The new phone has a much better camera."),
]
QUESTION = "ways to unwind after a hard week"


@pytest.fixture
def chat(cairn, counting):
    lines = [json.dumps({"id": f"t{i}", "speaker": who, "text": text, "time": f"2026-10-01T10:0{i}:00Z"})
             for i, (who, text) in enumerate(TURNS)]
    cairn.ingest(lines, format="jsonl", origin="chat", progress=False)
    cairn.embed(progress=False)
    return cairn


def _found(cairn, lane: str) -> list[str]:
    return [r.memory.evidence.source_id for r in cairn.search(QUESTION, lane=lane, trace=False).results]


@needs_extra
def test_a_reply_is_found_through_the_question_it_answers(chat):
    alone = _found(chat, "semantic-episodes")
    assert alone.index("t0") < alone.index("t2")  # by its own cosine the reply trails an unrelated turn
    fused = _found(chat, "hybrid-episodes")
    assert fused[:2] == ["t1", "t2"]  # in context it follows the question it answers
    doc = chat.explain(QUESTION, lane="hybrid-episodes")
    reply = next(c for c in doc["candidates"] if c["factors"].get("fusion", {}).get("cosine") is not None
                 and chat.store.get_memory("default", c["id"]).evidence.source_id == "t2")
    fusion = reply["factors"]["fusion"]
    assert fusion["in_context"] > fusion["cosine"]


@needs_extra
def test_a_forgotten_turn_lends_nothing(chat):
    question = next(r.memory.id for r in chat.search(QUESTION, lane="episodes", trace=False).results
                    if r.memory.evidence.source_id == "t1")
    chat.forget(question, purge=True)
    fused = _found(chat, "hybrid-episodes")
    assert "t1" not in fused
    assert fused.index("t0") < fused.index("t2")  # without its question the reply is on its own again


def _turn(i: int, *, at: str = "2026-10-01T10:00:00Z", asks: bool = False) -> EpisodeTurn:
    return EpisodeTurn(i, f"m{i}", "chat", i, "what do you do" if asks else "plain words here", "ana", at)


def _scores(cosines: dict[int, float], **turn_kw) -> dict[int, float]:
    turns = {f"m{i}": _turn(i, **turn_kw.get(str(i), {})) for i in cosines}
    at_hand = [Candidate(f"m{i}", "semantic-episodes", lane_score=c) for i, c in cosines.items()]
    return {int(k[1:]): v for k, v in _context_scores(at_hand, turns, SEMANTIC).items()}


def test_a_neighbour_lends_its_share_and_a_question_lends_more():
    p = SEMANTIC
    plain = _scores({1: 0.5, 2: 0.0})
    asked = _scores({1: 0.5, 2: 0.0}, **{"1": {"asks": True}})
    assert plain[2] == pytest.approx(p.context_neighbour * 0.5 + p.context_session * 0.5)
    assert asked[2] == pytest.approx(p.context_answer * 0.5 + p.context_session * 0.5)
    assert asked[1] == plain[1] == pytest.approx(0.5 + p.context_session * 0.5)  # the question itself gains nothing


def test_two_places_away_lends_only_within_the_session():
    p = SEMANTIC
    same = _scores({1: 0.5, 3: 0.0})
    assert same[3] == pytest.approx(p.context_second * 0.5 + p.context_session * 0.5)
    other = _scores({1: 0.5, 3: 0.0}, **{"3": {"at": "2026-10-08T10:00:00Z"}})
    assert other[3] == 0.0  # another session: neither the neighbour's share nor the session's


def test_a_negative_cosine_lends_nothing():
    assert _scores({1: -0.2, 2: 0.1})[2] == pytest.approx(0.1 + SEMANTIC.context_session * 0.1)
