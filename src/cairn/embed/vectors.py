"""Vectors between an embedder and the store: encoding, writing, exact search.

* **Encoding.** A vector is stored as int8: its unit-length float components × 127,
  rounded (384 bytes for MiniLM instead of 1 536 as float32). The cosine of two decoded
  vectors differs from the float32 one by well under 0.01, far below any threshold the
  lanes use. The store keeps the bytes opaque (:mod:`cairn.store.sqlite.vectors`).
* **Writing in the record's transaction.** :func:`attach` sets the store's
  ``before_commit`` hook: just before a write commits, the texts it put that have no
  vector of the active embedder are embedded and stored in the same transaction (an
  unchanged text is never embedded again: the vectors are keyed on the content hash).
  A bulk write of more than :data:`IN_TRANSACTION_MAX` texts is left to the back-fill.
  No embedder active (the extra is not installed, or ``CAIRN_SEMANTIC=off``): the hook
  does nothing and the write is exactly what it was without this module.
* **Back-fill.** :func:`backfill` embeds what is missing in chunks, one transaction per
  chunk, so an interrupted run keeps what it committed and the next run resumes.
* **Search.** :class:`VectorIndex` holds one space's vectors of one kind group as their
  int8 codes in this process (38 MB at 100k vectors), re-read only when the store's
  signature of that group changes, and answers a query exactly: integer sums against the
  query rounded to int8 pick the few texts that can be nearest, whose exact float32
  cosines then rank them (about 2 ms a query at 100k on one core, where one float32 pass
  over a 150 MB matrix took 11, bound by memory bandwidth). Past about a million it
  needs an approximate index (IVF or HNSW) or a store-side vector extension — see
  docs/semantic.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ..errors import CairnError
from . import Embedder, embed_missing, embedder

DEFAULT_EMBEDDER = "minilm"
SWITCH = "CAIRN_SEMANTIC"  # "off" keeps an installed extra inactive (model-free, lexical only)
BACKFILL_CHUNK = 256  # texts per back-fill transaction
# A write putting more texts than this (a bulk ingest or import) is not embedded in its
# own transaction: the model would hold the store's write lock for seconds (about 3 ms a
# text). Its texts wait for the back-fill (`cairn embed`, Cairn.embed).
IN_TRANSACTION_MAX = 64


class SemanticUnavailable(CairnError):
    """The semantic extra is not installed (or switched off), so there is no embedder."""

    def __init__(self) -> None:
        from .minilm import INSTALL_HINT

        super().__init__(f"the semantic lane needs an embedder: {INSTALL_HINT}"
                         f" (and {SWITCH} not set to 'off')")


def enabled() -> bool:
    """Whether the semantic extra is installed and not switched off (imports none of it)."""
    if os.environ.get(SWITCH, "").strip().lower() in {"off", "0", "no", "false"}:
        return False
    from .minilm import available

    return available()


def active() -> Embedder | None:
    """The embedder the store and the lanes use, or None when the extra is not active."""
    return embedder(DEFAULT_EMBEDDER) if enabled() else None


def require() -> Embedder:
    """The active embedder, or :class:`SemanticUnavailable` saying how to install it."""
    model = active()
    if model is None:
        raise SemanticUnavailable()
    return model


# -- encoding ----------------------------------------------------------------------------


def encode(vectors: Any) -> list[bytes]:
    """Unit-length float vectors (rows of an array or lists) as int8 bytes."""
    import numpy as np

    array = np.asarray(vectors, dtype=np.float32)
    return [row.tobytes() for row in np.clip(np.rint(array * 127.0), -127, 127).astype(np.int8)]


def decode(blobs: Sequence[bytes], dimension: int) -> Any:
    """int8 bytes back to a float32 matrix of shape ``(len(blobs), dimension)``."""
    import numpy as np

    if not blobs:
        return np.zeros((0, dimension), dtype=np.float32)
    raw = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(blobs), dimension)
    out = raw.astype(np.float32)
    out *= np.float32(1.0 / 127.0)  # in place: one pass over the matrix less at 100k rows
    return out


def embed_texts(model: Embedder, texts: Sequence[str]) -> Any:
    """float32 array of the texts' vectors (the embedder's fast path when it has one)."""
    import numpy as np

    fast = getattr(model, "embed_array", None)
    if fast is not None:
        return np.asarray(fast(texts), dtype=np.float32)
    found = embed_missing(model, [(str(i), t) for i, t in enumerate(texts)], ())
    return np.asarray([found[str(i)] for i in range(len(texts))], dtype=np.float32).reshape(len(texts), model.dimension)


# -- writing -----------------------------------------------------------------------------


def write_missing(tx: Any, model: Embedder, written: Sequence[tuple[str, str, bool, str]]) -> int:
    """Embed and store the (space, hash, is episode, text) rows with no vector yet; returns
    how many texts were embedded."""
    by_space: dict[str, list[tuple[str, bool, str]]] = {}
    for space, digest, episode, text in written:
        by_space.setdefault(space, []).append((digest, episode, text))
    embedded = 0
    for space, rows in by_space.items():
        have = tx.vector_keys(space, model.name, [d for d, _, _ in rows])
        wanted = {(d, e): t for d, e, t in rows if (d, e) not in have}
        if not wanted:
            continue
        texts = {d: t for (d, _), t in wanted.items()}  # one embedding per text, whatever its groups
        order = list(texts)
        vectors = dict(zip(order, encode(embed_texts(model, [texts[d] for d in order])), strict=True))
        tx.put_vectors(space, model.name, [(d, e, vectors[d]) for (d, e) in wanted])
        embedded += len(order)
    return embedded


def warm() -> None:
    """Load the active embedder's model now (a no-op when it is loaded or inactive).

    The engine calls it before it opens a write transaction: the model (hundreds of
    milliseconds to load) must not be loaded while the store's write lock is held."""
    model = active()
    prepare = getattr(model, "prepare", None)
    if prepare is not None:
        prepare()


