"""`cairn ingest FILE [--format jsonl|locomo] [--origin O]` prints {"source", "episodes"}."""

from __future__ import annotations

import json


def test_ingest_prints_source_and_episodes(cli, transcript):
    result = cli("--json", "ingest", str(transcript), "--origin", "support")
    assert result.code == 0, result.err
    doc = result.json()
    assert {"source", "episodes"} <= set(doc) and doc["episodes"] == 3 and doc["origins"] == ["support"]
    listed = cli("--json", "list", "--kind", "episode").json()["memories"]
    assert {m["evidence"]["source_id"] for m in listed} == {"t1", "t2", "t3"}
    assert {m["origin"] for m in listed} == {"support"}


def test_reingest_through_the_cli_is_idempotent(cli, transcript, fingerprint):
    cli("ingest", str(transcript))
    before = fingerprint()
    again = cli("--json", "ingest", str(transcript))
    assert again.code == 0 and again.json()["episodes"] == 0 and again.json()["skipped"] == 3
    assert fingerprint() == before


def test_locomo_format_with_a_sample(cli, locomo_file):
    result = cli("--json", "ingest", str(locomo_file), "--format", "locomo", "--sample", "conv-b")
    assert result.code == 0, result.err
    assert result.json()["episodes"] == 3 and result.json()["origins"] == ["conv-b"]


def test_text_output_names_what_was_done(cli, transcript):
    result = cli("ingest", str(transcript))
    assert result.code == 0 and "ingested 3 episodes into chat" in result.out


def test_a_bad_line_exits_1_with_one_line_and_writes_nothing(cli, tmp_path, fingerprint):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"id": "a", "speaker": "A", "text": "fine", "time": "2026-10-01"}) + "\n{oops\n")
    cli("status")  # create the database first, so "nothing written" compares two real states
    before = fingerprint()
    result = cli("ingest", str(path))
    assert result.code == 1
    assert result.err.startswith("cairn: invalid ingest line 2: not JSON") and result.err.count("\n") == 1
    assert fingerprint() == before


def test_missing_file_and_unknown_format(cli, tmp_path):
    missing = cli("ingest", str(tmp_path / "none.jsonl"))
    assert missing.code == 1 and "cannot read" in missing.err
    assert cli("ingest", "x.jsonl", "--format", "csv").code == 2


def test_ingest_has_help(cli):
    result = cli("ingest", "--help")
    assert result.code == 0 and "verbatim" in result.out and "--origin" in result.out
    for name in ("locomo", "scale"):
        assert cli("bench", name, "--help").code == 0
