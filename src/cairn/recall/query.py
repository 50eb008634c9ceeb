"""Query parsing for recall (docs/recall.md, stage 1).

``parse_query(text)`` turns a raw query into a :class:`ParsedQuery`: the weighted content
features that count as evidence of relevance, the literals the caller typed (quoted
strings, paths, numbers, versions), the whitespace word runs the phrase bonus works on,
and — for short queries — a named subject with its requested attributes (the
named-attribute rule).

Pure: uses only :mod:`cairn.text` (the one tokeniser, shared with the index) and no I/O.
Validation of the raw text (empty, too long) is :func:`validate_query`'s job so that the
engine can refuse bad input before it opens a transaction.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..errors import InvalidInput
from ..text import STOPWORDS, literals, normalize, tokenize

MAX_QUERY_CHARS = 512  # the query recall works on: at most 512 characters
MAX_INPUT_CHARS = 65_536  # a host may pass a whole prompt; the query is derived from it
NAMED_RULE_MAX_FEATURES = 4  # the named-attribute rule covers queries of up to four features

# Conversational filler: a query made only of these (and stopwords) carries no topic, so
# recall returns nothing rather than falling back to recent memories.
FILLER: frozenset[str] = frozenset(
    """
    sure great cool fine nice good alright right next again proceed done k kk yep yup nope
    thx ty cheer cheers lol hmm hm um uh oh ah wow awesome perfect gotcha understood agreed
    carry keep well 好 好的 继续 谢谢 嗯 行 可以 对
    """.split()
)

# Query framing: words that shape the question but never name what it asks about.
# Chinese 多少 ("how much") is framing, not an entity.
FRAMING: frozenset[str] = frozenset(
    "多少 什么 怎么 哪个 哪里 为什么 如何 tell know remember recall said say".split()
)

# Generic status/progress words (and kind names) are not mandatory answer tokens of the
# named-attribute rule: "sqlite status" must not require the word "status" in the answer.
GENERIC: frozenset[str] = frozenset(
    """
    status progress state current currently latest last recent update updated new old
    info information detail details thing stuff fact preference decision project
    setting settings value
    """.split()
)

LITERAL_WEIGHT = 1.5  # literals the caller typed weigh more than ordinary words
_NUMERIC_RE = re.compile(r"^v?\d+(?:[.:]\d+)*$")
_RUN_SPLIT_RE = re.compile(r"[^\w\s'’-]+|(?<!\w)[-'’]+|[-'’]+(?!\w)")


@dataclass(frozen=True, slots=True)
class Feature:
    """One distinct content term of the query and its weight."""

    term: str
    weight: float
    literal: bool
    numeric: bool
    cjk: bool


@dataclass(frozen=True, slots=True)
class Literal:
    """A literal fragment of the query and the match terms it consists of."""

    text: str
    terms: tuple[str, ...]
    strict: bool  # quoted strings and paths must be present; numbers only weigh more


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    text: str
    features: tuple[Feature, ...]
    literals: tuple[Literal, ...]
    runs: tuple[tuple[str, ...], ...]  # whitespace word runs (normalised), for the phrase bonus
    subject: str | None  # the named subject of a short query (a term), or None
    attributes: tuple[str, ...]  # terms the answer must also hold when subject is set

    @property
    def context_free(self) -> bool:
        """No feature carries a topic: nothing can be relevant, so nothing is recalled."""
        return not any(f.term not in FILLER for f in self.features)

    @property
    def terms(self) -> tuple[str, ...]:
        return tuple(f.term for f in self.features)

    @property
    def named_rule(self) -> bool:
        return self.subject is not None and bool(self.attributes)

    def weight(self, term: str) -> float:
        for f in self.features:
            if f.term == term:
                return f.weight
        return 0.0

    def to_dict(self) -> dict:
        """Features for explain and traces (terms, never the raw text)."""
        return {
            "features": [f.term for f in self.features],
            "literals": [lit.text for lit in self.literals],
            "subject": self.subject,
            "attributes": list(self.attributes),
            "context_free": self.context_free,
        }


def validate_query(text: object) -> str:
    """The query stripped, or :class:`InvalidInput` (empty, not text, over 64 KB).

    Longer than :data:`MAX_QUERY_CHARS`, the input is taken as a whole prompt and the query
    is derived from it (:func:`prompt_query`)."""
    if not isinstance(text, str):
        raise InvalidInput("query", "not a string")
    if "\x00" in text:
        raise InvalidInput("query", "contains a NUL character")
    stripped = text.strip()
    if not stripped:
        raise InvalidInput("query", "empty; give the topic to recall")
    if len(stripped) > MAX_INPUT_CHARS:
        raise InvalidInput("query", f"{len(stripped)} characters; at most {MAX_INPUT_CHARS} (a whole prompt) are read")
    if len(stripped) > MAX_QUERY_CHARS:
        stripped = prompt_query(stripped)
    return stripped


_SENTENCE_END_RE = re.compile(r"(?<=[.!?。？！])\s+|\n+")


def prompt_query(prompt: str) -> str:
    """The query a whole prompt asks: its last question (a sentence ending in "?"), else its
    last sentence, cut to its last :data:`MAX_QUERY_CHARS` characters on a word boundary.
    A prompt closes with what it asks; context pasted before must not dilute the topic."""
    sentences = [" ".join(s.split()) for s in _SENTENCE_END_RE.split(prompt) if s.strip()]
    questions = [s for s in sentences if s.endswith(("?", "？"))]
    chosen = (questions or sentences or [prompt])[-1]
    if len(chosen) > MAX_QUERY_CHARS:
        tail = chosen[-MAX_QUERY_CHARS:]
        space = tail.find(" ")
        chosen = tail[space + 1 :] if chosen[-MAX_QUERY_CHARS - 1] != " " and 0 <= space < len(tail) - 1 else tail
    return chosen.strip()


def parse_query(text: str) -> ParsedQuery:
    """Parse an already validated query. Pure and deterministic."""
    lits = tuple(_literal(fragment) for fragment in literals(text))
    literal_terms = {t for lit in lits for t in lit.terms}
    features: dict[str, Feature] = {}
    for token in tokenize(text):
        if token.stop or token.term in FRAMING or token.term in features:
            continue
        is_literal = token.term in literal_terms
        features[token.term] = Feature(
            term=token.term,
            weight=LITERAL_WEIGHT if is_literal else 1.0,
            literal=is_literal,
            numeric=bool(_NUMERIC_RE.match(token.term)),
            cjk=token.cjk,
        )
    feats = tuple(features.values())
    subject, attributes = _named(text, feats)
    return ParsedQuery(text, feats, lits, _runs(text), subject, attributes)


def _literal(fragment: str) -> Literal:
    terms = tuple(t.term for t in tokenize(fragment) if not t.stop)
    numeric = bool(_NUMERIC_RE.match(fragment.strip().casefold()))
    return Literal(fragment, terms, strict=not numeric and bool(terms))


def _runs(text: str) -> tuple[tuple[str, ...], ...]:
    """Runs of whitespace-separated words; punctuation between words breaks a run."""
    out: list[tuple[str, ...]] = []
    for piece in _RUN_SPLIT_RE.split(normalize(text)):
        words = tuple(w for w in piece.split() if w)
        if len(words) >= 2:
            out.append(words)
    return tuple(out)


def _named(text: str, features: tuple[Feature, ...]) -> tuple[str | None, tuple[str, ...]]:
    """The named subject and attributes of a short query, or ``(None, ())``.

    Applies to at most four features. Numbers are never subjects (they are often the
    replacement value being asked about) and, like generic status words, never mandatory.
    A word written with inner capitals or digits (``SQLite``, ``PostgreSQL``, ``k8s``)
    names the subject; without one, only a bare two-word pair is read as subject and
    attribute, the first word being the subject (English modifiers come first: "sqlite
    authentication"). Two such names make the subject ambiguous: no rule.
    """
    if not 2 <= len(features) <= NAMED_RULE_MAX_FEATURES:
        return None, ()
    eligible = [f.term for f in features if not f.numeric and f.term not in GENERIC and f.term not in FILLER]
    if len(eligible) < 2:
        return None, ()
    named = [t for t in eligible if t in _name_like(text)]
    if len(named) > 1:
        return None, ()
    if not named and len(eligible) != 2:
        # Without a written name, only the bare "subject attribute" pair is read as one:
        # in a longer lowercase query the first word is as likely a verb ("pick ...").
        return None, ()
    subject = named[0] if named else eligible[0]
    return subject, tuple(t for t in eligible if t != subject)


def _name_like(text: str) -> set[str]:
    """Terms of words that look like names: an upper-case letter after the first
    character, or letters mixed with digits."""
    out: set[str] = set()
    for word in re.findall(r"[^\W_]+", unicodedata.normalize("NFKC", text)):
        if any(c.isupper() for c in word[1:]) or (any(c.isdigit() for c in word) and any(c.isalpha() for c in word)):
            out.update(t.term for t in tokenize(word))
    return out


def is_function_word(word: str) -> bool:
    """A function word may neither open nor close a phrase span (``on the`` is no anchor)."""
    return word in STOPWORDS
