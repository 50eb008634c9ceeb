"""Questions whose honest answer is nothing, and the sibling that used to answer them.

A store rarely holds nothing near a question it cannot answer: it holds the same attribute
of another thing ("who is our life insurance with" and the cat's insurance) or another
attribute of the thing ("does my gym have a pool" and the gym's membership fee). Each rule
here turns such a note away for a reason it can state, and each test has its negative
control: the note that does answer is still returned, and the sibling comes back when the
rule is switched off.

* **Kinds the store tells apart** (:func:`cairn.recall.gates.of_another_kind`): when notes
  on home, travel and car insurance are turned away as about another insurance, a note
  that holds "insured" under no such word does not say it is the life insurance either.
* **Whether a thing has one** (``ParsedQuery.had``): "does my gym have *a pool*" is not
  answered by a note on the gym that names no pool.
* **Who does something to a thing** (:func:`cairn.recall.gates.who_verdict`): "who cleans
  the windows" is not answered by the cleaners who clean something else, nor "who supplies
  our eggs" by a cake's allergens, which neither say it is done nor name anyone.
* **Plural possessives** ("the customers' homes") name their owner as "Omar's" does.
* **A name in another form** (:func:`cairn.recall.query.written_forms`): "the whitfields'"
  is the Whitfield family the notes name, so what is asked of them must be held.
"""

from __future__ import annotations

import re
from pathlib import Path

from cairn import Cairn
from cairn.recall import gates, pipeline, query
from cairn.recall.query import parse_query


def _recall(tmp_path: Path, notes: list[str], question: str, lane: str = "claims") -> list[str]:
    """What a recall over a store of ``notes`` returns for ``question``."""
    with Cairn(tmp_path / "cairn.db") as cairn:
        for text in notes:
            cairn.remember(text, kind="fact")
        return [r.memory.content for r in cairn.recall(question, trace=False, lane=lane).results]


def _reason(tmp_path: Path, notes: list[str], question: str, note: str) -> str | None:
    """The reason ``cairn explain`` gives for ``note`` on ``question``."""
    with Cairn(tmp_path / "cairn.db") as cairn:
        ids = {cairn.remember(text, kind="fact").memory.id: text for text in notes}
        doc = cairn.explain(question, lane="claims")
    return next(c["reason"] for c in doc["candidates"] if ids[c["id"]] == note)


INSURANCE = [
    "Buildings and contents insurance is with Aviva, 418 pounds a year, renews on 30 June",
    "Annual multi-trip travel insurance with Staysure covers Europe including winter sports",
    "Car insurance is with Admiral, 612 pounds a year, renews 3 March",
    "Biscuit the cat is insured with Petplan, lifetime cover, 21 pounds a month",
]


def test_a_note_that_names_no_kind_is_none_of_the_kinds_the_store_tells_apart(tmp_path, monkeypatch):
    assert _recall(tmp_path / "a", INSURANCE, "who is our life insurance with") == []
    assert _reason(tmp_path / "b", INSURANCE, "who is our life insurance with", INSURANCE[3]) == "missing-subject"
    # Negative controls: the kind asked for is answered; a store that tells no kinds apart
    # (only the cat's note) answers with what it holds, as before.
    assert _recall(tmp_path / "c", INSURANCE, "who is our car insurance with")[:1] == [INSURANCE[2]]
    assert _recall(tmp_path / "d", INSURANCE[3:], "who is our life insurance with") == [INSURANCE[3]]
    # The rule switched off: the cat's insurance answers for the life insurance.
    monkeypatch.setattr(pipeline, "of_another_kind", lambda told, held: False)
    assert _recall(tmp_path / "e", INSURANCE, "who is our life insurance with") == [INSURANCE[3]]


GYM = ["Switched gym to Third Space Islington in September; the membership is 140 pounds a month",
       "Physio on Thursdays at Northside Sports Clinic"]
POOL = "Third Space Islington has a 25 metre pool; lanes are free before 7am"
CAKE = ["Carrot cake has walnuts in the sponge and the topping, plus eggs, milk and wheat"]


def test_whether_a_thing_has_one_needs_a_note_that_names_it(tmp_path, monkeypatch):
    assert parse_query("does my gym have a pool").had == "pool"
    assert parse_query("does the carrot cake have nuts").had == ""  # no article: "walnuts" may say it
    assert _recall(tmp_path / "a", GYM, "does my gym have a pool") == []
    assert _reason(tmp_path / "b", GYM, "does my gym have a pool", GYM[0]) == "missing-attribute"
    # Negative controls: the note that names the pool answers; without an article the
    # thing may be met in other words.
    assert _recall(tmp_path / "c", [*GYM, POOL], "does my gym have a pool") == [POOL]
    assert _recall(tmp_path / "d", CAKE, "does the carrot cake have nuts") == CAKE
    # The rule switched off: the gym's membership answers whether it has a pool.
    monkeypatch.setattr(query, "had_asked", lambda text, features: "")
    assert _recall(tmp_path / "e", GYM, "does my gym have a pool") == [GYM[0]]


