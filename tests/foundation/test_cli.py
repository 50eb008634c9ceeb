"""The CLI contract of the foundation commands (docs/usage.md), help on every command,
and bad input: exit 1, one line on stderr, the database unchanged."""

from __future__ import annotations

import argparse

import pytest

from cairn.cli import build_parser
from testkit.db import db_fingerprint


def _commands() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(sub.choices)


def test_foundation_commands_exist():
    names = set(_commands())
    assert {"remember", "show", "list", "forget", "pin", "unpin", "history", "undo", "export", "import", "status"} <= names


@pytest.mark.parametrize("command", _commands())
def test_every_command_has_help(cli, command):
    result = cli(command, "--help")
    assert result.code == 0
    assert "usage: cairn" in result.out and len(result.out.splitlines()) >= 3
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert sub.choices[command].description, f"{command} has no description"


def test_remember_show_list_json_keys(cli):
    r = cli(
        "--json", "remember", "Use PostgreSQL 16 for billing", "--kind", "decision", "--origin", "acme", "--alias", "billing-db"
    )
    assert r.code == 0, r.err
    doc = r.json()
    assert set(doc) >= {"id", "status", "event"}
    shown = cli("--json", "show", doc["id"][:7]).json()
    assert set(shown) >= {"memory", "quality", "relations"}
    every_field = {
        "id", "space", "origin", "kind", "content", "aliases", "status", "layer", "evidence", "certainty",
        "valid_from", "valid_to", "created_at", "updated_at", "reinforced_at", "feedback", "revision",
    }
    assert every_field <= set(shown["memory"])
    assert {"freshness", "aging", "dormant"} <= set(shown["quality"])
    listed = cli("list", "--json").json()  # global option after the command works too
    assert set(listed) >= {"memories", "page", "pages"} and listed["memories"][0]["id"] == doc["id"]


def test_forget_pin_history_undo_json_keys(cli):
    mid = cli("--json", "remember", "Prefer small commits", "--kind", "preference").json()["id"]
    for command in ("pin", "unpin", "forget"):
        assert set(cli("--json", command, mid).json()) == {"event"}
    history = cli("--json", "history", mid, "--limit", "2").json()
    assert len(history["events"]) == 2
    assert set(history["events"][0]) >= {"id", "at", "actor", "reason", "changed"}
    assert history["events"][0]["changed"] == [mid]
    undo = cli("--json", "undo", history["events"][0]["id"]).json()
    assert set(undo) == {"event"}


def test_status_json_keys(cli):
    assert cli("remember", "The api runs on port 8080", "--kind", "fact").code == 0  # status reads an existing store
    doc = cli("--json", "status").json()
    assert set(doc) >= {"schema", "memories", "events", "problems"}


def test_list_pages(cli):
    for i in range(25):
        assert cli("remember", f"Fact number {i} about the system", "--kind", "fact").code == 0
    first = cli("--json", "list").json()
    second = cli("--json", "list", "--page", "2").json()
    assert (first["page"], first["pages"], len(first["memories"])) == (1, 2, 20)
    assert (second["page"], len(second["memories"])) == (2, 5)
    assert not {m["id"] for m in first["memories"]} & {m["id"] for m in second["memories"]}


def test_now_fixes_the_clock(cli):
    mid = cli("--json", "--now", "2026-01-02T03:04:05Z", "remember", "Clocked claim here", "--kind", "fact").json()["id"]
    assert cli("--json", "show", mid).json()["memory"]["created_at"] == "2026-01-02T03:04:05Z"


def test_cairn_db_environment_default(tmp_path, monkeypatch):
    from cairn.cli import main

    target = tmp_path / "env" / "c.db"
    monkeypatch.setenv("CAIRN_DB", str(target))
    assert main(["remember", "Stored through CAIRN_DB", "--kind", "fact"]) == 0
    assert target.exists()


@pytest.fixture
def seeded(cli, db_path):
    a = cli("--json", "remember", "The api runs on port 8080", "--kind", "fact").json()["id"]
    b = cli("--json", "remember", "The worker runs on port 9090", "--kind", "fact").json()["id"]
    return a, b


BAD = [
    (["remember", "Unknown kind here", "--kind", "rumour"], "kind"),
    (["remember", "Bad time here", "--kind", "fact", "--at", "yesterday-ish"], "time"),
    (["remember", "Bad validity", "--kind", "fact", "--valid-from", "2026-02-01", "--valid-to", "2026-01-01"], "valid"),
    (["remember", "   ", "--kind", "fact"], "empty"),
    (["remember", "abc", "--kind", "fact"], "characters"),
    (["remember", "x" * 801, "--kind", "fact"], "characters"),
    (["remember", "Too many aliases", "--kind", "fact", *sum((["--alias", f"al{i}"] for i in range(9)), [])], "alias"),
    (["remember", "Bad certainty", "--kind", "fact", "--certainty", "sure"], "certainty"),
    (["--now", "2026-13-01", "remember", "Bad clock here", "--kind", "fact"], "time"),
    (["--space", "no spaces allowed", "list"], "space"),
    (["show", "zzzzzzzz"], "no memory"),
    (["show", "abc"], "shorter"),
    (["forget", "ffffffffffffffff"], "no memory"),
    (["undo", "ffffffffffffffff"], "no event"),
    (["list", "--status", "sleepy"], "status"),
    (["import", "/nonexistent/file.jsonl"], "import file"),
]


@pytest.mark.parametrize("argv, needle", BAD, ids=[" ".join(a)[:40] for a, _ in BAD])
def test_bad_input_exits_1_with_one_line_and_writes_nothing(cli, db_path, seeded, argv, needle):
    before = db_fingerprint(db_path)
    result = cli(*argv)
    assert result.code == 1
    assert result.out == ""
    assert result.err.count("\n") == 1 and result.err.startswith("cairn: ")
    assert needle in result.err
    assert db_fingerprint(db_path) == before


def test_ambiguous_prefix_lists_candidates(cli, db_path):
    from dataclasses import replace

    from cairn import Cairn

    with Cairn(db_path) as c:
        template = c.remember("Template claim for ids", kind="fact").memory
        with c.store.write() as tx:
            for suffix in ("aaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbb"):
                tx.put_memory(replace(template, id="abcdef" + suffix))
    before = db_fingerprint(db_path)
    result = cli("show", "abcdef")
    assert result.code == 1 and "ambiguous" in result.err
    assert "abcdefaaaaaaaaaaaaaaaaaa" in result.err and "abcdefbbbbbbbbbbbbbbbbbb" in result.err
    assert cli("show", "abcdefa").code == 0  # negative control: a unique prefix resolves
    assert db_fingerprint(db_path) == before


def test_usage_error_is_exit_2(cli):
    assert cli("remember").code == 2
    assert cli("no-such-command").code == 2
