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
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import pairwise
from typing import NamedTuple

from ..errors import InvalidInput
from ..text import MONTH_WORDS, STOPWORDS, LazyPattern, Token, literals, normalize, stem, tokenize
from .kinds import kind_of

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
    "多少 什么 怎么 哪个 哪里 为什么 如何 tell know remember remind recall said say per still".split()
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

# Question words: how a question is phrased, never what it is about. "how long",
# "what version", "which region", "how big", "how should X be formatted", "what do we use
# for", "what does X like" (the answer may say loves, prefers, favourite): none of these
# words has to appear in the answer, so none is a named subject or a mandatory
# attribute. They stay features (a record holding them scores a little more);
# their coverage weight is the common-word prior of cairn.recall.score.
QUESTION: frozenset[str] = frozenset(
    stem(word)
    for word in """
    long big small large many much often time times date day days when version versions region
    size type kind sort way ways name named number format formatted formatting use used using
    work works working need needs needed want wanted should must happen happens happened
    mean means called call supposed best right correct good usual usually exactly again
    ask asked find found show look looking check tell told
    like likes liked love loves prefer prefers preferred favourite favorite enjoy enjoys
    include includes included available living
    """.split()
)

# "which database for billing": the word after which/what names the kind of answer
# wanted, and the answer is usually an instance of it ("Use PostgreSQL 16 for billing")
# that does not repeat the kind. It is phrasing for the gates (never mandatory, weighed
# as a common word in coverage) and a feature like any other for scoring.
WH_DETERMINERS: frozenset[str] = frozenset({"which", "what", "whose"})

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
    variants: tuple[str, ...] = ()  # other indexed spellings (cairn.recall.variants), set by a lane
    surface: str = ""  # the word as typed (normalised, unstemmed): "postgres" of the term "postgr"
    answer_type: bool = False  # the noun after which/what: names the kind of answer, not the topic
    kind: str = ""  # that noun (with its modifier when the pair is a kind) when the kinds table knows it
    asked: bool = False  # "what tea do I *drink*": the asker's verb for how the thing asked for is had


class Literal(NamedTuple):
    """A literal fragment of the query and the match terms it consists of."""

    text: str
    terms: tuple[str, ...]
    strict: bool  # quoted strings and paths must be present; numbers only weigh more


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    """A query as recall reads it: its weighted terms, literals, word runs and what it asks for."""

    text: str
    features: tuple[Feature, ...]
    literals: tuple[Literal, ...]
    runs: tuple[tuple[str, ...], ...]  # whitespace word runs (normalised), for the phrase bonus
    subject: str | None  # the named subject of a short query (a term), or None
    attributes: tuple[str, ...]  # terms the answer must also hold when subject is set
    # the kinds asked for (answer-type terms) of a question that asks about something else
    # too: a record holding only these holds the type of the answer, not its topic
    kinds: frozenset[str] = frozenset()
    # the which/what words the kinds table knows (cairn.recall.kinds), asked for or the
    # topic itself: the answer names the kind or one of its listed instances
    known_kinds: frozenset[str] = frozenset()
    # "how much / how many": the answer is a quantity, so it holds a number
    quantity: bool = False
    # "how many *words* ...": the stem of the thing counted ("" when none is named)
    counted: str = ""
    # "which dbt version are we on": the answer is a version, and a version is written
    # with digits ("dbt 1.7", "Node 20", "API v2")
    version: bool = False
    # "who is head of *the science department*": a thing the question names by a word
    # before its noun, as (modifier, noun) terms (:func:`qualified_nouns`)
    qualified: tuple[tuple[str, str], ...] = ()
    # "what is Kenji's phone number", "Mia's email address", "the staging API url": the
    # answer is a contact detail of that form ("phone", "email", "url"; "" for none)
    detail: str = ""
    # "when does the Salesforce sync run", "what time is standup", "how often": the answer
    # is a time, a day or a frequency
    when: bool = False
    # "what time do we open", "at what time does the coach leave": the answer is a clock time
    clock: bool = False
    # "does my gym have *a pool*": the term of the thing asked whether one has ("" for none)
    had: str = ""
    # "who *cleans* the *windows*": the verb of a who-question and the terms of the thing it
    # is done to ("" and () for none; :func:`who_does`)
    doing: str = ""
    done_to: frozenset[str] = frozenset()

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


