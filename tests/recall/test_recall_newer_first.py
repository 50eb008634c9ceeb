"""Two notes that answer a question alike, with no relation between them: asked about the
present, the later one comes first (:func:`cairn.recall.pipeline.newer_first`), however
their lengths weigh in the scores. Negative controls: a past-tense question and
``--as-of`` keep the scores' order, and so do notes of different kinds or notes that
answer through different words. A later note that says what changed ("Dr Alvarez moved my
dentist appointment to 14 May") updates an older one it shares a word beyond the question's
with, however little of its wording it repeats; a change of another thing on the same topic
does not.
"""

from __future__ import annotations

from datetime import timedelta

from cairn import Cairn
from cairn.recall import pipeline
from testkit import NOW, Clock

OLD = "Late homework loses 10 percent per day for up to three days"
NEW = ("New rule from the staff meeting: late homework is accepted without penalty up to 48 hours after the "
       "deadline, then it is marked zero")


def _ask(tmp_path, question: str, *, old_kind: str = "decision", new_kind: str = "decision", **options) -> list[str]:
    clock = Clock(NOW - timedelta(days=85))
    with Cairn(tmp_path / "cairn.db", now=clock) as cairn:
        cairn.remember(OLD, kind=old_kind)
        clock.at = NOW - timedelta(days=10)
        cairn.remember(NEW, kind=new_kind)
        cairn.remember("Term grades weigh homework at 20 percent and tests at 50 percent", kind="decision")
        clock.at = NOW
        return [r.memory.content for r in cairn.recall(question, trace=False, lane="claims", **options).results]


def test_the_later_of_two_alike_notes_comes_first(tmp_path, monkeypatch):
    question = "can I still accept homework handed in 2 days late"
    assert _ask(tmp_path / "a", question)[:2] == [NEW, OLD]
    # The rule broken: the shorter, older note scores higher and comes first.
    monkeypatch.setattr(pipeline, "newer_first", lambda ranked, request, query=None: ranked)
    assert _ask(tmp_path / "b", question)[:2] == [OLD, NEW]


def test_the_past_and_other_kinds_keep_the_scores_order(tmp_path):
    # Asked in the past tense, the earlier state is what is wanted.
    assert _ask(tmp_path / "a", "what did late homework lose per day")[:1] == [OLD]
    assert _ask(tmp_path / "b", "how was late homework handled", as_of=NOW - timedelta(days=30))[:1] == [OLD]
    # A preference is not an update of a decision.
    assert _ask(tmp_path / "c", "can I still accept homework handed in 2 days late", new_kind="preference")[:1] == [OLD]


def test_an_update_is_shown_in_explain(tmp_path):
    clock = Clock(NOW - timedelta(days=85))
    with Cairn(tmp_path / "cairn.db", now=clock) as cairn:
        cairn.remember(OLD, kind="decision")
        clock.at = NOW - timedelta(days=10)
        new = cairn.remember(NEW, kind="decision").memory.id
        clock.at = NOW
        doc = cairn.explain("can I still accept homework handed in 2 days late", lane="claims")
    moved = [c for c in doc["candidates"] if c["factors"].get("update")]
    assert [c["id"] for c in moved] == [new]


def test_the_cutoff_spares_a_later_note_only_when_both_hold_the_same_words(tmp_path, monkeypatch):
    """The later, longer note scores below the relative cutoff; it is kept because it holds
    two words of the question the older one holds. Asked for more shared words than that,
    the cutoff drops it (a single shared word, a topic, never spares a note)."""
    question = "can I still accept homework handed in 2 days late"
    assert NEW in _ask(tmp_path / "a", question)
    monkeypatch.setattr(pipeline, "RESCUE_SHARED", 3)
    assert NEW not in _ask(tmp_path / "b", question)


def test_a_pinned_claim_keeps_its_place(tmp_path):
    clock = Clock(NOW - timedelta(days=85))
    with Cairn(tmp_path / "cairn.db", now=clock) as cairn:
        old = cairn.remember(OLD, kind="decision").memory.id
        cairn.pin(old)
        clock.at = NOW - timedelta(days=10)
        cairn.remember(NEW, kind="decision")
        clock.at = NOW
        got = cairn.recall("can I still accept homework handed in 2 days late", trace=False, lane="claims").ids
    assert got[0] == old


# A later note that says what changed, in other words than the note it updates.
DENTIST = "My dentist is Dr Alvarez at the Rua Augusta clinic; check-ups are every March"
DENTIST_NEW = "Dr Alvarez moved my dentist appointment to 14 May because the clinic is being refurbished"
DENTIST_OTHER = "The dentist now sends reminders by text message instead of letters"
BACKGROUND = [
    "Lunch with the Lisbon team is on the first Friday of the month",
    "The car insurance renews in October through Fidelidade",
]


