"""``cairn.model.parse_enum``: the one reader of closed vocabularies, and its error."""

from __future__ import annotations

import pytest

from cairn.model import Basis, Kind, UnknownValue, parse_enum


def test_a_spelling_or_a_member_reads_as_the_member():
    assert parse_enum(Kind, "decision", "kind") is Kind.DECISION
    assert parse_enum(Kind, Kind.FACT, "kind") is Kind.FACT


@pytest.mark.parametrize("value", ["Decision", " fact", "", None, 3, ["fact"]])
def test_anything_else_is_an_unknown_value_naming_the_accepted_spellings(value):
    with pytest.raises(UnknownValue) as caught:
        parse_enum(Kind, value, "kind")
    assert caught.value.allowed == tuple(k.value for k in Kind)
    assert str(caught.value) == f"unknown kind {value!r} (one of: {', '.join(k.value for k in Kind)})"


def test_allowed_narrows_the_members_accepted():
    allowed = (Basis.SUMMARY, Basis.USER_STATEMENT)
    assert parse_enum(Basis, "summary", "basis", allowed=allowed) is Basis.SUMMARY
    with pytest.raises(UnknownValue) as caught:
        parse_enum(Basis, "tool_observation", "basis", allowed=allowed)  # a member, but not allowed here
    assert caught.value.allowed == ("summary", "user_statement")
