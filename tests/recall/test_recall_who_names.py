"""Asked who, the notes that name someone rank first.

"who does my tax return", "who is on my committee now": the answer is a person or a
firm, written with a capital inside a sentence ("Priya Shah", "Direct Line"). Among the
claims that pass the gates, those that name someone rank before those that name no one,
each group in its own order. Nothing is left out, since a plain noun may answer too
("Customers pay return postage"), and a later note that may update a named one (it
says something changed and holds a question word the named one holds) keeps its place
above it: "our accountant is now the bookkeeping firm upstairs" is not pushed below the
old accountant's name. Found by a held-out natural-question part (a PhD student's
memory); the stores here are written for the test.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from cairn import Cairn
from cairn.recall.pipeline import names_someone
from testkit import NOW, Clock

PREP = "The tax return and the quarterly tax prepayments are done in January"
ACCOUNTANT = "My accountant Priya Shah does the tax return each year"


def _recall(tmp_path, dated: list[tuple[str, int]], question: str) -> list[str]:
    """Contents recalled for ``question`` from notes remembered ``days`` before now."""
    clock = Clock(NOW)
    with Cairn(tmp_path / "cairn.db", now=clock) as cairn:
        for text, days in dated:
            clock.at = NOW - timedelta(days=days)
            cairn.remember(text, kind="fact")
        clock.at = NOW
        return [r.memory.content for r in cairn.recall(question, trace=False).results]


def test_asked_who_the_note_naming_someone_comes_first(tmp_path):
    got = _recall(tmp_path, [(PREP, 10), (ACCOUNTANT, 10)], "who does my tax return")
    assert got == [ACCOUNTANT, PREP]  # reordered, nothing left out


def test_asked_anything_else_the_order_stands(tmp_path):
    # Negative control: the same notes asked when; the prepayment note states the time.
    got = _recall(tmp_path, [(PREP, 10), (ACCOUNTANT, 10)], "what is done with the tax return")
    assert got[:1] == [PREP]


def test_a_later_note_that_says_what_changed_keeps_its_place_above_a_named_one(tmp_path):
    old = "Our accountant is Sarah Jones at Ledgerly"
    new = "Our accountant is now the bookkeeping firm upstairs, since we switched in May"
    assert not names_someone(new) and names_someone(old)
    assert _recall(tmp_path, [(old, 200), (new, 10)], "who is our accountant")[:1] == [new]


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Landlord insurance is with Direct Line", True),
        ("The thesis committee is Prof. Marsh and Dr Iyer", True),
        ("Customers pay return postage unless the item arrived damaged", False),  # opens the sentence
        ("The review is on 14 January, a Monday", False),  # a month and a weekday name no one
        ("We meet on Fridays. Dates are in the shared calendar", False),  # after a full stop
    ],
)
def test_what_names_someone(text, named):
    assert names_someone(text) is named


ENERGY = "We switched gas and electricity to Octopus Energy on 1 October; the direct debit is 128 pounds a month"
WATER = "Water is supplied by Thames Water, billed every six months"


def test_a_who_question_names_the_kind_of_answer_it_wants(tmp_path):
    from cairn.recall.query import parse_query

    asked = {f.term: f.answer_type for f in parse_query("who is our energy supplier").features}
    assert asked == {"energi": False, "supplier": True}
    assert _recall(tmp_path / "a", [(ENERGY, 60), (WATER, 30)], "who is our energy supplier")[:1] == [ENERGY]
    assert _recall(tmp_path / "b", [(ENERGY, 60), (WATER, 30)], "who's the water company")[:1] == [WATER]
    # Negative controls: the kind alone answers nothing, and outside a who-question the
    # word is a topic like any other.
    assert _recall(tmp_path / "c", [(ENERGY, 60), (WATER, 30)], "who is our broadband supplier") == []
    assert not any(f.answer_type for f in parse_query("what does the company sell").features)