def _dentist(tmp_path, question: str, later: str, *, kind: str = "fact", **options) -> list[str]:
    clock = Clock(NOW - timedelta(days=90))
    with Cairn(tmp_path / "cairn.db", now=clock) as cairn:
        cairn.remember(DENTIST, kind="fact")
        for text in BACKGROUND:
            cairn.remember(text, kind="fact")
        clock.at = NOW - timedelta(days=12)
        cairn.remember(later, kind=kind)
        clock.at = NOW
        return [r.memory.content for r in cairn.recall(question, trace=False, lane="claims", **options).results]


def test_a_later_note_that_says_what_changed_comes_first(tmp_path, monkeypatch):
    """"moved ... to" and a word the question did not bring ("Alvarez") shared with the
    older note: the later note updates it, although it repeats little of its wording, so it
    survives the relative cutoff and comes first."""
    question = "when is my dentist check-up"
    assert _dentist(tmp_path / "a", question, DENTIST_NEW)[:2] == [DENTIST_NEW, DENTIST]
    # The rule broken: the later note falls below the cutoff of the older one's score.
    monkeypatch.setattr(pipeline, "_declares_change", lambda later, older, query=None: False)
    assert _dentist(tmp_path / "b", question, DENTIST_NEW) == [DENTIST]


def test_a_change_of_another_thing_on_the_same_topic_is_no_update(tmp_path):
    # Negative control: "now ... instead" on the dentist's reminders shares only the
    # question's topic word with the note on the check-ups; that note stays first.
    question = "when is my dentist check-up"
    assert _dentist(tmp_path, question, DENTIST_OTHER)[:1] == [DENTIST]


def test_without_a_change_word_or_in_the_past_the_scores_order_holds(tmp_path):
    # Negative controls: the same later note without a word of change, a question in the
    # past tense, and a later note of another kind.
    question = "when is my dentist check-up"
    plain = "Dr Alvarez has a second clinic for dentist appointments on Saturdays"
    assert _dentist(tmp_path / "a", question, plain)[:1] == [DENTIST]
    assert _dentist(tmp_path / "b", "when was my dentist check-up", DENTIST_NEW)[:1] == [DENTIST]
    assert _dentist(tmp_path / "c", question, DENTIST_NEW, kind="preference")[:1] == [DENTIST]


def test_one_shared_word_is_a_topic_and_orders_nothing(tmp_path, monkeypatch):
    """"my physio": every note on the physio holds the question's one word, so all of
    them answer "alike" by coverage; the later note is no update of the earlier, and the
    scores keep their order. Asked for a single shared word, the rule would put the newest
    note on the topic first."""
    older = "My physio is Hannah Lindqvist at the Northside clinic"
    newer = "Physio sessions are booked online on the clinic's page, and cancelled at least a day ahead"

    def ask(path):
        clock = Clock(NOW - timedelta(days=45))
        with Cairn(path / "cairn.db", now=clock) as cairn:
            cairn.remember(older, kind="fact")
            clock.at = NOW - timedelta(days=40)
            cairn.remember(newer, kind="fact")
            cairn.remember("The gym is open from six in the morning", kind="fact")
            clock.at = NOW
            return [r.memory.content for r in cairn.recall("my physio", trace=False, lane="claims").results]

    assert ask(tmp_path / "a")[:2] == [older, newer]
    monkeypatch.setattr(pipeline, "RESCUE_SHARED", 1)
    assert ask(tmp_path / "b")[:2] == [newer, older]


SYNCS = [
    "Salesforce is loaded nightly at 02:00 UTC",
    "Orders and payments come from the production Postgres through Fivetran, synced every 15 minutes",
    "Acme renews its contract on 1 February",
]


def _syncs(tmp_path, question: str, later: str) -> list[str]:
    clock = Clock(NOW - timedelta(days=160))
    with Cairn(tmp_path / "cairn.db", now=clock) as cairn:
        for text in SYNCS:
            cairn.remember(text, kind="fact")
        clock.at = NOW - timedelta(days=20)
        cairn.remember(later, kind="fact")
        clock.at = NOW
        return [r.memory.content for r in cairn.recall(question, trace=False, lane="claims").results]


def test_a_change_note_in_the_form_asked_updates_the_older_answer(tmp_path, monkeypatch):
    """"when does salesforce load": the later note says the sync "now runs every 4 hours";
    it shares only the question's subject with the older note, in other words ("sync" for
    "load"), but both state a time, the form the question asks for, and the later says it
    changed: it updates the older one, survives the cutoff and comes first."""
    later = "Salesforce sync now runs every 4 hours because sales wanted fresher numbers"
    assert _syncs(tmp_path / "a", "when does salesforce load", later)[:1] == [later]
    # Negative controls: the older note holds a topic word the later lacks ("orders"): it
    # is about another sync; a change note that states no time (a count) updates nothing
    # asked with "when"; without a word of change, the scores keep their order.
    assert _syncs(tmp_path / "b", "how often does orders data sync", later)[:1] == [SYNCS[1]]
    assert _syncs(tmp_path / "c", "when does acme renew", "Acme now has 150 seats")[:1] == [SYNCS[2]]
    plain = "Salesforce sync runs every 4 hours for the sales dashboards"
    assert _syncs(tmp_path / "d", "when does salesforce load", plain)[:1] == [SYNCS[0]]
    # The rule broken: forms not compared, the later note falls below the cutoff.
    monkeypatch.setattr(pipeline, "states_form", lambda query, text: None)
    assert _syncs(tmp_path / "e", "when does salesforce load", later)[:1] == [SYNCS[0]]


