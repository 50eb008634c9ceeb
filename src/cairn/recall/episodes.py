"""Ranking of the episode lane (verbatim conversation turns): evidence-finding.

The recall pipeline calls it for ``--lane episodes|all``. The contract:

    rank_episodes(view, space, query, *, limit, as_of=None, include_retired=True) -> list[EpisodeScore]

``view`` is a store read view (:class:`cairn.store.ReadView`), ``query`` the raw query
text. Returns at most ``limit`` episode ids, best first, with a relevance score (higher
is better) and named factors for ``explain``. It never writes. Exclusions (forgotten,
other space, ...) are applied by the pipeline afterwards; ``include_retired=False`` (the
recall lane's default) leaves retired turns out of the index matches themselves, so they
take no candidate place.

How a turn is scored (every weight lives in :data:`PROFILE`, tuned on LoCoMo
conversations 0-4 only; model-free and deterministic):

1. **Candidates** from the store's index: the query's content terms OR-ed, each long
   term also as a prefix so that ``paint`` reaches ``painter``/``paintings``, and a
   short stem also with its ``e`` (``named`` is indexed ``nam`` and meets ``name``); the
   best ``candidate_cap`` by the store's relevance, or by IDF-weighted overlap of
   bounded postings when the words are common (:func:`candidates`), with the word
   counts for IDF read from the space's own document frequencies (bounded) when that
   cap cuts (:func:`term_counts`); the record count is the space's too. When the words
   find fewer turns than asked for and the question names a speaker ("Ana's cat"),
   that speaker's turns join the candidates.
2. **Lexical relevance**: BM25 over the stored terms, computed here so that terms are
   compared through a stronger stemmer (:func:`strong_stem`) and weighted by rarity. A
   turn that says another word for a question word — an everyday synonym or an
   irregular form of the verb, from the tables the claims lane reads ("where does Maya
   *work*": "a new *job* at Figma"; "did we *buy*": "we *bought*") — holds that word: the
   other words are matched in the index too, and a word and its others count as one.
   A query word that names a *speaker* of the conversation is not matched in the text
   (greetings name the other person in every other turn); it selects the speaker.
3. **Coverage**: the share of the query's IDF mass a turn covers, raised to a power;
   a turn that answers most of the question beats one that repeats a single word.
4. **Phrase bonus**: adjacent query words found adjacent in the turn (bounded).
5. **Context**: a turn is part of an exchange, so the best neighbouring turn (the turn
   position ±1 in the same conversation, and ±2 in the same session: the same
   speaker's turn before or after, ``second_weight``) and the best turn of its session lend it a share of their
   relevance; a turn that follows a question (a turn with a wh-word) borrows a larger
   share of it, as the likely reply.
6. **Speaker and date**: turns spoken by the named speaker, and turns whose time falls
   in a month or year the query names, are raised by a bounded factor; a turn said on
   the very day the question names ("on 9 November, 2022") once more.
   A question that asks *when* ("when …", "how long …", "what year …") raises the turns
   that say when (a relative day, a weekday, a season, a month, a year: ``when_boost``).
7. **Time** (:mod:`cairn.recall.tense`): a fact may change during a conversation, so
   the question's tense orders turns of about equal relevance — present tense the later
   statement first, past tense the earlier — by at most ``time_weight``; with ``as_of``
   a turn said after it ranks behind (``after_as_of``), the rest as for the present.
   An update seldom repeats what it updates ("the airline moved our flight, we now
   leave on the 16th" after "we leave for Lisbon on the 14th"), so in the present tense a
   turn that says something changed and shares a word of the question with an earlier,
   stronger turn of the same speaker is placed just above it (``update_lift``).
8. **Feedback** (pseudo-relevance feedback from the store's own words): the rarest
   words that the best ``feedback_docs`` turns of this first pass hold, and that the
   space holds elsewhere but not commonly, are added to the question with a small
   weight (``feedback_weight``), their turns fetched, and steps 2-7 run again. They
   lift turns that hold a question word too; the turns they were read from are not
   lifted by their own words, and a turn holding only a related word is not returned.

Only **matched** turns are returned: a turn holding a word of the question, or spoken
by a speaker the question names. A neighbour that matches nothing lends its context to
the turns beside it but is never handed out as a memory (``hand_out_context`` lifts
this, for measurement only).

Cost (none of it changes a score or an order; tests/recall/test_recall_episode_shortcuts.py
holds each shortcut to the long way): what scoring reads of a turn's indexed terms
(strong stems, their counts, whether it asks) is derived once per process per text, in a
bounded cache keyed by the text itself (:data:`TEXT_CACHE`), so an edited turn is a new
key; the turns that only lend context are not scored, since they are never handed out;
a pass's scores stay plain rows, made :class:`ScoredTurn` only for the turns handed out
(tests/speed/test_episode_rows.py), and factors are named and rounded only for the turns
returned; the feedback pass reuses the neighbours the first pass read (:class:`_Neighbours`). Candidates are read in bounded
time (:mod:`cairn.recall.episode_candidates`): while the words are held by few turns the
store ranks every match, as it always did; beyond that, a bounded number of postings per
word are read and the turns chosen by IDF-weighted overlap, so a question costs about the
same at a million turns as at ten thousand (a speaker name is checked over a bounded
number of index hits too). Inside a read snapshot, what the data alone decides is kept
until a commit changes it (:mod:`cairn.recall.kept`, bounded tables per space): the turns
read by key and at each place, whether a word names a speaker, a speaker's turns, the
counts (tests/speed/test_episode_kept.py holds them to fresh reads). What is left per
question is the store's ranking of the matches, reading the turns no question before
read (random row reads on a large store), and two Python loops over the candidates per
pass; speaker and time factors are worked out once per speaker and per time said.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from itertools import chain, filterfalse, pairwise, repeat
from operator import add, attrgetter, contains, itemgetter

from ..model import format_time
from ..store import EpisodeTurn, ReadView
from ..text import MONTH_WORDS, MONTHS, STOPWORDS, stem, tokenize
from . import kept
from .candidates import IndexStats
from .episode_candidates import every_match, frequencies, turn_candidates
from .tense import Tense, tense, time_factor
from .variants import IRREGULAR, SYNONYMS


@dataclass(frozen=True, slots=True)
class EpisodeScore:
    id: str
    score: float
    factors: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class EpisodeProfile:
    """The episode lane's weights (one frozen object, quoted by the docs)."""

    candidate_cap: int = 200  # best index candidates scored in Python (LoCoMo dev: same at 150-2000)
    df_bound: int = 10_000  # word counts for IDF stop here when the candidates are a cut
    prefix_min: int = 5  # stems this long are also matched as index prefixes
    k1: float = 1.2
    b: float = 0.4
    coverage_power: float = 1.0  # lexical × (0.5 + 0.5·coverage^power)
    phrase_bonus: float = 0.25  # per adjacent query pair found adjacent, ×IDF share
    phrase_cap: float = 0.5
    neighbour_weight: float = 0.6  # share of the best neighbour's lexical score
    neighbour_fetch: int = 30  # neighbours of this many best candidates join the candidates
    second_weight: float = 0.6  # share of the best lexical score two turns away (the same speaker's next turn)
    answer_weight: float = 0.8  # share of the best score of the turn before, when it asks a question
    session_weight: float = 0.35  # share of the session's best lexical score
    speaker_boost: float = 1.0  # ×(1 + boost) for a turn by the speaker the query is about
    other_speaker_share: float = 0.3  # of that boost, for a speaker named second or as an owner ("Gina's")
    date_boost: float = 0.6  # ×(1 + boost) when the turn's month/year is named
    when_boost: float = 1.0  # ×(1 + boost) for a turn that says when, if the question asks when
    day_boost: float = 1.0  # ×(1 + boost) more when the turn's day is named too
    speaker_floor: float = 0.05  # base of a named speaker's turn that holds none of the words
    time_weight: float = 0.2  # ×(1 + weight·place in time) by the question's tense (recall.tense)
    update_lift: float = 0.01  # present tense: a later turn saying the same thing changed ranks this much above it
    after_as_of: float = 0.5  # × for a turn said after --as-of
    hand_out_context: bool = False  # True: a turn that only lends context may be returned too
    feedback_docs: int = 3  # pseudo-relevance feedback: best turns of a first pass read for related words
    feedback_terms: int = 5  # related words added to the question (0: no feedback)
    feedback_weight: float = 0.15  # × IDF of a related word (the question's own words weigh 1)
    feedback_cap: int = 100  # turns fetched for the related words
    feedback_max_share: float = 0.1  # a word in more than this share of the space's turns is not related
    feedback_matches: bool = False  # True: a turn holding only a related word is returned too (measurement only)


