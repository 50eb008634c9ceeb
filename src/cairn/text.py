"""Text normalisation and tokenisation shared by indexing, recall and consolidation.

Pure functions, no Cairn imports. The same function produces the terms that go into the
full-text index and the terms a query is matched with, so the two can never drift.

* Unicode NFKC + casefold, then accents folded off Latin, Greek and Cyrillic letters
  (``München`` → ``munchen``, ``Größere`` → ``grossere``): what a person types with or
  without the accent meets the same term. Marks on other scripts (Japanese voicing
  marks, Hangul) carry meaning and are kept.
* Words are runs of letters/digits (``_`` and inner ``-``/``.`` split words). CJK text
  becomes overlapping character bigrams (a lone CJK character stays a unigram).
* Light English stemming (plural, -ing, -ed, -ly; no dictionary), so ``tests`` and
  ``testing`` meet ``test``. Endings are made canonical so that a word and its
  inflections share one term: a silent final ``e`` is dropped (``cache``/``caching`` →
  ``cach``), a final consonant + ``y`` becomes ``i`` (``reply``/``replies``/``replied``
  → ``repli``), and a two-letter base gets its ``e`` back (``used``/``using`` → ``use``).
  Changing these rules changes the indexed terms: the store re-indexes in a migration.
* Stopwords are indexed (phrases need them) but never count as evidence of relevance.
* Literals — numbers, versions, paths, quoted strings — are found on the raw text so a
  query can weight them higher.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any, NamedTuple

_CJK = (
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    "\uac00-\ud7af"  # hangul syllables
)
# A token is a CJK run (group 1) or a run of other word characters. Which of the two
# matched is read from the match, not from a second pattern: each character class over
# these ranges costs a fresh process about a millisecond to compile, which is why it is
# compiled when a text that is not ASCII first needs it (a process that reads only ASCII
# text, such as a recall of an English query on English records, never does).
_TOKEN_SOURCE = rf"([{_CJK}]+)|[^\W_{_CJK}]+"
_ASCII_WORD_RE = re.compile(r"[^\W_]+", re.ASCII)  # the token pattern's words on an ASCII text (no CJK there)
# The same words found without the expression: every byte other than an ASCII letter or
# digit becomes a space and the text is split on spaces (a quarter of findall's cost).
_ASCII_WORD_BYTES = bytes(c if chr(c).isascii() and chr(c).isalnum() else 32 for c in range(256))


@lru_cache(maxsize=1)
def _token_re() -> re.Pattern[str]:
    return re.compile(_TOKEN_SOURCE, re.UNICODE)

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
    whats whos wheres hows whens whys thats theres dont doesnt didnt isnt arent wasnt werent
    shouldnt couldnt wouldnt havent hasnt hadnt im ive youre theyre weve youve
    goes gone went gets getting gotten
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


class Token(NamedTuple):
    """One word token (a NamedTuple: immutable, and this module is on the hook's start-up
    path, which does not import ``dataclasses``)."""

    surface: str  # normalised surface form
    term: str  # index/match term (stemmed; CJK bigram as is)
    position: int  # ordinal among word tokens of the text
    stop: bool
    cjk: bool


_FOLDABLE_END = 0x0530  # Latin, Greek and Cyrillic letters all lie below U+0530


@lru_cache(maxsize=1 << 12)
def _fold_accents(chunk: str) -> str:
    decomposed = unicodedata.normalize("NFD", chunk)
    out: list[str] = []
    base = ""
    for ch in decomposed:
        if unicodedata.combining(ch):
            if base and ord(base) < _FOLDABLE_END:
                continue  # an accent on a Latin/Greek/Cyrillic letter
        else:
            base = ch
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def normalize(text: str) -> str:
    """NFKC, casefold, accents folded (see the module docstring). The one normalisation
    of every indexed and every looked-up term."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    if folded.isascii():
        return folded
    return _fold_accents(folded)


