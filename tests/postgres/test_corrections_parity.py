"""The correction set (tests/relations/corrections: corrections, supersessions,
contradictions, forgetting, valid time, record time) gives the same results on
PostgreSQL as on SQLite: the same records, in the same order, with the same markers."""

from __future__ import annotations

import pytest

from cairn.bench import corrections


@pytest.fixture(scope="module")
def both(tmp_path_factory, pg_server):
    cases = corrections.load_cases()
    lite = corrections.run(cases)
    real = corrections.Cairn

    def on_postgres(path, **options):
        return real(pg_server.new_database(), **options)

    patch = pytest.MonkeyPatch()
    patch.setattr(corrections, "Cairn", on_postgres)
    try:
        pg = corrections.run(cases)
    finally:
        patch.undo()
    return lite, pg


def test_every_correction_case_answers_alike(both):
    lite, pg = both
    assert len(pg) == len(lite) >= 40
    def seen(results):
        return [(r.id, r.got, r.stale_returned, r.answered) for r in results]

    assert seen(pg) == seen(lite)
    assert corrections.summarise(pg) == corrections.summarise(lite)


def test_the_cases_are_not_trivially_equal(both):
    """Control: the cases return different things from one another, and most answer."""
    lite, _ = both
    assert len({repr(r.got) for r in lite}) > 10
    assert corrections.summarise(lite)["answered"][0] >= len(lite) // 2