HOUSE = [
    "SparkleClean do the cleaning on weekday evenings after 6pm, 420 pounds a month",
    "The chocolate brownies contain eggs, milk and wheat, and are made beside hazelnuts",
]
EGGS = "Eggs come from Hillcrest Farm every Monday and Thursday"
OFFICE = "SparkleClean clean the office on weekday evenings after 6pm"


def test_who_does_something_to_a_thing_needs_the_thing_and_the_doing_or_someone(tmp_path, monkeypatch):
    assert parse_query("who cleans the windows").doing == "clean"
    assert parse_query("who is our plumber").doing == ""  # "is" does nothing
    assert _recall(tmp_path / "a", HOUSE, "who cleans the windows") == []
    assert _recall(tmp_path / "b", HOUSE, "who supplies our eggs") == []
    assert _reason(tmp_path / "c", HOUSE, "who cleans the windows", HOUSE[0]) == "missing-subject"
    assert _reason(tmp_path / "d", HOUSE, "who supplies our eggs", HOUSE[1]) == "missing-attribute"
    # Negative controls: a note on cleaning the thing asked, and one naming who the eggs
    # come from, though it never says "supplies".
    assert _recall(tmp_path / "e", [*HOUSE, OFFICE], "who cleans the office")[:1] == [OFFICE]
    assert _recall(tmp_path / "f", [*HOUSE, EGGS], "who supplies our eggs") == [EGGS]
    # The rule switched off: the cleaners and the brownies answer.
    monkeypatch.setattr(gates, "who_verdict", lambda query, content, held: None)
    assert _recall(tmp_path / "g", HOUSE, "who cleans the windows") == [HOUSE[0]]
    assert _recall(tmp_path / "h", HOUSE, "who supplies our eggs") == [HOUSE[1]]


BAKERY = ["Flour comes from Moulin Dupont, delivered every Tuesday morning",
          "The shop opens at 7:00 and closes at 18:30, closed on Mondays"]
DELIVERY = "We deliver cakes to customers' homes within 5 km on Saturdays"


def test_a_plural_possessive_names_its_owner(tmp_path, monkeypatch):
    parsed = parse_query("do we deliver to customers' homes")
    assert (parsed.subject, parsed.attributes) == ("customer", ("hom",))
    assert parse_query("what is Omar's shoe size").subject == "omar"  # the singular, as before
    assert _recall(tmp_path / "a", BAKERY, "do we deliver to customers' homes") == []
    # Negative control: the note on delivering to customers' homes answers.
    assert _recall(tmp_path / "b", [*BAKERY, DELIVERY], "do we deliver to customers' homes") == [DELIVERY]
    # The rule switched off (only "'s" is a possessive): the flour delivery answers.
    monkeypatch.setattr(query, "_POSSESSIVE_RE",
                        re.compile(r"(?:([^\W_]+)\s+)?([^\W_]+)['’]s\s+(?=([^\W_]+(?:\s+[^\W_]+)?))"))
    assert _recall(tmp_path / "c", BAKERY, "do we deliver to customers' homes") == [BAKERY[0]]


TENANTS = [
    "Flat C is let to Hannah and Joe Whitfield with their daughter; they prefer texts to calls",
    "Whitfields pay 1,150 pounds for Flat C on the 28th",
    "Flat A is let to Mark Ellis until March",
]
SCHOOL = "The Whitfield girl started school at Elm Primary in September"


def test_a_name_the_notes_write_in_another_form_is_the_subject(tmp_path, monkeypatch):
    assert _recall(tmp_path / "a", TENANTS, "has the whitfields' daughter started school") == []
    # Negative control: the note that says she started school answers.
    assert _recall(tmp_path / "b", [*TENANTS, SCHOOL], "has the whitfields' daughter started school")[:1] == [SCHOOL]
    # The rule switched off (only the form typed is looked for): the tenancy answers.
    monkeypatch.setattr(query, "written_forms", lambda features, eligible: {
        f.surface: f.term for f in features if f.term in eligible and f.surface.isalpha()})
    assert _recall(tmp_path / "c", TENANTS, "has the whitfields' daughter started school")[:1] == [TENANTS[0]]

