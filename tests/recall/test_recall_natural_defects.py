"""Recall that answers natural questions, at the command line: each defect a newcomer hit
(question words taken as attributes, inflections and accents that never met, small stores
that rejected the right answer, future and past validity, silence that hid an answer)
pinned with its negative control."""

from __future__ import annotations

import json

import pytest

from testkit.transcripts import jsonl

NOW = "2026-03-01T09:00:00Z"


def remember(cli, text: str, *options: str, now: str = NOW) -> str:
    result = cli("--now", now, "--json", "remember", text, *options)
    assert result.code == 0, result.err
    return result.json()["id"]


def recall(cli, query: str, *options: str, now: str = NOW) -> list[str]:
    result = cli("--now", now, "--json", "recall", query, "--no-trace", *options)
    assert result.code == 0, result.err
    return [r["id"] for r in result.json()["results"]]


def note(cli, query: str, *options: str, now: str = NOW) -> str:
    result = cli("--now", now, "--json", "recall", query, "--no-trace", *options)
    assert result.code == 0, result.err
    return result.json()["note"] or ""


def reasons(cli, query: str, *options: str, now: str = NOW) -> dict[str, str]:
    result = cli("--now", now, "--json", "explain", query, *options)
    assert result.code == 0, result.err
    return {c["id"]: c["reason"] for c in result.json()["candidates"]}


# -- the README's first session and realistic host prompts ------------------------------


def test_readme_first_session_answers_which_database(cli):
    billing = remember(cli, "Use PostgreSQL 16 for billing", "--kind", "decision", "--source", "adr-007")
    assert recall(cli, "which database for billing") == [billing]
    assert recall(cli, "which database for the search index") == []  # negative control: another topic


CODING = [
    "The API is deployed to the staging cluster with Helm charts from the deploy/ folder",
    "Structured logging goes through structlog with JSON output in every service",
    "The payments service retries card captures three times with exponential backoff",
    "Redis caches session tokens for 15 minutes",
    "CI runs on GitHub Actions and takes about 11 minutes",
]


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("Set up the staging deploy for the new API endpoint", 0),
        ("Add structured logging to the payments service", 1),
    ],
)
def test_host_prompts_inject_the_matching_memory(cli, prompt, expected):
    ids = [remember(cli, text, "--kind", "fact") for text in CODING]
    got = recall(cli, prompt)
    assert got and got[0] == ids[expected]
    assert recall(cli, "Write a migration for the invoices table") == []  # negative control


# -- question words are phrasing, not attributes ----------------------------------------


@pytest.mark.parametrize(
    ("memory", "question"),
    [
        ("Redis caches session tokens for 15 minutes", "how long are session tokens cached"),
        ("The billing service runs on Python 3.12", "what Python version does billing run on"),
        ("Production runs in AWS eu-west-1", "which AWS region is production in"),
        ("The nightly export file is about 2 GB", "how big is the nightly export"),
        ("Code is formatted with ruff format, line length 120", "how should code be formatted"),
        ("Redis is our cache for session tokens", "what do we use for caching"),
    ],
)
def test_question_words_are_not_required_in_the_answer(cli, memory, question):
    target = remember(cli, memory, "--kind", "fact")
    remember(cli, "The design review happens every Thursday with the whole team", "--kind", "fact")
    assert recall(cli, question) == [target]


@pytest.mark.parametrize(
    ("memory", "question"),
    [
        ("We use PostgreSQL for billing", "are we on postgres"),
        ("Billing runs on postgres 16", "which postgresql version is billing on"),
        ("Ruff is the only linter we run", "how do we lint the code"),
        ("Run ruff for linting before every commit", "which linter do we use"),
        ("Session caching is done by Redis", "what is the cache for sessions"),
        ("Poetry is used to manage dependencies", "what do we use to manage dependencies"),
    ],
)
def test_inflections_and_short_forms_meet(cli, memory, question):
    target = remember(cli, memory, "--kind", "fact")
    remember(cli, "The design review happens every Thursday with the whole team", "--kind", "fact")
    assert recall(cli, question) == [target]


