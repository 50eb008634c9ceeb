"""Inputs that used to end in "internal error" are refused with one bounded line, exit 1,
and write nothing."""

from __future__ import annotations

import json

import pytest

from cairn.bench.drills import file_state

from .conftest import one_line_refusal

SURROGATE = "caf\udce9 is open late"  # what Python makes of the byte 0xE9 in argv


@pytest.fixture
def db(run, tmp_path):
    path = tmp_path / "c.db"
    assert run("--db", str(path), "remember", "The api runs on port 8080", "--kind", "fact").code == 0
    return path


def _refused_unchanged(run, db, *argv, stdin=None, env_note=""):
    before = file_state(db)
    result = run("--db", str(db), *argv, stdin=stdin)
    assert one_line_refusal(result), (argv, result.err)
    assert len(result.err) < 600
    assert file_state(db)[:3] == before[:3]
    return result


@pytest.mark.parametrize("argv", [
    ("remember", SURROGATE, "--kind", "fact"),
    ("remember", "The cafe is open late", "--kind", "fact", "--alias", "caf\udce9"),
    ("remember", "The cafe is open late", "--kind", "fact", "--origin", "caf\udce9"),
    ("remember", "The cafe is open late", "--kind", "fact", "--source", "caf\udce9"),
    ("recall", "caf\udce9"),
], ids=["text", "alias", "origin", "source", "query"])
def test_arguments_that_are_not_utf8(run, db, argv):
    assert "UTF-8" in _refused_unchanged(run, db, *argv).err


def test_lone_surrogates_in_apply_json(run, db, tmp_path):
    batch = tmp_path / "b.json"
    batch.write_text('{"source": {"id": "s1", "kind": "summary", "text": "x", "origin": "o"},'
                     ' "claims": [{"kind": "fact", "content": "The cafe \\udce9 is open"}]}')
    _refused_unchanged(run, db, "apply", str(batch))


def test_lone_surrogates_in_ingest_jsonl(run, db, tmp_path):
    talk = tmp_path / "t.jsonl"
    talk.write_text('{"id": "t1", "speaker": "ana", "text": "caf\\udce9 open", "time": "2026-10-01T10:00:00Z"}\n')
    _refused_unchanged(run, db, "ingest", str(talk))


def test_export_to_a_folder_or_a_missing_folder(run, db, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    assert "folder" in _refused_unchanged(run, db, "export", str(folder)).err
    assert not (tmp_path / "out.partial").exists() and list(folder.iterdir()) == []
    assert "does not exist" in _refused_unchanged(run, db, "export", str(tmp_path / "nosuch" / "out.jsonl")).err
    assert "too long" in _refused_unchanged(run, db, "export", str(tmp_path / ("n" * 5000))).err
    # Negative control: a file in an existing folder is written.
    assert run("--db", str(db), "export", str(tmp_path / "out.jsonl")).code == 0


@pytest.mark.parametrize("value", ["inf", "1e309", "nan", "-1", "soon"])
def test_busy_timeouts_that_are_not_seconds(run, db, monkeypatch, value):
    monkeypatch.setenv("CAIRN_BUSY_TIMEOUT", value)
    assert "CAIRN_BUSY_TIMEOUT" in _refused_unchanged(run, db, "status").err


def test_a_busy_timeout_in_range_is_accepted(run, db, monkeypatch):
    monkeypatch.setenv("CAIRN_BUSY_TIMEOUT", "2.5")
    assert run("--db", str(db), "status").code == 0


def test_a_limit_beyond_any_integer_sqlite_holds(run, db):
    _refused_unchanged(run, db, "history", "--limit", "99999999999999999999")


@pytest.mark.parametrize("argv", [
    ("recall", "api", "--as-of", "9999-12-31T23:59:59-01:00"),
    ("--now", "0001-01-01T00:00:00+01:00", "status"),
    ("--now", "0001-01-01T00:00:00Z", "remember", "The api runs on port 9090", "--kind", "fact"),
    ("remember", "The api runs on port 9090", "--kind", "fact", "--valid-from", "9999-12-31T23:00:00Z"),
    ("recall", "api", "--known-at", "0001-01-01"),
], ids=["as-of", "now-zone", "now-year-1", "valid-from", "known-at"])
def test_dates_at_the_edges_of_the_calendar(run, db, argv):
    _refused_unchanged(run, db, *argv)


def test_candidates_on_deeply_nested_json(run, db, tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text('{"source": ' + "[" * 100_000 + "]" * 100_000 + "}")
    _refused_unchanged(run, db, "candidates", str(deep))


def test_ingest_of_an_empty_locomo_list(run, db, tmp_path):
    empty = tmp_path / "e.json"
    empty.write_text("[]")
    _refused_unchanged(run, db, "ingest", str(empty), "--format", "locomo")


@pytest.mark.parametrize("size", [60_000, 40_000])
def test_a_huge_id_is_refused_and_not_echoed_in_full(run, db, size):
    result = _refused_unchanged(run, db, "show", "a" * size)
    assert len(result.err) < 300 and str(size) in result.err


def test_an_error_never_repeats_a_long_value_in_full(run, db):
    for argv in (("feedback", "b" * 40_000, "useful"), ("recall", "api", "--as-of", "x" * 40_000)):
        result = run("--db", str(db), *argv)
        assert one_line_refusal(result) and len(result.err) < 600


def test_json_errors_carry_a_code_for_these_refusals(run, db):
    result = run("--db", str(db), "--json", "show", "a" * 60_000)
    assert json.loads(result.out)["error"]["code"] == "invalid_input"
