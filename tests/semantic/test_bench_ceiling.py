"""The fusion ceiling of ``python -m cairn.bench.semantic``: a question counts for a lane when
an evidence turn is in that lane's top 5, and for the ceiling when it is in either's; the
semantic order is counted as the lane gives it and as the fusion reads it (in context)."""

from __future__ import annotations

from cairn.bench import locomo
from cairn.bench.semantic import CeilingRanker, report

from .conftest import needs_extra

pytestmark = needs_extra

TURNS = [
    "I adopted a tabby kitten from the shelter last week",  # meaning only: no word of the question
    "My sister plays the cello in the city orchestra",
    "We repainted the kitchen a pale green colour",
    "The car needed new brakes before the long drive",
    "Caroline started a pottery class on Tuesdays",
    "The garden finally has tomatoes this summer",
    "The weather was rainy all weekend",
    "I am reading a novel about sailors",
]


def _conversation(questions: list[tuple[str, str]]) -> dict:
    return {"sample_id": "c", "conversation": {"speaker_a": "A", "speaker_b": "B",
            "session_1_date_time": "1:00 pm on 1 May, 2023",
            "session_1": [{"speaker": "A", "dia_id": f"D1:{n}", "text": t} for n, t in enumerate(TURNS, start=1)]},
            "qa": [{"question": q, "answer": "a", "evidence": [e], "category": 4} for q, e in questions]}


def test_the_ceiling_counts_either_lane_and_each_alone(tmp_path):
    conversation = _conversation([
        ("Which new pet cat joined the family?", "D1:1"),  # words meet nothing: the semantic lane only
        ("Which class did Caroline start?", "D1:5"),  # words: both lanes may find it
        ("What instrument does the neighbour's dog chase?", "D1:99"),  # no such turn: not asked
    ])
    counts = {"asked": 0, "lexical": 0, "semantic": 0, "either": 0}
    CeilingRanker(conversation, tmp_path, counts, 0).close()
    asked = len(locomo.questions(conversation, 0, locomo.EvidenceNotes()))
    assert counts["asked"] == asked == 2
    assert counts["either"] >= max(counts["lexical"], counts["semantic"])
    assert counts["lexical"] == 1 and counts["semantic"] == 2 and counts["either"] == 2
    # The order the fusion reads (meaning in context) is counted beside the lane's own.
    assert counts["context"] == 2 and counts["either_context"] == 2


def test_the_report_has_a_row_per_split_and_lane_and_the_ceiling_per_split():
    conversation = _conversation([("Which class did Caroline start?", "D1:5")])
    result = locomo.run([conversation], split="dev", lane="lexical")
    counts = {"dev": {"asked": 4, "lexical": 2, "semantic": 1, "either": 3, "context": 2, "either_context": 4}}
    lines = report("cmd", loco={"lexical": result}, split="dev", para={}, lat=[], fill={}, sizes={}, cands=[],
                   ceiling=counts)
    assert any(line.startswith("| lexical | dev | 1 | 1.000 |") for line in lines)
    assert any(line.startswith("| FTS5 baseline (same run) | dev | 1 |") for line in lines)
    assert any(line.startswith("Fusion ceiling, dev (same run, 4 questions)") and "**1.000**" in line for line in lines)
