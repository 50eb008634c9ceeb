"""A question that asks what a thing is ("who's my physio", "what is our database") is
answered best by the note that says it ("My physio is Hannah Lindqvist"): that note holds
the question's own statement turned round, the thing asked followed by its copula, and
gets the phrase bonus for it (:func:`cairn.recall.phrase.definition_span`). Negative
controls: other shapes of question have no such span, and the span never lets a note
answer a question about something it does not hold.
"""

from __future__ import annotations

from datetime import timedelta

from cairn import Cairn
from cairn.recall import phrase, pipeline
from cairn.recall.phrase import definition_span
from cairn.recall.query import parse_query
from testkit import NOW, Clock

PHYSIO = [
    ("Knee pain after long runs: the physio says to cut mileage by a third for two weeks", 50),
    ("My physio is Hannah Lindqvist at Northside Sports Clinic; a session costs 55 pounds", 45),
    ("Physio sessions are booked online; Hannah works Mondays, Wednesdays and Fridays", 40),
    ("Physio exercises: clamshells and single-leg bridges, three sets a day", 38),
    ("Long run on Sundays, easy pace, building to 32 km", 30),
    ("I take iron tablets every other evening, never with tea", 20),
    ("The gym membership is 140 pounds a month", 60),
    ("Race goal: Seville Marathon in February", 90),
]


def _ask(tmp_path, question: str) -> list[str]:
    clock = Clock(NOW)
    with Cairn(tmp_path / "cairn.db", now=clock) as cairn:
        for text, days in PHYSIO:
            clock.at = NOW - timedelta(days=days)
            cairn.remember(text, kind="fact")
        clock.at = NOW
        return [r.memory.content for r in cairn.recall(question, trace=False, lane="claims").results]


def test_the_thing_a_copula_question_asks_is_read_with_its_copula():
    assert definition_span(parse_query("who's my physio")) == ("physio", "is")
    assert definition_span(parse_query("What is our database?")) == ("database", "is")
    assert definition_span(parse_query("where are the spare keys")) == ("spare", "keys", "are")
    # Negative controls: other shapes of question.
    assert definition_span(parse_query("who is head of the science department")) is None
    assert definition_span(parse_query("what do we use for orchestration")) is None
    assert definition_span(parse_query("when is my physio appointment booked")) is None


def test_the_note_that_says_what_the_thing_is_comes_first(tmp_path, monkeypatch):
    assert _ask(tmp_path / "a", "who's my physio")[:1] == [PHYSIO[1][0]]
    # The rule broken: every note holds "physio" once, and the defining note is not first
    # (the who-rule, which would put the named notes first, is left out too).
    monkeypatch.setattr(phrase, "definition_span", lambda query: None)
    monkeypatch.setattr(pipeline, "named_first", lambda ranked, query: ranked)
    assert _ask(tmp_path / "b", "who's my physio")[:1] != [PHYSIO[1][0]]


def test_the_copula_answers_nothing_on_its_own(tmp_path):
    # Negative control: "is" after another thing is no anchor for a question on a thing
    # no note holds.
    assert _ask(tmp_path, "who's my dentist") == []
