"""Near-duplicates are one claim within an origin (case, whitespace, trailing punctuation),
and a claim that seems to replace a current one says so, suggesting a relation."""

from __future__ import annotations

import pytest

from cairn import Cairn, InvalidInput
from cairn.store import MIGRATIONS
from testkit.batches import day

FIXTURES = "Prefer pytest fixtures over unittest setUp methods"


@pytest.mark.parametrize(
    "variant",
    [FIXTURES, "prefer pytest fixtures over unittest setUp methods.", f"  {FIXTURES.upper()}!  ",
     FIXTURES.replace(" ", "   "), FIXTURES + " …", FIXTURES + "。"],
)
def test_a_near_duplicate_in_the_same_origin_is_the_standing_record(cairn, variant):
    first = cairn.remember(FIXTURES, kind="preference", origin="repo-a")
    again = cairn.remember(variant, kind="preference", origin="repo-a")
    assert again.deduplicated and again.id == first.id and again.event is None


@pytest.mark.parametrize(
    ("variant", "origin"),
    [
        (FIXTURES, "repo-b"),  # another origin: equal words can mean another thing
        ("Prefer pytest fixtures over unittest setUp methods (except in legacy code)", "repo-a"),
        ("Prefer pytest fixtures over unittest setUp method", "repo-a"),  # a word differs, not punctuation
        ("Prefer pytest fixtures over unittest setUp methods in tests", "repo-a"),
    ],
)
def test_what_differs_in_words_or_origin_is_stored(cairn, variant, origin):
    first = cairn.remember(FIXTURES, kind="preference", origin="repo-a")
    other = cairn.remember(variant, kind="preference", origin=origin)
    assert not other.deduplicated and other.id != first.id


def test_the_migration_rehashes_records_stored_before(tmp_path):
    """A record stored under the old key (punctuation kept) is found by the new one."""
    import sqlite3

    from cairn.store.migrations import _normalised_dedup_key

    db = tmp_path / "old.db"
    with Cairn(db) as cairn:
        first = cairn.remember(FIXTURES + ".", kind="preference")
    conn = sqlite3.connect(db)
    conn.execute("UPDATE memories SET content_hash = 'old-key'")
    conn.commit()
    with Cairn(db) as cairn:
        assert not cairn.remember(FIXTURES, kind="preference").deduplicated  # the stale key is not found
        cairn.forget(cairn.list().memories[-1].id)
    _normalised_dedup_key(conn)
    conn.commit()
    conn.close()
    with Cairn(db) as cairn:
        assert cairn.remember(FIXTURES, kind="preference").id == first.id
    assert "0008_normalised_dedup_key" in [name for name, _ in MIGRATIONS]


# -- the "similar" hint ------------------------------------------------------------------------


def test_a_claim_sharing_subject_and_attribute_names_the_current_record(cairn):
    old = cairn.remember("Use PostgreSQL 17 for billing", kind="decision")
    new = cairn.remember("We now use PostgreSQL 18 for billing", kind="decision")
    assert [m.id for m in new.similar] == [old.id]
    assert new.to_dict()["similar"] == [{"id": old.id, "content": "Use PostgreSQL 17 for billing"}]
    assert cairn.get(old.id).content == "Use PostgreSQL 17 for billing"  # a hint: nothing changed


@pytest.mark.parametrize(
    ("older", "kind", "origin", "status"),
    [
        ("Use PostgreSQL 17 for the reporting service", "decision", "", None),  # another attribute
        ("Use PostgreSQL 17 for billing", "fact", "", None),  # another kind
        ("Use PostgreSQL 17 for billing", "decision", "elsewhere", None),  # another origin
        ("Use PostgreSQL 17 for billing", "decision", "", "forget"),  # not current
    ],
)
def test_no_hint_without_the_same_subject_attribute_kind_origin_and_a_current_record(cairn, older, kind, origin, status):
    old = cairn.remember(older, kind=kind, origin=origin)
    if status == "forget":
        cairn.forget(old.id)
    new = cairn.remember("We now use PostgreSQL 18 for billing", kind="decision")
    assert new.similar == () and "similar" not in new.to_dict()


def test_no_hint_when_the_relation_is_declared(cairn):
    old = cairn.remember("Use PostgreSQL 17 for billing", kind="decision")
    new = cairn.remember("We now use PostgreSQL 18 for billing", kind="decision", relates=[("supersedes", old.id)])
    assert new.similar == ()


