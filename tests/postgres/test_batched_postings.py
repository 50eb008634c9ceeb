"""Several terms' postings read at once (``terms_postings``) equal each term's own read
on every backend: the same keys, newest first, cut at the same limit; a term held
nowhere maps to no keys; a term asked twice is answered once."""

from __future__ import annotations

from cairn import Cairn
from cairn.text import index_text


def test_terms_postings_equal_each_terms_own_read(backend, clock):
    with Cairn(store=backend, now=clock) as cairn:
        for n in range(7):
            cairn.remember(f"The relay number {n} rotates the signing key", kind="fact")
        cairn.remember("A ledger of the relay audits", kind="fact", aliases=["zebra book"])
        terms = [index_text(w) for w in ("relay", "signing", "ledger", "zebra", "nowhere", "relay")]
        store = cairn.store
        together = store.terms_postings(terms, 5)
        alone = {t: store.term_postings(t, 5) for t in terms}
        assert together == alone
        assert list(together) == list(dict.fromkeys(terms))
        newest = [int(k) for k in together[terms[0]]]  # type: ignore[call-overload]
        assert len(newest) == 5 and newest == sorted(newest, reverse=True)
        assert len(together[terms[3]]) == 1  # held in the aliases only
        assert together[terms[4]] == []
        assert store.terms_postings([], 5) == {}
        with store.snapshot() as view:
            assert view.terms_postings(terms, 100) == {t: store.term_postings(t, 100) for t in terms}
