"""Retired records leave the candidate pool: the store's candidate queries skip them on
their status (claims and episodes), so they take no place a live record could have;
``search`` and ``--include-retired`` still find them, and silence still says that a
retired record matched."""

from __future__ import annotations

from datetime import timedelta

from cairn import Cairn
from cairn.recall.gates import Reason
from cairn.text import terms

POLICY = """
[[policy]]
name = "old project state"
kind = "project_state"
older_than_days = 30
"""


def _crowded(cairn: Cairn, clock) -> tuple[list[str], list[str]]:
    """12 live facts, then 48 newer project states that a policy retires: every one of
    them matches "billing port" as well as the facts do, and the index lists them first."""
    facts = [cairn.remember(f"The billing port of service {i} is {5000 + i}", kind="fact").memory.id for i in range(12)]
    clock.at += timedelta(days=1)
    states = [cairn.remember(f"The billing port of service {i} is being moved", kind="project_state").memory.id
              for i in range(48)]
    clock.at += timedelta(days=40)
    applied = cairn.apply_retention(dict(cairn.retention_plan(POLICY)))
    assert applied.applied == 48
    return facts, states


def test_retired_records_take_no_place_in_the_pool_on_each_backend(backend, clock):
    with Cairn(store=backend, now=clock) as cairn:
        facts, states = _crowded(cairn, clock)
        recalled = cairn.recall("billing port", limit=5, include_dormant=True, trace=False)
        pool = {c.id for c in recalled.outcome.candidates}
        assert pool == set(facts)  # no retired record in the pool, every live one in it
        assert recalled.ids and set(recalled.ids) <= set(facts)
        # Asked for, they come back: the pool is the old one, retired records first.
        wide = cairn.recall("billing port", limit=5, include_dormant=True, include_retired=True, trace=False)
        assert {c.id for c in wide.outcome.candidates} & set(states)
        assert set(cairn.search("billing port", trace=False).ids) & set(states)


def test_the_store_skips_retired_rows_only_when_asked(backend, clock):
    with Cairn(store=backend, now=clock) as cairn:
        facts, states = _crowded(cairn, clock)
        keys = backend.term_postings(terms("billing")[0], 100)
        assert len(keys) == 60
        live = backend.load_ranked(cairn.space, keys, claims_only=True, limit=100, skip_retired=True)
        every = backend.load_ranked(cairn.space, keys, claims_only=True, limit=100)
        assert {m.id for m in live} == set(facts)
        assert {m.id for m in every} == set(facts) | set(states)  # control: the default keeps them


def test_retired_episodes_leave_the_episode_lane_and_come_back_under_search(cairn, clock):
    at = clock.at.isoformat()
    cairn.ingest([{"id": "t1", "speaker": "Ana", "text": "The ferry to the island leaves at seven", "time": at},
                  {"id": "t2", "speaker": "Ben", "text": "Noted, seven it is", "time": at},
                  {"id": "t3", "speaker": "Ana", "text": "The ferry ticket costs twelve euros", "time": at}],
                 origin="trip")
    clock.at += timedelta(days=400)
    plan = cairn.retention_plan('[[policy]]\nname = "old turns"\nkind = "episode"\nolder_than_days = 365\n')
    episodes = {m["id"] for m in plan["matches"]}
    assert len(episodes) == 3
    before = cairn.recall("ferry island", lane="episodes", trace=False)
    assert set(before.ids) & episodes
    by_speaker = cairn.recall("what did Ana say", lane="episodes", trace=False)  # the speaker's turns fill the list
    assert {c.id for c in by_speaker.outcome.candidates} & episodes
    cairn.apply_retention(plan)
    after = cairn.recall("ferry island", lane="episodes", trace=False)
    assert after.ids == [] and not {c.id for c in after.outcome.candidates} & episodes
    by_speaker = cairn.recall("what did Ana say", lane="episodes", trace=False)
    assert not {c.id for c in by_speaker.outcome.candidates} & episodes
    assert set(cairn.search("ferry island", lane="episodes", trace=False).ids) & episodes
    assert set(cairn.recall("ferry island", lane="episodes", include_retired=True, trace=False).ids) & episodes


def test_silence_still_says_a_retired_record_matched(cairn, clock):
    cairn.remember("The VPN gateway is vpn.example.org", kind="project_state")
    clock.at += timedelta(days=40)
    cairn.apply_retention(cairn.retention_plan(POLICY))
    outcome = cairn.recall("which VPN gateway", trace=False)
    assert outcome.ids == []  # not a result ...
    assert "1 matching memory is retired" in (outcome.note or "")  # ... yet silence says so
    # and the trace lists it, excluded, with its reason (asked again only once nothing was found)
    assert [c.reason for c in outcome.outcome.candidates] == [Reason.RETIRED]
    assert cairn.recall("which printer", trace=False).note == "nothing matched the query"  # control


def test_a_lifecycle_write_keeps_the_index_and_a_changed_text_gets_the_full_write(cairn, clock):
    from dataclasses import replace

    from cairn.model import Status

    rec = cairn.remember("The zeppelin hangar opens at dawn", kind="project_state").memory
    word, other = terms("zeppelin")[0], terms("airship")[0]
    df = cairn.store.space_document_frequencies(cairn.space, [word])
    with cairn.store.write() as tx:
        tx.put_lifecycle(replace(rec, status=Status.RETIRED, revision=rec.revision + 1))
    assert cairn.store.get_memory(cairn.space, rec.id).status is Status.RETIRED
    assert cairn.store.space_document_frequencies(cairn.space, [word]) == df  # the index is as it was
    assert len(cairn.store.term_postings(word, 10)) == 1
    with cairn.store.write() as tx:  # a changed text is never left stale in the index
        tx.put_lifecycle(replace(rec, content="The airship hangar opens at dawn", revision=rec.revision + 2))
    assert cairn.store.term_postings(word, 10) == [] and len(cairn.store.term_postings(other, 10)) == 1