PROFILE = EpisodeProfile()

_YEAR_RE = re.compile(r"^(19|20)\d\d$")

_SUFFIXES = (
    "ations", "ation", "ings", "ness", "ments", "ment", "ities", "ity", "fully", "ful", "ists", "ist",
    "isms", "ism", "ships", "ship", "hood", "ance", "ence", "ers", "er", "ors", "or", "ical", "ic", "als", "al",
    "ive", "ous", "able", "ible", "ies", "y", "e",
)


@lru_cache(maxsize=65536)
def strong_stem(term: str) -> str:
    """A heavier suffix strip on top of ``cairn.text.stem`` for turn matching only.

    ``painter``/``paint``, ``counselor``/``counseling``, ``nature``/``natural`` meet;
    the stem keeps at least four letters so short words are never mangled.
    """
    if len(term) < 4 or not term.isalpha() or not term.isascii():
        return term
    if len(term) == 4:
        # name/named, hike/hiking: the index keeps "nam", "hik" for the inflected forms.
        return term[:-1] if term[-1] == "e" and term[-2] not in "aeiou" else term
    if term.endswith("ly") and len(term) > 5:
        # The index stems "family" to "fami" but "families" to "family": meet at "fami".
        return term[:-2]
    for suffix in _SUFFIXES:
        if term.endswith(suffix) and len(term) - len(suffix) >= 4:
            return term[: -len(suffix)]
    return term


@dataclass(frozen=True, slots=True)
class EpisodeQuery:
    terms: tuple[str, ...]  # content terms (index form), unique, in order
    sequence: tuple[str, ...]  # all terms in order (stopwords included), for phrases
    months: frozenset[int]
    years: frozenset[int]
    owners: frozenset[str] = frozenset()  # terms written as owners ("Gina's")
    days: frozenset[tuple[int, int]] = frozenset()  # (month, day) named together: "9 November", "Nov 9th"
    asks_time: bool = False  # "when …", "how long …", "what year …"
    # Other words for a content term, in index form: everyday synonyms and irregular verb
    # forms ("work" -> "job", "buy" -> "bought"; :mod:`cairn.recall.variants`' tables)
    alternatives: tuple[tuple[str, tuple[str, ...]], ...] = ()


def parse_episode_query(query: str) -> EpisodeQuery:
    """The episode lane's reading of a query: content terms, the full term sequence,
    the months and years it names, and the terms written as owners."""
    tokens = tokenize(query)
    framing = {b.position for a, b in pairwise(tokens) if a.surface == "how" and b.surface in _HOW_QUANTITY}
    terms = tuple(dict.fromkeys(t.term for t in tokens if not t.stop and t.position not in framing))
    months = frozenset(MONTH_WORDS[t.surface] for t in tokens if t.surface in MONTH_WORDS)
    years = frozenset(int(t.surface) for t in tokens if _YEAR_RE.match(t.surface))
    owners = frozenset(a.term for a, b in pairwise(tokens) if b.surface == "s")
    alternatives = tuple((t, alt) for t in terms if (alt := _alternatives(t)))
    return EpisodeQuery(terms, tuple(t.term for t in tokens), months, years, owners, _days(tokens), _asks_time(tokens),
                        alternatives)


