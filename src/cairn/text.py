"""Text normalisation and tokenisation shared by indexing, recall and consolidation.

Pure functions, no Cairn imports. The same function produces the terms that go into the
full-text index and the terms a query is matched with, so the two can never drift.

* Unicode NFKC + casefold.
* Words are runs of letters/digits (``_`` and inner ``-``/``.`` split words). CJK text
  becomes overlapping character bigrams (a lone CJK character stays a unigram).
* Light English stemming (plural, -ing, -ed, -ly; no dictionary), so ``tests`` and
  ``testing`` meet ``test``.
* Stopwords are indexed (phrases need them) but never count as evidence of relevance.
* Literals — numbers, versions, paths, quoted strings — are found on the raw text so a
  query can weight them higher.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

_CJK = (
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    "\uac00-\ud7af"  # hangul syllables
)
_TOKEN_RE = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+", re.UNICODE)
_CJK_RE = re.compile(rf"^[{_CJK}]+$")

STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not now of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your
    yours yourself yourselves also any anything something let lets ok okay yes yeah please
    thanks thank hi hello hey continue go going get got us s t d ll m re ve don didn doesn
    isn wasn weren aren won wouldn shouldn couldn
    的 了 是 在 和 与 或 我 你 他 她 它 们 这 那 也 就 都 吗 呢 吧 啊
    """.split()
)


MONTHS: dict[str, int] = {
    name: number
    for number, name in enumerate(
        "january february march april may june july august september october november december".split(), 1
    )
}
"""English month names, lower case, to their number (1-12)."""

MONTH_WORDS: dict[str, int] = {**MONTHS, **{name[:3]: number for name, number in MONTHS.items()}}
"""The month names and their three-letter abbreviations (``jan`` … ``dec``), lower case."""


@dataclass(frozen=True, slots=True)
class Token:
    surface: str  # normalised surface form
    term: str  # index/match term (stemmed; CJK bigram as is)
    position: int  # ordinal among word tokens of the text
    stop: bool
    cjk: bool


def normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


@lru_cache(maxsize=1 << 16)  # pure; words repeat (Zipf), and recall re-tokenises candidates
def stem(word: str) -> str:
    """A deliberately light English stemmer: only the inflections that matter for recall."""
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("xes", "x"), ("ches", "ch"), ("shes", "sh")):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            return word[: -len(suffix)] + keep
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    for suffix in ("ingly", "edly", "ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if len(base) >= 3 and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]  # running -> run, stopped -> stop
            return base
    if word.endswith("ly") and len(word) > 5:
        return word[:-2]
    return word


def tokenize(text: str) -> list[Token]:
    """Word tokens of ``text`` in order; CJK runs expand into bigrams."""
    tokens: list[Token] = []
    for match in _TOKEN_RE.finditer(normalize(text)):
        chunk = match.group(0)
        if _CJK_RE.match(chunk):
            grams = [chunk] if len(chunk) == 1 else [chunk[i : i + 2] for i in range(len(chunk) - 1)]
            for gram in grams:
                tokens.append(Token(gram, gram, len(tokens), gram in STOPWORDS, True))
        else:
            tokens.append(Token(chunk, stem(chunk), len(tokens), chunk in STOPWORDS, False))
    return tokens


def terms(text: str) -> list[str]:
    """All match terms of ``text``, stopwords included, in order."""
    return [t.term for t in tokenize(text)]


def content_terms(text: str) -> list[str]:
    """Match terms that can count as evidence of relevance (stopwords removed)."""
    return [t.term for t in tokenize(text) if not t.stop]


def index_text(text: str) -> str:
    """The space-joined terms a store indexes for a text (the SQLite store keeps them in
    its FTS5 table, tokenizer ``unicode61``)."""
    return " ".join(terms(text))


_QUOTED_RE = re.compile(r"\"([^\"]{1,200})\"|“([^”]{1,200})”|'([^']{2,200})'")
_NUMBER_RE = re.compile(r"(?<![\w.])v?\d+(?:[.:]\d+)*(?![\w])")
_PATH_RE = re.compile(r"(?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]+|\b[\w-]+\.(?:[a-z][a-z0-9]{0,5})\b")


def literals(text: str) -> list[str]:
    """Literal fragments of a query: quoted strings, numbers/versions, paths/file names."""
    raw = unicodedata.normalize("NFKC", text)
    found: list[str] = []
    for m in _QUOTED_RE.finditer(raw):
        found.append(next(g for g in m.groups() if g))
    for m in _PATH_RE.finditer(raw):
        if not _NUMBER_RE.fullmatch(m.group(0)):
            found.append(m.group(0))
    for m in _NUMBER_RE.finditer(raw):
        found.append(m.group(0))
    unique: dict[str, str] = {}  # first spelling of each, ignoring case, in order
    for fragment in found:
        unique.setdefault(fragment.casefold(), fragment)
    return list(unique.values())