_SENTENCE_END_RE = LazyPattern(r"(?<=[.!?。？！])\s+|\n+")


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
    question = _WH_START_RE.match(text) is not None
    lits = tuple(_literal(fragment, question) for fragment in literals(text))
    # A tracker key (INC-2291) is a demand like a quoted string: a record that lacks it is
    # about another ticket, however well the rest of the question matches.
    keys = tuple(_literal(m.group(0)) for m in _IDENTIFIER_RE.finditer(unicodedata.normalize("NFKC", text)))
    lits += tuple(k for k in keys if k.terms and k.text not in {lit.text for lit in lits})
    literal_terms = {t for lit in lits for t in lit.terms}
    features: dict[str, Feature] = {}
    tokens = tokenize(text)
    heads = _answer_types(tokens)
    for token in tokens:
        if token.stop or token.term in FRAMING or token.term in features:
            continue
        is_literal = token.term in literal_terms
        features[token.term] = Feature(
            term=token.term,
            weight=LITERAL_WEIGHT if is_literal else 1.0,
            literal=is_literal,
            numeric=bool(_NUMERIC_RE.match(token.term)),
            cjk=token.cjk,
            surface=token.surface,
            answer_type=token.position in heads and not is_literal,
            kind=heads.get(token.position, "") if not is_literal else "",
        )
    feats = tuple(features.values())
    if _WHO_START_RE.match(text):
        # "who's the water company", "who is our energy supplier": the word names what
        # kind of answer is wanted (a firm, a person), not a thing the note must repeat.
        feats = tuple(replace(f, answer_type=True) if f.term in _WHO_TYPES and not f.literal else f for f in feats)
    if not any(not f.answer_type and not f.numeric and f.term not in QUESTION for f in feats):
        # "what ORM do we use": with no other topic word, the kind asked for is the topic.
        feats = tuple(replace(f, answer_type=False) for f in feats)
    verbs = asking_verbs(text)
    if verbs and any(f.answer_type for f in feats):
        # "what tea do I drink": the question asks for a thing, and the verb is how the
        # asker says it is had; in "how do we merge pull requests" the verb is the topic.
        feats = tuple(replace(f, asked=True) if f.term in verbs and not f.literal else f for f in feats)
    subject, attributes = _named(text, feats, verbs)
    kinds = frozenset(f.term for f in feats if f.answer_type)
    known = frozenset(f.term for f in feats if f.kind)
    found = _QUANTITY_RE.search(text)
    counted = stem(found.group(1).casefold()) if found and found.group(1) else ""
    runs = _runs(text)
    doing, done_to = who_does(text, feats)
    return ParsedQuery(text, feats, lits, runs, subject, attributes, kinds, known, found is not None, counted,
                       _VERSION_RE.search(text) is not None, qualified_nouns(text, runs, feats), detail_asked(text),
                       _WHEN_ASKED_RE.search(text) is not None, _CLOCK_ASKED_RE.search(text) is not None,
                       had_asked(text, feats), doing, done_to)


def _topic(features: tuple[Feature, ...]) -> set[str]:
    """The terms of what a question is about: not the kind of answer it asks for, not its
    phrasing (question words, generic words, the asker's verb), not a number."""
    return {f.term for f in features
            if not f.answer_type and not f.asked and not f.numeric and f.term not in QUESTION and f.term not in GENERIC}


# "does my gym have a pool", "do we have a lifetime premium plan": whether something has a
# thing, named by up to four words after "a", "an" or "any"; the last of them names it.
_HAVE_A_RE = re.compile(r"^\s*(?:does|do|did)\s+\S.*?\s+have\s+(?:a|an|any)\s+((?:[^\W\d_]+\s+){0,3}[^\W\d_]+)\s*\??\s*$",
                        re.IGNORECASE)


def had_asked(text: str, features: tuple[Feature, ...]) -> str:
    """The term of the thing a question asks whether something has ("does my gym have *a
    pool*"), or "". Without an article ("does the carrot cake have nuts") the thing may be
    met in other words ("walnuts"), so no such question has one."""
    found = _HAVE_A_RE.match(unicodedata.normalize("NFKC", text))
    if found is None:
        return ""
    head = [t.term for t in tokenize(found.group(1).split()[-1])]
    return head[-1] if head and head[-1] in _topic(features) else ""


# "who cleans the windows", "who services the dental chairs": who does something (the verb
# after "who") to a thing (the words after a determiner, to the end of the question).
_WHO_DOES_RE = re.compile(
    r"^\s*who\s+([^\W\d_]+)\s+(?:the|our|my|your|his|her|their|its|a|an)\s+([^?]+?)\s*\??\s*$", re.IGNORECASE
)


def who_does(text: str, features: tuple[Feature, ...]) -> tuple[str, frozenset[str]]:
    """The verb term of "who VERBs the THING" and the terms of the thing, or ("", ()) when
    the question is not of that form ("who is our plumber": "is" does nothing)."""
    found = _WHO_DOES_RE.match(unicodedata.normalize("NFKC", text))
    if found is None:
        return "", frozenset()
    topic = _topic(features)
    verb = [t.term for t in tokenize(found.group(1)) if not t.stop]
    thing = frozenset(t.term for t in tokenize(found.group(2)) if t.term in topic)
    if len(verb) != 1 or verb[0] not in topic or not thing or verb[0] in thing:
        return "", frozenset()
    return verb[0], thing


_WHO_START_RE = re.compile(r"\s*who(?:['’]s|m)?\b", re.IGNORECASE)
# Words a who-question names the kind of its answer with.
_WHO_TYPES = frozenset(stem(w) for w in """company firm supplier provider person people guy contractor agency
    business organisation organization""".split())


