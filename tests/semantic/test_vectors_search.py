"""The exact vector search: integer sums on int8 vectors first, then exact cosines.

The search must return what scoring every decoded float32 vector would: the same texts,
the same cosines to the bit, the same order (ties by insertion order)."""

from __future__ import annotations

import pytest

from cairn.embed import int8, vectors

from .conftest import needs_extra

pytestmark = needs_extra
DIMENSION = 384


def _unit(gen, rows: int):
    import numpy as np

    array = gen.standard_normal((rows, DIMENSION)).astype(np.float32)
    return array / np.linalg.norm(array, axis=1, keepdims=True)


def _index(array, hashes=None) -> vectors.VectorIndex:

    blobs = vectors.encode(array)
    return vectors.VectorIndex.of(hashes or [f"h{i}" for i in range(len(blobs))], blobs, DIMENSION)


def _brute(array, query, k: int) -> list[tuple[str, float]]:
    """Every decoded vector scored in float32 as the search scores one, ranked by cosine, then
    insertion order."""
    import numpy as np

    scores = np.einsum("ij,j->i", vectors.decode(vectors.encode(array), DIMENSION), query)
    order = np.lexsort((np.arange(len(scores)), -scores))[:k]
    return [(f"h{i}", float(scores[i])) for i in order]


def _coarse_top(index: vectors.VectorIndex, query, k: int) -> set[int]:
    """The ``k`` best rows by the int8-rounded query alone (what the search must not stop at)."""
    import numpy as np

    sums = int8.products(index.codes, np.rint(query * (127 / np.abs(query).max())).astype(np.int8))
    return set(np.lexsort((np.arange(len(sums)), -sums))[:k].tolist())


@pytest.mark.parametrize("k", [1, 5, 24])
def test_the_search_equals_scoring_every_decoded_vector(k):
    """Near-ties that the int8 query ranks in another order are ranked by their exact
    cosine; the cosines are the float32 products of the decoded vectors, to the bit."""
    import numpy as np

    gen = np.random.default_rng(11)
    array = _unit(gen, 4000)
    # A tight cluster around one direction, and queries close to it: many texts with
    # nearly the same cosine at the top, where rounding the query reorders them.
    centre = _unit(gen, 1)[0]
    cluster = centre + 0.3 * _unit(gen, 400)
    array[::10] = cluster / np.linalg.norm(cluster, axis=1, keepdims=True)
    index = _index(array)
    queries = centre + 0.2 * _unit(gen, 60)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    misordered = 0
    for query in queries:
        expected = _brute(array, query, k)
        assert index.search(query, k) == expected
        misordered += _coarse_top(index, query, k) != {int(h[1:]) for h, _ in expected}
    # Negative control: the int8 query alone would have returned other texts for some of
    # these queries, so the exact re-scoring is what makes the answers above right.
    assert misordered > 0


def test_similarity_is_the_decoded_vectors_product():
    import numpy as np

    gen = np.random.default_rng(12)
    array = _unit(gen, 50)
    index = _index(array)
    query = _unit(gen, 1)[0]
    decoded = vectors.decode(vectors.encode(array), DIMENSION)
    assert all(index.similarity(query, f"h{i}") == float(decoded[i] @ query) for i in range(50))
    assert index.similarity(query, "no such hash") is None


def test_equal_cosines_keep_insertion_order():
    """Two texts with one vector (equal cosines) come in the order they were stored, not in
    the order a partial sort happens to leave them; a better cosine still comes first."""
    import numpy as np

    gen = np.random.default_rng(13)
    array = _unit(gen, 300)
    query = array[200].copy()
    array[250] = array[200]  # the same vector under a later hash
    array[40] = array[200]  # and under an earlier one
    found = [h for h, _ in _index(array).search(query, 3)]
    assert found == ["h40", "h200", "h250"]
    # Control: a lower cosine follows, whatever its place.
    near = query + 0.2 * _unit(gen, 1)[0]
    array[200] = near / np.linalg.norm(near)
    assert [h for h, _ in _index(array).search(query, 3)] == ["h40", "h250", "h200"]


def test_a_query_without_direction_scores_every_text_alike():
    """A zero (or non-finite) query cannot be rounded to int8: every text is then scored
    exactly, and all score alike, in insertion order."""
    import numpy as np

    index = _index(_unit(np.random.default_rng(14), 30))
    found = index.search(np.zeros(DIMENSION, dtype=np.float32), 3)
    assert found == [("h0", 0.0), ("h1", 0.0), ("h2", 0.0)]
    assert index.search(np.zeros(DIMENSION, dtype=np.float32), 0) == []


@pytest.mark.parametrize("kernel", ["onnxruntime", "a saturating onnxruntime", "numpy"])
def test_the_integer_products_are_exact(kernel, monkeypatch):
    """The sums of every int8 value times every int8 query value, exact (int32), from the
    onnxruntime kernel and from the numpy fallback alike. Where the CPU's kernel sums byte
    products in 16 bits with saturation (AVX2 without VNNI; ``int8._saturates``, checked
    once per process) the numpy sums are used."""
    import numpy as np

    if kernel == "numpy":
        monkeypatch.setattr(int8, "_kernel", lambda: None)
    if kernel == "a saturating onnxruntime":
        monkeypatch.setattr(int8, "_SATURATES", True)
        monkeypatch.setattr(type(int8._kernel()), "run", lambda *a, **k: pytest.fail("a saturating kernel ran"))
    gen = np.random.default_rng(15)
    codes = gen.integers(-128, 128, size=(500, DIMENSION), dtype=np.int8)
    codes[0] = 127
    codes[1] = -128
    for query in (gen.integers(-127, 128, size=DIMENSION, dtype=np.int8), np.full(DIMENSION, -127, dtype=np.int8)):
        expected = codes.astype(np.int64) @ query.astype(np.int64)
        found = int8.products(int8.shifted(codes), query)
        assert found.dtype == np.int32 and np.array_equal(found, expected)


def test_shifting_is_undone_exactly():
    import numpy as np

    codes = np.arange(-128, 128, dtype=np.int8).reshape(1, -1)
    assert int8.shifted(codes)[0, 0] == 0 and int8.shifted(codes)[0, -1] == 255
    assert np.array_equal(int8.unshifted(int8.shifted(codes)), codes)