@pytest.mark.parametrize(
    "question",
    ["what LoRA rank did we pick", "which LoRA rank should we use", "what LoRA rank do I train with"],
)
def test_the_verb_of_a_did_we_question_is_not_required_in_the_answer(cli, question):
    target = remember(cli, "The baseline model is Llama 3 8B fine-tuned with LoRA rank 16", "--kind", "decision")
    remember(cli, "Kenji owns the evaluation section of the workshop paper", "--kind", "fact")
    assert recall(cli, question) == [target]
    assert recall(cli, question.replace("LoRA", "QLoRA")) == []  # negative control: another named subject


def test_a_question_about_a_tracker_key_finds_that_record_and_only_that_one(cli):
    incident = remember(cli, "Incident INC-2291: the webhook queue backed up because the consumer ran out of memory",
                        "--kind", "fact")
    remember(cli, "Incident INC-2290: a certificate expired on the status page", "--kind", "fact")
    assert recall(cli, "what caused INC-2291") == [incident]
    assert recall(cli, "who fixed inc-2291?") == [incident]
    assert recall(cli, "what caused INC-2292") == []  # negative control: another key, however alike the rest


def test_the_named_attribute_protections_still_hold(cli):
    sqlite_auth = remember(cli, "SQLite authentication uses a shared secret file", "--kind", "fact")
    remember(cli, "PostgreSQL authentication uses SCRAM passwords", "--kind", "fact")
    remember(cli, "SQLite busy timeout is 5 seconds", "--kind", "fact")
    assert recall(cli, "SQLite authentication") == [sqlite_auth]  # positive control
    assert cli("--now", NOW, "forget", sqlite_auth).code == 0
    for question in ("SQLite authentication", "sqlite authentication", "how does SQLite authentication work", "sqlite auth"):
        assert recall(cli, question) == [], question


# -- one normalisation of accents -------------------------------------------------------


@pytest.mark.parametrize(
    ("memory", "queries"),
    [
        ("Omar's favourite café is Café Frischhut in München", ["München", "Munchen", "café", "cafe"]),
        ("Größere Änderungen brauchen ein zweites Review", ["Größere Änderungen", "grossere anderungen"]),
    ],
)
def test_accented_words_find_their_claims(cli, memory, queries):
    target = remember(cli, memory, "--kind", "fact")
    remember(cli, "The design review happens every Thursday with the whole team", "--kind", "fact")
    for query in queries:
        assert recall(cli, query) == [target], query
    assert recall(cli, "Zürich") == []  # negative control


def test_an_index_written_before_the_fold_is_rebuilt_by_the_migration(cli, db_path):
    import sqlite3

    target = remember(cli, "Omar's favourite café is in München", "--kind", "fact")
    conn = sqlite3.connect(db_path)
    with conn:  # the index as the old normalisation wrote it: accents kept, no e dropped
        conn.execute("UPDATE memories_fts SET content = 'omar s favourite café is in münchen'")
        # A database from before the fold holds none of the later migrations either.
        conn.execute("DELETE FROM schema_migrations WHERE seq >= (SELECT seq FROM schema_migrations"
                     " WHERE name = '0003_fold_index_terms')")
    conn.close()
    assert recall(cli, "München") == [target]
    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT count(*) FROM schema_migrations WHERE name = '0003_fold_index_terms'").fetchone() == (1,)
    conn.close()


# -- the small-store gate -----------------------------------------------------------------


def test_the_issue_two_record_store_answers_how_omar_wants_his_eggs(cli):
    first = remember(cli, "Omar likes his eggs scrambled", "--kind", "preference", now="2026-01-01T00:00:00Z")
    second = remember(cli, "Omar switched to poached eggs", "--kind", "preference", now="2026-01-02T00:00:00Z")
    got = recall(cli, "how does Omar want his eggs cooked", now="2026-01-03T00:00:00Z")
    assert set(got) == {first, second}
    assert recall(cli, "what is Omar's shoe size", now="2026-01-03T00:00:00Z") == []


def test_chinese_questions_in_a_small_store(cli):
    trip = remember(cli, "小明下周去北京出差", "--kind", "fact")
    remember(cli, "小红喜欢蓝色", "--kind", "preference")
    assert recall(cli, "小明什么时候去北京") == [trip]
    assert recall(cli, "公司的年会在哪里举行") == []  # negative control


# -- validity that has not started; dormancy under --as-of -----------------------------


