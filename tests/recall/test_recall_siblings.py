"""A note about another thing of the kind the question names is no answer.

"who is head of the science department" and the note "Mrs Okonkwo is head of the maths
department": the note holds "head" and "department", and coverage lets it through, but
it names the department under another modifier; it is about another department
(:func:`cairn.recall.gates.names_another`, reason ``missing-subject``). Found by the
held-out parts ``natural/fresh5.json``, ``fresh8.json``, ``fresh10.json`` and
``fresh11.json``, written by newcomers: five nothing-questions answered by a sibling.

Negative controls, each a way the rule could overreach: a yes/no question (its answer may
well be about the other thing), a describing word ("the daily standup" is the team
standup), a note that holds the question's modifier elsewhere, and a verb before a noun
("how do I send invoices") rather than a modifier.
"""

from __future__ import annotations

from cairn import Cairn
from cairn.recall import gates
from cairn.recall.query import parse_query

SCHOOL = [
    "Mrs Okonkwo is head of the maths department and signs off all exam papers",
    "Blood test at Elm Road Surgery on 9 December at 8:20, fasting from midnight",
    "SSO is only available on the Enterprise plan, not on Business",
    "The daily standup is at 9:30 in the small meeting room",
    "Invoices go out on the first working day of the month as PDF",
    "Parents' evening for Year 9 is on Thursday in the main hall",
]


def _claims(tmp_path, notes: list[str], question: str) -> list[str]:
    """What a claims recall over a store of ``notes`` returns for ``question``."""
    with Cairn(tmp_path / "cairn.db") as cairn:
        for text in notes:
            cairn.remember(text, kind="fact")
        return [r.memory.content for r in cairn.recall(question, trace=False, lane="claims").results]


def test_a_qualified_noun_is_read_from_a_wh_question():
    assert parse_query("who is head of the science department").qualified == (("scienc", "department"),)
    assert parse_query("when is my eye test").qualified == (("eye", "test"),)
    # Negative controls: a yes/no question, a wh-word before the pair, a verb before a noun.
    assert parse_query("is SSO included in the Business plan").qualified == ()
    assert parse_query("which bank account pays the bills").qualified == ()
    assert parse_query("how do I send invoices to the client").qualified == ()


def test_a_note_on_another_thing_of_the_kind_is_no_answer(tmp_path, monkeypatch):
    assert _claims(tmp_path / "a", SCHOOL, "who is head of the science department") == []
    assert _claims(tmp_path / "b", SCHOOL, "when is my eye test") == []
    # The rule broken: the maths department's head and the blood test answer.
    monkeypatch.setattr(gates, "names_another", lambda query, content, held: False)
    assert _claims(tmp_path / "c", SCHOOL, "who is head of the science department") == [SCHOOL[0]]
    assert _claims(tmp_path / "d", SCHOOL, "when is my eye test") == [SCHOOL[1]]


def test_the_rule_does_not_overreach(tmp_path):
    # A yes/no question: the note on the other plan is the answer.
    assert _claims(tmp_path / "a", SCHOOL, "is SSO included in the Business plan")[:1] == [SCHOOL[2]]
    # A describing word in the note's modifier place: the daily standup is the team standup.
    assert _claims(tmp_path / "b", SCHOOL, "when is the team standup")[:1] == [SCHOOL[3]]
    # The note holds the question's modifier elsewhere.
    assert _claims(tmp_path / "c", SCHOOL, "who is head of the maths department")[:1] == [SCHOOL[0]]
    # A verb before the noun: nothing qualifies it.
    assert _claims(tmp_path / "d", SCHOOL, "how do I send invoices")[:1] == [SCHOOL[4]]


EVENINGS = [
    "Parents' evening for Year 9 is on Thursday 10 December from 16:00 to 19:30 in the main hall",
    "Parents' evening appointments are 5 minutes each and parents book them through SchoolCloud",
    "I teach maths in room B12 and physics in lab S3",
    "Mock exams start on 11 January; papers go to the exams office by 4 January",
    "The physics trip is to the Science Museum on 21 January",
    "Term grades are weighted: homework 20 percent, tests 50 percent",
    "Detentions are on Wednesdays after school for 30 minutes in room A4",
    "My break duty is on Tuesdays in the canteen",
    "Grades go into Arbor; the deadline for this term's grades is 18 December",
    "Write to parents in a warm but brief tone",
    "This year Year 9 switched to the White Rose Maths scheme",  # "year" is no name here
]