def _alternatives(term: str) -> tuple[str, ...]:
    """Other words for ``term`` that a turn may say instead: the everyday synonyms and
    irregular verb forms the claims lane reads too (:mod:`cairn.recall.variants`)."""
    return tuple(dict.fromkeys(a for a in IRREGULAR.get(term, ()) + SYNONYMS.get(term, ()) if a != term))


# "how much", "how many": the question asks for a quantity; "much" names no topic, and a
# turn holding it ("that works much better") answers nothing by it.
_HOW_QUANTITY = frozenset({"much", "many"})
_TIME_NOUNS = frozenset("year month week day date time".split())


def _asks_time(tokens) -> bool:
    """A question about when: "when", "how long/often", "what/which year|month|…"."""
    words = [t.surface for t in tokens]
    if "when" in words:
        return True
    return any(a in ("how", "what", "which") and (b in ("long", "often") or b.rstrip("s") in _TIME_NOUNS)
               for a, b in pairwise(words))


def _days(tokens) -> frozenset[tuple[int, int]]:
    """Month and day named side by side, in either order ("October 25", "9 November")."""
    found = set()
    for a, b in pairwise(tokens):
        for month, day in ((a.surface, b.surface), (b.surface, a.surface)):
            number = day.removesuffix("st").removesuffix("nd").removesuffix("rd").removesuffix("th")
            if month in MONTH_WORDS and number.isdigit() and 1 <= int(number) <= 31:
                found.add((MONTH_WORDS[month], int(number)))
    return frozenset(found)


def subject(q: EpisodeQuery, named: frozenset[str]) -> str | None:
    """The speaker the question is about: the first named one not written as an owner."""
    order = [t for t in q.terms if t in named]
    plain = [t for t in order if t not in q.owners]
    return next(iter(plain or order), None)


def match_words(query: str | EpisodeQuery, prefix_min: int = PROFILE.prefix_min, skip=frozenset()) -> list[tuple[str, bool]]:
    """The ``(word, prefix)`` pairs a turn's content is matched against: the content
    terms (long ones also as a prefix of their strong stem); terms in ``skip`` (speaker
    names) are left out. Empty when nothing is left to match."""
    parsed = parse_episode_query(query) if isinstance(query, str) else query
    words: list[tuple[str, bool]] = []
    alternatives = dict(parsed.alternatives)
    for term in parsed.terms:
        if term in skip:
            continue
        words.append((term, False))
        words += [(a, False) for a in alternatives.get(term, ())]
        root = strong_stem(term)
        if root != term:
            words.append((root, False))
        if len(root) >= prefix_min and root.isalpha():
            words.append((root, True))
        elif len(root) >= 3 and root.isalpha() and root[-1] not in "aeiou" and strong_stem(root + "e") == root:
            words.append((root + "e", False))  # "named" (indexed "nam") also finds "name"
    return list(dict.fromkeys(words))


KEPT_WORDS = 4096  # words kept per space as naming a speaker or not (cairn.recall.kept)
# Turn positions kept read per space, with the turns found there (about 1.4 kB a place,
# its text's counts included): a LoCoMo conversation (up to ~700 turns) fits.
KEPT_PLACES = 1024
KEPT_SPEAKER_ROWS = 1024  # a named speaker's turns kept per space, all lists together (weighed by rows)


def speaker_terms(view: ReadView, space: str, terms) -> frozenset[str]:
    """The query terms that name a speaker of some episode in ``space`` (each word's
    answer kept while the data is unchanged)."""
    known = kept.table(view, ("names speaker", space), KEPT_WORDS)
    for term in terms:
        if term not in known:
            known[term] = view.names_speaker(space, term)
    return frozenset(term for term in terms if known[term])


# Turn texts kept read (stems, counts) per process, keyed by the text itself: a LoCoMo
# conversation (up to ~700 turns) fits. In a large store most candidates are new to each
# question (at a million turns 4,096 texts served 4 % of the reads), so more entries only
# hold more memory (about 1 kB a text).
TEXT_CACHE = 1024


class _Text:
    """What scoring reads of a turn's indexed terms, derived once per text: a pure
    function of the text, so a cache keyed by it is never stale (an edited turn is
    another text)."""

    __slots__ = ("asks", "counts", "size", "stems", "terms", "_when", "_changes", "_related")

    def __init__(self, terms: str) -> None:
        self.terms = terms
        words = terms.split()
        self.stems = tuple(map(strong_stem, words))  # strong stem of each term, in order
        self.size = len(self.stems)
        self.counts: dict[str, int] = Counter(self.stems)  # term frequency of each stem (counted in C)
        self.asks = not _ASKING.isdisjoint(words)  # holds a wh-word: the turn asks a question
        self._when: bool | None = None
        self._changes: bool | None = None
        self._related: tuple[tuple[str, str], ...] | None = None

    @property
    def related(self) -> tuple[tuple[str, str], ...]:
        """The distinct terms that may be a related word (:func:`feedback`: no stopword,
        three letters or more, letters only), each with its strong stem."""
        if self._related is None:
            self._related = tuple((term, strong_stem(term)) for term in set(self.terms.split())
                                  if term not in STOPWORDS and len(term) >= 3 and term.isalpha())
        return self._related

    @property
    def changes(self) -> bool:
        """The turn says that something changed (:func:`says_change`); read only for a
        question in the present tense."""
        if self._changes is None:
            self._changes = says_change(self.terms.split())
        return self._changes

    @property
    def when(self) -> bool:
        """The turn says when (:func:`says_when`); read only for a question that asks when."""
        if self._when is None:
            self._when = says_when(self.terms.split())
        return self._when


@lru_cache(maxsize=TEXT_CACHE)
def _text(terms: str) -> _Text:
    return _Text(terms)


@dataclass(slots=True)
class _Turn:
    key: object  # the store's key: orders like insertion
    id: str
    origin: str
    turn: int  # position in its origin's conversation
    text: str  # the indexed terms, space-joined
    speaker: str
    at: str
    read: _Text
    lexical: float = 0.0
    coverage: float = 0.0
    phrase: float = 0.0
    related: float = 0.0  # lexical score from the related words of feedback alone

    @classmethod
    def of(cls, row: EpisodeTurn) -> _Turn:
        # The row's fields are the turn's first seven, in order (key, id, origin, turn,
        # terms, speaker, at): unpacked in C rather than read by name one at a time.
        return cls(*row, _text(row.terms))

    @property
    def terms(self) -> list[str]:
        return self.text.split()