def test_a_record_not_valid_yet_is_not_current(cli):
    lisbon = remember(cli, "The support team works from the Lisbon office", "--kind", "fact", "--valid-from", "2026-06-01")
    assert recall(cli, "where does the support team work") == []
    assert reasons(cli, "where does the support team work")[lisbon] == "not-yet-valid"
    assert "not valid yet" in note(cli, "where does the support team work")
    history = cli("--now", NOW, "--json", "recall", "where does the support team work", "--include-history", "--no-trace")
    assert [(r["id"], "future" in r["markers"]) for r in history.json()["results"]] == [(lisbon, True)]
    assert "future" in history.json()["digest"]
    assert recall(cli, "where does the support team work", "--as-of", "2026-07-01") == [lisbon]
    # negative control: once its validity has begun it is current, not marked future
    later = cli("--now", "2026-06-02T00:00:00Z", "--json", "recall", "where does the support team work", "--no-trace")
    assert [(r["id"], "future" in r["markers"]) for r in later.json()["results"]] == [(lisbon, False)]


def test_a_question_about_the_past_is_not_answered_from_freshness(cli):
    oslo = remember(cli, "Sara lives in Oslo", "--kind", "fact", "--valid-to", "2024-12-31", now="2024-01-01T00:00:00Z")
    later = "2026-01-01T00:00:00Z"
    assert recall(cli, "where did Sara live", "--inject", now=later) == []  # dormant and past: not offered unprompted
    asked = cli("--now", later, "--json", "recall", "where did Sara live", "--no-trace").json()["results"]
    assert [(r["id"], "dormant" in r["markers"], "past-state" in r["markers"]) for r in asked] == [(oslo, True, True)]
    result = cli("--now", later, "--json", "recall", "where did Sara live", "--as-of", "2024-06-01", "--no-trace")
    assert [r["id"] for r in result.json()["results"]] == [oslo]
    assert "dormant" in result.json()["results"][0]["markers"]  # the label still shows
    assert recall(cli, "where did Sara live", "--as-of", "2025-06-01", now=later) == []  # outside its validity


# -- silence that hid the answer ------------------------------------------------------------


def test_dormant_matches_are_counted_with_how_to_see_them(cli):
    vpn = remember(cli, "The VPN gateway is vpn.example.org", "--kind", "fact", now="2025-01-01T00:00:00Z")
    text = note(cli, "which VPN gateway do we use", "--inject")
    assert "1 matching memory is dormant" in text and "--include-dormant" in text and "cairn search" in text
    assert recall(cli, "which VPN gateway do we use", "--inject") == []
    assert recall(cli, "which VPN gateway do we use", "--inject", "--include-dormant") == [vpn]
    other = note(cli, "what is the wifi password", "--inject")  # negative control: nothing was hidden
    assert "dormant" not in other


def test_a_question_whose_only_answer_is_dormant_gets_it_labelled(cli):
    """Asked (not injected), a question that nothing current answers gets the dormant
    records that do, labelled, and a note that says so; a current answer is never joined
    by dormant ones, and nothing unrelated is offered because it is dormant."""
    vpn = remember(cli, "The VPN gateway is vpn.example.org", "--kind", "fact", now="2025-01-01T00:00:00Z")
    result = cli("--now", NOW, "--json", "recall", "which VPN gateway do we use", "--no-trace").json()
    assert [r["id"] for r in result["results"]] == [vpn] and "dormant" in result["results"][0]["markers"]
    assert "shown labelled dormant" in result["note"] and "--inject" in result["note"]
    shown = cli("--now", NOW, "recall", "which VPN gateway do we use", "--no-trace").out
    assert "vpn.example.org" in shown and "dormant" in shown
    assert recall(cli, "what is the wifi password") == []  # control: unrelated, dormant or not
    fresh = remember(cli, "The VPN gateway moved to gw.example.net", "--kind", "fact")
    assert recall(cli, "which VPN gateway do we use") == [fresh]  # current answers: the dormant one stays out
    explained = cli("--now", "2025-01-01T00:00:00Z", "--json", "explain", "which VPN gateway do we use").json()
    assert explained["note"] is None or "dormant" not in explained["note"]  # control: not dormant then


