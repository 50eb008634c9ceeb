"""Look-alike claims: the records a new claim seems to replace, and what the write policy
lets it do about them.

``remember`` stores every new claim; when it shares its subject and attribute with a
current record of the same kind and origin — "We now use PostgreSQL 18 for billing"
beside "Use PostgreSQL 17 for billing" — the result names that record (``similar``) so
the caller can say ``supersedes`` or ``corrects``. Cairn never decides that on its own.

"Shares its subject and attribute" is measured on topic words: the claim's indexed terms
without stopwords and without numbers (the number is what a replacement typically
changes). Two claims are alike when they share at least two topic words and at least
``SIMILAR_JACCARD`` of their union.

The search is bounded: it asks the index for the best ``SIMILAR_POOL`` matches of the
claim's rarest topic words — enough of them that every alike record holds at least one,
leaving out words held by more than ``SIMILAR_COMMON`` records — and reads only those
records, so a remember never reads a whole origin. Alike records hold most of the claim's
words, so they rank at the top; where more than the pool match better, or where a claim
has only common words, the hint may be missed (it is a hint, never a decision).

``replaces_similar`` acts on the hint under the write policy
(:func:`cairn.policy.authority.authority`): the new claim supersedes every similar record
when this evidence may replace each of them; otherwise nothing is superseded and the
caller learns which record stands and why.
"""

from __future__ import annotations

from datetime import datetime

from ..model import Basis, Evidence, Memory, Method, Role, SourceKind
from ..policy.authority import Incoming, Withhold, authority
from ..store import ReadView
from ..text import STOPWORDS, index_text

SIMILAR_MIN_SHARED = 2  # a claim of fewer topic words names no subject and attribute to share
SIMILAR_JACCARD = 0.6  # share most topic words: the same subject and attribute
SIMILAR_MAX = 5  # look-alikes named in one result
SIMILAR_POOL = 16  # best index matches read per remember
SIMILAR_COMMON = 1000  # a word in more records of the space than this is not searched for: too broad


def topic_words(indexed: str) -> frozenset[str]:
    """Indexed terms that name what a claim is about: stopwords and numbers left out."""
    return frozenset(t for t in indexed.split() if t not in STOPWORDS and not t.replace(".", "").isdigit())


def alike(a: frozenset[str], b: frozenset[str]) -> bool:
    shared = len(a & b)
    return shared >= SIMILAR_MIN_SHARED and shared / len(a | b) >= SIMILAR_JACCARD


def find_similar(tx: ReadView, space: str, memory: Memory) -> tuple[Memory, ...]:
    """Current records of ``memory``'s kind and origin alike to it, oldest first (at most
    ``SIMILAR_MAX``); empty when the search would be too broad."""
    words = topic_words(index_text(memory.content))
    if len(words) < SIMILAR_MIN_SHARED:
        return ()
    # An alike record shares at least SIMILAR_JACCARD of the union, so it lacks at most
    # the rest of these words: any (that many + 1) of them finds it; one more for rounding.
    needed = min(len(words), int(len(words) * (1 - SIMILAR_JACCARD)) + 2)
    counts = tx.space_document_frequencies(space, sorted(words))  # this space's own: another's never changes it
    rarest = [w for n, w in sorted((counts[w], w) for w in words)[:needed] if n <= SIMILAR_COMMON]
    if not rarest:
        return ()  # only common words: no search narrow enough to be worth a remember's time
    hits = tx.search_any(space, rarest, SIMILAR_POOL)
    found = tx.get_memories(space, [i for i, _ in hits]) if hits else {}
    close = [
        m for m in found.values()
        if m.origin == memory.origin and m.kind is memory.kind and m.active and alike(words, topic_words(index_text(m.content)))
    ]
    return tuple(sorted(close, key=lambda m: (m.created_at, m.id))[:SIMILAR_MAX])


def replacements(
    memory: Memory, similar: tuple[Memory, ...], now: datetime
) -> tuple[list[tuple[Role, str]], tuple[tuple[str, str], ...]]:
    """``supersedes`` links from ``memory`` to every similar record — or none, and the
    (id, reason) of each record the write policy keeps standing (pinned, newer evidence,
    stronger evidence)."""
    incoming = Incoming(memory.evidence, source_kind(memory.evidence))
    decisions = [(old, authority(old, memory.kind, incoming, now)) for old in similar]
    withheld = tuple((old.id, d.reason) for old, d in decisions if isinstance(d, Withhold))
    if withheld:
        return [], withheld
    return [(Role.SUPERSEDES, old.id) for old in similar], ()


def source_kind(evidence: Evidence) -> SourceKind:
    """What a directly remembered claim stands on, for the write policy: a person's word
    given by hand is a manual source, a summary a summary, anything else a conversation."""
    if evidence.basis is Basis.SUMMARY:
        return SourceKind.SUMMARY
    if evidence.method is Method.MANUAL:
        return SourceKind.MANUAL
    return SourceKind.CONVERSATION
