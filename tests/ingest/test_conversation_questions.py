"""Questions a person asks after ingesting a conversation (tests/ingest/conversations/):
each with the turn that answers it, and questions whose honest answer is nothing, asked
with a plain recall (lane left to its default, not injected), as a newcomer would.

``friends.jsonl`` (two friends over five months: a new job, a dog, a marathon given up, a
move to Lisbon) was looked at while writing the rule below; ``assistant.jsonl`` (a user
planning a trip with an assistant, with a change of plans) was written before any of its
questions ran. Measured on 2026-12-02 before the rule: friends 0.4 in the answer / 0.4
first, assistant 1.0 / 0.9, nothing-questions 8 of 8 empty. The rule: a turn spoken by the
person the question is about answers when it holds a word of the question
(``cairn.recall.pipeline._answers``): friends 0.6 / 0.6, the rest unchanged. Left: "where
does Maya work" (her turns say "job" and "office", the question "work"), "where is Maya
based now", "what pet does Maya have" and "what dog did Maya get" (a greyhound, adopted
"instead" of the beagle she had in mind). The bars below are what is measured, so that a
change that loses an answer fails here.

``colleagues.jsonl`` (three colleagues over eight weeks of a portal project: owners, a
launch date moved twice, Trello replaced by Linear and Jenkins by GitHub Actions, small
talk) was written on 2026-12-03 by someone who had not read the recall code, with its
questions, before any of it ran: 0.733 in the answer / 0.733 first, and 1 of its 5
nothing-questions empty. Missed: "when is the portal launch" (the final date's turn says
"launch is 5 August", the answer is the checklist and rollback turns and the first date),
"what do we use to track tasks" (the Trello turn, not the later switch to Linear), "what
framework is the new API built with" (nothing; the turn says "build the new API with
FastAPI") and "why was the launch pushed back". Four nothing-questions come back with a
sibling turn (Elena's holiday for Marco's, the sales demo for a marketing demo, Elena's
daughter's school for Marco's son's, the owners' turns for the mobile app), so its row is
an expected failure. Two general fixes came of it, each tested below: a turn that asks
("Oh exciting! Which school?") answers nothing by its speaker, and turns are judged with
the question's words widened as claims are (kinds and their instances, verb forms): 0.800
/ 0.733, 2 of 5 nothing-questions empty.

``household.jsonl`` (two flatmates over twelve weeks: rent and bills and who pays them, a
boiler repaired, a Cornwall trip moved twice, a washing machine replaced, a chores rota
whose bins changed hands, small talk) was written on 2026-12-03 the same way, with its
questions, before any of it ran: 0.667 in the answer / 0.333 first, 3 of its 5
nothing-questions empty ("what brand is the fridge" gets the rota-on-the-fridge and
sourdough-in-the-fridge turns, Chloe's pottery class time gets the turn that mentions it);
the rent, the trip's final dates and the washing machine bought are not in the answer.

``club.jsonl`` (three organisers of an amateur running club over nine weeks: fees and who
collects them, training moved from a track being resurfaced to a school field, a vest order,
a 10k moved by two weeks, a new coach, a café as sponsor, small talk) was written on
2026-12-03 the same way, with its questions, before any of it ran: 0.867 in the answer /
0.667 first, 2 of its 5 nothing-questions empty. Missed: "who collects the fees" (the turns
where Grace gives it up and where she first said she would, not Owen's taking over) and
"when is the riverside 10k" (the turn about the lost first date, not the new one); the club
championship's date, a vest size and the 10k's entry fee come back with turns that mention
the championship, vests and entries.

``family.jsonl`` (three siblings over twelve weeks organising care for their father: his GP
and hospital appointments, medication stopped and started, who visits on which day and a
swap of days, a carer agency replaced by another, a fall and a cracked wrist, a care home
chosen and then given up, who pays and how much, small talk) was written on 2026-12-03 the
same way, with its questions, before any of it ran: 0.667 in the answer / 0.267 first, 4 of
its 5 nothing-questions empty ("what is dad's blood pressure reading" gets the turn listing
his blood-pressure tablet). Not in the answer: which agency looks after him and who his
carer is (the first agency's turns and the care-home turns, not the switch to Brightwater),
his medication now, which day Claire visits (not her swap to Sundays) and what each of them
pays towards the carers; most of the rest have the answering turn second or third, behind a
neighbouring turn of the same thread.

``wedding.jsonl`` (a couple and their wedding planner over five months: a barn venue and its
deposit and balance, the budget, a caterer and the menu chosen at a tasting, guest numbers
cut and then confirmed, a photographer who broke her wrist replaced by another, dress
fittings moved, who does what, small talk) was written on 2026-12-03 the same way, with its
questions, before any of it ran: 0.667 in the answer / 0.533 first, 3 of its 5
nothing-questions empty (Anna's bouquet gets the florist's quote, the dress's cost the
fitting turns and the budget). Not in the answer: the date and the venue (the greeting and
the cheese-board turn instead), the caterer (the catering-deposit turns), the guests coming
now (the first estimate and the cut, not the RSVP count) and why the photographer changed.

``startup.jsonl`` (two co-founders over four months: a first engineer hired, pricing changed
twice, a big customer's contract and its extra seats, Heroku left for AWS, an investor
meeting, an outage during the migration and its cause, who owns what, small talk) was
written on 2026-12-03 the same way, with its questions, before any of it ran: 0.733 in the
answer / 0.667 first, 4 of its 5 nothing-questions empty (where Kofi worked before gets his
turns at the company). Not in the answer: who was hired (the turns about hiring), the cloud
provider now (the turn that plans the move, not the one that finishes it), the outage's
cause (the turn that it happened) and when Dan is on holiday (nothing).

``reunion.jsonl`` (four university friends over eleven weeks organising a reunion weekend: a
cottage cancelled and a lodge booked a week later by another friend, who paid and who owes
what, a dinner table whose time moved, vegan and coeliac diets, travel and lifts, one friend
who drops out and another who joins, a walk swapped for the weather, small talk) was written
on 2026-12-03 the same way, with its questions, before any of it ran: 0.400 in the answer /
0.333 first, 3 of its 5 nothing-questions empty (Marcus's sister's name gets the turn about
her wedding, the lodge's checkout time the booking and check-in turns). Not in the answer:
the weekend's dates (the greeting and the first proposal, not the move to the 24th), where
they stay, who booked it, the restaurant, how Ellie travels (nothing for these four), who is
vegan (the turns about vegan food, not Beth's), why Marcus cannot come, the walk now (the
first plan and the dinner turns) and why the cottage was cancelled (the booking turn).

``allotment.jsonl`` (four members of an allotment committee over ten weeks: a plot given up
and offered from the waiting list, fees and who collects them, a leaking main pipe and its
repair, a shed break-in and the new lock's code, an open day moved for tree work, a seed
swap, a treasurer who steps down and another member who takes over, small talk) was written
on 2026-12-03 the same way, with its questions, before any of it ran: 0.667 in the answer /
0.400 first, 1 of its 5 nothing-questions empty (a small shed's code gets the big shed's
lock turns, the harvest supper's date the turn that mentions it, plot 22's new holder the
turns about the pipe under it, the lock's price the lock turns). Not in the answer: who
collects the fees now (the fees update and the question "how do people pay", not Kwame's
taking over), what was wrong with the water and what was stolen from the shed (nothing),
when the open day is (the first date and the tree-work turn, not the move to 27 June) and
who the new treasurer is (the call for one and Dev's news, not Kwame's "I'll take it on");
plot 14's new holder, the water back on, why the open day moved and the seed swap's table
come second or third, behind the turns that planned them.

A turn answers a question that asks for a time, a clock time or a quantity only if it
states one, as a claim must (:func:`cairn.recall.pipeline._in_asked_form`; in conversation
any number stated is a quantity, since a count comes with its own noun: "131 finishers").
And a turn that holds too little of the question for the relevance gates answers only
when what the gates found missing is its subject, which in conversation is often the
speaker or named in the turn before ("Their contact is Grace Liu" after "Northwind
signed!"); before, half the question as the episode lane counts it was enough whatever the
gates found, and the electricity bill answered "how much is the water bill". Measured on
2026-12-03 over the ten files: in the answer and first unchanged (0.707 / 0.557),
nothing-questions answered with nothing 30 → 33 (the form) → 34 of 48 ("when is the
harvest supper", "what time is Chloe's pottery class", "what time is checkout at Stanage
Lodge", "how much is the water bill"); two questions already missed ("when are we going to
Cornwall", "when is the reunion weekend") now get nothing instead of the first plan.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from cairn import Cairn
from cairn.model import parse_time
from cairn.recall import pipeline

HERE = Path(__file__).parent / "conversations"
CASES = json.loads((HERE / "cases.json").read_text(encoding="utf-8"))


def _answers(tmp_path: Path, name: str) -> tuple[list[tuple[str, list[str], list[str]]], list[tuple[str, list[str]]]]:
    """(question, expected turn ids, turn ids recalled) and (nothing-question, turn ids)."""
    with Cairn(tmp_path / "cairn.db", now=parse_time(CASES["now"])) as cairn:
        cairn.ingest(HERE / name)

        def turns(question: str) -> list[str]:
            return [r.memory.evidence.source_id or "" for r in cairn.recall(question, trace=False).results]

        found = [(c["q"], c["expect"], turns(c["q"])) for c in CASES["questions"] if c["file"] == name]
        empty = [(c["q"], turns(c["q"])) for c in CASES["nothing"] if c["file"] == name]
    return found, empty


COLLEAGUES_NOISY = pytest.mark.xfail(
    reason="measured as written at 0.733 / 0.733 with 4 of 5 nothing-questions answered by a sibling turn", strict=False
)


CLUB_NOISY = pytest.mark.xfail(
    reason="measured as written at 0.867 / 0.667 with 3 of 5 nothing-questions answered by a turn that mentions the "
           "thing asked about", strict=False
)


HOUSEHOLD_NOISY = pytest.mark.xfail(
    reason="measured as written at 0.667 / 0.333 with 2 of 5 nothing-questions answered by a turn that mentions the "
           "thing asked about", strict=False
)


FAMILY_NOISY = pytest.mark.xfail(
    reason="measured as written at 0.667 / 0.267 with 1 of 5 nothing-questions answered by a turn that mentions the "
           "thing asked about", strict=False
)


WEDDING_NOISY = pytest.mark.xfail(
    reason="measured as written at 0.667 / 0.533 with 2 of 5 nothing-questions answered by a turn that mentions the "
           "thing asked about", strict=False
)


REUNION_NOISY = pytest.mark.xfail(
    reason="measured as written at 0.400 / 0.333 with 2 of 5 nothing-questions answered by a turn that mentions the "
           "thing asked about", strict=False
)


STARTUP_NOISY = pytest.mark.xfail(
    reason="measured as written at 0.733 / 0.667 with 1 of 5 nothing-questions answered by the turns about the person "
           "asked about", strict=False
)


ALLOTMENT_NOISY = pytest.mark.xfail(
    reason="measured as written at 0.667 / 0.400 with 4 of 5 nothing-questions answered by a turn that mentions the "
           "thing asked about", strict=False
)


@pytest.mark.parametrize(("name", "answered", "first"), [
    ("friends.jsonl", 0.7, 0.7), ("assistant.jsonl", 1.0, 0.9),
    pytest.param("colleagues.jsonl", 0.7, 0.7, marks=COLLEAGUES_NOISY),
    pytest.param("household.jsonl", 0.6, 0.3, marks=HOUSEHOLD_NOISY),
    pytest.param("club.jsonl", 0.8, 0.6, marks=CLUB_NOISY),
    pytest.param("family.jsonl", 0.6, 0.2, marks=FAMILY_NOISY),
    pytest.param("wedding.jsonl", 0.6, 0.5, marks=WEDDING_NOISY),
    pytest.param("startup.jsonl", 0.7, 0.6, marks=STARTUP_NOISY),
    pytest.param("reunion.jsonl", 0.4, 0.3, marks=REUNION_NOISY),
    pytest.param("allotment.jsonl", 0.6, 0.4, marks=ALLOTMENT_NOISY)])
def test_questions_about_a_conversation_are_answered_from_its_turns(tmp_path, name, answered, first):
    found, empty = _answers(tmp_path, name)
    in_answer = sum(bool(set(expect) & set(got)) for _, expect, got in found) / len(found)
    on_top = sum(got[:1] != [] and got[0] in expect for _, expect, got in found) / len(found)
    assert in_answer >= answered and on_top >= first, [(q, e, g) for q, e, g in found if g[:1] == [] or g[0] not in e]
    assert [(q, got) for q, got in empty if got] == []  # nothing said about it: nothing recalled


def test_a_turn_by_the_person_asked_about_answers_with_a_word_of_the_question(tmp_path, monkeypatch):
    with Cairn(tmp_path / "cairn.db", now=parse_time(CASES["now"])) as cairn:
        cairn.ingest(HERE / "friends.jsonl")

        def turns(question: str) -> list[str]:
            return [r.memory.evidence.source_id or "" for r in cairn.recall(question, trace=False).results]

        assert turns("which shoes does Jon wear")[:1] == ["t4"]
        assert turns("what language is Jon learning")[:1] == ["t12"]
        # Negative controls: Jon's shoes are not Maya's, and no turn of Jon's says "cat".
        assert turns("what shoes does Maya wear") == []
        assert turns("does Jon have a cat") == []
        # Without the rule, the half-covered turns by the subject do not answer.
        monkeypatch.setattr(pipeline, "_answers", lambda c: c.reason is None and (
            c.gate is None or (c.turn_coverage or 0.0) >= pipeline.TURN_ANSWER_COVERAGE))
        assert turns("which shoes does Jon wear") == []


def test_a_turn_that_asks_is_no_answer_by_its_speaker(tmp_path, monkeypatch):
    """"which school does Marco's son go to": Marco asked "Which school?" of someone else's
    child; his turn holds the word because it asks, and answers nothing."""
    with Cairn(tmp_path / "cairn.db", now=parse_time(CASES["now"])) as cairn:
        cairn.ingest(HERE / "colleagues.jsonl")

        def turns(question: str) -> list[str]:
            return [r.memory.evidence.source_id or "" for r in cairn.recall(question, trace=False).results]

        assert turns("which school does Marco's son go to") == []
        # Positive control: a turn by the subject that states something still answers.
        assert "c22" in turns("which school does Elena's daughter go to")
        monkeypatch.setattr(pipeline, "_asks", lambda c: False)
        assert turns("which school does Marco's son go to") != []


def test_a_turn_is_judged_with_the_question_words_widened(tmp_path, monkeypatch):
    """"what framework is the new API built with": the turn says "we build the new API with
    FastAPI" — an instance of the kind asked for, and another form of the verb."""
    from cairn.recall import episodes as ranker
    from cairn.recall.lanes import episodes

    def answer(folder: str) -> list[str]:
        with Cairn(tmp_path / folder / "cairn.db", now=parse_time(CASES["now"])) as cairn:
            cairn.ingest(HERE / "colleagues.jsonl")
            found = cairn.recall("what framework is the new API built with", trace=False).results
            return [r.memory.evidence.source_id or "" for r in found]

    assert "c12" in answer("a")
    # Judged with the bare words, the turn holds neither and no turn answers (the ranker's
    # own other words for a question word, "built"/"build", left out too).
    monkeypatch.setattr(episodes, "expand", lambda query, stats: query)
    monkeypatch.setattr(ranker, "_alternatives", lambda term: ())
    assert "c12" not in answer("b")