def test_the_cli_suggests_the_relation(cli):
    cli("remember", "Use PostgreSQL 17 for billing", "--kind", "decision")
    out = cli("remember", "We now use PostgreSQL 18 for billing", "--kind", "decision").out
    assert "similar to current decision" in out and "supersedes" in out and "corrects" in out
    doc = cli("--json", "remember", "Deploys go out on Tuesdays", "--kind", "fact").json()
    assert "similar" not in doc


# -- --replaces-similar: the hint acted on, under the write policy ------------------------------------

OLD_DB = "Use PostgreSQL 17 for billing"
NEW_DB = "We now use PostgreSQL 18 for billing"


def test_replaces_similar_supersedes_what_the_policy_allows(cairn, clock):
    old = cairn.remember(OLD_DB, kind="decision").memory
    clock.at = day(1)
    new = cairn.remember(NEW_DB, kind="decision", replaces_similar=True)
    assert new.replaced == (old.id,) and new.withheld == () and new.memory.status.value == "provisional"
    assert [(r.from_id, r.role.value, r.to_id) for r in cairn.show(old.id).relations] == [(new.id, "supersedes", old.id)]
    hit = cairn.recall("PostgreSQL billing", trace=False).results[0]
    assert hit.id == new.id and hit.corrects == (old.id,)
    assert new.to_dict()["replaced"] == [old.id]


@pytest.mark.parametrize(
    ("setup", "incoming", "reason"),
    [
        ("pin", {}, "pinned"),
        (None, {"at": "older"}, "older-source"),
        (None, {"basis": "summary", "method": "model"}, "weaker"),
    ],
)
def test_replaces_similar_withheld_by_the_policy_stores_the_claim_quarantined(cairn, clock, setup, incoming, reason):
    clock.at = day(2)
    old = cairn.remember(OLD_DB, kind="decision", pin=setup == "pin").memory
    clock.at = day(3)
    if incoming.get("at") == "older":
        incoming = {"at": day(1)}
    new = cairn.remember(NEW_DB, kind="decision", replaces_similar=True, **incoming)
    assert new.replaced == () and new.withheld == ((old.id, reason),)
    assert new.memory.status.value == "conflicted" and cairn.show(old.id).relations == []
    assert cairn.recall("PostgreSQL billing", trace=False).ids == [old.id]
    assert new.to_dict()["withheld"] == [{"id": old.id, "reason": reason}]


def test_replaces_similar_without_a_similar_record_just_remembers(cairn):
    new = cairn.remember(NEW_DB, kind="decision", replaces_similar=True)
    assert (new.replaced, new.withheld, new.memory.status.value) == ((), (), "provisional")


def test_replaces_similar_and_explicit_relations_do_not_mix(cairn):
    old = cairn.remember(OLD_DB, kind="decision").memory
    with pytest.raises(InvalidInput, match="not both"):
        cairn.remember(NEW_DB, kind="decision", replaces_similar=True, relates=[("corrects", old.id)])


def test_replaces_similar_cli(cli):
    old = cli("--json", "--now", "2026-11-01T00:00:00Z", "remember", OLD_DB, "--kind", "decision").json()["id"]
    r = cli("--now", "2026-11-02T00:00:00Z", "remember", NEW_DB, "--kind", "decision", "--replaces-similar")
    assert r.code == 0 and f"supersedes {old[:10]}" in r.out and "similar to" not in r.out


def test_the_look_alike_is_found_among_many_records_sharing_its_common_words(cairn, monkeypatch):
    """The search reads only the best few index matches of the claim's rarest words."""
    from cairn.engine import similar

    for n in range(150):
        cairn.remember(f"We use tool {n} for team {n} reports", kind="decision")
    old = cairn.remember(OLD_DB, kind="decision").memory
    assert [m.id for m in cairn.remember(NEW_DB, kind="decision").similar] == [old.id]
    monkeypatch.setattr(similar, "SIMILAR_COMMON", 1)  # every word now "common": no search, no hint
    assert cairn.remember("From now on we use PostgreSQL 19 for billing", kind="decision").similar == ()
    monkeypatch.setattr(similar, "SIMILAR_COMMON", 1000)
    monkeypatch.setattr(similar, "SIMILAR_POOL", 0)  # a pool of nothing finds nothing
    assert cairn.remember("From now on we use PostgreSQL 20 for billing", kind="decision").similar == ()