def candidates(view: ReadView, space: str, words: list[tuple[str, bool]], cap: int,
               include_retired: bool = True) -> list[_Turn]:
    """Episodes matching any of ``words``, the likeliest first when over the cap (read in
    bounded time: :mod:`cairn.recall.episode_candidates`)."""
    return [_Turn.of(row) for row in turn_candidates(view, space, words, cap, skip_retired=not include_retired)]


class _StoreOrder:
    """The candidates in the order the store gives them, its ranking read only when it matters.

    When no more turns hold the words than the cap, every one of them is a candidate
    whatever the store's ranking, and the order they come in decides nothing but ties:
    which of equally strong turns are the last whose neighbours are read
    (:meth:`_Neighbours.around`), and which of two turns at one place is kept
    (:func:`_final`). Such matches are read unranked, in key order
    (:func:`~cairn.recall.episode_candidates.every_match`), and the store's ranking is
    asked for only when such a tie occurs: the candidates are then put back in the order
    they always came in (each list's turns in the store's order, the lists one after the
    other, a turn in the first list that holds it)."""

    def __init__(self, view: ReadView, space: str, order: _StoreOrder | None = None) -> None:
        self.view = view
        self.space = space
        self.order = order  # the candidates' order when the store's ranking was not read (ties)
        # Per list of candidates: its turns' keys in the store's order, or the words,
        # cap and filter it was read with unranked (ranked when first needed).
        self.lists: list[list | tuple] = []

    def read(self, words: list[tuple[str, bool]], cap: int, skip_retired: bool) -> list[EpisodeTurn]:
        """:func:`turn_candidates`, unranked when that gives the same turns."""
        rows = every_match(self.view, self.space, words, cap, skip_retired)
        if rows is None:
            rows = turn_candidates(self.view, self.space, words, cap, skip_retired)
            self.lists.append([row.key for row in rows])
        else:
            self.lists.append((words, cap, skip_retired))
        return rows

    def given(self, rows: list[EpisodeTurn]) -> None:
        """A list of candidates that came in its own order (a speaker's turns)."""
        self.lists.append([row.key for row in rows])

    @property
    def exact(self) -> bool:
        """Whether every list so far came in the store's order."""
        return all(isinstance(keys, list) for keys in self.lists)

    def restore(self, turns: list[_Turn]) -> list[_Turn]:
        """``turns`` (candidates of these lists) in the order the store's ranking gives them."""
        position: dict = {}
        for i, keys in enumerate(self.lists):
            if not isinstance(keys, list):
                words, cap, skip_retired = keys
                keys = self.lists[i] = [row.key for row in turn_candidates(self.view, self.space, words, cap,
                                                                           skip_retired)]
            for j, key in enumerate(keys):
                position.setdefault(key, (i, j))
        return sorted(turns, key=lambda t: position[t.key])

    def settled(self, turns: list[_Turn]) -> list[_Turn]:
        """``turns`` as they are, or in the store's order when two of them share a place
        (:func:`_final` keeps the one given last)."""
        if self.exact or len(set(zip(map(_origin_of, turns), map(_place_of, turns), strict=True))) == len(turns):
            return turns
        return self.restore(turns)


def rank_episodes(view: ReadView, space: str, query: str, *, limit: int, profile: EpisodeProfile = PROFILE,
                  as_of: datetime | None = None, include_retired: bool = True) -> list[EpisodeScore]:
    """The ``limit`` best episodes for ``query``, best first (see the module docstring).
    ``as_of``: the question asks what had been said by then (later turns rank behind)."""
    return [s.result() for s in scored_episodes(view, space, query, limit=limit, profile=profile, as_of=as_of,
                                                include_retired=include_retired)]


def scored_episodes(view: ReadView, space: str, query: str, *, limit: int, profile: EpisodeProfile = PROFILE,
                    as_of: datetime | None = None, include_retired: bool = True) -> list[ScoredTurn]:
    """:func:`rank_episodes` before its factors are named and rounded (:meth:`ScoredTurn.result`):
    the lane reads three of them, and naming all eight for its pool of 48 cost a tenth of
    the ranking."""
    parsed = parse_episode_query(query)
    if limit < 1 or not parsed.terms:
        return []
    named = speaker_terms(view, space, parsed.terms)
    words = match_words(parsed, profile.prefix_min, named)
    stats = IndexStats(view, space)  # the space's counts, kept while the data is unchanged
    order = _StoreOrder(view, space)
    turns = [_Turn.of(row) for row in order.read(words, profile.candidate_cap, not include_retired)] if words else []
    matched = len(turns)
    about = subject(parsed, named)
    if about is not None and matched < limit:
        # The question's words do not fill the list: the turns of the speaker it names do.
        have = {t.id for t in turns}
        rows = [row for row in _speaker_turns(view, space, about, limit - matched + len(have), not include_retired)
                if row.id not in have][: limit - matched]
        order.given(rows)
        turns += [_Turn.of(row) for row in rows]
    if not turns:
        return []
    turns = order.settled(turns)
    # Over the cap, candidates are only the best index matches: count how common each word
    # really is (bounded), or a word in every other turn would look rare among them.
    known = term_counts(view, space, parsed, named, profile, stats) if matched >= profile.candidate_cap else {}
    n_docs = max(stats.docs, len(turns))
    found = list(turns)
    asked = tense(query)
    near = _Neighbours(view, space, order)
    ranked = _score(near, parsed, found, named, profile, asked, as_of, n_docs, known, {})
    if profile.feedback_terms and ranked:
        best = [row[_TURN] for row in ranked[: profile.feedback_docs]]
        related = feedback(stats, parsed, named, best, found, profile)
        if related:
            have = {t.id for t in found}
            extra = order.read([(w, False) for w in related], profile.feedback_cap, False)
            found = order.settled(found + [_Turn.of(row) for row in extra if row.id not in have])
            sources = frozenset(t.id for t in best)
            ranked = _score(near, parsed, found, named, profile, asked, as_of, n_docs, known, related, sources)
    return [_scored_turn(row) for row in ranked[:limit]]