@contextmanager
def _asked_of(tmp_path: Path, rows: list[tuple[str, str, str, str]]) -> Iterator[Callable[[str], list[str]]]:
    """A store holding one conversation of ``rows`` (id, speaker, text, time), and a function
    from a question to the ids of the turns a plain recall hands out."""
    chat = tmp_path / "chat.jsonl"
    chat.write_text("".join(json.dumps({"id": i, "speaker": who, "text": text, "time": at}) + "\n"
                            for i, who, text, at in rows), encoding="utf-8")
    with Cairn(tmp_path / "cairn.db", now=parse_time(CASES["now"])) as cairn:
        cairn.ingest(chat)
        yield lambda question: [r.memory.evidence.source_id or "" for r in cairn.recall(question, trace=False).results]


FORMS = [
    ("f1", "Ana", "We'll give Dev a proper send-off at the harvest supper.", "2026-06-01T19:00:00Z"),
    ("f2", "Ben", "Lovely idea, he's earned it.", "2026-06-01T19:02:00Z"),
    ("f3", "Ana", "The 10k is done! 131 finishers and a new course record.", "2026-06-08T19:00:00Z"),
    ("f4", "Ben", "Chloe missed it, she was at her pottery class all evening.", "2026-06-08T19:05:00Z"),
    ("f5", "Ana", "The club quiz is on Friday 12 September at 7pm in the village hall.", "2026-06-15T19:00:00Z"),
]


