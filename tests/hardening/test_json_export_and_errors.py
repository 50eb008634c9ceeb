"""``--json export`` prints one object that ``import`` reads back; ``--json`` errors print
``{"error": {"code", "message"}}`` on stdout beside the line on stderr, with a stable code
per error class (documented in docs/usage.md); output closed by the reader ends quietly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.errors import CairnError, error_codes

from .conftest import one_line_refusal

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def db(run, tmp_path):
    path = tmp_path / "c.db"
    a = run("--db", str(path), "--json", "remember", "The api runs on port 8080", "--kind", "fact").json()["id"]
    b = run("--db", str(path), "--json", "remember", "The api runs on port 9090 now", "--kind", "fact").json()["id"]
    assert run("--db", str(path), "relate", b, "supersedes", a).code == 0
    return path


def test_json_export_prints_exactly_one_object(run, db):
    result = run("--db", str(db), "--json", "export")
    assert result.code == 0
    doc = json.loads(result.out)  # one document: json.loads fails on JSONL plus a summary
    assert (doc["records"], doc["relations"], doc["events"]) == (2, 1, 3)
    assert [line["type"] for line in doc["lines"]] == ["memory", "memory", "relation", "event", "event", "event"]


def test_the_json_export_document_imports_like_the_jsonl(run, db, tmp_path):
    doc_file = tmp_path / "export.json"
    doc_file.write_text(run("--db", str(db), "--json", "export").out)
    jsonl = run("--db", str(db), "export").out
    for n, source in enumerate((str(doc_file), "-")):
        target = tmp_path / f"copy-{n}.db"
        stdin = doc_file.read_text() if source == "-" else None
        imported = run("--db", str(target), "--json", "import", source, stdin=stdin).json()
        assert (imported["records"], imported["relations"], imported["events"]) == (2, 1, 3)
        assert run("--db", str(target), "export").out == jsonl


def test_plain_export_stays_jsonl(run, db):
    lines = run("--db", str(db), "export").out.splitlines()
    assert len(lines) == 6 and all(json.loads(line)["type"] for line in lines)


@pytest.mark.parametrize("argv, code", [
    (("show", "zzzzzzzz"), "not_found"),
    (("remember", "no", "--kind", "fact"), "invalid_input"),
    (("undo", "abcdef"), "not_found"),
], ids=["not-found", "invalid", "undo"])
def test_json_errors_print_one_object_with_a_stable_code(run, db, argv, code):
    result = run("--db", str(db), "--json", *argv)
    assert one_line_refusal(result)
    doc = json.loads(result.out)
    assert doc == {"error": {"code": code, "message": result.err.strip().removeprefix("cairn: ")}}


def test_a_usage_error_under_json_prints_its_object_too(run, db):
    result = run("--db", str(db), "--json", "list", "--page", "zero")
    assert result.code == 2 and json.loads(result.out)["error"]["code"] == "usage"
    assert run("--db", str(db), "list", "--page", "zero").out == ""  # without --json: stdout stays empty


def test_without_json_an_error_prints_nothing_on_stdout(run, db):
    result = run("--db", str(db), "show", "zzzzzzzz")
    assert one_line_refusal(result) and result.out == ""


def test_a_missing_database_has_its_own_code(run, tmp_path):
    result = run("--db", str(tmp_path / "nope.db"), "--json", "status")
    assert json.loads(result.out)["error"]["code"] == "no_such_database"


def test_every_error_class_has_its_own_documented_code():
    codes = error_codes()
    assert len(codes) == len({cls for cls in codes.values()})  # no two classes share a code
    classes: list[type] = [CairnError]
    for cls in classes:
        classes += cls.__subclasses__()
    assert {c for c in classes if c.__module__ == "cairn.errors"} <= set(codes.values())
    usage = (ROOT / "docs" / "usage.md").read_text()
    for code in [*codes, "internal", "interrupted", "usage"]:
        assert f"`{code}`" in usage, code


def _pipe(argv: list[str], db: Path, reader: str) -> subprocess.CompletedProcess:
    command = f"{sys.executable} -m cairn --db {db} {' '.join(argv)} | {reader}"
    return subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})


@pytest.fixture(scope="module")
def big_db(tmp_path_factory):
    """A store whose export is far larger than a pipe's buffer (64 KiB)."""
    from cairn import Cairn

    path = tmp_path_factory.mktemp("big") / "c.db"
    with Cairn(path) as cairn:
        for i in range(150):
            cairn.remember(f"Filler fact number {i} about the deploy pipeline and its many stages", kind="fact")
    return path


@pytest.mark.parametrize("argv", [["export"], ["--json", "export"], ["list"]])
def test_output_closed_by_the_reader_ends_quietly(big_db, argv):
    done = _pipe(argv, big_db, "head -c 1 >/dev/null")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_a_reader_that_reads_everything_gets_everything(big_db):
    done = _pipe(["export"], big_db, "wc -l")  # the negative control: no early close, all lines
    assert done.returncode == 0 and int(done.stdout.strip()) == 300