def test_a_noun_numbered_otherwise_is_another_thing_and_still_sets_the_cutoff(tmp_path, monkeypatch):
    """"when is parents evening for year 11": the note on Year 9's evening numbers the year
    otherwise and says 11 nowhere; and, turned away, it still sets the relative cutoff, so
    the weaker note on booking appointments (no year at all) does not answer in its place."""
    from cairn.recall import pipeline

    assert parse_query("when is parents evening for year 11").qualified == (("year", "11"),)
    assert _claims(tmp_path / "a", EVENINGS, "when is parents evening for year 11") == []
    # Positive control: the year the note names.
    assert _claims(tmp_path / "b", EVENINGS, "when is parents evening for year 9")[:1] == [EVENINGS[0]]
    # The cutoff rule broken: the booking note answers for Year 11's evening.
    monkeypatch.setattr(pipeline, "_about_another", lambda c, query, reason=None: False)
    assert _claims(tmp_path / "c", EVENINGS, "when is parents evening for year 11") == [EVENINGS[1]]
    monkeypatch.undo()
    # The sibling rule broken: Year 9's evening answers for Year 11's.
    monkeypatch.setattr(gates, "names_another", lambda query, content, held: False)
    assert _claims(tmp_path / "d", EVENINGS, "when is parents evening for year 11")[:1] == [EVENINGS[0]]


SHIPPING = ["Free shipping on UK orders over 40 pounds"]


def test_a_two_letter_modifier_names_another_thing(tmp_path, monkeypatch):
    """"for EU orders" and a note on "UK orders": a region code is a modifier however short."""
    assert _claims(tmp_path / "a", SHIPPING, "what's the free shipping threshold for EU orders") == []
    assert _claims(tmp_path / "b", SHIPPING, "what's the free shipping threshold for UK orders") == [SHIPPING[0]]  # control
    monkeypatch.setattr(gates, "MODIFIER_LETTERS", 3)  # the rule broken: three letters at least, as before
    assert _claims(tmp_path / "d", SHIPPING, "what's the free shipping threshold for EU orders") == [SHIPPING[0]]


TAXES = ["Quarterly tax prepayments of 1,100 euros go out on the 10th of March, June, September and December",
         "Business rates are paid to the council in ten instalments"]


def test_a_describing_word_names_no_other_thing_in_the_question_or_the_note(tmp_path, monkeypatch):
    """"the next tax prepayment" is one of the "quarterly tax prepayments": "next" selects
    by time and "quarterly" describes, neither tells one prepayment from another kind."""
    assert _claims(tmp_path / "a", TAXES, "when is the next tax prepayment")[:1] == [TAXES[0]]
    assert _claims(tmp_path / "b", TAXES, "when is the income tax prepayment")[:1] == [TAXES[0]]
    assert _claims(tmp_path / "c", TAXES, "when is the VAT prepayment") == []  # control: "tax" does tell them apart
    monkeypatch.setattr(gates, "_DESCRIBING", frozenset())  # the rule broken
    assert _claims(tmp_path / "d", TAXES, "when is the next tax prepayment") == []
    assert _claims(tmp_path / "e", TAXES, "when is the income tax prepayment") == []


FLATS = ["Flat B mortgage is with Nationwide, fixed at 4.2 percent until August 2027",
         "Flat A has an EPC rating of D; loft insulation is planned for spring"]


def test_a_noun_labelled_by_another_letter_is_another_thing(tmp_path, monkeypatch):
    """"the mortgage rate on flat A" and the note on Flat B's mortgage: a capital letter
    after a noun names which one, as "year 11" does. The pronoun "I" labels nothing."""
    assert parse_query("what's the mortgage rate on flat A").qualified[-1] == ("flat", "a")
    assert parse_query("what did I say about the mortgage").qualified == ()
    assert _claims(tmp_path / "a", FLATS, "what's the mortgage rate on flat A") == []
    assert _claims(tmp_path / "b", FLATS, "what's the mortgage rate on flat B")[:1] == [FLATS[0]]  # control
    assert _claims(tmp_path / "c", FLATS, "what's the EPC rating of flat A")[:1] == [FLATS[1]]  # control
    monkeypatch.setattr(gates, "labels", lambda content: [])  # the rule broken: Flat B's answers for A
    assert _claims(tmp_path / "d", FLATS, "what's the mortgage rate on flat A")[:1] == [FLATS[0]]
