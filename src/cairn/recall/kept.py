"""Values recall derives from the store and reuses while the store's data is unchanged.

A recall asks the store for the same derived facts as the recall before it: the space's
record count, a term's document frequency, the indexed spellings that extend a word, a
term's newest postings, how many records hold a phrase, a record's relations. Each is a
pure function of the stored data, so it is kept in the read view's
:meth:`~cairn.store.ReadView.state_memo` — a dict the store empties whenever a commit
(of this connection or another) may have changed what it derives from — and read from
there by the next recall. A view that keeps nothing (``state_memo`` missing or None: a
write transaction, a backend that cannot tell) gets a fresh table each time, so the
caller reads exactly as it would without this module.

Every table is bounded (by entries, or by the weight its values declare), so memory stays
flat whatever the store's size: a full table is dropped and filled again.
"""

from __future__ import annotations

from collections.abc import Hashable

from ..store import ReadView

TABLES = 256  # kept tables of one store state, all spaces together


# A space's questions as the claims lane widened them (cairn.recall.variants), kept for the
# recall's later looks at excluded records.
EXPANDED_KEPT = 64


def table(view: ReadView, name: Hashable, bound: int) -> dict:
    """The kept table ``name`` of ``view``'s current data (empty when it was full, or when
    the view keeps nothing: then the table is the caller's alone)."""
    memo = view.state_memo() if hasattr(view, "state_memo") else None
    if memo is None:
        return {}
    found = memo.get(name)
    if found is None or len(found) >= bound:
        _room(memo)
        found = memo[name] = {}
    return found


def _room(memo: dict) -> None:
    """Tables are per space: a process reading many spaces drops them all at
    :data:`TABLES` rather than keep one set per space it ever read."""
    if len(memo) >= TABLES:
        memo.clear()


def weighed(view: ReadView, name: Hashable, budget: int) -> tuple[dict, list[int]]:
    """A kept table whose entries weigh more than one (a posting list weighs its length),
    and its running weight in a one-item list: the caller adds an entry's weight as it
    keeps it, and the table is dropped once the weights reach ``budget``."""
    memo = view.state_memo() if hasattr(view, "state_memo") else None
    if memo is None:
        return {}, [0]
    found = memo.get(name)
    if found is None or found[1][0] >= budget:
        _room(memo)
        found = memo[name] = ({}, [0])
    return found
