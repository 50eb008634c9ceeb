"""Spelling variants of a query term that the store's own vocabulary holds.

Stemming folds inflections (``caching``/``cache``, ``used``/``use``); related words it
cannot fold without a dictionary are met here instead, at query time,
and only when the index actually holds the other form:

* **identifier suffixes** — a term extended or shortened by one to three letters without
  a vowel: ``postgres`` ↔ ``postgresql``, ``mongo`` ↔ ``mongodb``. A vowel-free tail is
  how product names extend a root; a tail with a vowel makes another word
  (``form``/``format``, ``port``/``portal``), so it never counts.
* **derived nouns** — a verb of five letters or more and its ``-al``, ``-ion``,
  ``-ation`` or ``-ment`` noun: ``approv`` ↔ ``approval``, ``delet`` ↔ ``deletion``,
  ``deploy`` ↔ ``deployment``. A short table of look-alikes that are not derived from
  each other (``product``/``production``, ``quest``/``question``,
  ``depart``/``department``: :data:`NOT_DERIVED`) is left out.
* **compounds** — two adjacent query words written as one in the store: ``log in`` ↔
  ``login``, ``set up`` ↔ ``setup``.
* **abbreviations** — a short table of common written abbreviations and their long
  form (``db`` ↔ ``database``, ``prod`` ↔ ``production``, ``dr`` ↔ ``doctor``), both
  ways (:data:`ABBREVIATIONS`). A long form of several words (``pr`` → ``pull request``,
  ``e2e`` → ``end-to-end``) is a *phrase variant*, one way only: its terms joined by a
  space (:func:`is_phrase`), counted where a record holds them in that order, side by
  side (:func:`cairn.recall.score.lexical`), and used only when the store holds each.
* **instances of a kind** — the word a which/what question asks for, when
  :mod:`cairn.recall.kinds` knows it as a kind: ``databas`` ↔ ``postgresql``, ``redis``;
  ``pet`` ↔ ``cat``, ``tabby``. One way only (a record about Redis does not answer
  "what is our database" by holding the word), at most :data:`MAX_INSTANCES`.
* **everyday synonyms** — a short table of words people ask with for words they wrote
  (:data:`SYNONYMS`): ``price`` ↔ ``cost``, ``job`` ↔ ``work``, ``contact`` → ``manager``.
  Both ways unless marked one way; single words only; general English, not any store's words.
* **verbs of doing again** — ``reorder`` → ``order``, ``rebook`` → ``book`` (:data:`AGAIN`,
  a short list): the plain verb stands for the re- verb only in a store that never writes
  the re- verb, so a note saying "reorder" keeps that word's weight to itself.
* **irregular verb forms** — the base form of a common English verb and its irregular
  past forms, both ways (:data:`IRREGULAR`): ``make`` ↔ ``made``, ``pay`` ↔ ``paid``,
  ``choose`` ↔ ``chose``/``chosen``. Forms that are also common words of another sense
  (``left``, ``saw``, ``felt``, ``rose``, ``won``, ``led``) are left out.
* **a plural stemmed once** — the index holds "mornings" and "meetings" as ``morning``
  and ``meeting``, while "morning" and "meeting" are ``morn`` and ``meet``: an indexed
  word that stems to the query term, and the stem of a query term, are its variants.
* **agent nouns** — a verb and its ``-er`` noun: ``lint`` ↔ ``linter``, ``pars`` ↔
  ``parser``, ``format`` ↔ ``formatter``. Stems ending in ``m`` or ``n`` are left out:
  those ``-er`` words are mostly not agents (``customer``, ``container``, ``number``).

A variant counts as the query term itself (its postings, its occurrences), so the gates
see the term the user typed as present. Pure apart from the vocabulary lookups.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Protocol

from ..text import index_text, stem
from .kinds import instances
from .query import Feature, ParsedQuery

MIN_ROOT = 4  # shorter roots extend into too many unrelated words
MAX_TAIL = 3
MAX_VARIANTS = 4
MAX_INSTANCES = 12  # instances of an asked-for kind kept as its variants (those the store holds)
EXTENSIONS_READ = 64  # longer indexed forms read per term (one prefix read)
MIN_DERIVED_ROOT = 5  # port/portion, form/formation: four-letter roots derive other words
# approve/approval, delete/deletion, deploy/deployment, insure/insurance, refer/reference
# (index form: "insurance" is the term ``insuranc``)
DERIVED = ("al", "ion", "ation", "ment", "anc", "enc")
_VOWELS = frozenset("aeiouy")
# English words that look like a root plus -al/-ion/-ment but are not derived from it
# (production comes from produce, not product); general English, not any store's words.
NOT_DERIVED: frozenset[tuple[str, str]] = frozenset(
    (stem(a), stem(b)) for a, b in (
        ("product", "production"), ("process", "procession"), ("quest", "question"), ("champ", "champion"),
        ("convent", "convention"), ("profess", "profession"), ("person", "personal"), ("apart", "apartment"),
        ("depart", "department"), ("object", "objection"), ("increment", "incremental"),
        ("confer", "conference"), ("inherit", "inheritance"),
    )
)

# Common abbreviations of writing and of software work, short form -> long forms (words
# as typed; they are stemmed on use). Only forms the store holds are ever used.
_ABBREVIATED: dict[str, tuple[str, ...]] = {
    "db": ("database",), "prod": ("production",), "dev": ("development", "developer"),
    "env": ("environment",), "config": ("configuration",), "repo": ("repository",),
    "auth": ("authentication", "authorization"), "docs": ("documentation",), "doc": ("document",),
    "app": ("application",), "info": ("information",), "msg": ("message",), "pr": ("pull request",),
    "k8s": ("kubernetes",), "js": ("javascript",), "ts": ("typescript",), "py": ("python",),
    "dr": ("doctor",), "appt": ("appointment",), "dept": ("department",), "mgr": ("manager",),
    "approx": ("approximately",), "min": ("minute",), "mins": ("minutes",), "sec": ("second",),
    "hr": ("hour",), "hrs": ("hours",), "mon": ("monday",), "tue": ("tuesday",), "wed": ("wednesday",),
    "thu": ("thursday",), "fri": ("friday",), "sat": ("saturday",), "sun": ("sunday",),
    "tel": ("telephone",), "addr": ("address",), "ave": ("avenue",), "rd": ("road",),
    "e2e": ("end-to-end",), "ui": ("user interface",), "a11y": ("accessibility",),
    "i18n": ("internationalization", "internationalisation"), "l10n": ("localization", "localisation"),
    "faq": ("frequently asked questions",), "wfh": ("work from home",), "ooo": ("out of office",),
    "dpa": ("data processing agreement",), "nda": ("non-disclosure agreement",), "sla": ("service level agreement",),
    "crm": ("customer relationship management",), "sso": ("single sign-on",), "mfa": ("multi-factor authentication",),
    "2fa": ("two-factor authentication",), "arr": ("annual recurring revenue",), "mrr": ("monthly recurring revenue",),
    "qbr": ("quarterly business review",), "okr": ("objectives and key results",), "kpi": ("key performance indicator",),
    "poc": ("proof of concept",), "rfp": ("request for proposal",), "sow": ("statement of work",),
    "pto": ("paid time off",), "eod": ("end of day",), "eta": ("estimated time of arrival",),
    "roi": ("return on investment",), "gdpr": ("general data protection regulation",),
    "csat": ("customer satisfaction",), "nps": ("net promoter score",), "hq": ("headquarters",),
    "reg": ("registration",), "ref": ("reference",), "acct": ("account",), "pb": ("personal best",),
    "amt": ("amount",), "qty": ("quantity",), "yr": ("year",), "yrs": ("years",),
}


# Common irregular English verbs: base form, then its irregular past forms (words as typed;
# stemmed on use). General English, not any store's words; forms with another common
# sense are left out (see the module docstring).
_IRREGULAR_FORMS = """
make made; pay paid; buy bought; take took taken; write wrote written; keep kept; send sent;
choose chose chosen; give gave given; bring brought; sell sold; build built; spend spent;
lose lost; begin began begun; break broke broken; drive drove driven; eat ate eaten;
fly flew flown; forget forgot forgotten; grow grew grown; hear heard; know knew known;
lend lent; mean meant; ride rode ridden; say said; see seen; sit sat; sleep slept;
speak spoke spoken; stand stood; steal stole stolen; swim swam swum; teach taught;
throw threw thrown; understand understood; wake woke woken; wear wore worn; catch caught;
fight fought; feed fed; hide hid hidden; draw drew drawn; go went gone; get got gotten;
think thought; tell told; find found; hold held; meet met; run ran; sing sang sung;
drink drank drunk; ring rang rung; shake shook shaken; forgive forgave forgiven
"""


# Everyday synonyms: each line a group of words (as typed, stemmed on use) that a question
# and a note use for one another. "a > b c" is one way: a question's "a" meets a note's
# "b" or "c", not the reverse ("who is my contact at Kessler" is answered by "the project
# manager is Dagmar", while a question about the manager is not answered by any contact).
# Kept to words that, in a question about someone's notes, mean the same thing; a word
# with another common sense is left out (or made one way).
_SYNONYM_GROUPS = """
price cost; fee charge; job work; boss manager; deadline due; holiday vacation; ill sick;
buy purchase; begin start; kid child; kids children; laptop notebook; doctor physician;
email mail; allergy allergic; home house; trip travel; customer client; employee staff;
pay payment; salary > pay wage; leave > churn; wage > salary pay; spouse > husband wife partner; phone > mobile cell;
apartment > flat; contact > manager representative rep liaison coordinator; ring > call phone;
representative > agent; arrive > deliver delivery
"""


# Verbs of doing again, and what is done ("reorder flour" is about how flour is ordered):
# the plain verb stands for the re- verb only in a store that never writes the re- verb,
# so a note that says "reorder" keeps its word to itself. A short list, not a prefix rule:
# "return", "refund", "remove", "record" are no turn, fund, move or cord again.
_AGAIN_VERBS = """reorder rebook reschedule rerun resend resubmit restock refill reopen restart reinstall
    rebuild redeploy reprint reapply recheck reconnect reupload retrain retest"""
AGAIN: dict[str, str] = {stem(word): stem(word[2:]) for word in _AGAIN_VERBS.split()}
"""Term of a verb of doing again -> term of the plain verb (index form)."""


def _synonyms() -> dict[str, tuple[str, ...]]:
    table: dict[str, list[str]] = {}
    for entry in _SYNONYM_GROUPS.split(";"):
        head, way, rest = entry.partition(">")
        if way:
            table.setdefault(stem(head.strip()), []).extend(stem(w) for w in rest.split())
            continue
        forms = list(dict.fromkeys(stem(word) for word in entry.split()))
        for form in forms:
            table.setdefault(form, []).extend(f for f in forms if f != form)
    return {k: tuple(v for v in dict.fromkeys(vs) if v != k) for k, vs in table.items() if vs}


SYNONYMS: dict[str, tuple[str, ...]] = _synonyms()
"""Term -> the terms that stand for it (index form; see :data:`_SYNONYM_GROUPS`)."""


def _irregular() -> dict[str, tuple[str, ...]]:
    table: dict[str, list[str]] = {}
    for entry in _IRREGULAR_FORMS.split(";"):
        forms = list(dict.fromkeys(stem(word) for word in entry.split()))
        for form in forms:
            table.setdefault(form, []).extend(f for f in forms if f != form)
    return {k: tuple(dict.fromkeys(v)) for k, v in table.items() if v}


IRREGULAR: dict[str, tuple[str, ...]] = _irregular()
"""Term -> the other forms of the same irregular verb (index form, both ways)."""


def _abbreviations() -> dict[str, tuple[str, ...]]:
    table: dict[str, list[str]] = {}
    for short, longs in _ABBREVIATED.items():
        for long in longs:
            a, b = stem(short), index_text(long)
            table.setdefault(a, []).append(b)
            if not is_phrase(b):
                table.setdefault(b, []).append(a)  # a phrase is no single term to look up
    return {k: tuple(dict.fromkeys(v)) for k, v in table.items()}


def is_phrase(term: str) -> bool:
    """A phrase variant: several index terms joined by a space (no single term holds one)."""
    return " " in term


def held(term: str, vocabulary: Vocabulary) -> bool:
    """The store holds ``term``, or each word of a phrase variant."""
    return all(vocabulary.df(t) for t in term.split()) if is_phrase(term) else bool(vocabulary.df(term))


ABBREVIATIONS: dict[str, tuple[str, ...]] = _abbreviations()
"""Term -> terms it abbreviates or is abbreviated by (index form, both ways)."""


class Vocabulary(Protocol):
    def df(self, term: str) -> int: ...

    def extensions(self, prefix: str, limit: int) -> list[str]:
        """Indexed terms that start with ``prefix`` and are longer, at most ``limit``."""
        ...


def _tail_ok(tail: str) -> bool:
    return 1 <= len(tail) <= MAX_TAIL and tail.isalpha() and not set(tail) & _VOWELS


def variants(term: str, vocabulary: Vocabulary) -> tuple[str, ...]:
    """Other indexed spellings of ``term`` (see the module docstring), at most four.

    Cost: one prefix read of the vocabulary (every longer form starts with the term)
    and a few exact look-ups for the shorter forms."""
    found: list[str] = [t for t in ABBREVIATIONS.get(term, ()) if held(t, vocabulary)]
    found += [t for t in IRREGULAR.get(term, ()) if vocabulary.df(t)]
    found += [t for t in SYNONYMS.get(term, ()) if vocabulary.df(t)]
    if term in AGAIN and not vocabulary.df(term) and vocabulary.df(AGAIN[term]):
        found.append(AGAIN[term])
    if len(term) < MIN_ROOT or not term.isascii() or not term.isalpha():
        return tuple(found)
    agent = term[-1] not in "mn" and term[-1] not in _VOWELS
    for longer in vocabulary.extensions(term, EXTENSIONS_READ):
        tail = longer[len(term) :]
        if (
            _tail_ok(tail)
            or stem(longer) == term  # an indexed form the stemmer folds once more (see _shorter)
            or (agent and tail in ("er", term[-1] + "er"))
            or (len(term) >= MIN_DERIVED_ROOT and tail in DERIVED and (term, longer) not in NOT_DERIVED)
        ):
            found.append(longer)
    found += [r for r in _shorter(term) if vocabulary.df(r)]
    return tuple(dict.fromkeys(v for v in found if v != term))[:MAX_VARIANTS]


# Consonant clusters that end English words ("weekend", "forest", "report"): cut from a
# word, they leave a stem of another word, not an identifier's root.
_WORD_ENDINGS = frozenset("""nd st rt ng ck ll ss th ch sh ct ft lt mp nt pt rd rk rm rn sk sp wn ld lk nk rst
    nst rch nch rth ght""".split())


@lru_cache(maxsize=4096)
def _shorter(term: str) -> tuple[str, ...]:
    """The shorter forms of ``term`` that are variants when the index holds them (a pure
    function of the term, stemming included: kept for the recently asked terms)."""
    # The index keeps a word stemmed once: "mornings" is indexed as ``morning``, while
    # "morning" is ``morn``; the two forms of one word meet both ways.
    again = stem(term)
    shorter: list[str] = [again] if again != term and len(again) >= MIN_ROOT else []
    for cut in range(1, MAX_TAIL + 1):
        root = term[:-cut]
        if len(root) >= MIN_ROOT and _tail_ok(term[-cut:]):
            shorter.append(root)
            if cut > 1 and term[-cut:] not in _WORD_ENDINGS:
                # the stored word is in index form: postgresql -> postgres -> postgr; but a
                # word's own ending is no suffix ("weekend" is no "week", stemmed "weeke")
                shorter.append(stem(root))
    for tail in DERIVED:
        root = term[: -len(tail)]
        if term.endswith(tail) and len(root) >= MIN_DERIVED_ROOT and (root, term) not in NOT_DERIVED:
            shorter.append(root)
    if term.endswith("er") and len(term) - 2 >= MIN_ROOT:
        root = term[:-2]
        for verb in (root, root[:-1] if root[-1] == root[-2] else ""):
            if verb and verb[-1] not in "mn":
                shorter.append(verb)
    return tuple(r for r in dict.fromkeys(shorter) if r != term)


def lookups(query: ParsedQuery) -> list[str]:
    """Every term whose document frequency :func:`expand` may ask about, so that a store
    can read them in one go beforehand (a term left out is only asked on its own)."""
    wanted: list[str] = []
    for f in query.features:
        wanted.append(f.term)
        if not (f.literal or f.numeric or f.cjk):
            wanted += [w for t in ABBREVIATIONS.get(f.term, ()) for w in t.split()] + list(_shorter(f.term))
            wanted += IRREGULAR.get(f.term, ()) + SYNONYMS.get(f.term, ())
            if f.term in AGAIN:
                wanted.append(AGAIN[f.term])
        if f.kind:
            wanted += [w for t in instances(f.kind) for w in t.split()]
    for run in query.runs:
        wanted += [stem(a + b) for a, b in zip(run, run[1:], strict=False) if a.isalpha() and b.isalpha()]
    return list(dict.fromkeys(wanted))


def expand(query: ParsedQuery, vocabulary: Vocabulary) -> ParsedQuery:
    """``query`` with the variants of each word feature filled in (literals excepted:
    a typed literal means exactly that spelling)."""
    joined = _compounds(query, vocabulary)
    features = tuple(
        f
        if f.literal or f.numeric or f.cjk
        else _with_variants(f, _of(f.term, f.surface, vocabulary) + joined.get(f.surface, ()) + _instances(f, vocabulary))
        for f in query.features
    )
    if all(a is b for a, b in zip(features, query.features, strict=True)):
        return query  # no word has a variant: the query as it was (dataclasses.replace costs µs a call)
    return replace(query, features=features)


def _instances(feature: Feature, vocabulary: Vocabulary) -> tuple[str, ...]:
    """The instances of the kind ``feature`` asks for that the store holds ("which
    *database*": ``postgresql``, ``redis``), at most :data:`MAX_INSTANCES`."""
    if not feature.kind:
        return ()
    return tuple(i for i in instances(feature.kind) if i != feature.term and held(i, vocabulary))[:MAX_INSTANCES]


def _with_variants(feature: Feature, found: tuple[str, ...]) -> Feature:
    """``feature`` with ``found`` as its variants; the same object when they do not change."""
    return feature if found == feature.variants else replace(feature, variants=found)


def _compounds(query: ParsedQuery, vocabulary: Vocabulary) -> dict[str, tuple[str, ...]]:
    """Surface word -> the indexed compound it opens with the next word (``log in`` ->
    ``login``)."""
    out: dict[str, tuple[str, ...]] = {}
    for run in query.runs:
        for first, second in zip(run, run[1:], strict=False):
            if first.isalpha() and second.isalpha():
                joined = stem(first + second)
                if vocabulary.df(joined):
                    out[first] = (*out.get(first, ()), joined)
    return out


def _of(term: str, surface: str, vocabulary: Vocabulary) -> tuple[str, ...]:
    """Variants of the term and of the word as typed: stemming may have cut what an
    identifier suffix extends (``postgres`` is the term ``postgr``, ``postgresql`` is not)."""
    found = variants(term, vocabulary)
    if surface != term and surface.isascii() and surface.isalpha() and len(surface) >= MIN_ROOT:
        # only the identifier extensions of the typed word: its other forms are the term's
        extra = [v for v in vocabulary.extensions(surface, EXTENSIONS_READ) if _tail_ok(v[len(surface) :])]
        found += tuple(v for v in extra if v not in found)
    return tuple(v for v in found if v != term)[:MAX_VARIANTS]
