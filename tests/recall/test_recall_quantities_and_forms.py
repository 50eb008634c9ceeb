"""Rules found by an eighth held-out natural-question part (a freelance translator's
memory, ``natural/fresh7.json``), each with its negative control:

* **a question for a quantity** ("how much", "how many") is answered by a record that
  states one — digits, or a number in words ("one approval", "free", "no VAT"): the note
  on backups to the storage box does not say what the box costs; so is **a question for a
  version** ("which dbt version are we on") by a record holding a digit (a held-out part,
  ``natural/fresh11.json``, found it);
* **forms the stemmer leaves apart meet**: an irregular verb and its past forms
  (``make``/``made``, ``pay``/``paid``), and a plural of an ``-ing`` noun that the index
  keeps stemmed once ("mornings" is ``morning``, "morning" is ``morn``);
* **the verb after "what X do I"** is the asker's word for how X is had ("what tea do I
  *drink*" is answered by "a pot of Assam"), weighed as a common word in coverage; in "how
  do we *merge* pull requests" the verb is the topic and keeps its weight.
"""

from __future__ import annotations

from cairn import Cairn
from cairn.recall.query import parse_query, states_quantity
from cairn.recall.variants import IRREGULAR, variants
from cairn.text import index_text, stem
from testkit import NOW

from .test_recall_kinds_and_names import _Vocabulary
from .test_recall_phrase_variants import _recall

STUDIO = [
    "Work files are backed up nightly to a Hetzner storage box, and weekly to an external SSD",
    "For long jobs Tomás Ruiz proofreads the Spanish source; he charges 30 EUR an hour",
    "Every pull request needs one approval and a green CI run before merge",
]


def test_a_question_for_a_quantity_needs_a_record_that_states_one(tmp_path):
    assert parse_query("how much does the Hetzner storage box cost").quantity
    assert _recall(tmp_path, STUDIO, "how much does the Hetzner storage box cost") == []


def test_a_stated_quantity_answers_in_digits_or_in_words(tmp_path):
    # Positive controls: digits, and a number in words.
    assert _recall(tmp_path / "a", STUDIO, "how much does Tomás charge")[:1] == [STUDIO[1]]
    assert _recall(tmp_path / "b", STUDIO, "how many approvals does a pull request need")[:1] == [STUDIO[2]]
    assert states_quantity("I charge no VAT") and states_quantity("five random seeds")
    assert not states_quantity("Work files are backed up nightly")
    # Not a quantity question: the backup note answers where files are backed up.
    assert not parse_query("where are my files backed up").quantity
    assert _recall(tmp_path / "c", STUDIO, "where are my files backed up")[:1] == [STUDIO[0]]


def test_an_irregular_verb_meets_its_past_forms_both_ways():
    assert stem("made") in IRREGULAR[stem("make")] and stem("make") in IRREGULAR[stem("made")]
    stats = _Vocabulary("Invoices are made in Zervant and paid by bank transfer")
    assert stem("made") in variants(stem("make"), stats)
    assert stem("paid") in variants(stem("pay"), stats)
    # Forms with another common sense stay apart: "left" is also a direction.
    assert stem("left") not in IRREGULAR.get(stem("leave"), ())


def test_a_made_record_answers_a_make_question(tmp_path):
    store = ["Invoices are made in Zervant and numbered 2026-NNN",
             "Lumina wants invoices as PDF through their vendor portal"]
    assert _recall(tmp_path, store, "what tool do I make invoices in")[:1] == [store[0]]


def test_a_plural_kept_stemmed_once_meets_the_singular_both_ways(tmp_path):
    assert index_text("mornings meetings") == "morning meeting"  # what the index holds
    assert index_text("morning meeting") == "morn meet"
    stats = _Vocabulary("The weekly meetings are on Monday mornings")
    assert "meeting" in variants("meet", stats) and "morning" in variants("morn", stats)
    stats = _Vocabulary("The weekly meeting is on Monday morning")
    assert "meet" in variants(index_text("meetings"), stats)
    store = ["The weekly meetings are on Monday mornings", "Standups are at half past nine"]
    assert _recall(tmp_path / "a", store, "when is the weekly meeting")[:1] == [store[0]]
    # Negative control: a word that only starts like the term is no form of it.
    assert "meter" not in variants("meet", _Vocabulary("The meter is read monthly"))


