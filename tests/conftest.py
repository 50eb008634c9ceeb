"""Shared fixtures: a Cairn on a temporary database with a fixed clock, and the CLI run
in-process. Helpers the tests import live in the ``testkit`` package beside this file."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from cairn import Cairn
from cairn.cli import main
from cairn.store import Backend
from testkit import CliResult, Clock


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "store" / "cairn.db"


@pytest.fixture
def cairn(db_path: Path, clock: Clock) -> Iterator[Cairn]:
    with Cairn(db_path, now=clock) as engine:
        yield engine


@pytest.fixture(scope="session")
def pg_server():
    """One throwaway PostgreSQL server for the session (tests/testkit/pgserver.py), or
    the tests that need it are skipped with the reason it could not start."""
    from testkit import pgserver

    try:
        server = pgserver.start()
    except pgserver.Unavailable as why:
        pytest.skip(f"PostgreSQL unavailable: {why}")
    yield server
    server.stop()


@pytest.fixture
def pg_url(pg_server) -> str:
    """The URL of a fresh, empty database on the session's PostgreSQL server."""
    return pg_server.new_database()


@pytest.fixture(params=["sqlite", "memory", "postgres"])
def backend(request, tmp_path: Path):
    """An open, empty store of each backend (the SQLite file, the in-memory fake of
    tests/testkit/memstore.py, a database on a throwaway PostgreSQL server)."""
    store: Backend
    if request.param == "sqlite":
        from cairn.store import Store

        store = Store.open(tmp_path / "backend" / "cairn.db")
    elif request.param == "postgres":
        from cairn.store import open_store

        if request.path.parent.name == "semantic":
            pytest.skip("the PostgreSQL store keeps no vectors yet (the optional VectorView of the seam)")

        store = open_store(request.getfixturevalue("pg_url"))
    else:
        from testkit.memstore import MemStore

        store = MemStore()
    yield store
    store.close()


@pytest.fixture
def cli(db_path: Path) -> Callable[..., CliResult]:
    """Run ``cairn --db <tmp> ARGS`` in-process; returns exit code, stdout, stderr."""
    db_path.parent.mkdir(parents=True, exist_ok=True)  # the CLI creates a database, not its folder

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
