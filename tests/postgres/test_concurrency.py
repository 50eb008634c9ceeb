"""Writers in separate processes on one PostgreSQL database: nothing lost, nothing
doubled, the event log gap-free, readers recalling throughout (the drill is in
tests/testkit/pgdrill.py; scripts/postgres_bench.py runs it at 16 x 500)."""

from __future__ import annotations

import psycopg
import pytest

from testkit import pgdrill as drill


@pytest.mark.slow
def test_sixteen_writers_lose_nothing_and_leave_no_gap(pg_url):
    audit = drill.run(pg_url, writers=16, per_writer=10, readers=2)
    assert audit.memories == audit.expected == 160
    assert audit.missing == 0
    assert audit.events == 160 and audit.gap_free
    assert audit.recalls > 0 and audit.reader_errors == 0, audit.first_error
    assert audit.ok()


def test_the_audit_sees_a_gap_and_a_loss(pg_url):
    """Negative control: a store with a missing event and a missing note fails the audit."""
    audit = drill.run(pg_url, writers=2, per_writer=3, readers=1)
    assert audit.ok()
    with psycopg.connect(pg_url) as conn:
        conn.execute("DELETE FROM events WHERE seq = 2")
        conn.execute("DELETE FROM memory_index")
        conn.execute("DELETE FROM memories WHERE key = (SELECT min(key) FROM memories)")
    again = drill.run(pg_url, writers=0, per_writer=3, readers=1)
    assert not again.gap_free
    assert again.memories == 5