def attach(store: Any) -> None:
    """Embed in the record's transaction from now on, when a store supports it and the
    extra is active (checked at the first write that puts a text, not here)."""
    if not hasattr(store, "before_commit"):
        return

    def before_commit(tx: Any) -> None:
        if len(tx.written) > IN_TRANSACTION_MAX:
            return  # a bulk write: the back-fill embeds it without holding the write lock
        model = active()
        if model is not None:
            write_missing(tx, model, tx.written)

    store.before_commit = before_commit
    store.written_cap = IN_TRANSACTION_MAX  # a store need not keep more texts than that for it


class Backfilled(NamedTuple):
    embedded: int  # texts embedded and stored by this run
    remaining: int  # texts still without a vector (0 unless stopped early)
    seconds: float

    def to_dict(self) -> dict:
        rate = self.embedded / self.seconds if self.seconds > 0 else 0.0
        return {"embedded": self.embedded, "remaining": self.remaining, "seconds": round(self.seconds, 3),
                "per_second": round(rate, 1)}


def backfill(store: Any, space: str, model: Embedder, *, chunk: int = BACKFILL_CHUNK, limit: int | None = None,
             progress: Callable[[int], None] | None = None) -> Backfilled:
    """Embed every live text of ``space`` that has no vector yet, ``chunk`` per transaction.

    Resumable: each chunk commits on its own, and what is missing is re-read from the
    store each time, so a run stopped at any point leaves only whole chunks behind and
    the next run starts where it stopped. ``limit`` stops after that many texts."""
    import time

    started = time.perf_counter()
    done = 0
    while limit is None or done < limit:
        size = chunk if limit is None else min(chunk, limit - done)
        with store.write() as tx:
            rows = tx.missing_vectors(space, model.name, size)
            if not rows:
                break
            write_missing(tx, model, [(space, d, e, t) for d, e, t in rows])
        done += len({d for d, _, _ in rows})
        if progress is not None:
            progress(done)
    remaining = store.count_missing_vectors(space, model.name) if limit is not None else 0
    return Backfilled(done, remaining, time.perf_counter() - started)


# -- search ------------------------------------------------------------------------------