def test_the_verb_after_what_x_do_i_is_phrasing_and_a_topic_verb_is_not(tmp_path):
    query = parse_query("what tea do I drink in the morning")
    assert [f.term for f in query.features if f.asked] == ["drink"]
    assert not any(f.asked for f in parse_query("how do we merge pull requests").features)
    store = ["Mornings start with a pot of Assam and no email before 9",
             "Calls with the Kessler team are in the morning",
             "The newsletter goes out every other Thursday at 7 am"]
    with Cairn(tmp_path / "cairn.db", now=NOW) as cairn:
        for text in store:
            cairn.remember(text, kind="preference")
        got = cairn.recall("what tea do I drink in the morning", lane="claims", trace=False)
        assert [r.memory.content for r in got.results][:1] == [store[0]]
        # Negative control: a record holding the morning but no tea is no answer.
        assert cairn.recall("what coffee do I drink in the morning", lane="claims", trace=False).ids == []


PIPELINES = [
    "Data quality: dbt tests on every model, plus Elementary for anomaly detection",
    "For every pull request GitHub Actions runs dbt build against a clone of the warehouse",
    "Orders land in the warehouse every 15 minutes",
]


def test_a_question_for_a_version_needs_a_record_that_states_one(tmp_path, monkeypatch):
    """"which dbt version are we on": the notes on dbt tests and dbt in CI name no version,
    and a version is written with digits; they hold the topic, not the answer."""
    from cairn.recall import gates

    for question in ("which dbt version are we on", "what version of react native are we on",
                     "what's the minimum Android version we support"):
        assert parse_query(question).version, question
    assert _recall(tmp_path / "a", PIPELINES, "which dbt version are we on") == []
    # The rule broken: both notes on dbt answer.
    monkeypatch.setattr(gates, "lacks_form", lambda query, content: False)
    assert len(_recall(tmp_path / "b", PIPELINES, "which dbt version are we on")) == 2


def test_a_note_stating_a_version_answers_and_other_questions_are_no_version_questions(tmp_path):
    # Positive control: a note with a version answers.
    notes = [*PIPELINES, "We run dbt 1.7 on Python 3.11"]
    assert _recall(tmp_path / "a", notes, "which dbt version are we on")[:1] == [notes[3]]
    # Negative controls: "version" not asked for.
    assert not parse_query("what changed in the new version").version
    assert not parse_query("what did we ship in version 3").version
    assert _recall(tmp_path / "b", PIPELINES, "how do we test dbt models")[:1] == [PIPELINES[0]]


CONTACTS = [
    "My physio is Hannah Lindqvist at Northside Sports Clinic; a session costs 55 pounds",
    "Physio sessions are booked online on the clinic's Cliniko page",
    "The plumber is Gary Doyle, 07700 900123, and he only takes cash",
    "Invoices for Lumina go through their vendor portal at https://vendors.lumina.example.com",
    "Questions about returns go to Mia at mia@teashop.example",
]


def test_a_contact_detail_asked_for_needs_its_form(tmp_path, monkeypatch):
    """A phone number has four digits or more, an email address an @, a web address its
    scheme or domain: a note on the clinic that holds a price is no answer to its phone
    number."""
    from cairn.recall import gates

    assert parse_query("what's the physio clinic's phone number").detail == "phone"
    assert parse_query("what's Mia's email address").detail == "email"
    assert parse_query("what's the vendor portal url").detail == "url"
    assert _recall(tmp_path / "a", CONTACTS, "what's the physio clinic's phone number") == []
    # Positive controls: each detail where a note holds it.
    assert _recall(tmp_path / "b", CONTACTS, "what's the plumber's phone number")[:1] == [CONTACTS[2]]
    assert _recall(tmp_path / "c", CONTACTS, "what's Mia's email address")[:1] == [CONTACTS[4]]
    assert _recall(tmp_path / "d", CONTACTS, "what's the lumina vendor portal url")[:1] == [CONTACTS[3]]
    # The rule broken: the physio notes answer for the clinic's phone number.
    monkeypatch.setattr(gates, "states_detail", lambda detail, text: True)
    monkeypatch.setattr(gates, "states_version", lambda text: True)
    assert _recall(tmp_path / "e", CONTACTS, "what's the physio clinic's phone number") != []