def _speaker_turns(view: ReadView, space: str, word: str, cap: int, skip_retired: bool) -> list[EpisodeTurn]:
    """:meth:`ReadView.speaker_turns`, kept while the data is unchanged."""
    known, weight = kept.weighed(view, ("speaker turns", space, skip_retired), KEPT_SPEAKER_ROWS)
    found = known.get((word, cap))
    if found is None:
        found = known[(word, cap)] = view.speaker_turns(space, word, cap, skip_retired=skip_retired)
        weight[0] += len(found) + 1  # a list weighs its rows (an empty one still takes an entry)
    return found


def _score(near: _Neighbours, parsed: EpisodeQuery, found: list[_Turn], named: frozenset[str],
           profile: EpisodeProfile, asked: Tense | None, as_of: datetime | None, n_docs: int, known: dict[str, int],
           related: dict[str, float], sources: frozenset[str] = frozenset()) -> list[tuple]:
    """One pass (steps 2-7): the scored turns as :func:`_final_rows`' rows, best first."""
    turns = list(found)
    lexical_pass(parsed, turns, named, n_docs, profile, known, related, sources)
    turns += near.around(turns, profile.neighbour_fetch, 2 if profile.second_weight else 1)
    scored = _final_rows(parsed, turns, named, profile, asked, as_of, matched_only=not profile.hand_out_context)
    # Ties go to the earlier turn (insertion order), not to the random id, so that two
    # ingests of the same conversation rank alike: two stable sorts in C, the key first,
    # give the order of (-score, key).
    scored.sort(key=_row_key)
    scored.sort(key=_row_score, reverse=True)
    return scored


def feedback(stats: IndexStats, q: EpisodeQuery, named: frozenset[str], best: list[_Turn],
             turns: list[_Turn], p: EpisodeProfile) -> dict[str, float]:
    """Related words: the rarest words that the best turns of a first pass share, each
    with its weight (its IDF share, times ``feedback_weight``). A word is taken only if
    the store holds it beyond those turns (it can find something new) and it is not
    common (in more than ``feedback_max_share`` of the space's turns, and more than
    two: a speaker's name, said in greetings, is such a word). ``best``: the first
    pass's best turns, best first; only those among ``turns`` (the candidates) count."""
    by_id = {t.id: t for t in turns}
    docs = [by_id[t.id] for t in best if t.id in by_id and by_id[t.id].coverage > 0]
    if not docs:
        return {}
    asked = {strong_stem(t) for t in q.terms}
    top = docs[0].lexical or 1.0
    mass: dict[str, float] = defaultdict(float)
    for doc in docs:
        share = max(doc.lexical, 0.0) / top  # the same for each of the turn's words
        for term, root in doc.read.related:
            if root in asked:
                continue
            mass[term] += share
    if not mass:
        return {}
    total = max(stats.docs, 1)
    df = frequencies(stats, list(mass))
    weights = {}
    for term, m in mass.items():
        n = df.get(term, 0)
        if n < 2 or n > max(p.feedback_max_share * total, 2):
            continue  # held by this turn alone it finds nothing new; held by many, it is common
        weights[term] = m * math.log(1 + (total - n + 0.5) / (n + 0.5))
    chosen = sorted(weights, key=lambda w: (-weights[w], w))[: p.feedback_terms]
    return {w: p.feedback_weight for w in chosen}


def term_counts(view: ReadView, space: str, q: EpisodeQuery, named: frozenset[str], p: EpisodeProfile,
                stats: IndexStats | None = None) -> dict[str, int]:
    """Records of ``space`` holding each query word (as matched: the word or its stem
    family), from the space's own document frequencies — another space's content never
    changes them. A family's count is the sum over its indexed forms (a record holding two
    forms counts twice), bounded by ``p.df_bound``."""
    stats = stats or IndexStats(view, space)
    counts = {}
    for term in q.terms:
        if term in named:
            continue
        forms: set[str] = set()
        for word, prefix in match_words(EpisodeQuery((term,), (term,), frozenset(), frozenset()), p.prefix_min):
            forms.add(word)
            if prefix:
                forms.update(stats.extensions(word, p.df_bound))
        found = frequencies(stats, sorted(forms))
        counts[strong_stem(term)] = min(sum(found.values()), p.df_bound)
    return counts


class _Neighbours:
    """The turns just before and after the strongest candidates that the index did not
    return (an answer often shares no word with the question its neighbour asked), read
    once per question: the feedback pass asks again for most of the places the first
    pass read.

    A neighbour is never scored by the lexical pass (only candidates are), so its turn
    object is only read: the objects made at each place are kept with the place, while
    the data is unchanged, and shared by the questions that read it (a turn that is a
    candidate is always an object of its own)."""

    def __init__(self, view: ReadView, space: str, order: _StoreOrder | None = None) -> None:
        self.view = view
        self.space = space
        self.order = order  # the candidates' order when the store's ranking was not read (ties)
        # The turns at each place, kept while the data is unchanged (a place with none
        # holds an empty tuple).
        self.read: dict[tuple[str, int], tuple[_Turn, ...]] = kept.table(view, ("turn places", space), KEPT_PLACES)

    def around(self, turns: list[_Turn], best: int, reach: int = 1) -> list[_Turn]:
        """The turns up to ``reach`` places from the ``best`` strongest of ``turns`` that
        ``turns`` does not hold, in key order (as one read of them all returns them)."""
        top = sorted(turns, key=_lexical_of, reverse=True)  # stable: ties in the order given
        order = self.order
        if (order is not None and len(top) > best and top[best].lexical > 0
                and top[best].lexical == top[best - 1].lexical and not order.exact):
            # Equals on both sides of the cut: which are read is the order's to say.
            top = sorted(order.restore(turns), key=_lexical_of, reverse=True)
        strong = [t for t in top[:best] if t.lexical > 0]
        origins, numbers = list(map(_origin_of, strong)), list(map(_place_of, strong))
        # (origin, turn ± d) of each strong turn, and then without the places of turns,
        # made in C (zip and map) rather than a tuple at a time.
        places: set[tuple[str, int]] = set()
        for d in range(-reach, reach + 1):
            if d:
                places.update(zip(origins, map(add, numbers, repeat(d)), strict=True))
        places.difference_update(zip(map(_origin_of, turns), map(_place_of, turns), strict=True))
        if not places:
            return []
        read = self.read
        missing = list(filterfalse(read.__contains__, places))
        if missing:
            missing.sort()
            found: dict[tuple[str, int], list[_Turn]] = {}
            for row in self.view.neighbour_turns(self.space, missing):
                found.setdefault((row.origin, row.turn), []).append(_Turn.of(row))
            for place in missing:
                read[place] = tuple(found.get(place, ()))
        # The places in any order: the turns are returned in key order (each turn has one place).
        out = list(chain.from_iterable(map(read.__getitem__, places)))
        out.sort(key=_key_of)
        return out