def test_what_states_a_time():
    from cairn.recall.query import closing_verb, parse_query, states_time

    for text in ("loaded nightly at 02:00 UTC", "runs every 4 hours", "standup at 9:30", "on Mondays", "from 3 May",
                 "call at 7pm", "every other week"):
        assert states_time(text), text
    for text in ("Acme now has 150 seats", "we may go", "the junior market team", "version 2.1"):
        assert not states_time(text), text
    assert parse_query("when does salesforce load").when and parse_query("how often do we deploy").when
    assert not parse_query("where does salesforce load").when
    assert closing_verb("when does salesforce load?") == "load" and closing_verb("what time is standup") == ""


def _insured(tmp_path, question: str, later: str, older: str = "Buildings and contents insurance is with Aviva, "
             "418 pounds a year") -> list[str]:
    clock = Clock(NOW - timedelta(days=155))
    with Cairn(tmp_path / "cairn.db", now=clock) as cairn:
        cairn.remember(older, kind="fact")
        cairn.remember("Car insurance is with Admiral, 612 pounds a year", kind="fact")
        clock.at = NOW - timedelta(days=150)
        cairn.remember(later, kind="decision")
        clock.at = NOW
        return [r.memory.content for r in cairn.recall(question, trace=False, lane="claims").results]


def test_a_note_naming_what_it_replaced_updates_a_note_of_another_kind(tmp_path, monkeypatch):
    """"we moved the home insurance from Aviva to LV" (a decision) names the insurer of the
    older fact as what it replaced: it answers "which company covers our house and
    contents" first, though it holds less of the question and was filed as another kind."""
    moved = "We moved the home insurance from Aviva to LV at renewal in June"
    question = "which company covers our house and contents"
    assert _insured(tmp_path / "a", question, moved)[:1] == [moved]
    # Negative controls: a later note without a change, and one that shares a name
    # without saying it replaced anything of the older note.
    quotes = "We compared the Aviva and LV quotes at renewal in June"
    assert _insured(tmp_path / "b", question, quotes)[:1] != [quotes]
    gp = "My GP is Dr. Patel at Elm Road Surgery"
    iron = "Dr. Patel changed the iron tablet to every other day"
    assert _insured(tmp_path / "c", "who is my GP", iron, older=gp)[:1] == [gp]
    monkeypatch.setattr(pipeline, "names_replaced", lambda later, older: False)  # the rule broken
    assert moved not in _insured(tmp_path / "d", question, moved)


def _pair(tmp_path, old: str, new: str, question: str, kind: str = "fact") -> list[str]:
    clock = Clock(NOW - timedelta(days=120))
    with Cairn(tmp_path / "cairn.db", now=clock) as cairn:
        cairn.remember(old, kind=kind)
        clock.at = NOW - timedelta(days=10)
        cairn.remember(new, kind=kind)
        clock.at = NOW
        return [r.memory.content for r in cairn.recall(question, trace=False, lane="claims").results]


def test_a_later_note_saying_what_changed_with_every_question_word_but_the_verb_updates(tmp_path):
    old, new = "Omar likes his eggs scrambled", "Omar now takes his eggs poached"
    assert _pair(tmp_path, old, new, "how does Omar like his eggs", kind="preference")[:1] == [new]


def test_asked_where_a_later_note_that_moved_its_matter_updates(tmp_path):
    old, new = "Alice lives in Rotterdam", "Alice moved to Utrecht in April"
    assert _pair(tmp_path, old, new, "where does Alice live now")[:1] == [new]


def test_a_change_that_leaves_a_question_word_out_is_no_update(tmp_path):
    # Negative controls: the later note holds two words of the question and says what
    # changed, but not the working hours asked for, nor the count of words asked for.
    hours = "The support team works 8:00-18:00 CET on weekdays; weekends are covered by the on-call agent"
    moved = "The support team moved to the Lisbon office in February"
    assert _pair(tmp_path / "a", hours, moved, "what are the support team's working hours")[:1] == [hours]
    words = "The Kessler operating manual (42,000 words) is due on 15 December"
    later = "Dagmar moved the Kessler manual deadline to 9 January because chapter 7 is still changing"
    # (a project state this old is dormant: it answers beside the later note, unless that
    # note is taken to replace it)
    assert words in _pair(tmp_path / "b", words, later, "how many words is the Kessler manual", kind="project_state")