class VectorIndex:
    """One space's vectors of one kind group, held as their stored int8 codes in this process.

    A search is exact: it returns the texts, the cosines and the order that scoring every
    decoded float32 vector would give, at a quarter of the memory traffic. The cosine of a
    text is the float32 product of its decoded vector (int8 / 127, :func:`decode`) and the
    query, computed by ``numpy.einsum`` (one thread: numpy's ``@`` hands a matrix to its
    BLAS, whose threads spin-wait on a shared machine). Every stored vector is first
    scored against the query rounded to int8, by exact integer sums
    (:func:`cairn.embed.int8.products`, about 2 ms at 100k vectors against 11 for the
    float32 pass, which is bound by memory bandwidth); the rounding moves a score by at
    most a bound computed from the rounding error and the longest stored vector, so every
    text that can be among the ``k`` nearest is within twice that bound of the ``k``-th
    rounded score. Those few are then scored exactly and ranked (ties by insertion order)."""

    _cache: dict[tuple, tuple[tuple, VectorIndex]] = {}

    def __init__(self, hashes: list[str], codes: Any) -> None:
        """``codes``: the stored int8 vectors, one row per hash, in the uint8 form the
        integer kernel reads (:func:`cairn.embed.int8.shifted`: each byte + 128)."""
        import numpy as np

        from .int8 import unshifted

        self.hashes = hashes
        self.codes = codes
        self._row: dict[str, int] | None = None
        # The longest stored vector, in the decoded scale: what bounds the rounding error.
        # Blocks of 2048 rows: 3 MB of float32 at a time, reused rather than mapped anew.
        longest = 0.0
        for start in range(0, len(hashes), 2048):
            block = unshifted(codes[start : start + 2048]).astype(np.float32)
            longest = max(longest, float(np.einsum("ij,ij->i", block, block).max()))
        self.longest = float(np.sqrt(longest)) / 127.0

    @classmethod
    def of(cls, hashes: list[str], blobs: Sequence[bytes], dimension: int) -> VectorIndex:
        """The index of stored vectors (int8 bytes, :func:`encode`), one per hash."""
        import numpy as np

        # One copy of the bytes, shifted in place: at 100k vectors every extra copy is
        # 38 MB of fresh memory to fault in on a process's first recall.
        codes = np.frombuffer(bytearray().join(blobs), dtype=np.uint8).reshape(len(blobs), dimension)
        codes ^= np.uint8(0x80)
        return cls(hashes, codes)

    @property
    def row(self) -> dict[str, int]:
        """Row of each content hash (built on first use: a semantic-only recall needs none)."""
        if self._row is None:
            self._row = {h: i for i, h in enumerate(self.hashes)}
        return self._row

    @classmethod
    def load(cls, view: Any, space: str, model: Embedder, episodes: bool) -> VectorIndex:
        """The index of the view's current state (re-read only when it changed)."""
        key = (getattr(view, "path", ""), space, model.name, episodes)
        signature = view.vector_signature(space, model.name, episodes)
        cached = cls._cache.get(key)
        if cached is not None and cached[0] == signature:
            return cached[1]
        rows = view.vector_rows(space, model.name, episodes)
        index = cls.of([h for h, _ in rows], [d for _, d in rows], model.dimension)
        cls._cache[key] = (signature, index)
        return index

    def __len__(self) -> int:
        return len(self.hashes)

    def decoded(self, rows: Any) -> Any:
        """The float32 vectors of ``rows``, exactly as :func:`decode` makes them."""
        import numpy as np

        from .int8 import unshifted

        out = unshifted(self.codes[rows]).astype(np.float32)
        out *= np.float32(1.0 / 127.0)
        return out

    def scores(self, query: Any, rows: Any = None) -> Any:
        """The cosine of the stored texts of ``rows`` (all by default) to ``query``."""
        import numpy as np

        if rows is None:
            rows = np.arange(len(self.hashes))
        return np.einsum("ij,j->i", self.decoded(rows), np.asarray(query, dtype=np.float32))

    def search(self, query: Any, k: int) -> list[tuple[str, float]]:
        """The ``k`` nearest texts by cosine, best first, as (content hash, cosine)."""
        import numpy as np

        if not self.hashes or k < 1:
            return []
        q = np.asarray(query, dtype=np.float32)
        rows = self._near(q, min(k, len(self.hashes)))
        exact = self.scores(q, rows)
        top = np.lexsort((rows, -exact))[:k]
        return [(self.hashes[int(rows[i])], float(exact[i])) for i in top]

    def _near(self, q: Any, k: int) -> Any:
        """Rows that may be among the ``k`` nearest to ``q``, ascending: all whose integer
        score is within twice the rounding bound of the ``k``-th best."""
        import numpy as np

        from .int8 import products

        size = float(np.abs(q).max(initial=0.0))
        if not np.isfinite(size) or size == 0.0 or len(self.hashes) <= k:
            return np.arange(len(self.hashes))
        scale = 127.0 / size
        q8 = np.clip(np.rint(q.astype(np.float64) * scale), -127, 127)
        # |true cosine - rounded score| <= |vector| * |q - q8 / scale| (Cauchy-Schwarz); the
        # float32 arithmetic of the exact score adds at most about d * 2**-24 * |vector| * |q|
        # (d terms summed): twice that is allowed for.
        rounding = (q.size + 2) * 2.0**-23
        error = float(np.linalg.norm(q - q8 / scale)) + rounding * float(np.linalg.norm(q))
        slack = 2.0 * self.longest * error * 127.0 * scale  # in integer units (codes are cosine * 127)
        sums = products(self.codes, q8.astype(np.int8))
        kth = np.partition(sums, len(sums) - k)[len(sums) - k]
        return np.flatnonzero(sums >= kth - slack)

    def similarity(self, query: Any, digest: str) -> float | None:
        """The cosine of one stored text (None when it has no vector)."""
        i = self.row.get(digest)
        if i is None:
            return None
        return float(self.decoded(i) @ query)
