"""The vector part of the storage seam, on every backend (the SQLite store and the
in-memory fake): written in the write, gone with the last record holding the text,
back-filled, and searched by the semantic lane."""

from __future__ import annotations

import json

from cairn import Cairn
from cairn.embed import vectors

from .conftest import needs_extra

pytestmark = needs_extra


def test_vectors_follow_their_records_on_every_backend(backend, clock, counting):
    with Cairn(store=backend, now=clock) as cairn:
        lunch = cairn.remember("Our team lunch is every Friday at the ramen place", kind="fact").memory
        cat = cairn.remember("We finally adopted a tabby named Miso", kind="fact").memory
        assert backend.count_vectors("default") == 2
        found = cairn.recall("when do we eat together as a group", lane="semantic", trace=False)
        assert found.ids == [lunch.id]
        assert cairn.recall("when do we eat together as a group", lane="hybrid", trace=False).ids == [lunch.id]
        cairn.forget(lunch.id, purge=True)
        assert backend.count_vectors("default") == 1  # the kept record's vector stays
        assert cairn.recall("when do we eat together as a group", lane="semantic", trace=False).ids == []
        assert cairn.recall("what pet do we have", lane="semantic", trace=False).ids == [cat.id]


def test_backfill_on_every_backend(backend, clock, monkeypatch, counting):
    monkeypatch.setenv(vectors.SWITCH, "off")
    with Cairn(store=backend, now=clock) as cairn:
        for i in range(5):
            cairn.remember(f"Rack {i} holds the {i}th build runner", kind="fact")
        assert backend.count_vectors("default") == 0
        monkeypatch.delenv(vectors.SWITCH)
        assert cairn.embed(limit=2, progress=False).remaining == 3
        assert cairn.embed(progress=False).embedded == 3
        assert backend.count_vectors("default") == 5 and backend.count_missing_vectors("default", "minilm") == 0


def test_episode_places_on_every_backend(backend, clock, counting):
    """Where a turn sits, for reading the turns around one found by meaning: episodes
    only, in the given space only."""
    lines = [json.dumps({"id": f"t{i}", "speaker": "Ana", "text": f"Turn number {i} of the chat", "time": "2026-10-01T10:00:00Z"})
             for i in range(3)]
    with Cairn(store=backend, now=clock) as cairn:
        cairn.ingest(lines, format="jsonl", origin="chat", progress=False)
        claim = cairn.remember("Our team lunch is every Friday at the ramen place", kind="fact").memory.id
        turns = {r.memory.evidence.source_id: r.memory.id
                 for r in cairn.search("turn number chat", lane="episodes", trace=False).results}
        ids = [turns["t0"], turns["t2"], claim, "no-such-id"]
        assert backend.episode_places("default", ids) == {turns["t0"]: ("chat", 1), turns["t2"]: ("chat", 3)}
        assert backend.episode_places("elsewhere", ids) == {}
