"""The tense of a question and the bounded time factor it gives (recall/tense.py)."""

from __future__ import annotations

import pytest

from cairn.recall.tense import Tense, tense, time_factor


@pytest.mark.parametrize(("query", "expected"), [
    ("where does Ana work", Tense.PRESENT),
    ("what car is Ana driving", Tense.PRESENT),
    ("where did Ana work", Tense.PAST),
    ("where was the meeting held", Tense.PAST),
    ("where did Ana work now", Tense.PRESENT),  # an adverb outweighs the auxiliary
    ("which car does Ana drive previously", Tense.PAST),
    ("what job Ana used to have", Tense.PAST),
    ("what does Ana use to paint", Tense.PRESENT),  # control: "use to" is no "used to"
    ("Ana's cat", None),  # no cue, no preference
    ("Ana 的猫", None),
])
def test_tense_of_a_question(query, expected):
    assert tense(query) is expected


def test_time_factor_is_bounded_and_follows_the_tense():
    assert time_factor(1.0, Tense.PRESENT, 0.2) == pytest.approx(1.2)
    assert time_factor(0.0, Tense.PRESENT, 0.2) == pytest.approx(1.0)
    assert time_factor(0.0, Tense.PAST, 0.2) == pytest.approx(1.2)
    assert time_factor(1.0, Tense.PAST, 0.2) == pytest.approx(1.0)
    assert time_factor(0.7, None, 0.2) == 1.0  # control: no cue, no effect
