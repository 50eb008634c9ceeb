"""Shared fixtures: a Cairn on a temporary database with a fixed clock, and helpers to
run the CLI in-process or as a real subprocess."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from datetime import UTC, datetime
from pathlib import Path

import pytest

from cairn import Cairn
from cairn.cli import main

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


class Clock:
    """A settable clock for the engine (``cairn.now()`` reads it)."""

    def __init__(self, at: datetime = NOW) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "store" / "cairn.db"


@pytest.fixture
def cairn(db_path: Path, clock: Clock):
    with Cairn(db_path, now=clock) as engine:
        yield engine


@pytest.fixture(params=["sqlite", "memory"])
def backend(request, tmp_path: Path):
    """An open, empty store of each backend (the SQLite file, the in-memory fake of
    tests/support/memstore.py); a second real store joins the params."""
    if request.param == "sqlite":
        from cairn.store import Store

        store = Store.open(tmp_path / "backend" / "cairn.db")
    else:
        from support.memstore import MemStore

        store = MemStore()
    yield store
    store.close()


class CliResult:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def json(self):
        import json

        return json.loads(self.out)


@pytest.fixture
def cli(db_path: Path):
    """Run ``cairn --db <tmp> ARGS`` in-process; returns exit code, stdout, stderr."""

    def run(*args: str, stdin: str | None = None) -> CliResult:
        out, err = io.StringIO(), io.StringIO()
        old_stdin = sys.stdin
        if stdin is not None:
            sys.stdin = io.StringIO(stdin)
        try:
            with redirect_stdout(out), redirect_stderr(err):
                try:
                    code = main(["--db", str(db_path), *args])
                except SystemExit as exit_:
                    code = int(exit_.code or 0)
        finally:
            sys.stdin = old_stdin
        return CliResult(code, out.getvalue(), err.getvalue())

    return run


def run_cli_process(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the CLI as a separate OS process."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "cairn", *args], capture_output=True, text=True, env=full_env, timeout=timeout
    )


def db_fingerprint(path: Path) -> str:
    """A digest of every row of every table: equal before and after means nothing was written."""
    import sqlite3

    if not path.exists():
        return "absent"
    conn = sqlite3.connect(path)
    try:
        digest = hashlib.sha256()
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        for table in tables:
            if table.startswith("memories_fts_"):
                continue  # FTS shadow tables are covered through memories_fts itself
            for row in conn.execute(f"SELECT * FROM {table} ORDER BY 1"):
                digest.update(repr((table, row)).encode())
        return digest.hexdigest()
    finally:
        conn.close()
