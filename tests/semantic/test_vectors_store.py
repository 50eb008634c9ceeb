"""Vectors in the store: written in the record's transaction, keyed on the content hash,
never embedded twice, gone with the last record that held their text, back-filled in
resumable chunks."""

from __future__ import annotations

import pytest

from cairn.embed import vectors
from cairn.errors import CairnError

from .conftest import hash_of, needs_extra, vector_rows

pytestmark = needs_extra


def test_a_remembered_text_gets_its_vector_in_the_same_write(cairn, db_path, counting):
    memory = cairn.remember("Our team lunch is every Friday at the ramen place", kind="fact").memory
    assert vector_rows(db_path) == [("default", hash_of(db_path, memory.id), 0)]
    assert counting.texts == ["Our team lunch is every Friday at the ramen place"]


def test_an_unchanged_text_is_never_embedded_again(cairn, db_path, counting):
    cairn.remember("Deployments go out on Tuesdays", kind="fact", origin="a")
    cairn.remember("Deployments go out on Tuesdays", kind="fact", origin="b")  # same text, another record
    assert len(counting.texts) == 1
    assert len(vector_rows(db_path)) == 1
    cairn.remember("Deployments go out on Thursdays", kind="fact")  # negative control: new text, new vector
    assert len(counting.texts) == 2 and len(vector_rows(db_path)) == 2


def test_a_failed_write_leaves_no_vector(cairn, db_path, counting):
    import dataclasses

    memory = cairn.remember("I prefer dark mode", kind="preference").memory
    before = vector_rows(db_path)
    with pytest.raises(RuntimeError):
        with cairn.store.write() as tx:
            tx.put_memory(dataclasses.replace(memory, content="I prefer light mode"))
            raise RuntimeError("rolled back")
    assert vector_rows(db_path) == before and len(before) == 1
    with cairn.store.write() as tx:  # negative control: the same write, committed
        tx.put_memory(dataclasses.replace(memory, content="I prefer light mode"))
    assert vector_rows(db_path) != before and len(vector_rows(db_path)) == 1  # the old text's vector went with it


def test_forget_and_purge_remove_the_vector(cairn, db_path, counting):
    kept = cairn.remember("I drive a blue Volvo estate", kind="fact").memory
    forgotten = cairn.remember("I am allergic to peanuts", kind="fact").memory
    purged = cairn.remember("The office wifi password is hunter2", kind="fact").memory
    digests = {m.id: hash_of(db_path, m.id) for m in (kept, forgotten, purged)}
    assert len(vector_rows(db_path)) == 3
    cairn.forget(forgotten.id)
    cairn.forget(purged.id, purge=True)
    left = {h for _, h, _ in vector_rows(db_path)}
    assert left == {digests[kept.id]}  # the kept record's vector stays (negative control)
    assert digests[purged.id] not in left and digests[forgotten.id] not in left


def test_a_shared_text_keeps_its_vector_until_its_last_record_goes(cairn, db_path, counting):
    a = cairn.remember("Backups run nightly", kind="fact", origin="a").memory
    b = cairn.remember("Backups run nightly", kind="fact", origin="b").memory
    cairn.forget(a.id)
    assert len(vector_rows(db_path)) == 1  # b still holds the text
    cairn.forget(b.id, purge=True)
    assert vector_rows(db_path) == []


def test_a_correction_embeds_the_new_text_and_keeps_the_old_while_held(cairn, db_path, counting):
    old = cairn.remember("The API rate limit is 100 requests per minute", kind="fact").memory
    cairn.correct(old.id, "The API rate limit is 200 requests per minute")
    texts = set(counting.texts)
    assert "The API rate limit is 200 requests per minute" in texts
    held = {h for _, h, _ in vector_rows(db_path)}
    assert hash_of(db_path, old.id) in held or cairn.get(old.id).status.value == "forgotten"


def test_spaces_keep_their_own_vectors(db_path, clock, counting):
    from cairn import Cairn

    with Cairn(db_path, now=clock, space="work") as work, Cairn(db_path, now=clock, space="home") as home:
        work.remember("Our team lunch is every Friday at the ramen place", kind="fact")
        home.remember("Our team lunch is every Friday at the ramen place", kind="fact")
        found = home.recall("when do we eat together as a group", lane="semantic", trace=False)
        assert [r.memory.space for r in found.results] == ["home"]
    assert sorted(s for s, _, _ in vector_rows(db_path)) == ["home", "work"]


def test_backfill_is_resumable_and_embeds_each_text_once(cairn, db_path, monkeypatch):
    monkeypatch.setenv(vectors.SWITCH, "off")
    texts = [f"Note {i}: the {w} service restarts at midnight" for i, w in enumerate("abcdefghij")]
    for t in texts:
        cairn.remember(t, kind="fact")
    assert vector_rows(db_path) == []  # switched off: the writes were what they were without the extra
    monkeypatch.delenv(vectors.SWITCH)
    first = cairn.embed(limit=4, progress=False)
    assert (first.embedded, first.remaining, first.missing_before) == (4, 6, 4)
    seen: list[tuple[int, int]] = []
    rest = cairn.embed(progress=lambda done, total: seen.append((done, total)))
    assert (rest.embedded, rest.missing_before) == (6, 6) and seen[-1] == (6, 6)
    again = cairn.embed(progress=False)
    assert (again.embedded, again.missing_before) == (0, 0)  # nothing left: nothing embedded twice
    assert len(vector_rows(db_path)) == 10


