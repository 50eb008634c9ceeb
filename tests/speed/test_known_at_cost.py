"""``known_at`` reads the events after its moment and the records they touched, never the
whole log, and rebuilds the same records as a full replay of the log."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cairn import Cairn, CairnError
from cairn.model import MalformedRecord, Memory, memory_from_dict
from cairn.store.timetravel import records_known_at

START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


def _full_replay(view, space: str, at: datetime) -> list[Memory]:
    """The reference: every event of the log, oldest first, last snapshot at or before ``at``."""
    known: dict[str, dict | None] = {}
    mentioned: set[str] = set()
    for event in view.events(space, newest_first=False):
        for change in event.changes:
            if change.table == "memory":
                mentioned.add(change.id)
                if event.at <= at:
                    known[change.id] = change.after
    out = []
    for snapshot in known.values():
        if snapshot and snapshot.get("purged_at") is None and snapshot.get("content"):
            try:
                out.append(memory_from_dict({**snapshot, "space": space}))
            except MalformedRecord:
                continue
    out += [m for m in view.iter_memories(space) if m.id not in mentioned and m.created_at <= at]
    return sorted(out, key=lambda m: (m.created_at, m.id))


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def history(tmp_path: Path):
    """A store with a mixed history: claims, corrections, forgets, purges, pins, each at
    its own time (some within one second, with and without fractions)."""
    clock = Clock()
    rng = random.Random(5)
    with Cairn(tmp_path / "c.db", now=clock) as c:
        ids: list[str] = []
        for step in range(120):
            clock.now += timedelta(seconds=rng.choice((0.25, 1, 30, 3600)))
            roll = rng.random()
            if roll < 0.55 or len(ids) < 5:
                ids.append(c.remember(f"Service {step} runs on host {rng.randrange(40)}", kind="fact", origin="ops").memory.id)
                continue
            target = rng.choice(ids)
            try:  # a refused change (a purged or already pinned record) writes nothing
                if roll < 0.75:
                    c.correct(target, f"Service moved to host {rng.randrange(40)} at step {step}")
                elif roll < 0.85:
                    c.forget(target, purge=rng.random() < 0.3)
                else:
                    c.pin(target)
            except CairnError:
                pass
        yield c, clock


def test_the_same_records_as_a_full_replay(history):
    c, clock = history
    moments = [START + (clock.now - START) * f for f in (0, 0.1, 0.33, 0.5, 0.77, 0.99, 1.0)]
    moments += [m + timedelta(microseconds=250_000) for m in moments]
    for at in moments:
        got = records_known_at(c.store, c.space, at)
        assert got == _full_replay(c.store, c.space, at), at
    assert records_known_at(c.store, c.space, clock.now)  # not vacuous


class CountingView:
    """The store, counting how many events each read returned."""

    def __init__(self, store) -> None:
        self.store = store
        self.events_read = 0

    def __getattr__(self, name):
        return getattr(self.store, name)

    def events(self, space, **kw):
        found = self.store.events(space, **kw)
        self.events_read += len(found)
        return found

    def events_after(self, space, at):
        found = self.store.events_after(space, at)
        self.events_read += len(found)
        return found


def test_cost_follows_the_events_after_the_moment(history):
    c, clock = history
    total = c.store.count_events(c.space)
    recent = CountingView(c.store)
    records_known_at(recent, c.space, clock.now - timedelta(seconds=1))
    assert recent.events_read < total / 4  # a few recent events and one probe per record
    replay = CountingView(c.store)
    _full_replay(replay, c.space, clock.now - timedelta(seconds=1))
    assert replay.events_read == total  # control: the replay reads the whole log
