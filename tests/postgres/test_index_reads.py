"""Index reads answered from ``term_postings`` return what the GIN index returns: the
same records in the same order. The reference queries here are the GIN forms these
reads replaced (slow at 1M records, exact at any size)."""

from __future__ import annotations

import pytest

from cairn import Cairn
from cairn.store.postgres.backend import _aliases_of, _holds_phrase, _lexeme, q_same_column
from cairn.text import index_text
from testkit import Clock


def _fill(url: str) -> None:
    with Cairn(url, now=Clock()) as cairn:
        for n in range(40):
            if n % 3 == 0:
                cairn.remember(f"Note {n}: the release branch was cut for the migration", kind="fact")
            elif n % 3 == 1:  # both words, one in the aliases only: not one column
                cairn.remember(f"Note {n}: the release happened on time", kind="fact", aliases=[f"branch {n}"])
            else:  # both words in the aliases, none in the content
                cairn.remember(f"Note {n}: a quiet week", kind="fact", aliases=[f"release branch {n}"])
    with Cairn(url, space="other", now=Clock()) as other:
        for n in range(5):
            other.remember(f"Other {n}: release branch notes", kind="fact")


def _phrase_texts_from_gin(store, space, words, limit):
    """phrase_texts as it read before: the GIN index asked for the records holding the
    words in one column, in key order, batch by batch."""
    out: list[tuple[str, list[str]]] = []
    after, batch = 0, max(limit * 4, 64)
    while len(out) < limit:
        rows = store._rows(  # noqa: SLF001 - the reference read
            "SELECT i.key, i.content, i.aliases, m.data FROM (SELECT key, content, aliases FROM memory_index"
            " WHERE space = %s AND lexemes @@ %s::tsquery AND key > %s ORDER BY key LIMIT %s) AS i"
            " JOIN memories m ON m.key = i.key ORDER BY i.key", (space, q_same_column(words), after, batch))
        for key, content, aliases, data in rows:
            after = key
            if _holds_phrase(content.split(), words) or _holds_phrase(aliases.split(), words):
                found = _aliases_of(data)
                if found is not None:
                    out.append(found)
                    if len(out) >= limit:
                        break
        if len(rows) < batch:
            break
    return out


@pytest.mark.parametrize("limit", [1, 5, 17, 100])
def test_phrase_texts_reads_what_the_gin_index_holds(pg_url, limit):
    _fill(pg_url)
    with Cairn(pg_url, now=Clock()) as cairn:
        store = cairn.store
        for phrase in ("release branch", "the release", "release", "branch release", "quiet week", "nowhere branch"):
            words = [index_text(w) for w in phrase.split()]
            found = store.phrase_texts("default", words, limit)
            assert found == _phrase_texts_from_gin(store, "default", words, limit), phrase
        assert len(store.phrase_texts("default", [index_text("release"), index_text("branch")], 100)) == 27


def test_content_postings_read_what_the_gin_index_holds(pg_url):
    _fill(pg_url)
    with Cairn(pg_url, now=Clock()) as cairn:
        store = cairn.store
        for word in ("release", "branch", "migration", "quiet", "nowhere"):
            term = index_text(word)
            for limit in (3, 1000):
                reference = [r[0] for r in store._rows(  # type: ignore[attr-defined]  # noqa: SLF001
                    "SELECT key FROM memory_index WHERE lexemes @@ %s::tsquery ORDER BY key DESC LIMIT %s",
                    (_lexeme(term), limit))]
                assert store.content_postings(term, limit) == reference, (word, limit)
        assert len(store.content_postings(index_text("branch"), 1000)) == 14 + 5  # not the alias holders


@pytest.mark.parametrize("limit", [1, 3, 6])
def test_phrase_texts_reads_on_through_batches(pg_url, limit):
    """A pair held together by hundreds of records and adjacent in few: several batches,
    each larger than the last, and the same hits as the GIN index gives."""
    with Cairn(pg_url, now=Clock()) as cairn:
        for n in range(400):
            text = f"Row {n}: release branch ready" if n % 97 == 96 else f"Row {n}: the release of the branch"
            cairn.remember(text, kind="fact")
        store = cairn.store
        words = [index_text("release"), index_text("branch")]
        found = store.phrase_texts("default", words, limit)
        assert found == _phrase_texts_from_gin(store, "default", words, limit)
        assert [c for c, _ in found] == [f"Row {n}: release branch ready" for n in (96, 193, 290, 387)][:limit]