_read_of = attrgetter("read")
_counts_of = attrgetter("counts")
_size_of = attrgetter("size")
_lexical_of = attrgetter("lexical")
_key_of = attrgetter("key")
_origin_of = attrgetter("origin")
_place_of = attrgetter("turn")
_at_of = attrgetter("at")


def _with_alternatives(counts: dict[str, int], alts: dict[str, tuple[str, ...]]) -> dict[str, int]:
    """``counts`` with each question word that the turn holds only in another word
    counted as that word (the same turn's counts otherwise)."""
    found = {w: max(counts[a] for a in alt if a in counts) for w, alt in alts.items()
             if w not in counts and any(a in counts for a in alt)}
    return {**counts, **found} if found else counts


def lexical_pass(q: EpisodeQuery, turns: list[_Turn], named: frozenset[str], n_docs: int, p: EpisodeProfile,
                 known_df: dict[str, int] | None = None, related: dict[str, float] | None = None,
                 sources: frozenset[str] = frozenset()) -> None:
    """Lexical relevance, coverage and phrase bonus of each candidate (steps 2-4), in place.
    ``named``: the query terms that name a speaker, never matched in the text;
    ``known_df``: document counts of the space, when the candidates are a cut."""
    wanted = [strong_stem(term) for term in q.terms if term not in named]
    extra = {strong_stem(w): weight for w, weight in (related or {}).items() if strong_stem(w) not in wanted}
    known = known_df or {}
    reads = list(map(_read_of, turns))
    held = list(map(_counts_of, reads))
    alts = {strong_stem(t): tuple(strong_stem(a) for a in alt) for t, alt in q.alternatives if t not in named}
    if alts:
        # A turn holding another word for a question word holds it: counted as that word.
        held = [_with_alternatives(c, alts) for c in held]
    # Each word's turns counted in C (contains over every turn's counts), not a Python loop a turn.
    df = {w: max(sum(map(contains, held, repeat(w))), known.get(w, 0)) for w in {*wanted, *extra}}
    idf = {w: math.log(1 + (n_docs - df[w] + 0.5) / (df[w] + 0.5)) for w in df}
    unique = list(dict.fromkeys(wanted))
    total_idf = sum(idf[w] for w in unique) or 1.0
    avg_len = sum(map(_size_of, reads)) / len(turns)
    pairs = _query_pairs(q, named)
    no_pair = min(0, p.phrase_cap)  # what _phrase gives a turn holding no pair (the int 0)
    # _lexical() for each turn, inlined (the same operations in the same order): a call
    # per turn and the per-turn lookups of the constants were a third of this pass.
    k1, b, power = p.k1, p.b, p.coverage_power
    k1_1, base_b, avg = k1 + 1, 1 - p.b, avg_len or 1.0
    norms: dict[int, float] = {}  # the length norm of each turn length
    words = [(w, idf[w]) for w in unique]
    extras = [(w, weight, idf[w]) for w, weight in extra.items()]
    for turn, read, counts in zip(turns, reads, held, strict=True):
        size = read.size
        norm = norms.get(size)
        if norm is None:
            norm = norms[size] = k1 * (base_b + b * size / avg)
        score = covered = 0.0
        for w, weight in words:
            if w in counts:
                tf = counts[w]
                score += weight * tf * k1_1 / (tf + norm)
                covered += weight
        coverage = turn.coverage = covered / total_idf
        lexical = score * (0.5 + 0.5 * coverage ** power)
        lift = 0.0  # the related words' score
        # The turns the related words were read from are not lifted by their own words.
        if extras and turn.id not in sources:
            for w, weight, w_idf in extras:
                if w in counts:
                    tf = counts[w]
                    lift += weight * w_idf * tf * k1_1 / (tf + norm)
        turn.related = lift
        turn.lexical = lexical + lift * 0.5  # as a turn of no coverage: the related words are not the question
        if pairs:
            # _phrase's own first test, without the call for the many turns that fail it
            for first, then in pairs:
                if first in counts and then in counts:
                    turn.phrase = _phrase(read, pairs, idf, total_idf, p)
                    break
            else:
                turn.phrase = no_pair
        else:
            turn.phrase = 0.0


@dataclass(slots=True)
class ScoredTurn:
    """A turn's final score and the factors that made it (named and rounded by :meth:`result`)."""

    score: float
    turn: _Turn
    context: float
    speaker: float
    date: float
    when: float
    matched: bool
    updates: bool = False  # lifted above an earlier turn it says changed (:func:`_updates_first`)
    by_subject: bool = False  # spoken by the speaker the question is about (:func:`subject`)

    @property
    def id(self) -> str:
        return self.turn.id

    @property
    def coverage(self) -> float:
        """The ``coverage`` factor, as :meth:`result` names it (rounded)."""
        return round(self.turn.coverage, 4)

    def result(self) -> EpisodeScore:
        t = self.turn
        factors = {
            "lexical": round(t.lexical, 4), "coverage": round(t.coverage, 4), "phrase": round(t.phrase, 4),
            "context": round(self.context, 4), "speaker": self.speaker, "date": self.date, "time": round(self.when, 4),
            "matched": float(self.matched)}
        if self.updates:
            factors["update"] = 1.0
        if self.by_subject:
            factors["subject"] = 1.0
        return EpisodeScore(t.id, self.score, factors)


