"""What the PostgreSQL store skips or keeps between reads, and when it must not.

* ``state_memo()`` keeps recall's derived values (postings, frequencies, prefix
  expansions) from one snapshot to the next while no transaction has written since; a
  write on this connection or on another one starts it afresh, and a recall after the
  write sees the new record.
* In a space that holds no conversation turn, the episode lane's full-text queries are
  not sent (one probe of the turn index answers), as on SQLite; in a space with turns,
  beside it in the same database, they still are.
"""

from __future__ import annotations

import psycopg

from cairn import Cairn
from testkit import Clock

from .test_parity import CONVERSATION


def test_the_memo_lives_while_nothing_is_written(pg_url):
    with Cairn(pg_url, now=Clock()) as cairn:
        cairn.remember("The deploy window opens at noon for the billing service", kind="fact")
        store = cairn.store
        assert store.state_memo() is None  # outside a snapshot: each statement its own
        with store.snapshot() as view:
            memo = view.state_memo()
            assert memo is not None
            memo["mark"] = 1
        with store.snapshot() as view:
            assert view.state_memo() is memo and memo["mark"] == 1
        with store.write() as tx:
            assert tx.state_memo() is None  # the data is changing
        with store.snapshot() as view:  # a write transaction that wrote nothing changed nothing
            assert view.state_memo() is memo
        cairn.remember("A second note about the billing service", kind="fact")
        with store.snapshot() as view:
            kept = view.state_memo()
            assert kept is not None and "mark" not in kept


def test_a_write_elsewhere_empties_the_memo_and_recall_sees_it(pg_url):
    with Cairn(pg_url, now=Clock()) as cairn:
        cairn.remember("The deploy window opens at noon for the billing service", kind="fact")
        first = [r.memory.content for r in cairn.recall("deploy window", limit=5, trace=False).results]
        again = [r.memory.content for r in cairn.recall("deploy window", limit=5, trace=False).results]
        assert first == again and len(first) == 1
        with cairn.store.snapshot() as view:
            memo = view.state_memo()
            assert memo  # the recalls kept what they derived
        with Cairn(pg_url, now=Clock()) as other:  # another connection writes
            other.remember("The deploy window moved to the evening for billing", kind="fact")
        with cairn.store.snapshot() as view:
            assert view.state_memo() is not memo
        after = [r.memory.content for r in cairn.recall("deploy window", limit=5, trace=False).results]
        assert len(after) == 2 and "The deploy window moved to the evening for billing" in after
        cairn.remember("A deploy window checklist lives in the wiki", kind="fact")  # this connection writes
        last = [r.memory.content for r in cairn.recall("deploy window", limit=5, trace=False).results]
        assert len(last) == 3


def _sent(monkeypatch) -> list[str]:
    """The SQL of every statement sent through a psycopg cursor from now on."""
    sent: list[str] = []
    real = psycopg.Cursor.execute

    def recorded(cur, query, *args, **kwargs):
        sent.append(str(query))
        return real(cur, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", recorded)
    return sent


def test_a_space_without_turns_skips_the_episode_queries(pg_url, monkeypatch):
    words = [("biscuit", False), ("beagl", True)]
    with Cairn(pg_url, space="talk", now=Clock()) as talk:
        talk.ingest(CONVERSATION, format="locomo", progress=False)
    with Cairn(pg_url, space="notes", now=Clock()) as notes:
        notes.remember("Biscuit the beagle chewed the notes", kind="fact")
        store = notes.store
        sent = _sent(monkeypatch)
        with store.snapshot() as view:
            assert view.episode_matches("notes", words, 5) == []
            assert view.names_speaker("notes", "biscuit") is False
            assert view.speaker_turns("notes", "biscuit", 5) == []
            assert view.episode_turns("notes", view.term_postings("biscuit", 50), 5) == []
            skipped = [s for s in sent if "memory_index" in s or "JOIN" in s]
            probes = [s for s in sent if "turn IS NOT NULL" in s]
            found = view.episode_matches("talk", words, 5)  # negative control: the space with turns
            asked = [s for s in sent if "memory_index" in s]
    assert skipped == [] and len(probes) == 1  # one probe, kept for the snapshot
    assert found and all(t.id for t in found)
    assert asked  # the turns' space still runs the full-text query


def test_index_reads_kept_between_snapshots_follow_a_write(pg_url):
    """The episode lane's content postings and prefix expansions are kept from one
    snapshot to the next; a write from another connection is seen at once."""
    with Cairn(pg_url, now=Clock()) as cairn:
        cairn.remember("The relay rotates the signing key", kind="fact")
        store = cairn.store
        with store.snapshot() as view:
            first = (view.content_postings("relay", 10), view.terms_with_prefix("rel", 10))
            first[0].append(-1)  # a caller changing what it got changes nothing kept
        with store.snapshot() as view:
            assert (view.content_postings("relay", 10), view.terms_with_prefix("rel", 10)) == ([1], ["relay"])
        with Cairn(pg_url, now=Clock()) as other:
            other.remember("A relay release ships on Friday", kind="fact")
        with store.snapshot() as view:
            assert view.content_postings("relay", 10) == [2, 1]
            assert view.terms_with_prefix("rel", 10) == ["relay", "releas"]


def test_the_kept_index_reads_are_bounded(pg_url, monkeypatch):
    from cairn.store.postgres import backend

    monkeypatch.setattr(backend, "KEPT_READS_WEIGHT", 4)
    with Cairn(pg_url, now=Clock()) as cairn:
        cairn.remember("The relay rotates the signing key", kind="fact")
        with cairn.store.snapshot() as view:
            memo = view.state_memo()
            assert memo is not None
            view.content_postings("relay", 10)  # weighs 2
            view.content_postings("rotat", 10)  # 4: full
            assert len(memo[backend.KEPT_READS][0]) == 2
            assert view.content_postings("sign", 10) == [1]  # the full table was dropped first
            assert list(memo[backend.KEPT_READS][0]) == [("content postings", "sign", 10)]
