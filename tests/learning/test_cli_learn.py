"""The learn group of the CLI: apply, candidates, correct, feedback, and their JSON keys."""

from __future__ import annotations

import json

import pytest

from testkit.batches import batch, claim, source
from testkit.db import db_fingerprint

NOW = "2026-11-10T12:00:00Z"
FACT = "The staging database listens on port 5432"
TEXT = "Summary: the staging database listens on port 5433 now."


def remember(cli, text=FACT, basis="user_statement", at="2026-11-01T00:00:00Z"):
    out = cli("--now", at, "--json", "remember", text, "--kind", "fact", "--origin", "acme", "--basis", basis)
    assert out.code == 0, out.err
    return out.json()["id"]


def write(tmp_path, doc, name="batch.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc, encoding="utf-8")
    return str(path)


def test_apply_prints_the_contract_keys(cli, tmp_path):
    target = remember(cli, basis="manual_correction")
    path = write(tmp_path, batch(source(TEXT, at=None), claim("The staging database listens on port 5433", replaces=target)))
    out = cli("--now", NOW, "--json", "apply", path)
    assert out.code == 0, out.err
    doc = out.json()
    assert {"event", "added", "replaced", "withheld", "conflicted", "confirmed"} <= set(doc)
    assert (doc["withheld"], doc["conflicted"], doc["replaced"]) == (1, 1, 0)
    shown = cli("--json", "history", "--limit", "1").json()["events"][0]
    assert shown["id"] == doc["event"] and shown["data"]["withheld"] == 1


def test_apply_reads_standard_input(cli):
    doc = batch(source("We deploy with Docker Compose."), claim("We deploy with Docker Compose"))
    out = cli("--now", NOW, "--json", "apply", "-", stdin=json.dumps(doc))
    assert out.code == 0 and out.json()["added"] == 1


def test_candidates_lists_what_replaces_may_name(cli, tmp_path):
    target = remember(cli)
    out = cli("--now", NOW, "--json", "candidates", write(tmp_path, batch(source(TEXT))))
    assert [m["id"] for m in out.json()["candidates"]] == [target]


def test_correct_prints_id_and_event(cli):
    target = remember(cli)
    out = cli("--now", NOW, "--json", "correct", target[:8], "The staging database listens on port 6432")
    assert out.code == 0, out.err
    doc = out.json()
    assert doc["id"] == target and isinstance(doc["event"], str)
    shown = cli("--now", NOW, "--json", "show", target).json()
    assert shown["memory"]["evidence"]["basis"] == "manual_correction" and shown["quality"]["priority"] == 4


def test_feedback_prints_applied_and_reason(cli):
    target = remember(cli)
    first = cli("--now", NOW, "--json", "feedback", target, "useful", "--source", "turn-1").json()
    again = cli("--now", NOW, "--json", "feedback", target, "useful", "--source", "turn-1").json()
    assert (first["applied"], first["reason"]) == (True, "applied")
    assert (again["applied"], again["reason"]) == (False, "replayed")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("feedback", "{id}", "wrong"), "unknown verdict"),
        (("correct", "{id}", "abc"), "invalid text"),
        (("apply", "{missing}"), "No such file"),
        (("apply", "{malformed}"), "not JSON"),
        (("apply", "{outside}"), "not among the records this source mentions"),
        (("apply", "{overlong}"), "claims[0].content"),
    ],
)
def test_bad_input_exits_1_with_one_line_and_writes_nothing(cli, db_path, tmp_path, args, message):
    target = remember(cli)
    other = remember(cli, "Lunch is served at noon on Fridays")
    files = {
        "id": target,
        "missing": str(tmp_path / "absent.json"),
        "malformed": write(tmp_path, '{"source": ', "bad.json"),
        "outside": write(tmp_path, batch(source(TEXT), claim("Lunch is served at one", replaces=other)), "out.json"),
        "overlong": write(tmp_path, batch(source(TEXT), claim("x" * 900)), "long.json"),
    }
    before = db_fingerprint(db_path)
    out = cli("--now", NOW, *[a.format(**files) for a in args])
    assert out.code == 1 and out.out == ""
    assert out.err.count("\n") == 1 and message in out.err and "Traceback" not in out.err
    assert db_fingerprint(db_path) == before


@pytest.mark.parametrize("command", ["apply", "candidates", "correct", "feedback"])
def test_every_learn_command_has_help(cli, command):
    out = cli(command, "--help")
    assert out.code == 0 and "usage: cairn" in out.out and len(out.out.splitlines()) > 3