# "how much does the storage box cost", "how many seats": a question for a quantity, and
# the word after "how many" names what is counted.
_QUANTITY_RE = re.compile(r"\bhow\s+(?:much|many(?:\s+([^\W\d_]+))?)\b", re.IGNORECASE)
# What states a quantity in a record: a digit, or a number or amount in words ("one
# approval", "five seeds", "a dozen", "twice", "free", "no VAT").
_NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred hundreds "
    "thousand thousands million millions billion dozen dozens half quarter once twice double triple single "
    "no none free unlimited nothing all every each both several few".split()
)
_DIGIT_RE = re.compile(r"\d")
# "what version of react native", "which node version", "what Python version": a question
# for a version (up to three words after which/what, or "version of").
_VERSION_RE = re.compile(r"\b(?:what|which)(?:['’]s)?(?:\s+[\w-]+){0,3}?\s+versions?\b|\bversions?\s+of\b", re.IGNORECASE)


# A question, as opposed to a topic typed as keywords: it opens with a wh-word.
_WH_START_RE = re.compile(r"\s*(?:who|what|when|where|which|whose|how)\b", re.IGNORECASE)
# A contact detail asked for, and the form every such detail is written in.
_DETAILS_ASKED: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("phone", re.compile(r"\b(?:phone|mobile|cell|telephone)\s+(?:number|no\b|#)", re.IGNORECASE)),
    ("email", re.compile(r"\be-?mail\s+address", re.IGNORECASE)),
    # "website" alone is a topic ("website netlify": where the site is deployed), not its address
    ("url", re.compile(r"\b(?:urls?|web\s+address|website\s+address)\b", re.IGNORECASE)),
)
_DETAIL_FORMS: dict[str, LazyPattern] = {
    "phone": LazyPattern(r"\d(?:[\s().-]?\d){3,}"),  # four digits or more ("ends in 4411")
    "email": LazyPattern(r"[\w.+-]+@[\w-]+\.\w"),
    "url": LazyPattern(r"https?://|www\.|\b[\w-]+\.(?:com|org|net|io|app|dev|co|uk|de|fr|eu|ai|me|info)\b",
                       re.IGNORECASE),
}


_YEAR_ALONE_RE = re.compile(r"(?:19|20)\d\d")


def detail_asked(text: str) -> str:
    """The contact detail a question asks for ("phone", "email", "url"), or "". Only a
    question asks for one: "what's the staging API url" does, while "API versioning
    decision URL path" names a topic."""
    if not _WH_START_RE.match(text):
        return ""
    for name, pattern in _DETAILS_ASKED:
        if pattern.search(text):
            return name
    return ""


def states_detail(detail: str, text: str) -> bool:
    """Whether ``text`` holds a contact detail of the form ``detail`` names: a phone number
    (four digits or more: a note may hold only its end; a year alone is none), an email
    address, a web address."""
    if detail != "phone":
        return _DETAIL_FORMS[detail].search(text) is not None
    # A year on its own ("renewal in March 2027") is four digits and no phone number.
    return any(not _YEAR_ALONE_RE.fullmatch(found.group(0)) for found in _DETAIL_FORMS[detail].finditer(text))


def states_version(text: str) -> bool:
    """Whether ``text`` can state a version: it holds a digit."""
    return _DIGIT_RE.search(text) is not None


def states_quantity(text: str) -> bool:
    """Whether ``text`` states a number or an amount (digits, or a number word)."""
    if _DIGIT_RE.search(text):
        return True
    return any(word.casefold() in _NUMBER_WORDS for word in _WORD_RE.findall(text))


# A question for a time: "when ...", "what time", "what day", "how often".
_WHEN_ASKED_RE = re.compile(r"^\s*when\b|\b(?:what|which)\s+(?:time|day|date)\b|\bhow\s+often\b", re.IGNORECASE)
# What states a time in a record: a clock time ("02:00", "7pm"), a frequency ("nightly",
# "every 4 hours"), a weekday, a month, a relative day.
_TIME_RE = LazyPattern(
    r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm)\b|\b(?:nightly|daily|weekly|fortnightly|monthly|hourly|yearly|annually)\b"
    r"|\bevery\s+(?:\d+\s+|other\s+)?(?:minute|hour|day|night|morning|evening|week|month|quarter|year)s?\b"
    r"|\b(?:today|tonight|tomorrow|yesterday|mon|tues|wednes|thurs|fri|satur|sun)(?:day)?s?\b"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b"
    r"|\b(?:within|after|before|in)\s+\d{1,3}\s+(?:day|week|month|year)s?\b"
    r"|\b\d{1,3}\s+(?:day|week|month|year)s?\s+(?:net|after|before|from|ahead|later|early|notice)\b"
    r"|(?<![\w.-])(?:19|20)\d{2}(?![\w.-])",
    re.IGNORECASE,
)
_MONTH_NAMES = frozenset(MONTH_WORDS) | {"sept"}
_MONTH_STEMS = frozenset(name[:3] for name in _MONTH_NAMES)


