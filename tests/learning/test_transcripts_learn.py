"""`cairn learn`: episodes and explicit statements from a transcript, idempotent per
turn, incremental on a grown file, through the write policy; and reinforcement events."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta

import pytest

from cairn import Cairn
from cairn.engine.learning import Learning
from cairn.errors import InvalidInput, PluginError, Refused
from cairn.model import Kind, Status
from testkit.claude_code import START, assistant, session, summary, user
from testkit.db import db_fingerprint, records_fingerprint

LATER = START + timedelta(days=2)


@pytest.fixture
def engine(db_path):
    with Cairn(db_path, now=LATER) as cairn:
        yield cairn


def write(path, lines) -> str:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def records(cairn: Cairn, kind: Kind | None = None) -> list:
    return [m for m in cairn.store.iter_memories(cairn.space) if kind is None or m.kind is kind]


def claims(cairn: Cairn, *statuses: str) -> list[tuple[str, str, str]]:
    found = [m for m in records(cairn) if m.kind is not Kind.EPISODE]
    return sorted((m.kind.value, m.content, m.status.value) for m in found if not statuses or m.status.value in statuses)


def test_learn_stores_episodes_and_the_users_statements_only(engine, tmp_path):
    path = write(tmp_path / "s.jsonl", [
        summary("Retries", "u3"),
        user(0, "I prefer three retries for the sync job."),
        assistant(1, "I prefer to use five retries, and remember that the office is in Porto.", tool=True),
        user(2, "Do I prefer tabs?"),
    ])
    result = engine.learn(path)
    assert result.counts["episodes"] == 3 and result.counts["added"] == 1
    assert claims(engine) == [("preference", "I prefer three retries for the sync job", "provisional")]
    [memory] = records(engine, Kind.PREFERENCE)
    assert memory.evidence.basis.value == "user_statement" and memory.evidence.method.value == "local"
    assert memory.origin == result.origin == "5f0c1b2e-sess"


def test_a_second_run_writes_nothing_and_a_grown_file_adds_only_the_new_turns(engine, tmp_path, db_path):
    lines = session(40)
    path = write(tmp_path / "s.jsonl", lines)
    first = engine.learn(path)
    assert first.counts["episodes"] == 40 and first.counts["added"] == 2
    before = records_fingerprint(db_path)
    again = engine.learn(path)
    assert again.counts["episodes"] == 0 and again.counts["added"] == 0 and again.events == ()
    assert records_fingerprint(db_path) == before
    write(tmp_path / "s.jsonl", lines + session(20, first=40))
    grown = engine.learn(path)
    assert grown.counts["episodes"] == 20 and grown.counts["skipped_turns"] == 40 and grown.counts["added"] == 1
    assert [c.content for c in grown.claims] == ["We decided to shard table 40 by customer"]


def test_dry_run_prints_the_plan_and_writes_nothing(cli, tmp_path, db_path):
    path = write(tmp_path / "s.jsonl", [user(0, "We decided to shard the ledger by region.")])
    assert cli("--now", LATER.isoformat(), "learn", path).code == 0  # create the store
    path = write(tmp_path / "t.jsonl", [user(0, "I prefer short answers.", session="other")])
    before = db_fingerprint(db_path)
    result = cli("--now", LATER.isoformat(), "learn", path, "--dry-run")
    assert result.code == 0 and "would learn" in result.out and "I prefer short answers" in result.out
    assert db_fingerprint(db_path) == before
    assert cli("--now", LATER.isoformat(), "learn", path).code == 0
    assert db_fingerprint(db_path) != before  # negative control: without --dry-run it writes


def test_malformed_lines_are_reported_by_number_and_the_rest_is_learned(cli, tmp_path):
    path = write(tmp_path / "s.jsonl", [user(0, "I prefer short answers."), "{oops", user(2, "Thanks.")])
    result = cli("--now", LATER.isoformat(), "--json", "learn", path)
    assert result.code == 0 and "skipped line 2: not JSON" in result.err
    doc = json.loads(result.out)
    assert doc["counts"]["episodes"] == 2
    assert doc["problems"] == ["line 2: not JSON (Expecting property name enclosed in double quotes)"]


def test_a_bad_source_is_refused_with_one_line_and_nothing_written(cli, tmp_path, db_path):
    Cairn(db_path).close()  # an empty store (status, a read, no longer creates one)
    assert cli("status").code == 0
    before = db_fingerprint(db_path)
    missing = cli("learn", str(tmp_path / "nope.jsonl"))
    assert missing.code == 1 and "cannot read" in missing.err
    future = write(tmp_path / "f.jsonl", [user(0, "I prefer tea.", at=datetime(2030, 1, 1, tzinfo=UTC))])
    result = cli("--now", LATER.isoformat(), "learn", future)
    assert result.code == 1 and "after now" in result.err and len(result.err.splitlines()) == 1
    unknown = cli("learn", future, "--extractor", "nonexistent")
    assert unknown.code == 1 and "nonexistent" in unknown.err
    assert db_fingerprint(db_path) == before


def test_end_to_end_a_corrected_preference_comes_back_corrected(engine, tmp_path):
    path = write(tmp_path / "s.jsonl", [
        user(0, "I prefer tabs over spaces for indentation."),
        assistant(1, "Noted."),
        user(2, "Can you reformat utils.py?"),
        assistant(3, "Done."),
        user(4, "No, I prefer spaces, not tabs."),
        assistant(5, "Switched to spaces."),
        user(6, "Which indentation do I prefer?"),
    ])
    engine.learn(path)
    recalled = engine.recall("which indentation do I prefer")
    top = recalled.results[0]
    assert engine.get(top.id).content == "I prefer spaces" and "corrected" in top.markers
    current = [engine.get(r.id).content for r in recalled.results if "historical-rationale" not in r.markers]
    assert "I prefer tabs over spaces for indentation" not in current


def test_without_the_correction_the_first_preference_stands_unmarked(engine, tmp_path):
    path = write(tmp_path / "s.jsonl", [user(0, "I prefer tabs over spaces for indentation."),
                                        user(2, "Which indentation do I prefer?")])
    engine.learn(path)
    top = engine.recall("which indentation do I prefer").results[0]
    assert engine.get(top.id).content == "I prefer tabs over spaces for indentation" and "corrected" not in top.markers


def test_a_correction_in_a_later_session_corrects_the_stored_record_and_is_a_reinforcement_event(engine, tmp_path):
    first = write(tmp_path / "a.jsonl", [user(0, "I prefer tabs over spaces for indentation.", session="s1")])
    engine.learn(first)
    [old] = records(engine, Kind.PREFERENCE)
    second = write(tmp_path / "b.jsonl", [user(10, "No, I prefer spaces, not tabs.", session="s1",
                                               at=START + timedelta(hours=1))])
    result = engine.learn(second)
    assert result.counts["replaced"] == 1 and result.counts["added"] == 0 and result.claims[0].replaces == old.id
    # The stored record keeps its text; a new record corrects it (one event with the apply).
    assert engine.get(old.id).content == "I prefer tabs over spaces for indentation"
    [apply_event] = [e for e in result.events if e.reason.startswith("apply ")]
    newer = [m for m in records(engine, Kind.PREFERENCE) if m.id != old.id]
    assert [m.content for m in newer] == ["I prefer spaces"]
    assert apply_event.data["corrects"] == [[newer[0].id, old.id]]
    recalled = engine.recall("which indentation do I prefer")
    top = recalled.results[0]
    assert top.id == newer[0].id and "corrected" in top.markers and old.id in top.corrects
    current = [r.id for r in recalled.results if "historical-rationale" not in r.markers]
    assert old.id not in current
    assert [(r.outcome, r.weight) for r in engine.reinforcements(old.id)] == [("explicit_correction", -1.0)]
    engine.undo(apply_event.id)  # undo removes the newer record and its relation: the old one is current again
    top = engine.recall("which indentation do I prefer").results[0]
    assert top.id == old.id and "corrected" not in top.markers


def test_two_separate_learn_runs_on_the_command_line_show_the_correction_marked(cli, tmp_path):
    first = write(tmp_path / "a.jsonl", [user(0, "I prefer tabs over spaces for indentation.", session="s1")])
    second = write(tmp_path / "b.jsonl", [user(10, "No, I prefer spaces, not tabs.", session="s1",
                                               at=START + timedelta(hours=1)),
                                          user(12, "Which indentation do I prefer?", session="s1",
                                               at=START + timedelta(hours=2))])
    assert cli("--now", LATER.isoformat(), "learn", first).code == 0
    before = cli("--now", LATER.isoformat(), "recall", "which indentation do I prefer").out
    assert '"I prefer tabs over spaces for indentation"' in before and "corrected" not in before  # control
    learned = cli("--now", LATER.isoformat(), "learn", second)
    assert learned.code == 0 and "replaced 1" in learned.out
    recalled = cli("--now", LATER.isoformat(), "recall", "which indentation do I prefer")
    assert '| corrected] "I prefer spaces"' in recalled.out
    assert "I prefer tabs over spaces for indentation" not in recalled.out


def test_a_third_session_corrects_the_current_record_not_the_one_already_corrected(engine, tmp_path):
    turns = ["I prefer tabs over spaces for indentation.", "No, I prefer spaces, not tabs.", "Actually, I prefer tabs again."]
    for n, text in enumerate(turns):
        engine.learn(write(tmp_path / f"{n}.jsonl", [user(10 * n, text, session="s1", at=START + timedelta(hours=n))]))
    recalled = engine.recall("which indentation do I prefer")
    top = recalled.results[0]
    assert engine.get(top.id).content == "I prefer tabs again" and len(top.corrects) == 2
    current = [engine.get(r.id).content for r in recalled.results if "historical-rationale" not in r.markers]
    assert current == ["I prefer tabs again"]


def test_a_weaker_correction_of_a_stronger_record_is_withheld_not_related(engine, tmp_path):
    pinned = engine.remember("I prefer tabs over spaces for indentation", kind="preference", origin="s1").memory
    engine.pin(pinned.id)
    result = engine.learn(write(tmp_path / "b.jsonl", [user(10, "No, I prefer spaces, not tabs.", session="s1")]))
    assert result.counts["withheld"] == 1 and result.counts["replaced"] == 0
    top = engine.recall("which indentation do I prefer").results[0]
    assert top.id == pinned.id and "corrected" not in top.markers  # the pinned record stands
    assert [r.outcome for r in engine.reinforcements(pinned.id)] == ["explicit_correction"]


def test_restating_a_stored_preference_is_an_explicit_reinforcement(engine, tmp_path):
    engine.learn(write(tmp_path / "a.jsonl", [user(0, "I prefer short answers.", session="s1")]))
    [memory] = records(engine, Kind.PREFERENCE)
    engine.learn(write(tmp_path / "b.jsonl", [user(0, "I prefer short answers.", session="s2")]))
    assert [r.outcome for r in engine.reinforcements(memory.id)] == []  # another session is another origin
    engine.learn(write(tmp_path / "c.jsonl", [user(0, "I prefer short answers.", session="s1"),
                                              user(7, "I prefer short answers.", session="s1")]))
    assert [(r.outcome, r.weight) for r in engine.reinforcements(memory.id)] == [("explicit_reinforcement", 1.0)]


def test_reinforcement_events_are_recorded_on_the_record_and_change_nothing(cairn):
    memory = cairn.remember("The VPN gateway is vpn-3", kind="fact").memory
    before = cairn.get(memory.id)
    for outcome in ("explicit_reinforcement", "implicit_success", "explicit_correction"):
        result = cairn.reinforce(memory.id, outcome, session="s1", note="from a test")
        assert result.recorded and result.event is not None
        assert result.event.id in [e.id for e in cairn.history(memory.id)]
    after = cairn.get(memory.id)
    assert (after.content, after.status, after.evidence, after.feedback) == (
        before.content, before.status, before.evidence, before.feedback)
    assert [(r.outcome, r.weight) for r in cairn.reinforcements(memory.id)] == [
        ("explicit_reinforcement", 1.0), ("implicit_success", 0.2), ("explicit_correction", -1.0)]


def test_neutral_exposure_is_off_by_default_and_once_per_session(cairn):
    memory = cairn.remember("The VPN gateway is vpn-3", kind="fact").memory
    assert cairn.reinforce(memory.id, "neutral_exposure", session="s1").reason == "neutral-exposure-off"
    assert cairn.reinforce(memory.id, "neutral_exposure", session="s1", neutral=True).recorded
    assert cairn.reinforce(memory.id, "neutral_exposure", session="s1", neutral=True).reason == (
        "neutral-exposure-once-per-session")
    assert cairn.reinforce(memory.id, "neutral_exposure", session="s2", neutral=True).recorded
    assert [r.weight for r in cairn.reinforcements(memory.id)] == [0.0, 0.0]


def test_an_undone_reinforcement_is_no_longer_counted(cairn):
    memory = cairn.remember("The VPN gateway is vpn-3", kind="fact").memory
    event = cairn.reinforce(memory.id, "explicit_correction").event
    assert event is not None
    cairn.undo(event.id)
    assert cairn.reinforcements(memory.id) == []


def test_a_bad_reinforcement_is_refused(cairn):
    memory = cairn.remember("The VPN gateway is vpn-3", kind="fact").memory
    with pytest.raises(InvalidInput, match="one of"):
        cairn.reinforce(memory.id, "liked")
    episode = cairn.remember("hello", kind="episode").memory
    with pytest.raises(Refused, match="episode"):
        cairn.reinforce(episode.id, "explicit_reinforcement")


def test_a_batch_source_applied_then_undone_can_be_applied_again(cairn):
    batch = {"source": {"id": "chat-7", "text": "I prefer window seats on trains.", "kind": "conversation"},
             "claims": [{"kind": "preference", "content": "I prefer window seats on trains"}]}
    applied = cairn.apply(batch)
    with pytest.raises(Refused, match="already applied"):
        cairn.apply(batch)  # negative control: a standing source is applied once
    assert applied.event is not None
    undo = cairn.undo(applied.event.id)
    again = cairn.apply(batch)
    assert again.counts["added"] == 1
    active = [m for m in records(cairn, Kind.PREFERENCE) if m.status is not Status.FORGOTTEN]
    assert len(active) == 1
    cairn.undo(again.event.id)
    cairn.undo(undo.id)  # undoing the first undo restores the first apply: it stands again
    with pytest.raises(Refused, match="already applied"):
        cairn.apply(batch)


def test_a_run_that_failed_part_way_is_completed_by_running_it_again(engine, tmp_path, monkeypatch):
    path = write(tmp_path / "s.jsonl", session(2000))  # 100 statements: two batches
    real = Learning.apply
    calls = []

    def failing_second(self, batch, **options):
        calls.append(batch.source.id)
        if len(calls) == 2:
            raise Refused("simulated failure")
        return real(self, batch, **options)

    monkeypatch.setattr(Learning, "apply", failing_second)
    with pytest.raises(Refused):
        engine.learn(path)
    monkeypatch.setattr(Learning, "apply", real)
    assert records(engine, Kind.EPISODE) == []  # episodes come after the claims
    done = engine.learn(path)
    assert done.counts["episodes"] == 2000 and done.counts["added"] == 100 - 64
    assert len(claims(engine)) == 100


def test_two_thousand_turns_in_under_ten_seconds_then_nothing_then_only_the_new(cli, tmp_path):
    lines = session(2000)
    path = write(tmp_path / "big.jsonl", lines)
    started = time.perf_counter()
    first = cli("--now", LATER.isoformat(), "--json", "learn", path)
    elapsed = time.perf_counter() - started
    assert first.code == 0, first.err
    assert elapsed <= 10.0
    counts = json.loads(first.out)["counts"]
    assert counts["episodes"] == 2000 and counts["added"] == 100
    second = json.loads(cli("--now", LATER.isoformat(), "--json", "learn", path).out)["counts"]
    assert second["episodes"] == 0 and second["added"] == 0
    write(tmp_path / "big.jsonl", lines + session(40, first=2000))
    third = json.loads(cli("--now", LATER.isoformat(), "--json", "learn", path).out)["counts"]
    assert third["episodes"] == 40 and third["added"] == 2 and third["skipped_turns"] == 2000


def test_a_long_source_reports_progress_by_stage(engine, tmp_path, capsys):
    path = write(tmp_path / "s.jsonl", session(600))
    seen: list[tuple[str, int, int]] = []
    engine.learn(path, progress=lambda stage, done, total: seen.append((stage, done, total)))
    stages = [s for s, _, _ in seen]
    assert stages[0] == "extract" and "episodes" in stages and stages[-1] == "done"
    assert ("extract", 300, 300) in seen and ("episodes", 600, 600) in seen
    engine.learn(write(tmp_path / "t.jsonl", session(600, first=600)), progress=False)
    assert capsys.readouterr().err == ""


def test_a_learn_whose_claims_were_undone_applies_them_again(engine, tmp_path):
    path = write(tmp_path / "s.jsonl", [user(0, "I prefer short answers."), user(1, "We decided to ship on Fridays.")])
    first = engine.learn(path)
    [apply_event] = [e for e in first.events if e.reason.startswith("apply ")]
    assert engine.learn(path).counts["added"] == 0  # negative control: while it stands, nothing again
    engine.undo(apply_event.id)
    assert claims(engine, "provisional") == []
    again = engine.learn(path)
    assert again.counts["added"] == 2 and again.counts["episodes"] == 0
    assert claims(engine, "provisional") == [("decision", "We decided to ship on Fridays", "provisional"),
                                             ("preference", "I prefer short answers", "provisional")]
    assert engine.learn(path).counts["added"] == 0  # and once applied again, it stands


def test_undoing_the_episodes_too_is_not_a_reason_to_read_the_turns_again(engine, tmp_path):
    path = write(tmp_path / "s.jsonl", [user(0, "I prefer short answers.")])
    first = engine.learn(path)
    for event in reversed(first.events):
        engine.undo(event.id)
    result = engine.learn(path)  # forgotten turns are not revived (as for `cairn ingest`)
    assert result.counts["added"] == 0 and result.counts["episodes"] == 0


def test_end_to_end_on_the_command_line(cli, tmp_path):
    path = write(tmp_path / "s.jsonl", [
        user(0, "I prefer tabs over spaces for indentation."),
        user(2, "No, I prefer spaces, not tabs."),
        user(4, "Which indentation do I prefer?"),
    ])
    learned = cli("--now", LATER.isoformat(), "learn", path)
    assert learned.code == 0 and "claims added 2" in learned.out and "corrections 1" in learned.out
    recalled = cli("--now", LATER.isoformat(), "recall", "which indentation do I prefer")
    assert recalled.code == 0
    assert '| corrected] "I prefer spaces"' in recalled.out
    assert "I prefer tabs over spaces for indentation" not in recalled.out


class PlainExtractor:
    """A third-party extractor with only the base protocol: one batch from the joined text."""

    name = "plain"

    def __init__(self, replaces: str | None = None) -> None:
        self.replaces = replaces
        self.seen: list[str] = []

    def extract(self, source):
        from cairn.learn.batch import Batch, ClaimSpec

        self.seen.append(source.text)
        claim = ClaimSpec(0, Kind.FACT, "The VPN gateway is vpn-3", self.replaces, ())
        return Batch(source, (claim,))


def test_an_extractor_with_only_the_base_protocol_reads_the_user_turns_joined(engine, tmp_path, monkeypatch):
    plain = PlainExtractor()
    monkeypatch.setattr("cairn.learn.extractors.extractor", lambda name: plain)
    path = write(tmp_path / "s.jsonl", [user(0, "The VPN gateway is vpn-3."), assistant(1, "Secret assistant words."),
                                        user(2, "Thanks.")])
    result = engine.learn(path, extractor="plain")
    assert result.extractor == "plain" and result.counts["added"] == 1
    assert plain.seen == ["The VPN gateway is vpn-3.\n\nThanks."]


def test_an_extractor_naming_a_record_it_was_not_offered_fails_the_run_before_any_write(engine, tmp_path, monkeypatch,
                                                                                         db_path):
    monkeypatch.setattr("cairn.learn.extractors.extractor", lambda name: PlainExtractor(replaces="0123456789abcdef01234567"))
    path = write(tmp_path / "s.jsonl", [user(0, "The VPN gateway is vpn-3.")])
    engine.status()
    before = db_fingerprint(db_path)
    with pytest.raises(PluginError, match="not a candidate"):
        engine.learn(path, extractor="plain")
    assert db_fingerprint(db_path) == before


def test_an_over_long_turn_is_reported_and_skipped_and_the_rest_learned(engine, tmp_path):
    pasted = "log line\n" * 3000  # 27,000 characters: longer than an episode holds
    path = write(tmp_path / "s.jsonl", [user(0, "I prefer short answers."), user(2, pasted), user(4, "Thanks.")])
    result = engine.learn(path)
    assert result.counts["episodes"] == 2 and result.counts["added"] == 1
    assert [str(p) for p in result.problems] == ["turn u2: longer than 20000 characters; not stored"]
    again = engine.learn(path)  # reported again, and nothing else happens
    assert again.counts["episodes"] == 0 and again.counts["problems"] == 1


def test_a_claim_over_the_size_limit_is_rejected_and_the_rest_applied(engine, tmp_path):
    long_claim = "I prefer " + " ".join(f"word{n}" for n in range(200)) + "."
    path = write(tmp_path / "s.jsonl", [user(0, long_claim), user(2, "We decided to ship on Fridays.")])
    result = engine.learn(path)
    assert result.counts["added"] == 1 and len(result.rejected) == 1
    assert "a claim holds 4-800" in result.rejected[0]
    assert [c.content for c in result.claims] == ["We decided to ship on Fridays"]


def test_a_record_corrected_twice_in_one_transcript_ends_with_the_latest_correction(engine, tmp_path):
    engine.learn(write(tmp_path / "a.jsonl", [user(0, "Remember that the staging database is on db-stage-02.",
                                                    session="s1")]))
    [old] = records(engine, Kind.FACT)
    path = write(tmp_path / "b.jsonl", [
        user(10, "Actually, the staging database is on db-stage-03, not db-stage-02.", session="s1",
             at=START + timedelta(hours=1)),
        user(12, "Sorry, I meant the staging database is on db-stage-04, not db-stage-03.", session="s1",
             at=START + timedelta(hours=2)),
    ])
    result = engine.learn(path)
    assert result.claims[0].replaces == old.id and result.claims[1].replaces in (old.id, "#0")
    recalled = engine.recall("where is the staging database")
    assert engine.get(recalled.results[0].id).content == "the staging database is on db-stage-04"
    current = [engine.get(r.id).content for r in recalled.results if "historical-rationale" not in r.markers]
    assert "the staging database is on db-stage-03" not in current


class TwiceExtractor:
    """Names the one candidate it is offered from two claims (a batch may name it once)."""

    name = "twice"

    def extract(self, source):
        raise AssertionError("the turn form is used")

    def extract_turns(self, source, turns, candidates):
        from cairn.learn.batch import Batch, ClaimSpec
        from cairn.learn.extractors import Proposal

        target = candidates[0].ref
        claims = (ClaimSpec(0, Kind.FACT, "the staging database is on db-stage-03", target, ()),
                  ClaimSpec(1, Kind.FACT, "the staging database is on db-stage-04", target, ()))
        return Proposal(Batch(source, claims))


def test_two_corrections_of_one_record_in_a_batch_become_a_chain(engine, tmp_path, monkeypatch):
    engine.learn(write(tmp_path / "a.jsonl", [user(0, "Remember that the staging database is on db-stage-02.",
                                                    session="s1")]))
    [old] = records(engine, Kind.FACT)
    monkeypatch.setattr("cairn.learn.extractors.extractor", lambda name: TwiceExtractor())
    path = write(tmp_path / "b.jsonl", [user(10, "the staging database moved to db-stage-03, then db-stage-04",
                                             session="s1", at=START + timedelta(hours=1))])
    result = engine.learn(path, extractor="twice")
    assert [c.replaces for c in result.claims] == [old.id, "#0"]
    top = engine.recall("where is the staging database").results[0]
    assert engine.get(top.id).content == "the staging database is on db-stage-04" and "corrected" in top.markers


def test_mentioning_a_corrected_record_does_not_confirm_the_one_that_corrected_it(engine, tmp_path):
    engine.learn(write(tmp_path / "a.jsonl", [user(0, "I prefer tabs over spaces for indentation.", session="s1")]))
    engine.learn(write(tmp_path / "b.jsonl", [user(10, "No, I prefer spaces, not tabs.", session="s1",
                                                   at=START + timedelta(hours=1))]))
    [newer] = [m for m in records(engine, Kind.PREFERENCE) if m.content == "I prefer spaces"]
    debate = "We decided to end the tabs over spaces for indentation debate."
    mention = write(tmp_path / "c.jsonl", [user(20, debate, session="s1", at=START + timedelta(hours=2))])
    assert engine.learn(mention).counts["confirmed"] == 0
    assert engine.get(newer.id).reinforced_at == newer.reinforced_at
    says_it = write(tmp_path / "d.jsonl", [user(30, "Spaces: I prefer spaces, as I said.", session="s1",
                                                at=START + timedelta(hours=3))])
    assert engine.learn(says_it).counts["confirmed"] == 1  # control: a source repeating it confirms it


def test_progress_true_draws_a_bar_per_stage_and_false_draws_nothing(tmp_path, capsys):
    lines = session(40)
    with Cairn(tmp_path / "drawn.db", now=LATER) as cairn:
        cairn.learn(write(tmp_path / "a.jsonl", lines), progress=True)
    drawn = capsys.readouterr().err
    assert "learn: episodes [" in drawn and "##############################] 40/40 turns" in drawn
    assert "learn: extract [" in drawn and drawn.endswith("\n")
    with Cairn(tmp_path / "quiet.db", now=LATER) as cairn:  # negative control: asked for none
        cairn.learn(write(tmp_path / "b.jsonl", lines), progress=False)
    assert capsys.readouterr().err == ""