@lru_cache(maxsize=1 << 16)  # pure; words repeat (Zipf), and recall re-tokenises candidates
def stem(word: str) -> str:
    """A deliberately light English stemmer: only the inflections that matter for recall."""
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    for suffix, keep in (("ies", "i"), ("sses", "ss"), ("xes", "x"), ("ches", "ch"), ("shes", "sh")):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            if keep == "i" and len(word) <= 5:
                keep = "y"  # flies, tries: the three-letter base keeps its y (fly, try)
            return word[: -len(suffix)] + keep
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return _canonical_end(word[:-1])
    for suffix in ("ingly", "edly", "ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            base = word[: -len(suffix)]
            if len(base) == 2:
                # used, using -> use; a two-letter base lost its silent e (bed, red stay:
                # they are three letters and never reach here)
                return base + "e" if base.isalpha() and base[-1] not in "aeiouy" else word
            if len(base) == 3 and base.endswith("i") and suffix == "ed":
                return base[:-1] + "y"  # tried, dried -> try, dry
            if base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]  # running -> run, stopped -> stop
            return _canonical_end(base)
    if word.endswith("ly") and len(word) > 5 and not word.endswith(("ily", "ply", "bly")):
        return word[:-2]  # weekly -> week; family, supply, assembly are not adverbs
    return _canonical_end(word)


def _canonical_end(word: str) -> str:
    """One spelling for the end of a stem: silent ``e`` dropped (cache, caching ->
    cach), consonant + ``y`` as ``i`` (reply, replies, replied -> repli)."""
    if len(word) >= 4 and word.endswith("e") and not word.endswith("ee"):
        return word[:-1]
    if len(word) >= 4 and word.endswith("y") and word[-2] not in "aeiouy":
        return word[:-1] + "i"
    return word


def tokenize(text: str) -> list[Token]:
    """Word tokens of ``text`` in order; CJK runs expand into bigrams."""
    tokens: list[Token] = []
    folded = normalize(text)
    if folded.isascii():
        for chunk in _ASCII_WORD_RE.findall(folded):
            tokens.append(Token(chunk, stem(chunk), len(tokens), chunk in STOPWORDS, False))
        return tokens
    for match in _token_re().finditer(folded):
        chunk = match.group(0)
        if match.lastindex == 1:  # a CJK run
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
    its FTS5 table, tokenizer ``unicode61``): ``" ".join(terms(text))``, without building
    a :class:`Token` per word (bulk ingest tokenises every record once, here)."""
    folded = normalize(text)
    if folded.isascii():
        return " ".join(map(stem, folded.encode("ascii").translate(_ASCII_WORD_BYTES).decode("ascii").split()))
    out: list[str] = []
    for match in _token_re().finditer(folded):
        chunk = match.group(0)
        if match.lastindex != 1:  # not a CJK run
            out.append(stem(chunk))
        elif len(chunk) == 1:
            out.append(chunk)
        else:
            out.extend(chunk[i : i + 2] for i in range(len(chunk) - 1))
    return " ".join(out)


# A single quote opens a quoted string only where no letter stands before it and closes
# one only where none follows: the apostrophes of "what's the plumber's number" quote nothing.
_QUOTED_RE = re.compile(r"\"([^\"]{1,200})\"|“([^”]{1,200})”|(?<!\w)'([^']{2,200})'(?!\w)")
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


class LazyPattern:
    """A regular expression compiled when first used, then used as the compiled pattern
    (its methods are kept on this object, so a later call looks nothing up twice).

    Compiling is what a fresh process pays for a module-level pattern whether or not it
    is ever used: the recall modules hold patterns for kinds of question (when, what
    time, whose, how many, which contact detail) that most recalls never ask, and a
    process runs one recall. Patterns that every recall uses gain nothing from this."""

    _METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        compiled = re.compile(*self._source)
        for method in self._METHODS:
            setattr(self, method, getattr(compiled, method))
        self.pattern, self.flags = compiled.pattern, compiled.flags
        return getattr(compiled, name)
