"""Row-level security: a client connected as one space's role cannot read or write
another space's rows, even through raw SQL; Cairn itself works on its own space."""

from __future__ import annotations

import psycopg
import pytest

from cairn import Cairn
from cairn.errors import StoreError
from cairn.store.postgres.security import create_space_role, enable_row_level_security
from testkit import Clock


def _as(url: str, role: str) -> str:
    return url.replace("postgresql://postgres@", f"postgresql://{role}@", 1)


@pytest.fixture
def two_spaces(pg_url):
    for space, text in (("alpha", "Alpha's deploy key rotates on Mondays"), ("beta", "Beta's secret rotates on Fridays")):
        with Cairn(pg_url, space=space, now=Clock()) as cairn:
            cairn.remember(text, kind="fact")
    with psycopg.connect(pg_url, autocommit=True) as admin:
        create_space_role(admin, "alpha", "cairn_alpha")
    return pg_url


def _spaces_seen(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {r[0] for t in ("memories", "events", "memory_index", "term_df")
                for r in conn.execute(f"SELECT DISTINCT space FROM {t}")}  # noqa: S608 - table names are constants


def test_without_the_policies_the_role_reads_every_space(two_spaces):
    """Negative control: the grants alone let the role see both spaces."""
    assert _spaces_seen(_as(two_spaces, "cairn_alpha")) == {"alpha", "beta"}


def test_with_the_policies_raw_sql_sees_and_writes_only_its_space(two_spaces):
    with psycopg.connect(two_spaces, autocommit=True) as admin:
        enable_row_level_security(admin)
    alpha = _as(two_spaces, "cairn_alpha")
    assert _spaces_seen(alpha) == {"alpha"}
    with psycopg.connect(alpha) as conn:
        assert conn.execute("SELECT count(*) FROM memories WHERE space = 'beta'").fetchone() == (0,)
        assert conn.execute("UPDATE memories SET status = 'rejected' WHERE space = 'beta'").rowcount == 0
    with psycopg.connect(alpha) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("INSERT INTO traces (space, id, at, data) VALUES ('beta', 'x', 'x', '{}')")
    assert _spaces_seen(two_spaces) == {"alpha", "beta"}  # the owner still sees both, unchanged


def test_cairn_on_a_space_role_works_in_its_space_and_nowhere_else(two_spaces):
    with psycopg.connect(two_spaces, autocommit=True) as admin:
        enable_row_level_security(admin)
    alpha = _as(two_spaces, "cairn_alpha")
    with Cairn(alpha, space="alpha", now=Clock()) as cairn:
        cairn.remember("Alpha's builds run on the blue runner", kind="fact")
        assert "blue runner" in cairn.recall("builds runner").results[0].memory.content
        assert cairn.status()["memories"] == 2
    with Cairn(alpha, space="beta", now=Clock()) as cairn:
        assert cairn.recall("secret rotates Fridays", trace=False).results == []
        with pytest.raises(StoreError):
            cairn.remember("An intruder's note", kind="fact")
    with Cairn(two_spaces, space="beta") as owner:
        assert owner.status()["memories"] == 1