def test_a_question_about_a_channel_asks_for_no_detail():
    # Negative controls: phone support, an email preference, a reset link.
    assert parse_query("do we offer phone support").detail == ""
    assert parse_query("does Lena's mum prefer email").detail == ""
    assert parse_query("how long is the password reset link valid").detail == ""
    assert parse_query("where is the website deployed").detail == ""
    # Not a question: a topic that names a URL or a phone number.
    assert parse_query("API versioning decision URL path").detail == ""
    assert parse_query("on-call phone number").detail == ""


def test_a_dotted_number_is_a_demand_and_a_plain_one_a_hint(tmp_path):
    """"when is 4.0 coming out" names one version: a note without it (whose ".com" meets
    "coming") is no answer, while "3.9" meets the note that names it. A plain number only
    weighs more: "a 20% discount" is answered by the note on discounts."""
    notes = ["Refunds go through the reportaproblem.apple.com page",
             "3.9 adds shared budgets; feature freeze is 12 December",
             "Sales may give up to 15% discount without approval"]
    assert parse_query("when is 4.0 coming out").literals[0].strict
    assert _recall(tmp_path / "a", notes, "when is 4.0 coming out") == []
    assert _recall(tmp_path / "b", notes, "what is going into 3.9")[:1] == [notes[1]]
    assert not parse_query("can I give a 20% discount").literals[0].strict
    assert _recall(tmp_path / "c", notes, "can I give a 20% discount")[:1] == [notes[2]]


def test_what_is_asked_of_a_thing_named_after_of_must_be_held(tmp_path):
    """"the policy number of the travel insurance": the travel insurance is the subject, and
    a note on it that holds no policy number is about the thing, not what is asked of it.
    "what's the reg of our car" is answered by the note that holds the registration."""
    notes = ["Annual multi-trip travel insurance with Staysure covers Europe including winter sports",
             "Our car is a 2019 Skoda Octavia estate, registration KX19 HFD"]
    asked = parse_query("what's the policy number of the travel insurance")
    assert (asked.subject, asked.attributes) == ("travel", ("polici",))
    assert parse_query("what's the name of the plumber").subject is None  # "name" is phrasing
    assert _recall(tmp_path / "a", notes, "what's the policy number of the travel insurance") == []
    assert _recall(tmp_path / "b", notes, "what's the reg of our car")[:1] == [notes[1]]
    assert _recall(tmp_path / "c", notes, "who is the travel insurance with")[:1] == [notes[0]]  # control


def test_a_verb_of_doing_again_meets_its_plain_verb_only_where_the_store_lacks_it():
    from cairn.recall.variants import AGAIN

    assert AGAIN[stem("reorder")] == stem("order")
    plain = _Vocabulary("Flour comes from Shipton Mill; we email the order every Monday")
    assert stem("order") in variants(stem("reorder"), plain)
    # Negative control: a store that writes "reorder" keeps it to itself.
    both = _Vocabulary("Reorder tea when a tin is half empty; the order goes to Greenleaf")
    assert stem("order") not in variants(stem("reorder"), both)
    # Not a prefix rule: "return" is no "turn" again.
    assert stem("return") not in AGAIN


def test_reorder_flour_finds_how_flour_is_ordered(tmp_path):
    notes = ["Our flour comes from Shipton Mill; we email the order every Monday before noon",
             "The sourdough is just flour, water and salt"]
    assert _recall(tmp_path, notes, "reorder flour")[:1] == [notes[0]]


def test_a_contraction_typed_without_its_apostrophe_asks_nothing():
    # "whats" is "what's": no topic word, as the apostrophe's split makes of it.
    typed, proper = parse_query("whats the plumber's number"), parse_query("what's the plumber's number")
    assert [f.term for f in typed.features] == [f.term for f in proper.features]
    assert "what" not in [f.term for f in typed.features]


def test_a_year_alone_is_no_phone_number(tmp_path):
    from cairn.recall.query import states_detail

    landlord = "The landlord is Graham Pell; rent is 2,100 a month and the lease is up for renewal in March 2027"
    assert not states_detail("phone", landlord)
    assert _recall(tmp_path / "a", [landlord], "what's the landlord's phone number") == []
    # Positive controls: a number's end, a whole number, and one that starts like a year.
    assert states_detail("phone", "the alarm code ends in 4411")
    assert states_detail("phone", "call 2024 5678 after six")
    assert _recall(tmp_path / "b", [landlord + ", phone 01632 960412"], "what's the landlord's phone number") != []
