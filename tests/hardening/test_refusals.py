"""A refused command changes nothing: not the path it was given, not the file's mode, not
its journal mode, and no database or folder is left behind. Read commands never create a
database; writing commands create one only where a folder exists (or at the default path)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from cairn import Cairn, InvalidInput, NoSuchDatabase
from cairn.bench.drills import file_state
from cairn.store import MIGRATIONS

from .conftest import one_line_refusal

READS = [("status",), ("list",), ("show", "abcdef"), ("recall", "pytest"), ("search", "pytest"),
         ("history",), ("export",), ("timeline", "pytest"), ("explain", "pytest")]


def _newer_schema(path: Path) -> None:
    """A Cairn database written by a newer Cairn, in rollback-journal mode, mode 0644."""
    with Cairn(path) as cairn:
        cairn.remember("The staging host runs Debian 12", kind="fact")
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute("INSERT INTO schema_migrations (seq, name, applied_at) VALUES (?, 'from_the_future', '2030-01-01')",
                 (len(MIGRATIONS) + 1,))
    conn.commit()
    conn.close()
    os.chmod(path, 0o644)


def test_a_folder_given_as_database_keeps_its_mode(run, tmp_path):
    folder = tmp_path / "d"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    before = file_state(folder)
    for argv in (("status",), ("remember", "The api runs on port 8080", "--kind", "fact")):
        result = run("--db", str(folder), *argv)
        assert one_line_refusal(result) and "not a file" in result.err
        assert file_state(folder) == before


def test_a_text_file_given_as_database_is_untouched(run, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("shopping list\n")
    os.chmod(text, 0o644)
    before = file_state(text)
    for argv in (("status",), ("remember", "The api runs on port 8080", "--kind", "fact")):
        result = run("--db", str(text), *argv)
        assert one_line_refusal(result) and "not a SQLite database" in result.err
        assert file_state(text) == before


def test_a_foreign_sqlite_database_is_untouched(run, tmp_path):
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    os.chmod(other, 0o644)
    before = file_state(other)
    result = run("--db", str(other), "remember", "The api runs on port 8080", "--kind", "fact")
    assert one_line_refusal(result) and "another program" in result.err
    assert file_state(other) == before


def test_a_newer_schema_is_refused_before_any_mode_or_journal_change(run, tmp_path):
    path = tmp_path / "future.db"
    _newer_schema(path)
    before = file_state(path)
    assert before[1] == 0o644 and before[3] == (1, 1)  # the setup really is 0644, rollback journal
    for argv in (("status",), ("remember", "The api runs on port 8080", "--kind", "fact"), ("list",)):
        result = run("--db", str(path), *argv)
        assert one_line_refusal(result) and "newer than this Cairn" in result.err
        assert file_state(path) == before


def test_a_verified_database_is_claimed_by_a_write_and_not_by_a_read(run, tmp_path):
    # Negative control of the above: Cairn's own database, at 0644 in rollback mode, is
    # left as it is by reads, and tightened (0600, WAL) by the first write.
    path = tmp_path / "own.db"
    _newer_schema(path)
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM schema_migrations WHERE name = 'from_the_future'")
    conn.commit()
    conn.close()
    os.chmod(path, 0o644)
    before = file_state(path)
    assert run("--db", str(path), "list").code == 0
    assert run("--db", str(path), "status").code == 0
    assert file_state(path) == before
    assert run("--db", str(path), "remember", "The api runs on port 8080", "--kind", "fact").code == 0
    after = file_state(path)
    assert after[1] == 0o600 and after[3] == (2, 2)


@pytest.mark.parametrize("argv", READS, ids=[a[0] for a in READS])
def test_read_commands_on_a_missing_database_create_nothing(run, tmp_path, argv):
    path = tmp_path / "new" / "nested" / "c.db"
    result = run("--db", str(path), *argv)
    assert one_line_refusal(result)
    assert f"no such database: {path}" in result.err
    assert not (tmp_path / "new").exists()


def test_read_commands_on_a_missing_file_in_an_existing_folder_create_nothing(run, tmp_path):
    path = tmp_path / "typo.db"
    assert one_line_refusal(run("--db", str(path), "status"))
    assert not path.exists()


def test_a_writing_command_needs_the_folder_of_an_explicit_path(run, tmp_path):
    path = tmp_path / "no" / "such" / "c.db"
    result = run("--db", str(path), "remember", "The api runs on port 8080", "--kind", "fact")
    assert one_line_refusal(result) and "does not exist" in result.err
    assert not (tmp_path / "no").exists()
    # Negative control: with the folder there, the database is created.
    path.parent.mkdir(parents=True)
    assert run("--db", str(path), "remember", "The api runs on port 8080", "--kind", "fact").code == 0
    assert path.exists() and file_state(path)[1] == 0o600


def test_the_default_data_path_is_created_with_its_folders(run, tmp_path, monkeypatch):
    monkeypatch.delenv("CAIRN_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert one_line_refusal(run("status"))  # a read does not create it either
    assert not (tmp_path / "xdg").exists()
    assert run("remember", "The api runs on port 8080", "--kind", "fact").code == 0
    assert (tmp_path / "xdg" / "cairn" / "cairn.db").exists()


def test_a_refused_writing_command_leaves_no_database_behind(run, tmp_path):
    path = tmp_path / "c.db"
    result = run("--db", str(path), "remember", "no", "--kind", "fact")  # too short: refused
    assert one_line_refusal(result)
    assert not path.exists() and not Path(str(path) + "-wal").exists()


def test_a_refused_write_on_an_existing_database_changes_nothing(run, tmp_path):
    path = tmp_path / "c.db"
    assert run("--db", str(path), "remember", "The api runs on port 8080", "--kind", "fact").code == 0
    before = file_state(path)
    assert one_line_refusal(run("--db", str(path), "remember", "no", "--kind", "fact"))
    assert file_state(path)[:3] == before[:3]


def test_an_empty_db_path_is_refused(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.chmod(tmp_path, 0o755)
    before = file_state(tmp_path)
    result = run("--db", "", "remember", "hello world abc", "--kind", "fact")
    assert one_line_refusal(result) and "empty" in result.err
    assert file_state(tmp_path) == before


def test_an_empty_cairn_db_is_refused(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CAIRN_DB", "")
    before = file_state(tmp_path)
    result = run("remember", "hello world abc", "--kind", "fact")
    assert one_line_refusal(result) and "CAIRN_DB" in result.err
    assert file_state(tmp_path) == before


def test_the_api_refuses_empty_paths_and_honours_create_false(tmp_path):
    with pytest.raises(InvalidInput):
        Cairn("")
    with pytest.raises(NoSuchDatabase):
        Cairn(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()
    with Cairn(tmp_path / "made.db") as cairn:  # negative control: the default creates
        assert cairn.status()["memories"] == 0
