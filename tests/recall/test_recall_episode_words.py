"""A conversation turn that says another word for a question word holds it.

The claims lane meets everyday synonyms and irregular verb forms through the tables of
:mod:`cairn.recall.variants`; the episode lane reads the same tables: "where does Maya
work" finds "I started a new job at Figma", "which washing machine did we buy" finds "we
bought the Bosch". The other words are matched in the index, and a word and its others
count as one question word (a turn saying both is not counted twice). Negative controls: a
word outside the tables meets nothing, and a turn holding no word of the question, nor
another for one, is not returned.
"""

from __future__ import annotations

import json

from cairn import Cairn
from cairn.recall.episodes import parse_episode_query, rank_episodes
from cairn.text import stem
from testkit import NOW

TURNS = [
    ("Maya", "Big news, I started a new job at Figma last Monday"),
    ("Jon", "Congrats! I'm still training for the Berlin marathon"),
    ("Maya", "We finally bought the Bosch washing machine, the old one leaked"),
    ("Jon", "My sister has a beagle called Pepper"),
]


def _turns(tmp_path, question: str) -> list[str]:
    lines = [json.dumps({"id": f"t{i}", "speaker": who, "text": text, "time": f"2026-05-0{i + 1}T10:00:00Z"})
             for i, (who, text) in enumerate(TURNS)]
    with Cairn(tmp_path / "cairn.db", now=NOW) as cairn:
        cairn.ingest(lines, origin="chat")
        found = cairn.recall(question, lane="episodes", trace=False).results
        return [r.memory.evidence.source_id or "" for r in found]


def test_the_tables_give_a_question_word_its_other_words():
    alternatives = dict(parse_episode_query("where does Maya work").alternatives)
    assert stem("job") in alternatives[stem("work")]
    assert stem("bought") in dict(parse_episode_query("what did we buy").alternatives)[stem("buy")]
    # Negative control: a word the tables do not know has none.
    assert stem("marathon") not in dict(parse_episode_query("who runs the marathon").alternatives)


def test_a_turn_saying_another_word_answers(tmp_path):
    assert _turns(tmp_path / "a", "where does Maya work")[:1] == ["t0"]
    assert _turns(tmp_path / "b", "which washing machine did we buy")[:1] == ["t2"]


def test_a_turn_with_no_word_of_the_question_is_not_returned(tmp_path):
    # "pet": no turn says it, nor another word for it in the tables (and no speaker is named,
    # whose turns the lane would offer).
    assert _turns(tmp_path, "does anyone have a pet") == []


def test_another_word_covers_the_question_word_as_the_word_does(tmp_path):
    lines = [json.dumps({"id": "a", "speaker": "Ana", "text": "a job job job", "time": "2026-05-01T10:00:00Z"}),
             json.dumps({"id": "b", "speaker": "Ben", "text": "work at the docks", "time": "2026-05-01T10:01:00Z"})]
    with Cairn(tmp_path / "cairn.db", now=NOW) as cairn:
        cairn.ingest(lines, origin="chat")
        with cairn.store.snapshot() as view:
            ranked = rank_episodes(view, cairn.space, "where is the work", limit=5)
        scores = {cairn.get(s.id).evidence.source_id: s.factors["coverage"] for s in ranked}
    assert scores == {"a": 1.0, "b": 1.0}  # each holds the one question word
