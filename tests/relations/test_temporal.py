"""The pure temporal policy: not-valid-at, past-state, checkpoint-passed (docs/time.md)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from cairn.model import Kind, Memory
from cairn.policy.temporal import TemporalStatus, temporal_status

T = lambda y, m=1, d=1: datetime(y, m, d, tzinfo=UTC)  # noqa: E731
NOW = T(2026, 6, 1)
BASE = Memory(id="m1", space="s", origin="", kind=Kind.FACT, content="The office is in Lyon",
              created_at=T(2025), updated_at=T(2025))


def status(as_of=None, now=NOW, **fields) -> TemporalStatus:
    return temporal_status(replace(BASE, **fields), now=now, as_of=as_of)


def test_no_interval_no_checkpoint_is_neutral_at_any_time():
    for as_of in (None, T(1990), T(2025), T(2090)):
        assert status(as_of) == TemporalStatus(None, ())


@pytest.mark.parametrize(
    ("valid_from", "valid_to", "as_of", "excluded"),
    [
        (T(2020), T(2022), T(2021), False),
        (T(2020), T(2022), T(2020), False),  # closed interval: both ends hold
        (T(2020), T(2022), T(2022), False),
        (T(2020), T(2022), T(2019), True),
        (T(2020), T(2022), T(2023), True),
        (None, T(2022), T(1900), False),  # open start
        (T(2020), None, T(2090), False),  # open end
        (T(2020), None, T(2019, 12, 31), True),
    ],
)
def test_not_valid_at_only_outside_the_interval(valid_from, valid_to, as_of, excluded):
    got = status(as_of, valid_from=valid_from, valid_to=valid_to)
    assert got.exclusion == ("not-valid-at" if excluded else None)
    assert status(None, valid_from=valid_from, valid_to=valid_to).exclusion is None  # no as_of: never excluded


def test_past_state_when_validity_ended_before_now():
    assert status(valid_to=T(2026, 1, 1)).markers == ("past-state",)
    assert status(valid_to=T(2026, 12, 1)).markers == ()  # negative control: still holds
    assert status(valid_to=NOW).markers == ()  # ends exactly now: still holds
    assert status(T(2025, 6, 1), valid_to=T(2026, 1, 1)).markers == ()  # as of a time it held


def test_checkpoint_passed_without_later_confirmation():
    cp = T(2026, 3, 1)
    assert status(expected_resolution_at=cp).markers == ("checkpoint-passed",)
    assert status(expected_resolution_at=T(2026, 9, 1)).markers == ()  # not reached
    assert status(expected_resolution_at=cp, last_confirmed_at=T(2026, 4, 1)).markers == ()  # confirmed after
    assert status(expected_resolution_at=cp, last_confirmed_at=T(2026, 2, 1)).markers == ("checkpoint-passed",)
    assert status(T(2026, 2, 1), expected_resolution_at=cp).markers == ()  # as_of before the checkpoint
    assert status(expected_resolution_at=cp).exclusion is None  # a note, never a removal


def test_both_markers_together():
    got = status(valid_to=T(2026, 2, 1), expected_resolution_at=T(2026, 1, 1))
    assert got == TemporalStatus(None, ("past-state", "checkpoint-passed"))
