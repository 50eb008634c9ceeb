"""A plain recall after ``cairn ingest``, with the semantic extra: when no claim answers,
the conversation turns come from ``hybrid-episodes``, meaning with the words, as the
claims did (:data:`cairn.recall.pipeline.TURN_LANES`): "which restaurant are we eating at"
meets "The George does a good dinner. I'll book a table", which shares no word with it.
Meaning alone is no relevance: a question nothing in the conversation answers still gets
nothing."""

from __future__ import annotations

import json

from cairn.recall import pipeline

from .conftest import needs_extra

TURNS = [
    ("r1", "Ellie", "Ten years since we graduated! Reunion weekend this summer, no excuses.", "2026-05-04T19:00:00Z"),
    ("r2", "Raj", "I'm in. How about the weekend of 24 to 26 July?", "2026-05-04T19:03:00Z"),
    ("r3", "Raj", "Found Stanage Lodge near Hathersage, sleeps eight, 620 pounds for the two nights. Booked it.",
     "2026-05-21T20:00:00Z"),
    ("r4", "Beth", "Perfect. I'll bring the board games.", "2026-05-21T20:05:00Z"),
    ("r5", "Raj", "The George in Hathersage does a good dinner. I'll book a table for 8pm on the Saturday.",
     "2026-05-26T09:00:00Z"),
    ("r6", "Ellie", "I'm coming by train from Newcastle, getting in around 6pm Friday.", "2026-06-20T11:20:00Z"),
    ("r7", "Beth", "Our dog just had puppies, we've got five of them running around.", "2026-06-21T09:00:00Z"),
]


def _turns(cairn, question: str) -> list[str]:
    return [r.memory.evidence.source_id for r in cairn.recall(question, trace=False).results]


@needs_extra
def test_a_plain_recall_finds_turns_by_meaning_when_its_claims_did(cairn, counting, monkeypatch):
    lines = [json.dumps({"id": i, "speaker": who, "text": text, "time": at}) for i, who, text, at in TURNS]
    cairn.ingest(lines, format="jsonl", origin="reunion", progress=False)
    assert _turns(cairn, "which restaurant are we eating at")[:1] == ["r5"]
    # Negative controls: nothing said about a wifi password or who brings food.
    assert _turns(cairn, "what is the wifi password at the lodge") == []
    assert _turns(cairn, "who is bringing the food") == []
    # The turns from the words alone: no word of the question is said.
    monkeypatch.setattr(pipeline, "TURN_LANES", {})
    assert _turns(cairn, "which restaurant are we eating at") == []