# A question for a clock time, and what states one: "7:30", "8am", "noon", "half past six".
_CLOCK_ASKED_RE = re.compile(r"\b(?:what|which)\s+time\b", re.IGNORECASE)
_CLOCK_RE = LazyPattern(
    r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm|a\.m\.|p\.m\.)(?!\w)|\b(?:noon|midday|midnight|o['’]clock)\b"
    r"|\b(?:half|quarter)\s+(?:past|to)\b",
    re.IGNORECASE,
)


# A capitalised word that does not open a sentence: a name ("Dr Lindqvist", "Direct Line").
_INNER_CAPITAL_RE = LazyPattern(r"(?<![.!?:;]\s)(?<!^)\b[A-Z][a-z]+")
_NOT_NAMES = frozenset(m.capitalize() for m in MONTH_WORDS) | frozenset(
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday I".split())


def names_someone(text: str) -> bool:
    """Whether ``text`` names someone: a capitalised word inside a sentence that is no
    month or weekday ("Fridays" neither)."""
    return any(w not in _NOT_NAMES and w.removesuffix("s") not in _NOT_NAMES
               for w in (m.group(0) for m in _INNER_CAPITAL_RE.finditer(text)))


def states_clock(text: str) -> bool:
    """Whether ``text`` states a clock time."""
    return _CLOCK_RE.search(text) is not None


def states_time(text: str) -> bool:
    """Whether ``text`` states a time, a day or a frequency."""
    for match in _TIME_RE.finditer(text):
        word = match.group(0).casefold()
        if word[0].isalpha() and word[:3] in _MONTH_STEMS and word not in _MONTH_NAMES:
            continue  # "market", "junior": not a month
        if word == "may" and not match.group(0).startswith("M"):
            continue  # the verb
        return True
    return False


# "when does salesforce *load*", "how often does the orders data *sync*": the question's
# last word after an auxiliary is its verb, how the asker says what happens.
_LAST_VERB_RE = LazyPattern(r"\b(?:do|does|did|will|would|should|can)\s+\S.*?\s([^\W\d_]+)\W*$", re.IGNORECASE)


def closing_verb(text: str) -> str:
    """The term of the verb that closes a question after an auxiliary and its subject
    ("when does salesforce *load*"), or ""."""
    found = _LAST_VERB_RE.search(text)
    return stem(found.group(1).casefold()) if found else ""


def states_form(query: ParsedQuery, text: str) -> bool | None:
    """Whether ``text`` states what the question asks for in the form that answer takes —
    a time, a quantity, a version, a contact detail —, or None when it asks for no form."""
    if query.detail:
        return states_detail(query.detail, text)
    if query.version:
        return states_version(text)
    if query.quantity:
        return counts(text, query.counted) if query.counted else states_quantity(text)
    if query.clock:
        return states_clock(text)
    if query.when:
        return states_time(text)
    return None


def counts(text: str, counted: str) -> bool:
    """Whether ``text`` states a count of the thing ``counted`` names: a number right before
    the word ("about 2,500 *words* a day", "30 seats", "two nights")."""
    for match in _COUNT_RE.finditer(text):
        number, word = match.group(1), match.group(2).casefold()
        if (number[0].isdigit() or number.casefold() in _NUMBER_WORDS) and stem(word) == counted:
            return True
    return False


_COUNT_RE = LazyPattern(r"\b(\d[\d,.]*|[^\W\d_]+)\s+(?=([^\W\d_]+))")  # overlapping pairs


def _answer_types(tokens: list[Token]) -> dict[int, str]:
    """Positions of the head word of each which/what phrase — the last word of the run of
    content words right after the wh-word ("which ticketing *tool*", "which *database*
    for billing") — each with the kind it names in :mod:`cairn.recall.kinds` ("" when the
    table does not know it; "cloud provider" is a kind of its own, "provider" is not)."""
    heads: dict[int, str] = {}
    for i, token in enumerate(tokens):
        if token.surface not in WH_DETERMINERS:
            continue
        start = i + 1
        copula = _copula_end(tokens, start)
        j = start = copula or start
        while j < len(tokens) and not tokens[j].stop and not tokens[j].cjk and j - start < 3:
            j += 1
        if j > start:
            head = tokens[j - 1].term
            modifier = tokens[j - 2].term if j - 2 >= start else None
            kind = kind_of(head, modifier)
            if kind or not copula:
                # "what is our *database*" asks for an instance as "what database" does; a
                # head the kinds table does not know stays a topic word after a copula
                # ("what is the *deadline* for the grant").
                heads[tokens[j - 1].position] = kind
                if " " in kind:
                    # "which *test* framework": the modifier is part of a kind of two words,
                    # asked for with it, not a topic of its own that the answer must repeat.
                    heads[tokens[j - 2].position] = kind
    heads.update(_used_for(tokens))
    return heads


_USING = frozenset("use uses used using".split())


def _used_for(tokens: list[Token]) -> dict[int, str]:
    """"what do we use for *CI* builds", "which do we use for the *database*": the thing
    used is an instance of the kind named after "use for", when the kinds table knows
    it (a word it does not know stays a topic: "what do we use for orchestration" is
    answered by a note that says orchestration)."""
    words = [t.surface for t in tokens]
    if not words or words[0] not in ("what", "which"):
        return {}
    for i in range(1, len(words) - 1):
        if words[i] in _USING and words[i + 1] == "for":
            j = i + 2
            while j < len(tokens) and tokens[j].surface in _DETERMINERS:
                j += 1
            for end in (j + 2, j + 1):  # a kind of two words first ("ci system"), then one
                if end <= len(tokens) and all(not t.stop and not t.cjk for t in tokens[j:end]):
                    head = tokens[end - 1].term
                    modifier = tokens[end - 2].term if end - 2 >= j else None
                    kind = kind_of(head, modifier) if end - j == 2 else kind_of(head)
                    if kind and (end - j == 1 or " " in kind):
                        return {t.position: kind for t in tokens[j:end]}
            return {}
    return {}


_COPULA = frozenset("is are was were s".split())
_DETERMINERS = frozenset("the our my your his her their its a an".split())


def _copula_end(tokens: list[Token], start: int) -> int:
    """The position after "is our", "'s the", "are the" at ``start`` (a copula, then a
    determiner), or 0 when the words there are not that."""
    if start + 1 < len(tokens) and tokens[start].surface in _COPULA and tokens[start + 1].surface in _DETERMINERS:
        return start + 2
    return 0


def _literal(fragment: str, question: bool = False) -> Literal:
    terms = tuple(t.term for t in tokenize(fragment) if not t.stop)
    text = fragment.strip().casefold()
    # A number only weighs more ("a 20% discount", "on 28 December", "upgrade to 3.11": the
    # value to move to, the notes may name the one in use); a dotted one that a question
    # asks about names one version ("when is 4.0 coming out", "what's going into 3.9").
    numeric = bool(_NUMERIC_RE.match(text)) and not (question and _DOTTED_RE.match(text))
    return Literal(fragment, terms, strict=not numeric and bool(terms))


_DOTTED_RE = LazyPattern(r"^v?\d+(?:\.\d+)+$")


# Words that open a noun phrase: a determiner or a preposition before "science department"
# makes "science" a modifier of the noun, where "do I *send* invoices" makes it a verb.
_PHRASE_OPENERS = frozenset(
    "the a an our my your their his her its this that these those for of in at on with from about".split()
)


def qualified_nouns(text: str, runs: tuple[tuple[str, ...], ...], features: tuple[Feature, ...]) -> tuple[tuple[str, str], ...]:
    """The things a question asking who/what/when/where/which/how names by a modifier and a
    noun after a determiner or a preposition ("the *science department*", "my *eye test*",
    "for the *marketing dashboard*"), as (modifier, noun) terms, both topic words of the
    question; or by a noun and its number ("for *year 11*"), as (noun, number). A yes/no
    question ("is SSO included in the Business plan") has none: its answer may well be
    about another plan."""
    if not _WH_START_RE.match(text):
        return ()
    topic = {f.term for f in features if not f.numeric and f.term not in QUESTION and f.term not in GENERIC}
    out: list[tuple[str, str]] = []
    for run in runs:
        for opener, first, second in zip(run, run[1:], run[2:], strict=False):
            if opener not in _PHRASE_OPENERS or not first.isalpha():
                continue
            if _NUMBER_RE.match(second):
                # "for year 11", "in room 4": the number names which one
                if stem(first) in topic:
                    out.append((stem(first), second))
                continue
            pair = (stem(first), stem(second))
            if second.isalpha() and pair[0] in topic and pair[1] in topic and pair[0] != pair[1]:
                out.append(pair)
    # "on flat A", "plan B": a capital letter after a noun names which one, as a number does
    out += [(noun, letter) for noun, letter in labels(text) if noun in topic]
    return tuple(dict.fromkeys(out))


# A noun and a capital letter that labels it ("Flat B", "plan C", "Building A"); not the
# pronoun "I", and not a letter that opens a word ("A-level") or a possessive ("B's").
_LABEL_RE = re.compile(r"\b([^\W\d_]{3,})\s+([A-HJ-Z])\b(?![\w'’-])")


def labels(text: str) -> list[tuple[str, str]]:
    """(noun term, letter) of each noun labelled by a capital letter in ``text``."""
    return [(stem(noun.casefold()), letter.casefold()) for noun, letter in _LABEL_RE.findall(text)]


def is_label(term: str) -> bool:
    """Whether a qualified pair's second item names which one: a number or a letter."""
    return term.isdigit() or (len(term) == 1 and term.isalpha())


_NUMBER_RE = re.compile(r"^\d{1,4}$")


@lru_cache(maxsize=4096)
def word_pairs(text: str) -> tuple[tuple[str, str], ...]:
    """Adjacent word pairs of ``text`` as terms (stopwords left out of neither; punctuation
    between two words breaks the pair): what stands right before each word of a note."""
    out: list[tuple[str, str]] = []
    for piece in _RUN_SPLIT_RE.split(normalize(text)):
        words = [w for w in piece.split() if w]
        out.extend((a if a in STOPWORDS else stem(a), stem(b)) for a, b in pairwise(words))
    return tuple(out)


def _runs(text: str) -> tuple[tuple[str, ...], ...]:
    """Runs of whitespace-separated words; punctuation between words breaks a run."""
    out: list[tuple[str, ...]] = []
    for piece in _RUN_SPLIT_RE.split(normalize(text)):
        words = tuple(w for w in piece.split() if w)
        if len(words) >= 2:
            out.append(words)
    return tuple(out)


def _named(text: str, features: tuple[Feature, ...], asked: set[str]) -> tuple[str | None, tuple[str, ...]]:
    """The named subject and attributes of a short query, or ``(None, ())``.

    Applies to at most four features. Question words (:data:`QUESTION`) are phrasing,
    never subject nor attribute. Numbers are never subjects (they are often the
    replacement value being asked about) and, like generic status words, never mandatory.
    A word written with inner capitals or digits (``SQLite``, ``PostgreSQL``, ``k8s``)
    names the subject, and so does a name written with capitals inside the question
    ("is *Mia* allergic", "at *Bolt Retail*"); without one, a possessive ("Omar's doctor") names it, or a bare
    two-word keyword pair is read as subject and attribute, the first word being the
    subject (English modifiers come first: "sqlite authentication"). Two such names make
    the subject ambiguous: no rule.
    """
    if not 2 <= len(features) <= NAMED_RULE_MAX_FEATURES:
        return None, ()
    if _IDENTIFIER_RE.search(text):
        # "what caused INC-2291": a key such as a ticket or incident number names one
        # thing, and the question's other words ask about it in any words ("caused" for
        # "because"). The key itself is a strict literal (parse_query): nothing else is
        # mandatory.
        return None, ()
    eligible = _eligible(features, asked)
    if len(eligible) < 2:
        return None, ()
    names = _name_like(text)
    named = [t for t in eligible if t in names]
    written = _written_name(text, eligible)
    if written and not set(named) - set(written):
        # "is Mia allergic to anything", "who is our contact at Bolt Retail": a name written
        # with capitals inside the question is its subject (a name of several words is one
        # subject, stood for by its first word; the phrase bonus rewards the rest); the
        # record must name it and hold what is asked of it.
        rest = tuple(t for t in eligible if t not in written)
        return (written[0], rest) if rest else (None, ())
    if len(named) > 1:
        return None, ()
    owner = _possessor(text, eligible)
    if not named and owner is None and (of := _of_owner(text, eligible)) is not None:
        # "the policy number of the travel insurance": the thing it is asked of is the
        # subject, and only what is asked of it must be held with it
        return of
    if not named and owner is not None:
        # "what is Omar's shoe size": the possessive names the subject and what of it is
        # asked, whatever the sentence around them.
        return owner, tuple(t for t in eligible if t != owner)
    if not named and (len(eligible) != 2 or any(t.stop or t.term in QUESTION for t in tokenize(text))):
        # Without a written name, only the bare "subject attribute" pair is read as one:
        # in a longer lowercase query the first word is as likely a verb ("pick ..."),
        # and in a sentence ("how do we lint the code") the pair is not a keyword pair.
        return None, ()
    subject = named[0] if named else eligible[0]
    return subject, tuple(t for t in eligible if t != subject)


def _eligible(features: tuple[Feature, ...], asked: set[str]) -> list[str]:
    """The terms that may be a named subject or an attribute (see :func:`_named`)."""
    return [
        f.term
        for f in features
        if not f.numeric and not f.answer_type and f.term not in GENERIC | FILLER | QUESTION | _PARTICLES
        and f.term not in asked
    ]


# Adverbs that complete a verb ("how are we getting *around* in Scotland", "who is *away*"):
# no thing a note must name.
_PARTICLES = frozenset(stem(w) for w in "around away along across".split())


def store_named(query: ParsedQuery, contents: Iterable[str]) -> ParsedQuery:
    """``query`` with the subject the store's notes name, when the question is typed all in
    lower case ("who's our contact at hartley ceramics"): its capitals cannot say which
    word is a name, the notes can. A word of the question that the notes write with a
    capital inside a sentence every time they write it, in any of its forms ("Teapots come
    from Hartley Ceramics"; "Joe Whitfield" for "the whitfields'": :func:`written_forms`)
    is a name; the question's one run of such words is its subject, as a name written with
    capitals would be (:func:`_named`), and its other topic words are what is asked of it.
    Two runs, or none, leave the question as it was. ``contents``: the texts of the records
    the lanes found for it."""
    if query.subject is not None or not 2 <= len(query.features) <= NAMED_RULE_MAX_FEATURES:
        return query
    if any(c.isupper() for c in query.text) or _IDENTIFIER_RE.search(query.text):
        return query
    eligible = _eligible(query.features, asking_verbs(query.text))
    if len(eligible) < 2:
        return query
    surfaces = written_forms(query.features, eligible)
    if not surfaces:
        return query
    contents = list(contents)
    # Most questions name nothing the notes capitalise: one substring test per note and
    # word settles them before any pattern is run.
    written = [(s[:1].upper() + s[1:], s.upper()) for s in surfaces]
    if not any(a in text or b in text for text in contents for a, b in written):
        return query
    pattern = _surface_pattern(tuple(sorted(surfaces, key=len, reverse=True)))
    capital: dict[str, int] = {}
    lower: set[str] = set()
    for text in contents:
        for m in pattern.finditer(text):
            word = m.group(0)
            term = stem(word.casefold())
            if term not in eligible:
                continue
            if word[0].islower():
                lower.add(term)
            elif not _sentence_start(text, m.start()):
                capital[term] = capital.get(term, 0) + 1
    # Weekdays, months and holidays are capitalised by spelling, as in a written question.
    names = {t for t in capital if t not in lower and t not in _calendar_terms()}
    run = _one_run(named if (named := surfaces.get(word.casefold())) in names else None
                   for word in _WORD_RE.findall(query.text))
    if not run:
        return query
    rest = tuple(t for t in eligible if t not in run)
    return replace(query, subject=run[0], attributes=rest) if rest else query


def written_forms(features: tuple[Feature, ...], eligible: list[str]) -> dict[str, str]:
    """The forms of the question's eligible words that :func:`store_named` looks for in the
    notes, each with its term: the word as typed and its stem, the front of every form the
    notes may write it in ("Joe Whitfield" for "the whitfields'", "annual service" for
    "services": a word is a name only if the notes capitalise it in every form)."""
    forms = {f.surface: f.term for f in features if f.term in eligible and f.surface.isalpha()}
    forms.update({f.term: f.term for f in features if f.term in eligible and f.term.isalpha() and f.term not in forms})
    return forms


def _one_run(items: Iterable[str | None]) -> list[str]:
    """The one run of consecutive items that are not None, or [] when there are none or
    several (a question naming two things has no one subject)."""
    runs: list[list[str]] = []
    current: list[str] = []
    for item in items:
        if item is not None:
            current.append(item)
            continue
        if current:
            runs.append(current)
        current = []
    if current:
        runs.append(current)
    return runs[0] if len(runs) == 1 else []


@lru_cache(maxsize=256)
def _surface_pattern(surfaces: tuple[str, ...]) -> re.Pattern[str]:
    """The words of a question, each with up to three more letters (an inflection)."""
    return re.compile(r"\b(?:" + "|".join(map(re.escape, surfaces)) + r")\w{0,3}\b", re.IGNORECASE)


@lru_cache(maxsize=1)
def _calendar_terms() -> frozenset[str]:
    return frozenset(stem(word) for word in _CALENDAR)


def _sentence_start(text: str, at: int) -> bool:
    """Whether the word at ``at`` opens a sentence: nothing before it, or a sentence's end."""
    before = text[:at].rstrip(" \t\"'“‘([")
    return not before or before[-1] in ".!?:;\n"


# "did we pick", "do I submit", "should you call": the verb after an auxiliary and a person
# is the action the question asks about, said in the asker's words ("pick" for "chose",
# "went with", "decided"): phrasing, so never a subject or a mandatory attribute. It stays a
# feature: a record that says it scores a little more.
_ASKING_VERB_RE = re.compile(
    r"\b(?:do|does|did|will|would|should|shall|can|could|must|might|have|has|had)\s+"
    r"(?:we|i|you|they|he|she|us)\s+([^\W\d_]+)"
    # ... and in the progressive: "where are we *staying*" ("booked a ryokan")
    r"|\b(?:am|is|are|was|were)\s+(?:we|i|you|they|he|she)\s+([^\W\d_]+ing)\b",
    re.IGNORECASE,
)


# A key of a tracker or a register: letters, a hyphen or underscore, digits (INC-2291,
# JIRA-114, ETH_2026_117), or "#" and digits (#4821).
_IDENTIFIER_RE = re.compile(r"(?<![\w-])(?:[^\W\d_]{2,}[-_]\d{2,}(?:[-_]\d+)*|#\d{2,})(?![\w-])")


# "what coffee does Omar *order*": the same after a person named by one capitalised word,
# when the verb ends the question or a function word follows it. Otherwise the word is
# more likely a noun of the topic ("how does Stripe *billing* work"); a name with inner
# capitals is a product, not a person ("how does SQLite authentication work"); a second
# capitalised word continues the name ("when does Nordic Freight renew").
_NAMED_ASKING_VERB_RE = re.compile(
    r"\b(?i:do|does|did|will|would|should|can|could|has|had)\s+[A-Z][a-z]+\s+([a-z]+)\b(?:\s+([^\W\d_]+))?"
)


def asking_verbs(text: str) -> set[str]:
    """Terms of the verbs that follow an auxiliary and a person ("did we *pick*", "does
    Omar *order*")."""
    text = unicodedata.normalize("NFKC", text)
    verbs = [m.group(1) or m.group(2) for m in _ASKING_VERB_RE.finditer(text)]
    for m in _NAMED_ASKING_VERB_RE.finditer(text):
        if m.group(2) is None or m.group(2).casefold() in STOPWORDS:
            verbs.append(m.group(1))
    return {t.term for verb in verbs for t in tokenize(verb)}


# "X's Y" or "X's Y Z" (Omar's favourite film), and a plural's "Xs' Y" (the customers' homes); a
# lookahead, as "what's Omar's" holds two.
# The word before X is kept to tell a name from a common noun: "the user's email".
_POSSESSIVE_RE = LazyPattern(r"(?:([^\W_]+)\s+)?([^\W_]+)(?:['’]s|(?<=s)['’])\s+(?=([^\W_]+(?:\s+[^\W_]+)?))")
# A determiner before the owner makes it a common noun, not a name: in a question with
# other topic words ("can I log the user's email in analytics") it is a role, not the
# subject; alone with what it owns ("who is the cat's vet") it still tells whose.
_DETERMINERS = frozenset("the a an this that these those our my your their his her its each every any some".split())


# "the policy number of the travel insurance", "the reg of our car": what is asked, "of",
# and the thing it is asked of, each after a determiner.
_OF_RE = LazyPattern(
    r"\b(?:the|a|an|our|my|your)\s+((?:[^\W\d_]+\s+){0,2}?[^\W\d_]+)\s+of\s+"
    r"(?:the|our|my|your|their|his|her|this|that)\s+((?:[^\W\d_]+\s*){1,3})",
    re.IGNORECASE,
)


def _of_owner(text: str, eligible: list[str]) -> tuple[str, tuple[str, ...]] | None:
    """The subject and attributes of a wh-question that asks "the Y of the X": the first
    topic word of X, and the topic words of Y (what is asked of it); else None."""
    if not _WH_START_RE.match(text):
        return None
    found = _OF_RE.search(unicodedata.normalize("NFKC", text))
    if found is None:
        return None
    asked = [t.term for t in tokenize(found.group(1)) if t.term in eligible]
    owner = [t.term for t in tokenize(found.group(2)) if t.term in eligible]
    return (owner[0], tuple(asked)) if asked and owner and not set(asked) & set(owner) else None


def _possessor(text: str, eligible: list[str]) -> str | None:
    """The term of the one owner in an "X's Y" phrase whose Y is also a topic word (an
    owner after a determiner counts only when the question is about nothing else)."""
    owners = set()
    for m in _POSSESSIVE_RE.finditer(unicodedata.normalize("NFKC", text)):
        owner = [t.term for t in tokenize(m.group(2))]
        following = [t.term for t in tokenize(m.group(3))]
        if (m.group(1) or "").lower() in _DETERMINERS and not set(eligible) <= {*owner, *following}:
            continue
        if owner and owner[-1] in eligible and set(following) & set(eligible):
            owners.add(owner[-1])
    return owners.pop() if len(owners) == 1 else None


# Words capitalised by spelling that name a time, not someone or something asked about:
# weekdays, months and the common holidays ("is the office open over Christmas").
_CALENDAR = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july "
    "august september october november december christmas xmas easter thanksgiving halloween hanukkah "
    "diwali ramadan eid passover pentecost whitsun advent lent".split()
)


def _written_name(text: str, eligible: list[str]) -> tuple[str, ...]:
    """The terms of the one name of capitalised words inside ``text`` ("Mia", "Nordic
    Freight", "Lumen Health"), when they are topic words; () when there is none, or several,
    or the text capitalises most of its words (a title, or shouting: no name stands out).
    The text's first word is capitalised by writing, not by naming, and is left out; so are
    weekdays and months, capitalised by spelling ("who picks up the kids on Thursday")."""
    words = _WORD_RE.findall(unicodedata.normalize("NFKC", text))
    capital = [w[:1].isupper() and not w.isdigit() for w in words]
    if len(words) < 3 or sum(capital) * 2 > len(words):
        return ()
    run = _one_run(word if cap and i > 0 and word.casefold() not in STOPWORDS and word.casefold() not in _CALENDAR
                   else None for i, (word, cap) in enumerate(zip(words, capital, strict=True)))
    if not run:
        return ()
    terms = tuple(dict.fromkeys(t.term for w in run for t in tokenize(w)))
    return terms if terms and all(t in eligible for t in terms) else ()


def _name_like(text: str) -> set[str]:
    """Terms of words that look like names: an upper-case letter after the first
    character, or letters mixed with digits."""
    out: set[str] = set()
    for word in _WORD_RE.findall(unicodedata.normalize("NFKC", text)):
        # The plain lower-case word (no upper-case letter after the first, nothing but
        # letters, so no digit) is most words and fails both tests: judged in C first.
        rest = word[1:]
        if rest.islower() and word.isalpha():
            continue
        if _MEASURE_RE.match(word):
            continue  # "9am", "7pm", "30min", "5km": a time or an amount, not a name
        if any(c.isupper() for c in rest) or (any(c.isdigit() for c in word) and any(c.isalpha() for c in word)):
            out.update(t.term for t in tokenize(word))
    return out


_WORD_RE = re.compile(r"[^\W_]+")
# A number with a unit written onto it: times of day, durations, sizes, distances, money.
_MEASURE_RE = LazyPattern(
    r"^\d+(?:am|pm|h|hr|hrs|min|mins|s|sec|d|w|wk|wks|mo|y|yr|yrs|k|m|km|kg|g|mb|gb|tb|kb|ms|st|nd|rd|th|x|eur|usd|gbp)$",
    re.IGNORECASE,
)


def is_function_word(word: str) -> bool:
    """A function word may neither open nor close a phrase span (``on the`` is no anchor)."""
    return word in STOPWORDS
