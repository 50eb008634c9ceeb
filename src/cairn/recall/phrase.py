"""The contiguity phrase bonus: word order is evidence that a token set discards.

A token-set score forgets word order. This puts a narrow part of it back: every
contiguous span of at least two whitespace-separated query words is a candidate anchor;
a record holding such a span *on word boundaries, in query order, separated by
whitespace only* gains a bounded bonus, and the result names the span. The guards:

* at least two words (one word already scores as a token);
* whole words in query order: ``glacier-custard-incident`` and ``incident custard
  glacier`` hold no span of ``glacier custard incident``; ``glacier custard incidents``
  holds only ``glacier custard`` (no stemming here: a phrase is its surface words);
* a chunk-frequency ceiling: a span found in more than ``ceiling`` records is a recurring
  term, not an anchor;
* a function word may neither open nor close a span (``on the`` is no anchor);
* a derived view (a ``summary``) receives a fraction of the bonus, so the canonical record
  leads while the view can still reach the digest;
* the bonus is bounded (a multiplier of at most ``1 + cap``), never a filter.

Pure: the corpus frequency of a span is asked through a callable, so the same code
serves the FTS path and the in-memory path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from ..model import Basis, Memory
from ..text import normalize
from .query import ParsedQuery, is_function_word


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class PhraseProfile:
    """How a contiguous phrase of the query shared with a record raises its score."""

    min_words: int = 2  # one word already scores as a token
    max_words: int = 8  # bounds the work on long queries
    ceiling: int = 3  # a span in more records than this is a recurring term, not an anchor
    step: float = 0.25  # +25 % per word beyond the first ...
    cap: float = 0.5  # ... at most +50 %
    derived_fraction: float = 0.5  # a summary restating a phrase gets half


PHRASE = PhraseProfile()

Span = tuple[str, ...]


class PhraseHit(NamedTuple):
    span: str  # the query words matched, space-joined (query text, not the record's)
    words: int
    frequency: int  # records holding the span (capped at ceiling + 1)
    bonus: float  # added to 1 to form the relevance multiplier

    def to_dict(self) -> dict:
        return {"span": self.span, "words": self.words, "frequency": self.frequency, "bonus": round(self.bonus, 4)}


# "who's my physio", "what is our database", "where are the spare keys": the question asks
# what the thing is; a note saying "my physio is …" states it. The thing asked, up to three
# words, then the copula.
_DEFINITION_RE = re.compile(
    r"^\s*(?:who|what|where|which)(?:['’]s|\s+is|\s+are)\s+(?:(?:my|our|the|your)\s+)?"
    r"([^\W\d_]+(?:[\s-][^\W\d_]+){0,2})\s*\??\s*$"
)


def definition_span(query: ParsedQuery) -> Span | None:
    """The thing a copula question asks about, followed by ``is``/``are`` (its own number):
    ``("physio", "is")`` of "who's my physio". None when the question has another shape."""
    m = _DEFINITION_RE.match(normalize(query.text))
    if m is None:
        return None
    words = tuple(m.group(1).replace("-", " ").split())
    if any(is_function_word(w) for w in words):
        return None
    return (*words, "are" if words[-1].endswith("s") and not words[-1].endswith("ss") else "is")


def candidate_spans(query: ParsedQuery, profile: PhraseProfile = PHRASE) -> list[Span]:
    """Every contiguous span of a query run that may serve as an anchor, longest first,
    and the thing a copula question asks followed by its copula (:func:`definition_span`:
    a note that says what the thing is holds the question's statement turned round)."""
    out: dict[Span, None] = {}
    defined = definition_span(query)
    if defined is not None:
        out[defined] = None
    for run in query.runs:
        for size in range(min(len(run), profile.max_words), profile.min_words - 1, -1):
            for start in range(len(run) - size + 1):
                span = run[start : start + size]
                if is_function_word(span[0]) or is_function_word(span[-1]):
                    continue  # "on the" is rare only because the other language is
                out[span] = None
    return sorted(out, key=lambda s: -len(s))


@lru_cache(maxsize=4096)
def _span_re(span: Span) -> re.Pattern[str]:
    # Word boundaries exclude '-' so that words joined by punctuation never form a span;
    # only whitespace may separate the words.
    body = r"\s+".join(re.escape(w) for w in span)
    return re.compile(rf"(?<![\w\-]){body}(?![\w\-])")


def chunks(memory: Memory) -> list[str]:
    """The normalised texts a span is looked for in: the content and each alias."""
    return list(_chunks(memory.content, tuple(memory.aliases))[0])


@lru_cache(maxsize=8192)
def _chunks(content: str, aliases: tuple[str, ...]) -> tuple[tuple[str, ...], str]:
    """(:func:`chunks`, the same joined by " \\n ") of one record's texts. Normalising is
    a pure function of the text and a recalled record is often recalled again: a process
    normalises each recently seen text once (bounded, so memory stays flat)."""
    texts = (normalize(content), *(normalize(a) for a in aliases))
    return texts, " \n ".join(texts)


def holds(texts: Iterable[str], span: Span) -> bool:
    """Whether one of ``texts`` holds ``span`` as :func:`_span_re` defines it (whole words,
    in order, whitespace between). Matched by hand rather than by that pattern: most spans
    of a query are new to the process, and compiling a pattern costs several times
    more than looking for a few words in a few short texts."""
    return any(_span_in(t, span) for t in texts)


def _joins(c: str) -> bool:
    """A character that continues a word (``\\w`` or ``-``: :func:`_span_re`'s boundary)."""
    return c.isalnum() or c == "_" or c == "-"


def _span_in(text: str, span: Span) -> bool:
    """``_span_re(span).search(text)``, by hand: ``\\s`` is ``str.isspace`` and ``\\w`` is
    ``str.isalnum`` or ``_`` (the same Unicode tables), and a span's words hold no
    whitespace, so ``\\s+`` takes every blank before the next word: one way to match."""
    first, end = span[0], len(text)
    start = text.find(first)
    while start >= 0:
        if start == 0 or not _joins(text[start - 1]):
            at = start + len(first)
            for word in span[1:]:
                gap = at
                while gap < end and text[gap].isspace():
                    gap += 1
                if gap == at or not text.startswith(word, gap):
                    break
                at = gap + len(word)
            else:
                if at == end or not _joins(text[at]):
                    return True
        start = text.find(first, start + 1)
    return False


def phrase_hits(
    query: ParsedQuery,
    candidates: Iterable[Memory],
    frequency: Callable[[Span], int],
    profile: PhraseProfile = PHRASE,
) -> dict[str, PhraseHit]:
    """The best qualifying span of each candidate that holds one, keyed by memory id.

    ``frequency(span)`` returns how many records of the corpus hold the span (it may stop
    counting at ``profile.ceiling + 1``). A span is asked about only if some candidate
    holds it.
    """
    spans = candidate_spans(query, profile)
    if not spans:
        return {}
    seen: dict[Span, int] = {}
    hits: dict[str, PhraseHit] = {}
    words = {w for span in spans for w in span}
    for memory in candidates:
        texts, joined = _chunks(memory.content, tuple(memory.aliases))
        # A cheap necessary condition first: each word of the span occurs in the record's
        # text somewhere (checked once per word, not once per span holding it).
        present = {w for w in words if w in joined}
        if not present:
            continue
        for span in spans:  # longest first: the first qualifying span is the best
            if not present.issuperset(span) or not holds(texts, span):
                continue
            if span not in seen:
                seen[span] = frequency(span)
            if seen[span] > profile.ceiling:
                continue  # a recurring term, not an anchor
            bonus = min(profile.cap, profile.step * (len(span) - 1))
            if memory.evidence.basis is Basis.SUMMARY:
                bonus *= profile.derived_fraction
            hits[memory.id] = PhraseHit(" ".join(span), len(span), seen[span], bonus)
            break
    return hits


def list_frequency(records: list[Memory], profile: PhraseProfile = PHRASE) -> Callable[[Span], int]:
    """A frequency function over an in-memory corpus (stops at ceiling + 1)."""
    texts = [chunks(m) for m in records]

    def count(span: Span) -> int:
        n = 0
        for t in texts:
            if holds(t, span):
                n += 1
                if n > profile.ceiling:
                    break
        return n

    return count
