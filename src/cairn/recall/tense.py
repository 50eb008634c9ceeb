"""Which state of a changing fact a question asks for: the present one or an earlier one.

A conversation may state a fact and later change it (a new job, a moved date). Among
turns that answer a question equally well, the time a turn was said is evidence of
which state it describes: a question in the present tense ("where does Ana work",
"… now") wants the later statement, one in the past tense ("where did Ana work",
"… used to …", "previously") the earlier one. A question with no tense cue states no
preference.

:func:`tense` reads the cue, :func:`time_factor` turns a turn's place in time into a
bounded factor. Pure; English cue words only (other languages get no preference).
"""

from __future__ import annotations

from enum import Enum

from ..text import tokenize


class Tense(Enum):
    PRESENT = "present"
    PAST = "past"


# Adverbs decide first: "where did Ana work now" asks about now.
_PRESENT_ADVERBS = frozenset("now currently current today nowadays still anymore presently".split())
_PAST_ADVERBS = frozenset("previously formerly originally earlier before ago former initially".split())
# Otherwise the first auxiliary verb decides.
_PRESENT_AUX = frozenset("do does is are am has have".split())
_PAST_AUX = frozenset("did was were had".split())


def tense(query: str) -> Tense | None:
    """The tense a question is asked in, from its cue words (None: no cue)."""
    words = [t.surface for t in tokenize(query)]
    if any(w in _PRESENT_ADVERBS for w in words):
        return Tense.PRESENT
    if any(w in _PAST_ADVERBS for w in words) or _used_to(words):
        return Tense.PAST
    for word in words:
        if word in _PRESENT_AUX:
            return Tense.PRESENT
        if word in _PAST_AUX:
            return Tense.PAST
    return None


def _used_to(words: list[str]) -> bool:
    return any(a == "used" and b == "to" for a, b in zip(words, words[1:], strict=False))


def time_factor(place: float, asked: Tense | None, weight: float) -> float:
    """``1 + weight·place`` for the present tense (place 1 = the latest candidate turn),
    ``1 + weight·(1 − place)`` for the past tense, 1 without a cue. Bounded by
    ``1 + weight``, so time orders turns of about equal relevance and never lifts an
    unrelated turn over a relevant one."""
    if asked is Tense.PRESENT:
        return 1.0 + weight * place
    if asked is Tense.PAST:
        return 1.0 + weight * (1.0 - place)
    return 1.0