def final_scores(q: EpisodeQuery, turns: list[_Turn], named: frozenset[str], p: EpisodeProfile,
                 asked: Tense | None = None, as_of: datetime | None = None) -> list[EpisodeScore]:
    """Context, speaker, date and time on top of the lexical pass (steps 5-7); pure.

    A turn is ``matched`` when it holds a word of the question or was spoken by a speaker
    the question names; the others are here only to lend context to their neighbours."""
    return [s.result() for s in _final(q, turns, named, p, asked, as_of)]


def _final(q: EpisodeQuery, turns: list[_Turn], named: frozenset[str], p: EpisodeProfile,
           asked: Tense | None = None, as_of: datetime | None = None, matched_only: bool = False) -> list[ScoredTurn]:
    """:func:`final_scores` before naming the factors; ``matched_only``: the turns that
    only lend context are not scored (they are never handed out)."""
    return [_scored_turn(row) for row in _final_rows(q, turns, named, p, asked, as_of, matched_only)]


# A turn's final score as a row, made a ScoredTurn only if it is handed out (a pass scores
# ~120 turns and the ranker returns 48; the first pass hands out only its best three):
# (score, key, turn, context, speaker, date, when, matched, updates, by_subject).
_SCORE, _KEY, _TURN = 0, 1, 2
_row_score = itemgetter(_SCORE)
_row_key = itemgetter(_KEY)


def _scored_turn(row: tuple) -> ScoredTurn:
    return ScoredTurn(row[_SCORE], *row[_TURN:])


def _final_rows(q: EpisodeQuery, turns: list[_Turn], named: frozenset[str], p: EpisodeProfile,
                asked: Tense | None = None, as_of: datetime | None = None, matched_only: bool = False) -> list[tuple]:
    """:func:`_final`'s scores as rows (see :data:`_row_score`), in the order of ``turns``."""
    by_origin: dict[str, dict[int, _Turn]] = {}  # the turn at each place (the last given, if two)
    session_best: dict[tuple[str, str], float] = defaultdict(float)
    for t in turns:
        origin = t.origin
        places = by_origin.get(origin)
        if places is None:
            places = by_origin[origin] = {}
        places[t.turn] = t
        key = (origin, t.at[:10])
        if t.lexical > session_best[key]:  # max(), without the call
            session_best[key] = t.lexical
    gets = {origin: places.get for origin, places in by_origin.items()}
    about = subject(q, named)
    cutoff = format_time(as_of) if as_of is not None else None
    place = _time_places(turns, cutoff)
    cue = asked or (Tense.PRESENT if cutoff else None)
    when_asked = q.asks_time and p.when_boost
    dated = bool(q.months or q.years)
    lend, answer, second = p.neighbour_weight, p.answer_weight, p.second_weight
    session_weight, feedback_matches, floor = p.session_weight, p.feedback_matches, p.speaker_floor
    # What depends on the speaker alone, and on the time said alone, once for each (LoCoMo:
    # two speakers, one time per session); the factors are the same numbers, multiplied
    # in the same order, as if each turn worked them out.
    speakers: dict[str, tuple[bool, float, bool]] = {}
    times: dict[str, tuple[str, float, bool, float]] = {}
    out = []
    for t in turns:
        said = speakers.get(t.speaker)
        if said is None:
            said_by = frozenset(t.speaker.split())
            speaker = 1.0
            if about in said_by:
                speaker += p.speaker_boost
            elif not named.isdisjoint(said_by):
                speaker += p.speaker_boost * p.other_speaker_share
            said = speakers[t.speaker] = (not named.isdisjoint(said_by), speaker, about in said_by)
        by_named, speaker, by_subject = said
        matched = t.coverage > 0 or by_named or (feedback_matches and t.related > 0)
        if matched_only and not matched:
            continue
        base = t.lexical * (1 + t.phrase)
        if base == 0 and by_named:
            base = floor  # the speaker's own turn, when the words found too few
        origin, turn, at = t.origin, t.turn, t.at
        near = gets[origin]
        known = times.get(at)
        if known is None:
            later = cutoff is not None and at > cutoff
            known = times[at] = (
                at[:10],
                1 + p.date_boost if dated and _date_named(q, at) else 1.0,
                # said on the very day the question names
                bool(q.days) and len(at) >= 10 and (int(at[5:7]), int(at[8:10])) in q.days,
                p.after_as_of if later else time_factor(place.get(at, 0.5), cue, p.time_weight))
        day, date, on_day, when = known
        # The best share a neighbour lends (max() of the shares; every share is >= 0, so
        # none lent is 0.0 and which of equal shares is kept changes no number).
        best = 0.0
        n = near(turn - 1)
        if n is not None:
            best = lend * n.lexical
            if n.read.asks and answer * n.lexical > best:
                best = answer * n.lexical  # the reply to a question lends more
        n = near(turn + 1)
        if n is not None and lend * n.lexical > best:
            best = lend * n.lexical
        n = near(turn - 2)
        if n is not None and second * n.lexical > best and (n.at == at or n.at[:10] == day):
            best = second * n.lexical
        n = near(turn + 2)
        if n is not None and second * n.lexical > best and (n.at == at or n.at[:10] == day):
            best = second * n.lexical
        context = best + session_weight * session_best[(origin, day)]
        if when_asked and t.read.when:
            date *= 1 + p.when_boost
        if on_day:
            date *= 1 + p.day_boost
        score = (base + context) * speaker * date * when
        if score > 0:
            out.append((score, t.key, t, context, speaker, date, when, matched, False, by_subject))
    if cue is Tense.PRESENT and p.update_lift:
        _updates_first(out, q, named, cutoff, p.update_lift)
    return out


