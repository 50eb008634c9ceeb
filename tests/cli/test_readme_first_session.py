"""The README's "A first session" block, run verbatim: every `cairn` line of it, in order,
with only its two placeholders filled in (the id prefix ``3f2a9c`` becomes the prefix of
the record the block corrects, ``<event-id>`` the newest event `history` printed). Each
command's outcome is checked against what the README says of it, so the README cannot
drift from the behaviour."""

from __future__ import annotations

import io
import json
import re
import shlex
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from cairn.cli import main

README = Path(__file__).resolve().parents[2] / "README.md"
PLACEHOLDER_ID = "3f2a9c"


def first_session_block() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = text.split("## A first session", 1)[1]
    block = section.split("```sh", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def commands(block: list[str]) -> list[list[str]]:
    """The `cairn` invocations of the block, comments dropped, `&&` chains split."""
    found = []
    for line in block:
        words = shlex.split(line, comments=True)
        chain: list[str] = []
        for word in [*words, "&&"]:
            if word == "&&":
                if chain and chain[0] == "cairn":
                    found.append(chain[1:])
                chain = []
            else:
                chain.append(word)
    return found


def run(db: Path, args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(["--db", str(db), *args])
        except SystemExit as exit_:
            code = int(exit_.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> list[tuple[list[str], int, str, str]]:
    """Every command of the block with its exit code, stdout and stderr, in order."""
    db = tmp_path_factory.mktemp("readme") / "cairn.db"
    done: list[tuple[list[str], int, str, str]] = []
    target = None
    for args in commands(first_session_block()):
        filled = list(args)
        if PLACEHOLDER_ID in filled:
            assert target, "the block corrects a record it did not remember"
            filled = [target[:6] if a == PLACEHOLDER_ID else a for a in filled]
        if "<event-id>" in filled:
            newest = done[-1][2].split()[0]  # history prints the newest event first
            filled = [newest if a == "<event-id>" else a for a in filled]
        code, out, err = run(db, filled)
        if args[0] == "remember" and "(decision," in out:  # the record the block goes on to show and correct
            target = re.search(r"remembered (\w+)", out).group(1)  # type: ignore[union-attr]
        done.append((args, code, out, err))
    return done


def step(session, name: str, occurrence: int = 0):
    matching = [s for s in session if name in s[0][:2]]
    assert len(matching) > occurrence, f"the README's first session has no `cairn {name}`"
    return matching[occurrence]


def test_the_block_is_what_this_test_knows():
    names = [c[0] if c[0] != "--json" else c[1] for c in commands(first_session_block())]
    assert names == ["remember", "remember", "recall", "explain", "show", "correct", "history", "undo", "status"]


def test_every_command_of_the_block_succeeds_quietly(session):
    for args, code, _out, err in session:
        assert code == 0, f"cairn {' '.join(args)}: {err}"
        assert err == "", f"cairn {' '.join(args)}: {err}"


def test_remember_stores_each_claim(session):
    for n in (0, 1):
        _args, _code, out, _err = step(session, "remember", n)
        assert out.startswith("remembered ") and "provisional" in out


def test_recall_answers_with_the_decision_labelled(session):
    _args, _code, out, _err = step(session, "recall")
    assert '"Use PostgreSQL 16 for billing"' in out and "[decision | provisional" in out
    assert len(out.encode()) <= 2048 + 64  # the digest, plus the trace line


def test_explain_lists_the_candidate_with_a_reason(session):
    _args, _code, out, _err = step(session, "explain")
    assert "query features:" in out and re.search(r"^\w{10}\s+[\w-]+\s+raw", out, re.M)


def test_show_accepts_a_six_character_prefix(session):
    args, _code, out, _err = step(session, "show")
    assert args[1] == PLACEHOLDER_ID and "Use PostgreSQL 16 for billing" in out


def test_correct_replaces_the_text_and_history_then_undo_restore_it(session):
    _args, _code, out, _err = step(session, "correct")
    assert out.startswith("corrected ") and "manual_correction" in out
    _args, _code, out, _err = step(session, "history")
    events = out.splitlines()
    assert len(events) == 3 and " correct " in events[0]
    _args, _code, out, _err = step(session, "undo")
    assert out.startswith("undid " + events[0].split()[0])


def test_json_status_prints_one_object(session):
    _args, _code, out, _err = step(session, "status")
    doc = json.loads(out)
    assert doc["memories"] == 2 and doc["integrity"] == "ok" and doc["problems"] == []
    assert doc["events"] == 4  # two remembers, a correction, its undo


def test_commands_reads_chains_and_drops_comments():
    """Negative control of the parser the scenario stands on."""
    block = ["source x # y", 'cairn a "b c"  # cairn z', "cairn d && cairn e <f>", "echo cairn"]
    assert commands(block) == [["a", "b c"], ["d"], ["e", "<f>"]]