def test_a_dormant_answer_passes_the_gates_a_current_one_passes_no_more_no_less(cli):
    """Old is not false: asked, a question whose only answer is dormant gets it whenever a
    current record holding the same words would answer, as "where are the spare keys kept"
    does with the note on the key box (about half of the question's words: "kept" is not
    "are in"). What would not answer if it were current does not answer because it is old."""
    remember(cli, "The guest wifi network is called Maple-Guest", "--kind", "fact", now="2025-01-01T00:00:00Z")
    keys = remember(cli, "Spare keys for all flats are in the locked box in our garage, code 4471", "--kind", "fact",
                    now="2025-01-01T00:00:00Z")
    assert recall(cli, "where are the spare keys kept") == [keys]
    assert recall(cli, "where are the spare keys kept", "--inject") == []  # unprompted: left out
    assert recall(cli, "what is the guest parking code") == []  # one shared word: fails as a current note would
    assert recall(cli, "who repairs the printer") == []


def test_a_dormant_answer_behind_a_weaker_result_is_shown_beside_it(cli):
    """Not only silence: a question that a current record answers less well than a dormant
    one ("when is the paper due" answered by its co-author) gets the dormant answer too,
    ranked by the same formula and labelled; injected, it is only named in the note."""
    due = remember(cli, "The workshop paper is due on 12 December", "--kind", "project_state", now="2026-02-10T00:00:00Z")
    kenji = remember(cli, "Kenji is co-author on the workshop paper", "--kind", "fact")
    result = cli("--now", NOW, "--json", "recall", "when is the workshop paper due", "--no-trace").json()
    shown = {r["id"]: r for r in result["results"]}
    assert due in shown and "dormant" in shown[due]["markers"] and "shown labelled dormant" in result["note"]
    assert "12 December" in cli("--now", NOW, "recall", "when is the workshop paper due", "--no-trace").out
    assert recall(cli, "when is the workshop paper due", "--inject") == [kenji]  # unprompted: left out ...
    text = note(cli, "when is the workshop paper due", "--inject")
    assert "dormant" in text  # ... and named
    # Negative control: a dormant record that matches less well than the result is what
    # dormancy is for, and goes unmentioned.
    assert recall(cli, "who is co-author on the workshop paper") == [kenji]
    assert note(cli, "who is co-author on the workshop paper") == ""


def test_two_notes_on_one_matter_are_two_answers_unless_the_later_says_it_changed(cli):
    """A dormant note that answers alike with a current note of its kind joins it, unless
    the current one says that something changed (then the dormant one is its old state)."""
    repo = remember(cli, "Transformations are dbt models in the analytics-dbt repo", "--kind", "fact",
                    now="2025-08-01T00:00:00Z")
    tests = remember(cli, "Data quality: dbt tests on every model", "--kind", "fact")
    assert set(recall(cli, "where do the dbt models live")) == {repo, tests}
    moved = remember(cli, "The dbt models moved to the data-platform repo", "--kind", "fact")
    got = recall(cli, "where do the dbt models live")
    assert moved in got and repo not in got  # control: the old home is the changed fact's old state


def test_a_claims_recall_after_ingest_points_to_the_turns(cli, tmp_path):
    """Asked with the lane left to its default, a question that no claim answers is answered
    from the conversation; with the claims lane chosen, or injected, it is pointed to."""
    path = tmp_path / "chat.jsonl"
    turns = [
        ("t1", "Ana", "We finally adopted a tabby named Miso from the shelter.", "2026-02-01T09:00:00Z"),
        ("t2", "Ben", "Lovely! I signed up for the Porto ten kilometre race.", "2026-02-01T09:01:00Z"),
    ]
    path.write_text(jsonl(*({"id": i, "speaker": s, "text": t, "time": at} for i, s, t, at in turns)), encoding="utf-8")
    assert cli("--now", NOW, "ingest", str(path)).code == 0
    answered = cli("--now", NOW, "--json", "recall", "who adopted a tabby", "--no-trace").json()
    assert [r["evidence"]["source_id"] for r in answered["results"]] == ["t1"]
    assert [r["kind"] for r in answered["results"]] == ["episode"]
    assert "from the conversations" in answered["note"] and "--inject" in answered["note"]
    for chosen in (("--lane", "claims"), ("--inject",)):
        assert recall(cli, "who adopted a tabby", *chosen) == []  # turns are not claims
        pointer = note(cli, "who adopted a tabby", *chosen)  # the lane the turns came from
        assert "--lane episodes" in pointer or "--lane hybrid-episodes" in pointer
    assert recall(cli, "who adopted a tabby", "--lane", "episodes") != []
    assert recall(cli, "what is the wifi password") == []  # negative control: no turn answers
    assert "--lane episodes" not in note(cli, "what is the wifi password", "--lane", "claims")


