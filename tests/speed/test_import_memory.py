"""An import's memory does not grow with the file: lines are read and written a chunk at a
time (tests/foundation/test_transfer.py checks that chunks store what one chunk stores and
that a bad line later rolls every chunk back), and a write transaction keeps the texts it
wrote only for a hook that reads them before COMMIT, and no more than that hook reads."""

from __future__ import annotations

from cairn.model import memory_to_dict
from cairn.store import dumps
from cairn.store.sqlite.backend import Store
from testkit import NOW

from .test_bulk_fast_paths import _records


def _written(tmp_path, name: str, hook: bool, cap: int | None) -> tuple[int, list[int]]:
    """(texts the transaction held at COMMIT, what the hook saw) for one bulk write."""
    store = Store.open(tmp_path / f"{name}.db", now=NOW)
    seen: list[int] = []
    if hook:
        store.before_commit = lambda tx: seen.append(len(tx.written))
    if cap is not None:
        store.written_cap = cap
    records = _records()
    with store.write() as tx:
        tx.put_docs([(memory_to_dict(m), dumps(memory_to_dict(m))) for m in records])
        held = len(tx.written)
    store.close()
    return held, seen


def test_a_transaction_keeps_no_texts_without_a_hook(tmp_path):
    held, _ = _written(tmp_path, "none", hook=False, cap=None)
    assert held == 0


def test_a_hook_sees_every_text_up_to_its_cap_and_then_that_there_were_more(tmp_path):
    everything, seen = _written(tmp_path, "all", hook=True, cap=None)
    assert everything > 3 and seen == [everything]  # control: no cap, every live record's text
    held, seen = _written(tmp_path, "capped", hook=True, cap=2)
    assert held == 3 and seen == [3]  # one more than the cap: "more than it reads"
