"""Exclusions and relevance gates of recall (docs/recall.md, stages 3 and 5).

Every dropped candidate gets a :class:`Reason` from one closed set, so a trace or an
``explain`` never leaves the reader to re-derive why something was left out.

* :func:`exclusion` — lifecycle and time: forgotten, conflicted, retired, disputed,
  dormant (unless asked for), other space, not valid at ``as_of``, not yet valid (its
  validity starts after now), not yet recorded at ``known_at``.
* :func:`relevance_gate` — on raw relevance only: a strict literal the caller typed must
  be present, the coverage (:mod:`cairn.recall.score`: rarity prior × store rarity) must
  reach ``coverage_min``, and a short named-attribute query needs its subject *and* its
  attribute (of several attributes, at least half) (once SQLite
  authentication is suppressed, neither PostgreSQL authentication nor SQLite timeout may
  answer for it). An alias names the subject only when it is rare. Then what the
  question's shape asks: a note on another thing of the kind it names is no answer
  (:func:`names_another`), nor, asked whether something has a thing ("does my gym have a
  pool"), a note that does not name that thing, nor, asked who does something to a thing,
  a note on doing it to something else or on the thing alone (:func:`who_verdict`).
* :func:`kinds_told_apart` and :func:`of_another_kind` — read from the pool, not one
  record: where the store tells things of a kind apart by the word before their noun, a
  note holding the noun without the question's word is about another of them.
* :func:`below_cutoff` — the 75 % relative cutoff against the best raw relevance.

Quality (freshness, evidence, feedback) plays no part here: relevance comes first, and
quality only re-orders what passed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from ..model import Memory, Status, Verdict
from ..text import STOPWORDS, stem
from .query import (
    GENERIC,
    QUESTION,
    ParsedQuery,
    counts,
    is_label,
    labels,
    names_someone,
    states_clock,
    states_detail,
    states_quantity,
    states_version,
    word_pairs,
)
from .score import Lexical


class Reason(StrEnum):
    """Why a candidate is not in the result (closed set), or ``selected``."""

    # exclusions, checked before scoring
    OTHER_SPACE = "other-space"
    FORGOTTEN = "forgotten"
    CONFLICTED = "conflicted"
    RETIRED = "retired"
    DISPUTED = "disputed"  # accuracy verdict incorrect
    NOT_YET_RECORDED = "not-yet-recorded"
    NOT_VALID_AT = "not-valid-at"
    NOT_YET_VALID = "not-yet-valid"  # validity starts after now
    DORMANT = "dormant"
    OTHER_ORIGIN = "other-origin"  # the caller asked for another origin only
    # relevance gates, on raw relevance
    NO_MATCH = "no-match"
    MISSING_LITERAL = "missing-literal"
    BELOW_COVERAGE = "below-coverage"
    MISSING_SUBJECT = "missing-subject"
    MISSING_ATTRIBUTE = "missing-attribute"
    BELOW_CUTOFF = "below-cutoff"
    BELOW_SIMILARITY = "below-similarity"  # semantic lanes: not similar enough in meaning (cairn.recall.fusion)
    # ranking, relation resolution and packing
    RANK_CUT = "rank-cut"
    REPLACED = "replaced-by-successor"  # a corrected/superseded hit gave way to its successor
    DUPLICATE = "duplicate"  # already emitted through another hit's resolution
    SUCCESSOR_NOT_SELECTED = "successor-not-selected"  # historical rationale without its successor
    OVER_BUDGET = "over-budget"
    SELECTED = "selected"


EXCLUSIONS = frozenset(
    {
        Reason.OTHER_SPACE,
        Reason.FORGOTTEN,
        Reason.CONFLICTED,
        Reason.RETIRED,
        Reason.DISPUTED,
        Reason.NOT_YET_RECORDED,
        Reason.NOT_VALID_AT,
        Reason.NOT_YET_VALID,
        Reason.DORMANT,
        Reason.OTHER_ORIGIN,
    }
)
GATES = frozenset(
    {
        Reason.NO_MATCH,
        Reason.MISSING_LITERAL,
        Reason.BELOW_COVERAGE,
        Reason.MISSING_SUBJECT,
        Reason.MISSING_ATTRIBUTE,
        Reason.BELOW_CUTOFF,
        Reason.BELOW_SIMILARITY,
    }
)


_FORGOTTEN, _CONFLICTED, _RETIRED, _INCORRECT = Status.FORGOTTEN, Status.CONFLICTED, Status.RETIRED, Verdict.INCORRECT
_NOT_VALID_AT, _NOT_YET_VALID = Reason.NOT_VALID_AT.value, Reason.NOT_YET_VALID.value


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class GateProfile:
    """The thresholds of the relevance gates a candidate must pass."""

    coverage_min: float = 0.4  # IDF-weighted share of the query a match must hold
    # ... or this much when the record holds a contiguous phrase of the query that few
    # records hold (a phrase anchor): word order is evidence a bag of words discards, so
    # "Set up the staging deploy for the new API endpoint" reaches the one record about the
    # staging deploy although half its words ("set", "new", "endpoint") are nowhere stored.
    coverage_min_anchored: float = 0.25
    relative_cutoff: float = 0.75  # of the best raw relevance


GATE = GateProfile()


def exclusion(
    memory: Memory,
    *,
    space: str,
    dormant: bool,
    include_dormant: bool,
    temporal: str | None = None,
    recorded: bool = True,
    include_retired: bool = False,
) -> Reason | None:
    """The lifecycle/time reason that keeps ``memory`` out, or None.

    ``temporal`` is the exclusion named by ``policy.temporal`` (``not-valid-at``,
    ``not-yet-valid``);
    ``recorded`` is False when ``known_at`` lies before the record existed.
    """
    # The enum members are module constants here: an Enum class attribute costs a
    # descriptor call, and a member's .value another, on every candidate of every recall.
    if memory.space != space:
        return Reason.OTHER_SPACE
    status = memory.status
    if status is _FORGOTTEN or memory.purged_at is not None:
        return Reason.FORGOTTEN
    if status is _CONFLICTED:
        return Reason.CONFLICTED
    if status is _RETIRED and not include_retired:
        # Retired by a retention policy: out of recall, back under search or --include-retired.
        return Reason.RETIRED
    accuracy = memory.feedback.accuracy
    if accuracy is not None and accuracy.verdict is _INCORRECT:
        return Reason.DISPUTED
    if not recorded:
        return Reason.NOT_YET_RECORDED
    if temporal is not None:
        if temporal == _NOT_VALID_AT:
            return Reason.NOT_VALID_AT
        if temporal == _NOT_YET_VALID:
            return Reason.NOT_YET_VALID
    if dormant and not include_dormant:
        # Old is not false: dormant means "not offered unprompted", never unfindable.
        return Reason.DORMANT
    return None


def relevance_gate(
    query: ParsedQuery, memory: Memory, lex: Lexical, profile: GateProfile = GATE, *, anchored: bool = False
) -> Reason | None:
    """The first relevance gate ``memory`` fails, or None. ``anchored``: the record holds a
    phrase anchor of the query (see :mod:`cairn.recall.phrase`)."""
    if lex.score <= 0 or not (lex.in_content or lex.in_aliases):
        return Reason.NO_MATCH
    anywhere = lex.in_content | lex.in_aliases
    for literal in query.literals:
        # A quoted string or a path the caller typed is a demand, not a hint.
        if literal.strict and not set(literal.terms) <= anywhere:
            return Reason.MISSING_LITERAL
    if query.counted and not anchored:
        # "how many words can I translate per day": a record stating a count of the thing
        # counted ("about 2,500 words a day") holds the answer's own shape, however few of
        # the question's other words it repeats; that is evidence like a phrase anchor.
        anchored = counts(memory.content, query.counted)
    # "what's the plumber's phone number": a note holding a phone number holds the answer's
    # form, though it says neither "phone" nor "number"; it needs only the anchored
    # coverage, and what is asked of the plumber is the form it holds.
    form = bool(query.detail) and states_detail(query.detail, memory.content)
    if lex.coverage < (profile.coverage_min_anchored if anchored or form else profile.coverage_min):
        return Reason.BELOW_COVERAGE
    named = named_verdict(query, lex)
    if named is not None and not (form and named is Reason.MISSING_ATTRIBUTE):
        return named
    if query.qualified and names_another(query, memory.content, lex.in_content | lex.in_aliases):
        # "who is head of the science department": the note on the head of the *maths*
        # department holds the noun under another modifier; it is about another thing.
        return Reason.MISSING_SUBJECT
    if query.kinds and anywhere <= query.kinds:
        # "which language am I studying": a record that holds only a language (Rust, of the
        # ingestion service) holds the type of the answer, and nothing of what is asked.
        return Reason.BELOW_COVERAGE
    if query.known_kinds and not query.known_kinds & anywhere:
        # "what database does the backend use": the record on the backend's API URL names
        # no database, nor any the kinds table lists; it holds the topic, not the answer.
        return Reason.MISSING_ATTRIBUTE
    if query.quantity and not states_quantity(memory.content):
        # "how much does the Hetzner storage box cost": the note on backups to that box
        # states no amount; the quantity is the attribute asked for.
        return Reason.MISSING_ATTRIBUTE
    if lacks_form(query, memory.content):
        return Reason.MISSING_ATTRIBUTE
    if query.had and query.had not in anywhere:
        # "does my gym have a pool": the note on the gym says nothing of a pool; what is
        # asked is whether the thing has one, and the note does not name it.
        return Reason.MISSING_ATTRIBUTE
    return who_verdict(query, memory.content, anywhere)


def who_verdict(query: ParsedQuery, content: str, held: frozenset[str]) -> Reason | None:
    """Asked who does something to a thing ("who cleans the windows"): a note that says it
    is done but names nothing of the thing ("SparkleClean do the cleaning") is about doing
    it to something else (``missing-subject``); one that does not say it is done and names
    no one ("carrot cake has walnuts ... plus eggs" for "who supplies our eggs") is about
    the thing, not about who does it (``missing-attribute``)."""
    if not query.doing:
        return None
    if query.doing in held:
        return None if query.done_to & held else Reason.MISSING_SUBJECT
    return None if names_someone(content) else Reason.MISSING_ATTRIBUTE


# Modifiers that describe the thing a note names rather than tell it from another
# ("the *daily* standup" is the team standup, "the *new* pricing" the pricing, "the *next*
# tax prepayment" one of the "quarterly tax prepayments"), in a note or in the question.
_DESCRIBING = frozenset(
    stem(w) for w in "every each other another new old current same different next last first daily weekly monthly "
    "yearly annual nightly hourly quarterly fortnightly biweekly main usual regular big small large little quick "
    "short long full whole only own upcoming previous".split()
) | frozenset(stem(w) for w in GENERIC)


MODIFIER_LETTERS = 2  # a region or a department code is a modifier: "UK orders" beside "EU orders", "HR team"


def names_another(query: ParsedQuery, content: str, held: frozenset[str]) -> bool:
    """Whether a note holds a noun the question qualifies ("the science department") without
    the question's modifier, and under another one ("the maths department"): it is about
    another thing of the kind; so is a note that numbers the noun otherwise ("Year 9" for
    "year 11") and says the question's number nowhere. A modifier the note holds anywhere
    (its word or a variant), a describing word (:data:`_DESCRIBING`), a number or a word
    of the question in the note's modifier place never count."""
    pairs = word_pairs(content)
    numbered = [(n, k) for n, k in query.qualified if k.isdigit() and n in held]
    if numbered:
        said = {w for pair in pairs for w in pair}
        for noun, number in numbered:
            # "year 11" and a note on "Year 9" that says 11 nowhere
            if number not in said and any(a == noun and b.isdigit() and b != number for a, b in pairs):
                return True
    lettered = [(n, k) for n, k in query.qualified if is_label(k) and not k.isdigit() and n in held]
    if lettered:
        named = labels(content)
        for noun, letter in lettered:
            # "flat A" and a note on "Flat B" that labels no flat A
            if (noun, letter) not in named and any(a == noun and b != letter for a, b in named):
                return True
    wanted = [(m, n) for m, n in query.qualified
              if not is_label(n) and m not in held and n in held and m not in _DESCRIBING]
    if not wanted:
        return False
    asked = {f.term for f in query.features}
    for before, after in pairs:
        for _, noun in wanted:
            if after == noun and before not in asked and before.isalpha() and len(before) >= MODIFIER_LETTERS \
                    and before not in STOPWORDS and before not in _DESCRIBING and before not in QUESTION:
                return True
    return False