def _updates_first(scored: list[tuple], q: EpisodeQuery, named: frozenset[str], cutoff: str | None,
                   lift: float) -> None:
    """Asked in the present tense, a turn that says something changed (:func:`says_change`:
    "the airline moved our flight, we now leave on the 16th", "the offsite moves to Braga
    instead") and holds a word of the question that an earlier, stronger turn of the same
    speaker in the same conversation holds too, takes that turn's place, just above it
    (×(1 + ``lift``)): it updates what the earlier turn said, although it seldom repeats
    the earlier turn's names ("Lisbon"). A turn said after ``cutoff`` (``--as-of``) is
    never lifted. In place, on :func:`_final_rows`' rows; a lifted turn's ``update`` factor is 1.
    """
    wanted = {strong_stem(t) for t in q.terms if t not in named}
    by_origin: dict[str, list[int]] = defaultdict(list)  # each conversation's rows, by index
    for i, row in enumerate(scored):
        by_origin[row[_TURN].origin].append(i)
    for group in by_origin.values():
        if len(group) < 2 or not any(scored[i][_TURN].read.changes for i in group):
            continue  # no turn of it says something changed: none is lifted
        group.sort(key=lambda i: scored[i][_TURN].turn)
        for n, i in enumerate(group):
            later = scored[i]
            t = later[_TURN]
            if not t.read.changes or (cutoff is not None and t.at > cutoff):
                continue
            topic = wanted.intersection(t.read.counts)
            if not topic:
                continue
            # The earlier rows as they stand now: one lifted before this one counts lifted.
            best = max((scored[j][_SCORE] for j in group[:n] if scored[j][_TURN].speaker == t.speaker
                        and not topic.isdisjoint(scored[j][_TURN].read.counts)), default=0.0)
            if best > later[_SCORE]:
                scored[i] = (best * (1 + lift), *later[1:8], True, later[9])


_ASKING = frozenset("what how why which where who".split())


def _time_places(turns: list[_Turn], cutoff: str | None) -> dict[str, float]:
    """The place in time of each time said by ``cutoff`` among the candidates (0 =
    earliest, 1 = latest); a time not listed (none, or after the cutoff, or all said at
    once) is at 0.5."""
    said = set(map(_at_of, turns))  # made in C; the filter then runs once per time, not per turn
    times = sorted(at for at in said if at and (cutoff is None or at <= cutoff))
    return {at: i / (len(times) - 1) for i, at in enumerate(times)} if len(times) > 1 else {}


def _lexical(turn: _Turn, wanted: list[str], idf: dict, total_idf: float, avg_len: float, p,
             extra: dict[str, float] | None = None) -> None:
    """BM25 and coverage of one turn over the ``wanted`` stems (each once, in order)."""
    read = turn.read
    counts = read.counts
    k1 = p.k1
    norm = k1 * (1 - p.b + p.b * read.size / (avg_len or 1.0))
    score = covered = 0.0
    for w in wanted:
        if w in counts:
            tf = counts[w]
            score += idf[w] * tf * (k1 + 1) / (tf + norm)
            covered += idf[w]
    coverage = turn.coverage = covered / total_idf
    lexical = score * (0.5 + 0.5 * coverage ** p.coverage_power)
    related = 0.0
    if extra:
        for w, weight in extra.items():
            if w in counts:
                tf = counts[w]
                related += weight * idf[w] * tf * (k1 + 1) / (tf + norm)
    turn.related = related
    turn.lexical = lexical + related * 0.5  # as a turn of no coverage: the related words are not the question


def _query_pairs(q: EpisodeQuery, named: frozenset[str]) -> list[tuple[str, str]]:
    """Adjacent query words, neither a stopword nor a speaker's name."""
    seq = q.sequence
    out = []
    for a, b in pairwise(seq):
        if a in STOPWORDS or b in STOPWORDS or a in named or b in named:
            continue
        out.append((strong_stem(a), strong_stem(b)))
    return out


def _phrase(doc: _Text, pairs, idf: dict, total_idf: float, p) -> float:
    if not pairs:
        return 0.0
    counts = doc.counts
    # Pairs are looked for in order only in a turn that holds both words of one.
    for a, b in pairs:
        if a in counts and b in counts:
            break
    else:
        return min(0, p.phrase_cap)  # what the sum of no bonus gives (the int 0, as explain shows it)
    adjacent = set(pairwise(doc.stems))
    bonus = sum(p.phrase_bonus * (idf.get(a, 0) + idf.get(b, 0)) / total_idf for a, b in pairs if (a, b) in adjacent)
    return min(bonus, p.phrase_cap)


def _date_named(q: EpisodeQuery, at: str) -> bool:
    if not (q.months or q.years) or len(at) < 7:
        return False
    year, month = int(at[:4]), int(at[5:7])
    return (not q.years or year in q.years) and (not q.months or month in q.months)


_WHEN_WORDS = frozenset(stem(w) for w in """yesterday tomorrow tonight today ago recently lately week weekend month year
    monday tuesday wednesday thursday friday saturday sunday spring summer autumn fall winter since""".split()) | frozenset(
    stem(m) for m in MONTHS)


# Words that say a statement replaces an earlier one ("moved", "switched", "instead",
# "rescheduled", "not ... anymore", "scratch that"). Looser words were measured and left
# out: "now", "actually", "change" and "update" are everyday filler in conversation, and
# lifting the turns holding them cost LoCoMo dev 1-6 points of any@5.
_CHANGE_WORDS = frozenset(stem(w) for w in """moved switched instead rescheduled anymore scratch replaced
    postponed cancelled canceled""".split())


def says_change(terms: list[str]) -> bool:
    """The turn says that something changed (an update of an earlier statement)."""
    return any(term in _CHANGE_WORDS for term in terms)


def says_when(terms: list[str]) -> bool:
    """The turn names a time: a relative day ("yesterday", "last week"), a weekday, a season, a month, a year."""
    return any(term in _WHEN_WORDS or _YEAR_RE.match(term) for term in terms)

