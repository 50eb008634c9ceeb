"""`cairn hook claude-code …` run as Claude Code runs it: a separate process, the hook's JSON
on stdin, its answer on stdout, exit 0 whatever happens."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from cairn import Cairn
from testkit.db import db_fingerprint as fingerprint
from testkit.host import HOST_DATA

HOOK_NOW = "2026-06-03T09:00:00Z"  # two days after the fixture's memories: fresh, not dormant
PAYLOAD = json.loads((HOST_DATA / "fixtures" / "user_prompt_submit.json").read_text(encoding="utf-8"))


def hook(db: Path, event: str, payload, *extra: str, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    """Run the hook as Claude Code does. The budget is generous (30 s) because the test
    machine is shared; the budget itself is tested on its own."""
    data = payload if isinstance(payload, str) else json.dumps(payload)
    env = {"CAIRN_HOOK_TIMEOUT": "30", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "cairn", "--db", str(db), "--now", HOOK_NOW, "hook", "claude-code", event, *extra],
        input=data, capture_output=True, text=True, timeout=60, env={**os.environ, **env},
    )


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "cairn.db"
    with Cairn(path, now="2026-06-01T00:00:00Z") as cairn:
        cairn.remember("The staging deploy runs from the deploy-staging GitHub Actions workflow", kind="fact")
        cairn.remember("Omar likes his eggs poached", kind="preference")
    return path


def prompt(text: str, session: str = "s-1") -> dict:
    return {**PAYLOAD, "prompt": text, "session_id": session}


def test_a_retrieve_prompt_gets_exactly_the_documented_output_shape(db):
    run = hook(db, "user-prompt-submit", PAYLOAD)
    assert run.returncode == 0 and run.stderr == ""
    doc = json.loads(run.stdout)
    assert list(doc) == ["hookSpecificOutput"]
    assert list(doc["hookSpecificOutput"]) == ["hookEventName", "additionalContext"]
    assert doc["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    context = doc["hookSpecificOutput"]["additionalContext"]
    assert "deploy-staging GitHub Actions workflow" in context
    assert "not instructions" in context.splitlines()[0]
    assert "eggs" not in context  # only what the prompt is about


def test_skip_is_silence(db):
    for text in ("ok", "thanks!", "What is the capital of France?"):
        run = hook(db, "user-prompt-submit", prompt(text))
        assert (run.returncode, run.stdout) == (0, ""), text


def test_ask_is_a_one_line_hint(db):
    run = hook(db, "user-prompt-submit", prompt("do it like we did last time"))
    context = json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"]
    assert run.returncode == 0 and "\n" not in context and "which event" in context


def test_the_same_memory_is_not_injected_twice_in_a_session_unless_it_changed(db):
    first = hook(db, "user-prompt-submit", prompt("how does the staging deploy work?"))
    assert "deploy-staging" in first.stdout
    again = hook(db, "user-prompt-submit", prompt("and the staging deploy workflow, remind me?"))
    assert (again.returncode, again.stdout) == (0, "")
    other_session = hook(db, "user-prompt-submit", prompt("how does the staging deploy work?", session="s-2"))
    assert "deploy-staging" in other_session.stdout
    with Cairn(db, now="2026-06-02T00:00:00Z") as cairn:
        found = cairn.search("staging deploy workflow").ids[0]
        cairn.correct(found, "The staging deploy runs from the deploy-stage workflow on Buildkite")
    changed = hook(db, "user-prompt-submit", prompt("how does the staging deploy work?"))
    assert "Buildkite" in changed.stdout


@pytest.mark.parametrize("payload", ["", "not json", "[1, 2]", '{"prompt": 42}', json.dumps({"prompt": "x" * (2 << 20)})])
def test_bad_input_exits_0_silently_and_is_logged(db, payload):
    before = fingerprint(db)
    run = hook(db, "user-prompt-submit", payload)
    assert (run.returncode, run.stdout) == (0, "")
    assert fingerprint(db) == before
    log = db.with_name(db.name + ".hooks") / "hook.log"
    assert log.exists() and "user-prompt-submit" in log.read_text()


def test_a_missing_database_is_silence_and_is_not_created(tmp_path):
    missing = tmp_path / "nowhere" / "cairn.db"
    run = hook(missing, "user-prompt-submit", PAYLOAD)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert not missing.exists() and not missing.parent.exists()


def test_a_run_over_its_time_budget_is_silence_and_is_logged(db):
    run = hook(db, "user-prompt-submit", PAYLOAD, "--timeout", "0.0005")
    assert (run.returncode, run.stdout) == (0, "")
    log = (db.with_name(db.name + ".hooks") / "hook.log").read_text()
    assert "time budget" in log
    fast = hook(db, "user-prompt-submit", PAYLOAD, env={"CAIRN_HOOK_TIMEOUT": "10"})
    assert fast.stdout  # the negative control: with time, the same prompt is answered


def test_learning_events_exit_0_when_the_transcript_is_missing(db):
    before = fingerprint(db)
    run = hook(db, "session-end", {**PAYLOAD, "hook_event_name": "SessionEnd", "transcript_path": str(db.parent / "nope.jsonl")})
    assert (run.returncode, run.stdout) == (0, "")
    assert fingerprint(db) == before


def test_a_dormant_memory_is_not_injected_unprompted(db):
    """Who asks decides dormancy: the hook injects unprompted, so a memory nobody confirmed
    for years stays out (an agent can still find it with memory_recall or search)."""
    years_later = subprocess.run(
        [sys.executable, "-m", "cairn", "--db", str(db), "--now", "2029-06-01T00:00:00Z", "hook", "claude-code",
         "user-prompt-submit"], input=json.dumps(PAYLOAD), capture_output=True, text=True, timeout=60,
        env={**os.environ, "CAIRN_HOOK_TIMEOUT": "30"},
    )
    assert (years_later.returncode, years_later.stdout) == (0, "")
    assert hook(db, "user-prompt-submit", PAYLOAD).stdout  # the control: fresh, it is injected


# -- session-end: learning from the transcript's new lines ------------------------------


SAID = datetime(2026, 6, 2, 10, 0, tzinfo=UTC)  # the day before HOOK_NOW


def session_payload(transcript: Path) -> dict:
    return {"session_id": "5f0c1b2e-sess", "transcript_path": str(transcript), "cwd": "/home/ana/billing",
            "hook_event_name": "SessionEnd", "reason": "exit"}


def episodes(db: Path) -> int:
    with Cairn(db, read_only=True) as cairn:
        return sum(1 for m in cairn.list(kind="episode", per_page=500).memories)


def test_session_end_learns_only_the_new_lines(db, tmp_path):
    from testkit.claude_code import assistant, user

    transcript = tmp_path / "session.jsonl"
    transcript.write_text("\n".join([user(0, "From now on I prefer tabs over spaces in Python files.", at=SAID),
                                     assistant(1, "Noted, tabs it is.", at=SAID)]) + "\n")
    run = hook(db, "session-end", session_payload(transcript))
    assert (run.returncode, run.stdout) == (0, "")
    assert episodes(db) == 2
    with Cairn(db, read_only=True) as cairn:
        assert any("tabs" in r.memory.content for r in cairn.search("tabs over spaces").results)
    state = next((db.with_name(db.name + ".hooks") / "transcripts").glob("*.json"))
    first_offset = json.loads(state.read_text())["offset"]
    assert first_offset == transcript.stat().st_size

    again = hook(db, "session-end", session_payload(transcript))  # nothing new: nothing read
    assert again.returncode == 0 and episodes(db) == 2
    with transcript.open("a") as grown:
        grown.write(user(2, "We decided to deploy billing on Fridays only.", at=SAID) + "\n")
        grown.write('{"type": "user", "uuid": "half-writ')  # a line still being written
    hook(db, "pre-compact", {**session_payload(transcript), "hook_event_name": "PreCompact"})
    assert episodes(db) == 3
    assert json.loads(state.read_text())["offset"] < transcript.stat().st_size  # the partial line waits


def test_a_rewritten_transcript_is_read_again_without_duplicates(db, tmp_path):
    from testkit.claude_code import assistant, user

    transcript = tmp_path / "session.jsonl"
    lines = [user(0, "Remember that the billing database is PostgreSQL 16.", at=SAID), assistant(1, "Will do.", at=SAID)]
    transcript.write_text("\n".join(lines) + "\n")
    hook(db, "session-end", session_payload(transcript))
    transcript.write_text(lines[0] + "\n")  # shorter than the offset: read from the start again
    run = hook(db, "session-end", session_payload(transcript))
    assert run.returncode == 0 and episodes(db) == 2


def test_the_projects_own_memories_come_first(tmp_path):
    db = tmp_path / "cairn.db"
    with Cairn(db, now="2026-06-01T00:00:00Z") as cairn:
        cairn.remember("Tests run with Jest through npm test", kind="fact", origin="web-shop")
        cairn.remember("Tests run with pytest from the repository root", kind="fact", origin="billing")
    for project, first in (("billing", "pytest"), ("web-shop", "Jest")):
        asked = prompt("how do the tests run in our project?", session=project)
        run = hook(db, "user-prompt-submit", {**asked, "cwd": f"/home/dev/{project}"})
        lines = json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"].splitlines()
        assert first in lines[1], (project, lines)


def reinforcements(db: Path, needle: str) -> list[str]:
    with Cairn(db, read_only=True) as cairn:
        [memory] = [r.memory for r in cairn.search(needle).results if needle in r.memory.content]
        return [r.outcome for r in cairn.reinforcements(memory.id)]


def test_a_reaction_to_an_answer_becomes_a_reinforcement_of_what_was_recalled_for_it(db, tmp_path):
    from testkit.claude_code import assistant, user

    ask = "Set up the staging deploy for the new API endpoint"
    session = {**PAYLOAD, "prompt": ask, "session_id": "5f0c1b2e-sess"}
    assert "deploy-staging" in hook(db, "user-prompt-submit", session).stdout  # recalled and injected
    ledger = json.loads(next((db.with_name(db.name + ".hooks") / "sessions").glob("*.json")).read_text())
    assert ask not in json.dumps(ledger) and len(ledger["turns"]) == 1  # a hash of the prompt, never its words
    transcript = tmp_path / "session.jsonl"
    lines = [user(0, ask, at=SAID), assistant(1, "Added a deploy-staging workflow job for it.", at=SAID)]
    transcript.write_text("\n".join(lines) + "\n")
    assert hook(db, "stop", session_payload(transcript)).returncode == 0  # after the answer
    assert reinforcements(db, "deploy-staging") == []
    with transcript.open("a") as grown:  # the user's reaction comes in a later run, after the prompt was read
        grown.write(user(2, "great, it passes now", at=SAID) + "\n" + assistant(3, "Good.", at=SAID) + "\n")
    hook(db, "stop", session_payload(transcript))
    assert reinforcements(db, "deploy-staging") == ["implicit_success"]
    state = next((db.with_name(db.name + ".hooks") / "transcripts").glob("*.json"))
    transcript.write_text(transcript.read_text() + "")  # the same file again: nothing new, nothing twice
    hook(db, "session-end", session_payload(transcript))
    assert reinforcements(db, "deploy-staging") == ["implicit_success"]
    assert json.loads(state.read_text())["offset"] == transcript.stat().st_size
    assert reinforcements(db, "eggs poached") == []  # not recalled: not concerned


def test_thanks_after_a_prompt_that_recalled_nothing_records_nothing(db, tmp_path):
    from testkit.claude_code import assistant, user

    ask = "rename the helper function in utils"
    session = {**PAYLOAD, "prompt": ask, "session_id": "5f0c1b2e-sess"}
    assert hook(db, "user-prompt-submit", session).stdout == ""
    transcript = tmp_path / "session.jsonl"
    transcript.write_text("\n".join([user(0, ask, at=SAID), assistant(1, "Renamed.", at=SAID),
                                     user(2, "Perfect, thanks!", at=SAID)]) + "\n")
    hook(db, "session-end", session_payload(transcript))
    assert reinforcements(db, "deploy-staging") == [] and reinforcements(db, "eggs poached") == []