def kinds_told_apart(query: ParsedQuery, turned: Iterable[frozenset[str]]) -> frozenset[tuple[str, str]]:
    """The things the question names by a modifier and a noun ("life insurance") whose noun
    is held, without that modifier, by notes turned away as about another thing of the kind
    (:func:`names_another`: "home insurance", "car insurance"): the store tells such things
    apart by the word before the noun. ``turned``: the terms each such note holds."""
    pairs = [(m, n) for m, n in query.qualified if not is_label(n) and m not in _DESCRIBING]
    return frozenset((m, n) for held in turned for m, n in pairs if n in held and m not in held)


def of_another_kind(told: frozenset[tuple[str, str]], held: frozenset[str]) -> bool:
    """Whether a note holding the terms ``held`` is about another of the things the store
    tells apart (``told``, from :func:`kinds_told_apart`) than the one asked: it holds the
    noun without the question's modifier ("Biscuit the cat is insured ... lifetime cover",
    beside the notes on home, travel and car insurance, for "who is our life insurance
    with"). Where the store says which kind whenever it means one, a note that does not say
    it is about the one asked does not answer for it."""
    return any(noun in held and modifier not in held for modifier, noun in told)


def lacks_form(query: ParsedQuery, content: str) -> bool:
    """Whether the question asks for something written in a form the note does not hold:
    a version ("which dbt version are we on": the note on dbt tests names none, and a
    version is written with digits), a clock time ("what time do we open": "Ellie opens on
    Tuesdays" says no time of day) or a contact detail ("what's the physio clinic's phone
    number": a phone number, an email address, a web address each has its form). Meaning
    cannot stand in for a form (:func:`cairn.recall.fusion.semantic_verdict`)."""
    if query.detail and not states_detail(query.detail, content):
        return True
    if query.clock and not states_clock(content):
        return True
    return query.version and not states_version(content)


