"""What meaning alone may not bring into a hybrid recall, each with its negative control:
a question the store cannot answer still has nearest neighbours, and they are its
siblings (cairn.recall.fusion, ``_turned_away``):

* a **thing the question names by two words**, when the store calls other things by its
  noun and the record holds neither word ("the recipe for *rye bread*" against the
  sourdough's price, 0.39, in a store whose note on unsold bread says "bread") — while a
  thing the store never calls so is still found by meaning ("the network passphrase": the
  wifi password), though the store uses its modifier ("our *tax* advisor": the accountant);
* a record **nearer in meaning that holds the question's words and was turned down** ("which
  vet do we use" is nearest the note on the dog's vets, 0.48, which the gates turned down,
  and then the dentist, 0.38);
* a **number** the question asks for ("how *much* protein"): a record stating none is not
  the answer, by meaning as by words; one that states an amount is.
"""

from __future__ import annotations

from cairn.recall import fusion

from .conftest import needs_extra

pytestmark = needs_extra

BAKERY = [
    "A sourdough loaf costs 6.50 euros since the January price increase",
    "Sourdough loaves are proofed overnight in the retarder at 4 degrees",
    "No gluten-free products: we cannot guarantee a flour-free kitchen",
    "Flour comes from Moulin Dupont, delivered every Tuesday morning",
]
UNSOLD = "Unsold bread goes to the food bank on Rue Verte at closing time"
OFFICE = [
    "The office wifi password is changed every quarter by IT",
    "The printer on the second floor jams with thick paper",
    "Network cables and spare adapters are in the store room",
]
TAX = [
    "Our accountant Fiona Grant does the self assessment for the rental income",
    "Tax returns are due on 31 January",
    "Rent for Flat A is 950 pounds a month, due on the 1st",
]
APP = [
    "Translations live in locales/*.json and are managed in Lokalise; English and German ship today",
    "Minimum supported versions are iOS 16 and Android 10 (API level 29)",
    "The mobile app is built with React Native 0.74 and Expo SDK 51",
]
FAMILY = [
    "Biscuit the dog goes to Hillside Vets; his vaccinations are due in March",
    "Mia's dentist is Dr. Okafor at Riverside Dental; check-ups every six months",
    "Leo's piano teacher is Ms. Brandt, lessons Tuesdays 17:00, 25 euros each",
    "The boiler is a Vaillant ecoTEC, serviced every autumn by HeatRight",
]
DIET = [
    "I eat vegetarian on weekdays and have fish at the weekend",
    "Vitamin D: 1000 IU daily with breakfast from October to March",
    "I'm lactose intolerant: oat milk in coffee, and pea protein instead of whey",
    "Weighed 71.4 kg this morning",
    "I drink about two litres of water a day, more on long-run days",
]


def _store(cairn, texts: list[str]) -> dict[str, str]:
    """The texts stored; returns each one's id."""
    return {text: cairn.remember(text, kind="fact").memory.id for text in texts}


def _reason(cairn, question: str, memory_id: str) -> str:
    (mine,) = [c for c in cairn.explain(question, lane="hybrid")["candidates"] if c["id"] == memory_id]
    return mine["reason"]


def _hybrid(cairn, question: str) -> list[str]:
    return [r.memory.content for r in cairn.recall(question, lane="hybrid", trace=False).results]


def _without_siblings_rule(monkeypatch) -> None:
    monkeypatch.setattr(fusion, "_turned_away", lambda *args: {})


def test_a_named_thing_the_store_words_otherwise_is_not_answered_by_meaning(cairn, monkeypatch):
    ids = _store(cairn, [*BAKERY, UNSOLD])
    assert _hybrid(cairn, "what is the recipe for rye bread") == []
    assert _reason(cairn, "what is the recipe for rye bread", ids[BAKERY[0]]) == "missing-subject"
    _without_siblings_rule(monkeypatch)  # negative control: the price note is its nearest neighbour
    assert _hybrid(cairn, "what is the recipe for rye bread") == [BAKERY[0]]


def test_the_named_thing_counts_only_when_the_store_uses_its_words(cairn):
    """Without the note on unsold bread no record says "bread": the question's words are not
    the store's, and meaning is what bridges them (here to a wrong note; below, to the right
    one)."""
    _store(cairn, BAKERY)
    assert _hybrid(cairn, "what is the recipe for rye bread") == [BAKERY[0]]


def test_a_named_thing_paraphrased_wholesale_is_still_found(cairn):
    """The store says "network" (the cables) and "tax" (the returns), never "passphrase" or
    "advisor": the noun says what kind of thing is asked for, and no note calls one so."""
    _store(cairn, [*OFFICE, *TAX])
    assert _hybrid(cairn, "how often does the network passphrase rotate")[:1] == [OFFICE[0]]
    assert _hybrid(cairn, "who is our tax advisor")[:1] == [TAX[0]]


def test_the_verb_that_closes_a_question_is_not_a_named_thing(cairn, monkeypatch):
    """"which languages does the app *support*": "app support" reads as a thing named by two
    words, and the store says "app" (the stack note); the verb is what happens, not what is
    named, so the translations note still answers."""
    _store(cairn, APP)
    assert _hybrid(cairn, "which languages does the app support")[:1] == [APP[0]]
    monkeypatch.setattr(fusion, "closing_verb", lambda text: "")  # negative control: read as a named thing
    assert _hybrid(cairn, "which languages does the app support") == []


def test_a_nearer_record_turned_down_keeps_its_neighbour_out(cairn, monkeypatch):
    ids = _store(cairn, FAMILY)
    question = "I need to book the dog's vet appointment, which vet do we use?"
    assert FAMILY[1] not in _hybrid(cairn, question)
    assert _reason(cairn, question, ids[FAMILY[1]]) == "below-similarity"
    _without_siblings_rule(monkeypatch)  # negative control: the dentist passes on meaning alone
    assert FAMILY[1] in _hybrid(cairn, question)


def test_a_how_much_question_needs_a_number_by_meaning_too(cairn, monkeypatch):
    _store(cairn, DIET)
    assert _hybrid(cairn, "how much protein should i eat a day") == []
    # Positive control: a paraphrase that states an amount passes on meaning.
    assert _hybrid(cairn, "how much should i be drinking each day")[:1] == [DIET[4]]
    # Negative control: without the demand for a number, the diet note passes (0.36).
    monkeypatch.setattr(fusion, "states_quantity", lambda text: True)
    assert _hybrid(cairn, "how much protein should i eat a day") == [DIET[0]]
