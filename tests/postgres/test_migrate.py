"""``cairn migrate SRC DST`` moves a space from SQLite to PostgreSQL and back with
byte-identical exports, and refuses a destination already in use, leaving it as it was."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

from cairn import Cairn
from cairn.cli import main
from testkit import Clock


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exit_:
            code = int(exit_.code or 0)
    return code, out.getvalue(), err.getvalue()


def _export(target) -> str:
    with Cairn(target, read_only=True, create=False) as cairn:
        buf = io.StringIO()
        cairn.export(buf)
        return buf.getvalue()


def _seed(path) -> None:
    with Cairn(path, now=Clock()) as cairn:
        old = cairn.remember("The backup job runs every Sunday night", kind="fact").memory
        new = cairn.remember("The backup job now runs every Saturday night", kind="fact").memory
        cairn.relate(new.id, "supersedes", old.id)
        cairn.forget(cairn.remember("A note to drop", kind="fact").memory.id)


def test_sqlite_to_postgres_and_back_keeps_every_byte(tmp_path, pg_url):
    src, back = tmp_path / "src.db", tmp_path / "back" / "back.db"
    _seed(src)
    code, out, err = _cli("migrate", str(src), pg_url)
    assert code == 0, err
    assert "byte-identical" in out and "cairn migrate: read 3 records" in err
    code, _, err = _cli("migrate", pg_url, str(back))
    assert code == 0, err
    first = _export(src)
    assert first.count("\n") >= 7
    assert _export(pg_url) == first == _export(back)
    with Cairn(pg_url) as cairn:
        assert "Saturday" in cairn.recall("backup job night").results[0].memory.content


def test_a_destination_in_use_is_refused_and_left_as_it_was(tmp_path, pg_url):
    src = tmp_path / "src.db"
    _seed(src)
    with Cairn(pg_url, now=Clock()) as cairn:
        cairn.remember("Already here", kind="fact")
    before = _export(pg_url)
    code, out, err = _cli("migrate", str(src), pg_url)
    assert code == 1 and out == ""
    assert "already holds records" in err and len(err.strip().splitlines()) == 1
    assert _export(pg_url) == before


def test_a_missing_source_is_refused(tmp_path, pg_url):
    code, _, err = _cli("migrate", str(tmp_path / "nowhere.db"), pg_url)
    assert code == 1 and "nowhere.db" in err
    assert not (tmp_path / "nowhere.db").exists()