def named_verdict(query: ParsedQuery, lex: Lexical) -> Reason | None:
    """The named-attribute rule of a short query: the record must name the subject (in the
    body, a *rare* alias, or the origin) and hold what is asked of it."""
    if not query.named_rule:
        return None
    if query.subject not in lex.present and query.subject not in lex.in_origin:
        return Reason.MISSING_SUBJECT
    wanted = asked_of_subject(query)
    held = len(wanted & (lex.in_content | lex.in_aliases))
    if held * 2 < len(wanted) or not held:
        # Attribute evidence must be in the body or the aliases, never the origin. One
        # attribute must be held; of several, at least half: "SQLite timeout" never
        # answers "SQLite authentication", while "GDPR deletion request" answers
        # "how do we handle a GDPR deletion request" without the word "handle".
        return Reason.MISSING_ATTRIBUTE
    return None


def asked_of_subject(query: ParsedQuery) -> set[str]:
    """What a short named query asks of its subject: its attributes, and a kind it asks for
    ("which *courier* do we use for UK orders": a record naming one of its instances, Evri,
    holds it)."""
    return set(query.attributes) | query.known_kinds


def below_cutoff(raw: dict[str, float], profile: GateProfile = GATE) -> set[str]:
    """Ids whose raw relevance is below ``relative_cutoff`` × the best raw relevance."""
    if not raw:
        return set()
    best = max(raw.values())
    return {i for i, r in raw.items() if r < profile.relative_cutoff * best}