def test_a_turn_answers_in_the_form_the_question_asks_for(tmp_path, monkeypatch):
    """Asked when, what time or how many, a turn that names the thing but states no time,
    clock time or number is no answer: the supper is mentioned, not dated. (The turns from
    the words alone, as without the semantic extra, whose order this reads.)"""
    monkeypatch.setenv("CAIRN_SEMANTIC", "off")
    with _asked_of(tmp_path, FORMS) as turns:
        assert turns("when is the harvest supper") == []
        assert turns("what time is Chloe's pottery class") == []
        # Positive controls: a turn that states the time, or a count with its own noun.
        assert turns("when is the club quiz")[:1] == ["f5"]
        assert turns("what time does the quiz start")[:1] == ["f5"]
        assert turns("how many people finished the 10k")[:1] == ["f3"]
        # Without the rule the undated turn answers.
        monkeypatch.setattr(pipeline, "_in_asked_form", lambda query, c: True)
        assert turns("when is the harvest supper")[:1] == ["f1"]


BILLS = [
    ("n1", "Priya", "Northwind signed! 150 seats from April.", "2026-03-16T10:00:00Z"),
    ("n2", "Dan", "Amazing. What do they need from us?", "2026-03-16T10:02:00Z"),
    ("n3", "Priya", "SSO with Okta and a data processing agreement. Their contact is Grace Liu, head of finance.",
     "2026-03-16T10:06:00Z"),
    ("n4", "Dan", "The Octopus bill for June was 61 pounds, send me half when you can.", "2026-06-02T09:00:00Z"),
    ("n5", "Priya", "Feed the sourdough starter flour and water every couple of days.", "2026-06-03T09:00:00Z"),
]


def test_a_turn_short_of_the_question_for_the_gates_is_no_answer_unless_only_its_subject_is_missing(
        tmp_path, monkeypatch):
    """Half the question held is enough for a turn whose subject was said before it
    ("Their contact is ..." after "Northwind signed!"), not for a turn that holds too little
    for the gates: the electricity bill and the flour and water are no water bill. (The
    turns from the words alone, as without the semantic extra, whose order this reads.)"""
    monkeypatch.setenv("CAIRN_SEMANTIC", "off")
    with _asked_of(tmp_path, BILLS) as turns:
        assert turns("how much is the water bill") == []
        assert turns("who is the contact at Northwind")[:1] == ["n3"]  # only the subject is missing
        # With half the question enough whatever the gates found missing, the bill answers.
        monkeypatch.setattr(pipeline, "_answers", lambda c: c.reason is None and (
            c.gate is None or (c.turn_coverage or 0.0) >= pipeline.TURN_ANSWER_COVERAGE))
        assert set(turns("how much is the water bill")) >= {"n4", "n5"}