def test_an_interrupted_backfill_keeps_its_finished_chunks(cairn, db_path, monkeypatch, counting):
    monkeypatch.setenv(vectors.SWITCH, "off")
    for i in range(7):
        cairn.remember(f"Fact number {i} about the {i}th rack", kind="fact")
    monkeypatch.delenv(vectors.SWITCH)
    calls = {"n": 0}
    inner = counting.embed_array

    def failing(texts):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return inner(texts)

    monkeypatch.setattr(counting, "embed_array", failing)
    with pytest.raises(KeyboardInterrupt):
        vectors.backfill(cairn.store, "default", counting, chunk=3)
    assert len(vector_rows(db_path)) == 3  # the first chunk committed, the second rolled back
    monkeypatch.setattr(counting, "embed_array", inner)
    done = vectors.backfill(cairn.store, "default", counting, chunk=3)
    assert done.embedded == 4 and len(vector_rows(db_path)) == 7


def test_a_bulk_write_is_left_to_the_backfill(cairn, db_path, counting):
    turns = "\n".join(
        f'{{"id": "t{i}", "speaker": "Ana", "text": "Turn {i} of a long talk about trains", "time": "2026-10-01T10:00:00Z"}}'
        for i in range(vectors.IN_TRANSACTION_MAX + 1)
    )
    cairn.ingest(turns.splitlines(), format="jsonl", origin="talk", progress=False)
    assert vector_rows(db_path) == []  # too many texts to embed under the write lock
    done = cairn.embed(progress=False)
    assert done.embedded == done.missing_before == vectors.IN_TRANSACTION_MAX + 1
    assert {e for _, _, e in vector_rows(db_path)} == {1}  # stored as episodes


def test_embed_without_the_extra_says_how_to_install_it(cairn, semantic_off):
    with pytest.raises(CairnError, match=r"pip install 'cairn-memory\[semantic\]'"):
        cairn.embed(progress=False)


def test_vectors_round_trip_as_int8_within_a_hundredth(counting):
    import numpy as np

    array = counting.inner.embed_array(["one short sentence", "another, rather different one"])
    back = vectors.decode(vectors.encode(array), counting.dimension)
    assert np.abs((back * array).sum(axis=1) - 1).max() < 0.01
    assert np.abs(back @ back.T - array @ array.T).max() < 0.01


class _View:
    """A store view holding one group of vectors, counting how often its rows are read."""

    path = "memory"

    def __init__(self, rows: list[tuple[str, bytes]]) -> None:
        self.rows, self.reads, self.changes = rows, 0, 1

    def vector_signature(self, space, embedder, episodes):
        return (b"token", self.changes)

    def vector_rows(self, space, embedder, episodes):
        self.reads += 1
        return list(self.rows)


def test_the_search_is_exact_and_read_once_per_change(counting):
    """The single-threaded product finds the same nearest texts, with the same cosines, as a
    brute-force ranking of the decoded vectors; the rows are read again only when the group's
    signature changes."""
    import numpy as np

    gen = np.random.default_rng(5)
    array = gen.standard_normal((3000, counting.dimension)).astype(np.float32)
    array /= np.linalg.norm(array, axis=1, keepdims=True)
    view = _View([(f"h{i}", blob) for i, blob in enumerate(vectors.encode(array))])
    query = array[17] + 0.02 * gen.standard_normal(counting.dimension).astype(np.float32)
    query /= np.linalg.norm(query)
    vectors.VectorIndex._cache.clear()
    index = vectors.VectorIndex.load(view, "default", counting, False)
    brute = vectors.decode([b for _, b in view.rows], counting.dimension) @ query
    expected = [f"h{i}" for i in np.argsort(-brute, kind="stable")[:24]]
    found = index.search(query, 24)
    assert [h for h, _ in found] == expected and found[0][0] == "h17"
    assert all(abs(score - brute[int(h[1:])]) < 1e-5 for h, score in found)
    assert index.similarity(query, "h17") == pytest.approx(found[0][1], abs=1e-5)
    assert vectors.VectorIndex.load(view, "default", counting, False) is index and view.reads == 1
    view.changes += 1
    assert vectors.VectorIndex.load(view, "default", counting, False) is not index and view.reads == 2
    vectors.VectorIndex._cache.clear()


def test_a_group_is_read_in_insertion_order_and_alone(cairn):
    """The rows of one (space, embedder, kind group) come in the order they were stored (the
    search ranks equal cosines in that order), and no row of another group comes with them."""
    rows = [("default", "minilm", "c3", False), ("default", "minilm", "e1", True), ("work", "minilm", "c0", False),
            ("default", "minilm", "c1", False), ("default", "other", "c0", False), ("default", "minilm", "c2", False)]
    for space, embedder, digest, episode in rows:
        with cairn.store.write() as tx:
            tx.put_vectors(space, embedder, [(digest, episode, digest.encode())])
    assert cairn.store.vector_rows("default", "minilm", False) == [("c3", b"c3"), ("c1", b"c1"), ("c2", b"c2")]
    assert cairn.store.vector_rows("default", "minilm", True) == [("e1", b"e1")]
    assert cairn.store.vector_rows("work", "minilm", False) == [("c0", b"c0")]