def test_json_note_is_null_when_something_is_recalled(cli):
    remember(cli, "Redis caches session tokens for 15 minutes", "--kind", "fact")
    result = cli("--now", NOW, "--json", "recall", "session token cache", "--no-trace")
    assert json.loads(result.out)["note"] is None


def test_retired_and_future_matches_are_counted_apart(cairn, clock):
    from dataclasses import replace
    from datetime import timedelta

    from cairn.model import Status

    retired = cairn.remember("The VPN gateway is vpn.example.org", kind="fact").memory.id
    cairn.remember("The VPN gateway moves to vpn2.example.org", kind="fact", valid_from=clock.at + timedelta(days=30))
    with cairn.store.write() as tx:
        tx.put_memory(replace(tx.get_memory(cairn.space, retired), status=Status.RETIRED))
    outcome = cairn.recall("which VPN gateway", trace=False)
    assert outcome.ids == []
    assert "1 matching memory is retired" in (outcome.note or "") and "1 matching memory is not valid yet" in (outcome.note or "")
    assert cairn.recall("which printer", trace=False).note == "nothing matched the query"  # negative control


def test_a_dormant_record_joins_a_current_answer_and_never_pushes_it_out(cli):
    """The year-old fact "crash reporting is done with Crashlytics" matches "what do we use
    for crash reports" better than a later decision on crash reports (a shorter note, the
    same words); let in beside the current answer, it sets no cutoff, so the current
    decision stays, and comes first by freshness. Once a note says it replaced Crashlytics,
    the old fact is that note's old state and stays out."""
    old = remember(cli, "Crash reporting is done with Firebase Crashlytics", "--kind", "fact", now="2025-04-01T00:00:00Z")
    new = remember(cli, "Crash reports from the mobile app are triaged every Monday morning by whoever is on call "
                   "that week, and the critical ones go to the team channel", "--kind", "decision",
                   now="2025-12-15T00:00:00Z")
    got = recall(cli, "what do we use for crash reports")
    assert got[:1] == [new] and old in got
    assert recall(cli, "what do we use for crash reports", "--include-dormant") == [old]  # asked: the cutoff holds
    moved = remember(cli, "We moved crash reporting from Crashlytics to Sentry in September", "--kind", "decision",
                     now="2025-12-20T00:00:00Z")
    got = recall(cli, "what do we use for crash reports")
    assert moved in got and old not in got


def test_candidates_left_out_keep_the_order_the_lane_found_them_in():
    """The silence note and the dormant answers judge the first few candidates left out;
    those must be the best overlaps the lane found, not the first ids."""
    from datetime import UTC, datetime

    from cairn.recall.gates import Reason
    from cairn.recall.pipeline import Candidate, Request, _order

    request = Request(query="q", space="default", now=datetime(2026, 3, 1, tzinfo=UTC))
    found = [Candidate(id=i, lane="claims", reason=Reason.DORMANT) for i in ("z9", "m5", "a1")]
    _order(found, request)
    assert [c.id for c in found] == ["z9", "m5", "a1"]


def test_silence_promises_no_dormant_record_that_would_not_answer(cli):
    """A lower-case question is judged with the names its notes show ("Thames Water" makes
    "water" a name, and "company" what is asked of it): the dormant note that fails the
    gates that way is not counted as hidden, since --include-dormant would not show it."""
    remember(cli, "Water is supplied by Thames Water, billed every six months", "--kind", "fact",
             now="2025-01-01T00:00:00Z")
    text = note(cli, "who's the water company", "--inject")
    shown = recall(cli, "who's the water company", "--inject", "--include-dormant")
    assert ("dormant" in text) == bool(shown)  # the note and what it points to agree
    # Control: a dormant note that does answer is still counted, and shown when asked for.
    vpn = remember(cli, "The VPN gateway is vpn.example.org", "--kind", "fact", now="2025-01-01T00:00:00Z")
    assert "1 matching memory is dormant" in note(cli, "which VPN gateway do we use", "--inject")
    assert recall(cli, "which VPN gateway do we use", "--inject", "--include-dormant") == [vpn]
