"""Every operation happens inside one space: no command reads or changes another's."""

from __future__ import annotations

import io

import pytest

from cairn import Cairn, NotFound


@pytest.fixture
def two_spaces(db_path, clock):
    alice = Cairn(db_path, space="alice", now=clock)
    bob = Cairn(db_path, space="bob", now=clock)
    yield alice, bob
    alice.close()
    bob.close()


def test_reads_never_cross_spaces(two_spaces):
    alice, bob = two_spaces
    a = alice.remember("Alice prefers dark mode everywhere", kind="preference")
    assert bob.list().total == 0
    assert bob.history() == []
    with pytest.raises(NotFound):
        bob.show(a.memory.id)
    assert alice.show(a.memory.id).memory.space == "alice"  # negative control


def test_writes_never_cross_spaces(two_spaces):
    alice, bob = two_spaces
    a = alice.remember("Alice prefers dark mode everywhere", kind="preference")
    for op in (bob.forget, bob.pin, bob.unpin):
        with pytest.raises(NotFound):
            op(a.memory.id)
    with pytest.raises(NotFound):
        bob.undo(a.event.id)
    assert alice.get(a.memory.id).revision == 1


def test_dedup_is_per_space_and_origin(two_spaces):
    alice, bob = two_spaces
    first = alice.remember("The build uses make", kind="fact", origin="p1")
    again = alice.remember("The  build uses MAKE", kind="fact", origin="p1")
    other_origin = alice.remember("The build uses make", kind="fact", origin="p2")
    other_space = bob.remember("The build uses make", kind="fact", origin="p1")
    assert again.deduplicated and again.memory.id == first.memory.id and again.event is None
    assert not other_origin.deduplicated and not other_space.deduplicated


def test_export_carries_only_its_space(two_spaces):
    alice, bob = two_spaces
    alice.remember("Alice prefers dark mode everywhere", kind="preference")
    bob.remember("Bob prefers light mode", kind="preference")
    out = io.StringIO()
    counts = bob.export(out)
    assert counts.records == 1 and "Alice" not in out.getvalue()
