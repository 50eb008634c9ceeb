"""A question typed all in lower case names no one by its capitals; the notes do
(:func:`cairn.recall.query.store_named`). A word the notes write with a capital inside a
sentence, every time, is a name: the question's subject, as a capitalised name would be.
Negative controls: a word the notes also write in lower case, or only at the start of a
sentence, is no name; a question with capitals keeps its own reading; two names leave it
as it was.
"""

from __future__ import annotations

from cairn import Cairn
from cairn.recall import pipeline
from cairn.recall.query import parse_query, store_named
from testkit import NOW

SHOP = [
    "Teapots and cups come from Hartley Ceramics, a pottery in Stoke; lead time is about six weeks",
    "Our loose-leaf tea comes from Greenleaf Imports in Hamburg; our contact there is Jana Kühn",
    "Greenleaf invoices on 30-day terms and the minimum order is 50 kg",
    "Reorder a tea when it drops below 5 kg, and teapots when fewer than 10 are left",
]


def _recall(tmp_path, question: str) -> list[str]:
    with Cairn(tmp_path / "cairn.db", now=NOW) as cairn:
        for text in SHOP:
            cairn.remember(text, kind="fact")
        return [r.memory.content for r in cairn.recall(question, trace=False).results]


def test_the_notes_say_which_word_of_a_lower_case_question_is_a_name():
    asked = store_named(parse_query("who's our contact at hartley ceramics"), SHOP)
    assert asked.subject == "hartley" and asked.attributes == ("contact",)
    # Greenleaf opens a sentence once and stands inside one once: a name.
    assert store_named(parse_query("what's the lead time from greenleaf"), SHOP).subject == "greenleaf"


def test_words_the_notes_write_in_lower_case_or_only_first_are_no_names():
    notes = ["Contact forms go to the shared inbox", "Pottery orders ship on Mondays", "the pottery in Stoke is closed"]
    assert store_named(parse_query("who answers the contact forms"), notes).subject is None  # only sentence-first
    assert store_named(parse_query("when do pottery orders ship"), notes).subject is None  # also lower case
    # A question with capitals keeps its own reading; two names are no one subject.
    assert store_named(parse_query("Who is our contact at Hartley"), SHOP) == parse_query("Who is our contact at Hartley")
    assert store_named(parse_query("does greenleaf supply hartley"), SHOP).subject is None
    # Weekdays, months and holidays are capitalised by spelling, in notes as in questions.
    notes = ["The office is closed over Christmas", "Standup is on Monday at 9 in the Lisbon office"]
    assert store_named(parse_query("is the office open over christmas"), notes).subject is None
    assert store_named(parse_query("when is standup on monday"), notes).subject is None
    assert store_named(parse_query("is the lisbon office open"), notes).subject == "lisbon"


def test_a_lower_case_question_about_one_supplier_is_not_answered_by_another(tmp_path, monkeypatch):
    assert _recall(tmp_path / "a", "who's our contact at greenleaf")[:1] == [SHOP[1]]
    assert _recall(tmp_path / "b", "what's the minimum order at hartley") == []
    assert _recall(tmp_path / "c", "who's our contact at hartley ceramics") == []
    # Without the notes' names, the other supplier's terms answer for Hartley.
    monkeypatch.setattr(pipeline, "store_named", lambda query, contents: query)
    assert _recall(tmp_path / "d", "what's the minimum order at hartley") != []
